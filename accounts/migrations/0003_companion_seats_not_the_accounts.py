"""A seat of a companion at an account's device is not the account's own seat.

Counting a game marked every seat of an account's browser with the account (``Player.user``),
though only its first was its record: signing in and deleting the account then took the
companions' seats for its own. The mark goes from every seat whose record is nobody's.
"""

from django.db import migrations


def unmark(apps, schema_editor):
    Player = apps.get_model("games", "Player")
    GameRecord = apps.get_model("accounts", "GameRecord")
    nobodys = GameRecord.objects.filter(user__isnull=True).values("player_id")
    Player.objects.filter(user__isnull=False, pk__in=nobodys).update(user=None)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_profile_language"),
        ("games", "0022_player_left_controller"),
    ]

    operations = [migrations.RunPython(unmark, migrations.RunPython.noop)]
