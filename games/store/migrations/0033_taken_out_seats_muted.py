"""Seats the host took out of a game still being played, stored before a take-out muted its seat,
are muted now, so the host can let their players speak again.

A player the host takes out reads the chat and posts no more as a spectator until the host's last
word on that seat is an unmute (games.store.selectors.silenced). The take-out mutes the seat, so
its line in the Players list offers *Unmute chat*; a seat taken out before it did has no mute to
lift, and its player stayed silent until the game ended. Each such seat of a game in play is muted
as the take-out mutes one now (no ``mute`` Move: a rematch carries the host's own mutes, not a
take-out's): not one the host unmuted or muted since (their word is the last), nor a finished
game's (its chat is its players' alone, and one who left posts no more there anyway).

Games are changed in batches, each row under its lock with its version moved on, as any write
to a room's row outside the services must: a serving process of the release before, still
running while this one runs, reads the row again instead of writing its old copy back.
"""

from django.db import migrations, transaction

BATCH = 200  # games changed in one transaction


def mute_taken_out(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    Move = apps.get_model("games", "Move")
    removed = Move.objects.filter(kind="remove", game__status="playing")
    codes = sorted(set(removed.values_list("game_id", flat=True)))
    for start in range(0, len(codes), BATCH):
        with transaction.atomic():
            games = Game.objects.select_for_update().filter(pk__in=codes[start : start + BATCH], status="playing")
            for game in games.order_by("pk"):
                _mute_in(game, Move)


def _mute_in(game, Move):
    snapshot = game.snapshot if isinstance(game.snapshot, dict) else {}
    seats = snapshot.get("seats")
    if not isinstance(seats, list):  # no seats, or not of a shape the code writes: not this migration's to mend
        return
    said = Move.objects.filter(game=game, kind__in=("remove", "mute"), player__isnull=False).order_by("seq")
    last: dict[int, str] = {}  # each player's last word of the host's: a take-out or a (un)mute
    for kind, player in said.values_list("kind", "player_id"):
        last[player] = kind
    changed = False
    new_seats = []
    for seat in seats:
        # A seat not of the shape the code writes is kept as it is: the room's other seats are still read.
        given_up = isinstance(seat, dict) and (seat.get("status") == "left" or bool(seat.get("left_controller")))
        if given_up and not seat.get("muted") and last.get(seat.get("player")) == "remove":
            seat = {**seat, "muted": True}
            changed = True
        new_seats.append(seat)
    if changed:
        game.snapshot = {**snapshot, "seats": new_seats}
        game.version += 1
        game.save(update_fields=["snapshot", "version"])


class Migration(migrations.Migration):
    atomic = False  # a transaction per batch: a site with many games in play is not locked whole

    dependencies = [("games", "0032_game_due_failures")]

    operations = [migrations.RunPython(mute_taken_out, migrations.RunPython.noop)]
