"""Accounts in tests: sign up through the real pages, play games through the services."""

from __future__ import annotations

import random

from django.contrib.auth import get_user_model
from django.test import Client

from accounts import services as account_services
from games import services
from games.store.models import Game
from tests.factories import Table, action_id, play_to_end

PASSWORD = "correct horse battery staple"


def sign_up(client: Client, username: str) -> None:
    response = client.post("/accounts/signup/", {"username": username, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302, response.content.decode()[:2000]


def controller_of(client: Client) -> str:
    token: str = client.session.get("controller", "")
    return token


def browser_with_seat_token(client: Client) -> str:
    """Give an anonymous test browser its controller token (as the site does on first need)."""
    token = services.new_controller()
    session = client.session
    session["controller"] = token
    session.save()
    return token


def user(username: str) -> object:
    return get_user_model().objects.get(username=username)


def room_for(controllers: list[str], ruleset: str = "official", *, start: bool = True) -> Table:
    host = services.game_create(host_name="P0", controller=controllers[0], ruleset=ruleset)
    table = Table(code=host.game.code, controllers=list(controllers))
    for i, controller in enumerate(controllers[1:], start=1):
        services.game_join(code=table.code, name=f"P{i}", controller=controller)
    if start:
        services.game_start(
            code=table.code, controller=controllers[0], expected_version=table.version(), action_id=action_id()
        )
    return table


def finish(table: Table, seed: int = 1) -> Game:
    """Play to the end and count the game, as the finish hook does after the commit."""
    game = play_to_end(table, random.Random(seed))
    account_services.game_count(game_id=game.pk)
    return game
