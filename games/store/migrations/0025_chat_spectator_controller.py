"""A spectator's chat message keeps the browser that posted it (``ChatMessage.controller``): the host
mutes a spectator by one of their lines. Messages posted before have none, and offer no mute."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0024_notice_owed_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="chatmessage",
            name="controller",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
    ]
