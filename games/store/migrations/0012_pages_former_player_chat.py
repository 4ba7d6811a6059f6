"""Chat messages of a deleted account's seats, posted before deletions renamed them, read "Former player".

A deleted account's seats are renamed "Former player" (games.services.seats_forget), and
from now on its chat messages with them; this renames the messages of the accounts deleted
before. A seat named so keeps that name, so its messages can only have said it too.
"""

from django.db import migrations

FORMER_PLAYER = "Former player"


def rename(apps, schema_editor):
    ChatMessage = apps.get_model("games", "ChatMessage")
    ChatMessage.objects.filter(player__name=FORMER_PLAYER).exclude(name=FORMER_PLAYER).update(name=FORMER_PLAYER)


class Migration(migrations.Migration):
    dependencies = [("games", "0011_ownpace_pace_and_notices")]

    operations = [migrations.RunPython(rename, migrations.RunPython.noop)]
