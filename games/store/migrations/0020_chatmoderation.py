"""Staff's hides and shows of chat messages, kept with the messages (ChatModeration).

The admin's log (Django's LogEntry) is deleted with the staff account that acted: the
hides and shows it holds now are copied, with the staff account's username.
"""

import django.db.models.deletion
import django.utils.timezone
from django.contrib.auth import get_user_model
from django.db import migrations, models

HIDDEN, SHOWN = "Hidden from the room", "Shown in the room again"  # the admin's messages (games/web/admin.py)


def _number(text: str) -> bool:
    """Whether an admin log's object id is a primary key: ASCII digits only (str.isdigit() takes a
    superscript two too, which int() refuses)."""
    return text.isascii() and text.isdigit()


def from_admin_log(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    LogEntry = apps.get_model("admin", "LogEntry")
    ChatMessage = apps.get_model("games", "ChatMessage")
    ChatModeration = apps.get_model("games", "ChatModeration")
    kind = ContentType.objects.filter(app_label="games", model="chatmessage").first()
    if kind is None:
        return
    entries = (
        LogEntry.objects.filter(content_type=kind, change_message__in=(HIDDEN, SHOWN))
        .select_related("user")
        .order_by("action_time", "id")
    )
    username = get_user_model().USERNAME_FIELD
    ids = {entry.object_id for entry in entries}
    messages = set(
        ChatMessage.objects.filter(pk__in=[int(pk) for pk in ids if _number(pk)]).values_list("pk", flat=True)
    )
    ChatModeration.objects.bulk_create(
        [
            ChatModeration(
                message_id=int(entry.object_id),
                hidden=entry.change_message == HIDDEN,
                staff=getattr(entry.user, username),
                at=entry.action_time,
            )
            for entry in entries
            if _number(entry.object_id) and int(entry.object_id) in messages
        ],
        batch_size=500,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0019_moves_former_player"),
        ("admin", "0003_logentry_add_action_flag_choices"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.CreateModel(
            name="ChatModeration",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("hidden", models.BooleanField()),
                ("staff", models.CharField(max_length=150)),
                ("at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "message",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="moderations",
                        to="games.chatmessage",
                    ),
                ),
            ],
            options={"ordering": ["message", "at", "id"]},
        ),
        migrations.RunPython(from_admin_log, migrations.RunPython.noop),
    ]
