"""Where Django's app registry looks for the games app's models: they live in games.store.models."""

from games.store.models import *  # noqa: F403
