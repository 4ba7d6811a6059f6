from django.urls import path

from games.realtime.limits import NOTICES, ROOM_CREATE, ROOM_JOIN, ROOM_MISS
from games.web import i18n, views
from games.web.limits import View, cross_site_refused, limited

# Per-client limits on what makes rows (rooms, seats, notices), and on guessing room codes (games/realtime/limits.py):
# every URL that looks a room up by its code counts a code that does not exist.
create_limit = limited(ROOM_CREATE)
join_limit = limited(ROOM_JOIN)
notices_limit = limited(NOTICES)
miss_limit = limited(ROOM_MISS, only_status=404, per_address=True, exempt=views.seat_holder)
# The home page's field for a code: a code it does not find is a miss too (its own room's is let through).
find_limit = limited(ROOM_MISS, only_status=404, per_address=True, exempt=views.found_seat_holder)


def room_lookup(view: View) -> View:
    """A URL that looks a room up by its code: counted against the miss limit (a browser with a seat
    in the room goes through over it), and never fetched for another site's page."""
    return cross_site_refused(miss_limit(view))


# A room the sweeps delete between a posting view's lookup and its service: as any unknown room.
room_gone = views.room_gone_is_404


urlpatterns = [
    path("", views.home, name="home"),
    path("rooms/new", create_limit(views.room_create), name="room_create"),
    path("rooms/find", cross_site_refused(find_limit(views.room_find)), name="room_find"),
    path("games", views.my_games, name="my_games"),
    path("notices/email", notices_limit(views.notices_email), name="notices_email"),
    path("notices/email/confirm/<str:token>", views.notices_email_confirm, name="notices_email_confirm"),
    path("notices/push", notices_limit(views.notices_push), name="notices_push"),
    path("notices/push/renew", notices_limit(views.notices_push_renew), name="notices_push_renew"),
    path("notices/push/remove", notices_limit(views.notices_push_remove), name="notices_push_remove"),
    path("notices/stop/<str:token>", views.notices_stop, name="notices_stop"),
    path("sw.js", views.service_worker, name="service_worker"),
    path("manifest.webmanifest", views.manifest, name="manifest"),
    path("jsi18n/<str:language>.js", i18n.javascript_catalog, name="javascript_catalog"),
    path("rules", views.doc_page, {"name": "rules"}, name="rules"),
    path("fairness", views.doc_page, {"name": "fairness"}, name="fairness_doc"),
    path("r/<str:code>/", room_lookup(views.room), name="room"),
    path("r/<str:code>/join", room_lookup(join_limit(room_gone(views.room_join))), name="room_join"),
    path("r/<str:code>/spectator", room_lookup(join_limit(room_gone(views.room_spectator))), name="room_spectator"),
    path("r/<str:code>/state.json", room_lookup(views.room_state), name="room_state"),
    path("r/<str:code>/feed.json", room_lookup(views.room_feed), name="room_feed"),
    path("r/<str:code>/log.json", room_lookup(views.room_log), name="room_log"),
    path("r/<str:code>/rematch", room_lookup(create_limit(room_gone(views.room_rematch))), name="room_rematch"),
    path("r/<str:code>/fairness", room_lookup(views.room_fairness), name="room_fairness"),
    path("r/<str:code>/review.json", room_lookup(views.room_review), name="room_review"),
    path("r/<str:code>/replay", room_lookup(views.replay), name="replay"),
    path("r/<str:code>/here.css", room_lookup(views.room_here), name="room_here"),
    path("r/<str:code>/here", room_lookup(views.room_here_frame), name="room_here_frame"),
    path("r/<str:code>/<str:action>", room_lookup(room_gone(views.room_action)), name="room_action"),
]
