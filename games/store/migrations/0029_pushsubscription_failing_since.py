"""Since when every push to a subscription has failed: the sweep deletes one that has failed for long."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0028_chat_spectator_controller_index'),
    ]

    operations = [
        migrations.AddField(
            model_name='pushsubscription',
            name='failing_since',
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
