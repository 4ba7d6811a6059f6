"""Each account's name in capitals as names are compared (AccountName.capitals), unique as its
skeleton is. Nullable: the release before writes rows without it while the upgrade runs, and a
null is no name (accounts.services.account_names_complete fills it in)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0009_account_names_of_every_account"),
    ]

    operations = [
        migrations.AddField(
            model_name="accountname",
            name="capitals",
            field=models.TextField(blank=True, db_index=True, null=True),
        ),
        migrations.AddConstraint(
            model_name="accountname",
            constraint=models.UniqueConstraint(
                condition=models.Q(("reads_as_older", False)),
                fields=("capitals",),
                name="one_account_a_name_in_capitals",
            ),
        ),
    ]
