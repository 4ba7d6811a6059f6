"""An index of the rooms never started by their age: the sweep of those left unused reads them alone,
not every game played or given up."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0029_pushsubscription_failing_since'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='game',
            index=models.Index(condition=models.Q(('started_at__isnull', True)), fields=['created_at'], name='game_never_started'),
        ),
    ]
