from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        # The admin's pages live with the other pages (games/web/); Django's autodiscovery
        # looks only for games.web.admin.
        from games import scheduling
        from games.realtime import broadcast, fanout, sockets, transport
        from games.services import events
        from games.web import admin  # noqa: F401
        from yahtzee import checks  # noqa: F401 - checks registers the deploy checks

        # Computer players' steps, turn deadlines and a finished game's follow-ups: the
        # scheduler hears of each committed action and acts when the room is next due.
        events.on_committed(broadcast.committed)
        events.on_told(broadcast.told)
        events.on_gone(broadcast.gone)
        events.on_committed(scheduling.committed)
        # When Redis comes back, what other processes relayed meanwhile is lost: resync.
        fanout.on_relay_back(sockets.resync)
        transport.on_resubscribed(fanout.relay_returned)
        # A test's reset of the transport ends the scheduler's timers on its event loop too.
        transport.on_reset(scheduling.reset)
