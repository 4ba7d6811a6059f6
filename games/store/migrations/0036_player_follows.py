# Whether a seat's person follows its game: a rematch's seats carried over for others do once they open it.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0035_notice_kind_over'),
    ]

    operations = [
        migrations.AddField(
            model_name='player',
            name='follows',
            field=models.BooleanField(db_default=True, default=True),
        ),
    ]
