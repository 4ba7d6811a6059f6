"""Every column a migration added since the first release has a default in the database
(``db_default``): code of the release before, still serving while a migration runs, inserts rows
that do not name a column it does not know, and the database must fill it (docs/deploy.md,
"Upgrading"). Only the columns' defaults change: PostgreSQL rewrites no row."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_companion_seats_not_the_accounts"),
    ]

    operations = [
        migrations.AlterField(
            model_name="profile",
            name="language",
            field=models.CharField(
                blank=True,
                choices=[
                    ("en", "English"),
                    ("da", "Dansk"),
                    ("sv", "Svenska"),
                    ("de", "Deutsch"),
                    ("fr", "Français"),
                    ("es", "Español"),
                ],
                db_default="",
                default="",
                max_length=8,
            ),
        ),
    ]
