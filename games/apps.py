from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from games import botplay, fanout, sockets, turnclock
        from yahtzee import checks, layers  # noqa: F401 - checks registers the deploy checks

        # Computer players: each process plays a bot's turn when it hears the state that
        # asks for it (see games.botplay). The fan-out itself only carries frames.
        fanout.on_state(botplay.heard)
        # When Redis comes back, what other processes relayed meanwhile is lost: resync.
        fanout.on_relay_back(sockets.resync)
        layers.on_resubscribed(fanout.relay_returned)
        # The turn timer: each process with a socket in the room enforces the deadline (games.turnclock).
        fanout.on_state(turnclock.heard)
