"""When a push service said a subscription is gone: kept as such, so a browser that still holds it is
told to make a new one rather than having it stored anew."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0030_game_never_started'),
    ]

    operations = [
        migrations.AddField(
            model_name='pushsubscription',
            name='gone_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
