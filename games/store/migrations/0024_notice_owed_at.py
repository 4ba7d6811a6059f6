"""Each notice keeps when its turn became the player's (``owed_at``): a room page of theirs shown
since then drops its "your turn". A notice written before reads as owed now: only a page shown
after the upgrade drops it."""

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0023_presence_hidden_since"),
    ]

    operations = [
        migrations.AddField(
            model_name="notice",
            name="owed_at",
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
    ]
