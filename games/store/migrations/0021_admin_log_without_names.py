"""The admin's log (Django's LogEntry) names no player: a deleted account's name is withdrawn
from its games (games.services.seats_forget) but was left in the entries written before.

More time to move was logged as "Gave <name> <time> more to move (until <deadline>)", now
"Gave the player to move (seat <n>) <time> more (until <deadline>)": an entry is worded so again,
its seat read from the game's ``extend`` Move of the same deadline. A chat message was logged
under "<code>: <name>: <text>", now "<code>: <text>".
"""

import re

from django.db import migrations

EXTENDED = re.compile(r"^Gave .* (\S+ \S+) more to move \(until ([^()]*)\)$", re.S)


def _number(text: str) -> bool:
    """Whether an admin log's object id is a primary key: ASCII digits only (str.isdigit() takes a
    superscript two too, which int() refuses)."""
    return text.isascii() and text.isdigit()


def withdraw(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    LogEntry = apps.get_model("admin", "LogEntry")
    Move = apps.get_model("games", "Move")
    ChatMessage = apps.get_model("games", "ChatMessage")
    games = ContentType.objects.filter(app_label="games", model__in=("game", "gameunderway"))
    changed = []
    for entry in LogEntry.objects.filter(content_type__in=games, change_message__startswith="Gave "):
        found = EXTENDED.match(entry.change_message)
        if found is None or not _number(entry.object_id):
            continue
        more, until = found.groups()
        extends = Move.objects.filter(game_id=int(entry.object_id), kind="extend").values_list("payload", flat=True)
        seat = next((p.get("seat") for p in extends if isinstance(p, dict) and p.get("deadline") == until), None)
        player = f" (seat {seat + 1})" if isinstance(seat, int) else ""
        entry.change_message = f"Gave the player to move{player} {more} more (until {until})"
        changed.append(entry)
    LogEntry.objects.bulk_update(changed, ["change_message"], batch_size=500)
    chat = ContentType.objects.filter(app_label="games", model="chatmessage").first()
    if chat is None:
        return
    entries = list(LogEntry.objects.filter(content_type=chat))
    ids = [int(entry.object_id) for entry in entries if _number(entry.object_id)]
    messages = {m.pk: m for m in ChatMessage.objects.filter(pk__in=ids).select_related("game")}
    renamed = []
    for entry in entries:
        message = messages.get(int(entry.object_id)) if _number(entry.object_id) else None
        if message is not None:
            entry.object_repr = f"{message.game.code}: {message.text[:40]}"[:200]
            renamed.append(entry)
    LogEntry.objects.bulk_update(renamed, ["object_repr"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0020_chatmoderation"),
        ("admin", "0003_logentry_add_action_flag_choices"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(withdraw, migrations.RunPython.noop)]
