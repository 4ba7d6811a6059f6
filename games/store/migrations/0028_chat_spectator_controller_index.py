"""An index of the spectators' chat lines by their browser's token: a browser signing in finds the
rooms it spoke in as a spectator (its mutes follow it to the account) without reading the whole chat."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0027_columns_default_in_the_database'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='chatmessage',
            index=models.Index(condition=models.Q(('seat__isnull', True)), fields=['controller'], name='chat_spectator_controller'),
        ),
    ]
