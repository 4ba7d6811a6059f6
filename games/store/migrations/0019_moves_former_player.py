"""Log entries of a deleted account's seats, written before deletions withdrew them, read "Former player".

A deleted account's seats are renamed "Former player" (games.services.seats_forget), and
from then on the Move log's entries that name them (its join, its timeouts, a computer
taking over its seat...); this renames the entries of the accounts deleted before. A seat
named so keeps that name, so every name its entries give was the account's.
"""

from django.db import migrations

FORMER_PLAYER = "Former player"
# Rolls, holds and scores are most of a log and never carry a name.
UNNAMED = ("roll", "hold", "score")


def rename(apps, schema_editor):
    Move = apps.get_model("games", "Move")
    named = Move.objects.filter(player__name=FORMER_PLAYER).exclude(kind__in=UNNAMED)
    moves = []
    for move in named.iterator():
        payload = move.payload
        if isinstance(payload, dict) and "name" in payload and payload["name"] != FORMER_PLAYER:
            move.payload = {**payload, "name": FORMER_PLAYER}
            moves.append(move)
    Move.objects.bulk_update(moves, ["payload"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("games", "0018_noticesettings_pending_at")]

    operations = [migrations.RunPython(rename, migrations.RunPython.noop)]
