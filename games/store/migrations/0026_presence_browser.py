"""A socket's Presence row keeps its browser session's mark (``Presence.browser``): signing out finds
that browser's sockets among those of the account's other browsers. Rows written before have none."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0025_chat_spectator_controller"),
    ]

    operations = [
        migrations.AddField(
            model_name="presence",
            name="browser",
            field=models.CharField(blank=True, default="", max_length=32),
        ),
    ]
