"""Seats the host took out of a game, stored before a seat kept that it was taken out, are marked so
(``taken_out``): the game-over list and the shared result say "taken out" for them, not "left".

The room's Move log says which seats the host took out (a ``remove`` Move names the seat's player);
each such seat of a game that started is marked, whatever the game's status: a finished game's list
is read long after its end.

Games are changed in batches, each row under its lock with its version moved on, as any write
to a room's row outside the services must: a serving process of the release before, still
running while this one runs, reads the row again instead of writing its old copy back.
"""

from django.db import migrations, transaction

BATCH = 200  # games changed in one transaction


def mark_taken_out(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    Move = apps.get_model("games", "Move")
    codes = sorted(set(Move.objects.filter(kind="remove").values_list("game_id", flat=True)))
    for start in range(0, len(codes), BATCH):
        with transaction.atomic():
            games = Game.objects.select_for_update().filter(pk__in=codes[start : start + BATCH])
            for game in games.order_by("pk"):
                _mark_in(game, Move)


def _mark_in(game, Move):
    snapshot = game.snapshot if isinstance(game.snapshot, dict) else {}
    seats = snapshot.get("seats")
    if not isinstance(seats, list):  # no seats, or not of a shape the code writes: not this migration's to mend
        return
    removed = set(Move.objects.filter(game=game, kind="remove", player__isnull=False).values_list("player_id", flat=True))
    changed = False
    new_seats = []
    for seat in seats:
        # A seat not of the shape the code writes is kept as it is: the room's other seats are still read.
        if isinstance(seat, dict) and seat.get("player") in removed and not seat.get("taken_out"):
            seat = {**seat, "taken_out": True}
            changed = True
        new_seats.append(seat)
    if changed:
        game.snapshot = {**snapshot, "seats": new_seats}
        game.version += 1
        game.save(update_fields=["snapshot", "version"])


class Migration(migrations.Migration):
    atomic = False  # a transaction per batch: a site with many games is not locked whole

    dependencies = [("games", "0033_taken_out_seats_muted")]

    operations = [migrations.RunPython(mark_taken_out, migrations.RunPython.noop)]
