"""ASGI entry point: HTTP through Django, websockets through Channels."""

import os

from django.conf import settings
from django.core.asgi import get_asgi_application
from django.core.exceptions import ImproperlyConfigured

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yahtzee.settings")
try:
    settings.SECRET_KEY  # noqa: B018 (Django raises on an empty one)
except ImproperlyConfigured as error:
    if "SECRET_KEY" not in str(error):
        raise
    raise ImproperlyConfigured(
        "No SECRET_KEY: set it in the environment, or run `python -m yahtzee.prepare` "
        "(make run does) to make one in DATA_DIR/secret_key."
    ) from error
# Django must be set up before anything imports models (the consumers do).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from games.realtime.backlog import BoundedSend  # noqa: E402
from games.realtime.gate import AddressGate  # noqa: E402
from games.realtime.origin import SameOriginValidator  # noqa: E402
from games.realtime.routing import websocket_urlpatterns  # noqa: E402
from games.store.tables import prepare_in_background  # noqa: E402
from yahtzee.checks import check_at_start  # noqa: E402
from yahtzee.lifespan import Lifespan  # noqa: E402

# The lifespan runs the process's scheduler (games.scheduling) while it serves.
application = Lifespan(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            # BoundedSend closes a socket that falls too far behind (WS_SEND_BACKLOG).
            "websocket": AddressGate(
                BoundedSend(SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))))
            ),
        }
    )
)

# Daphne runs no system checks: the operator traps (several workers, no shared key) are logged here,
# and a setting that would fail every request it is read for stops the process.
check_at_start()

# A serving process queues the coach's and the bots' missing tables now and builds them in the
# background, one at a time, while it serves (BOT_TABLES_AT_START; games/store/tables.py).
prepare_in_background()
