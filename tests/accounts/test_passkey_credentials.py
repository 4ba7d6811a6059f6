"""What each passkey form says of a credential that is not a passkey's answer: a page's script
broken or replaced, a hostile post. Each says so in the reader's words and keeps nothing: no
passkey added, nobody signed in or confirmed, never a server error."""

from __future__ import annotations

import html
import json
import re
from typing import Any
from urllib.parse import urlencode

import pytest
from allauth.account.authentication import AUTHENTICATION_METHODS_SESSION_KEY
from allauth.mfa.models import Authenticator
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tests.accounts.helpers import PASSWORD, sign_up, user
from tests.accounts.soft_passkey import SoftPasskey

pytestmark = pytest.mark.django_db(transaction=False)

NOT_CHECKED = "That passkey could not be checked: try again, or use your password."
NOT_CHECKED_NO_PASSWORD = "That passkey could not be checked: try again."


def b64(data: bytes) -> str:
    from fido2.utils import websafe_encode

    return websafe_encode(data)


def spoiled(base: dict[str, Any], **response: Any) -> str:
    """``base`` with its response's fields replaced, as JSON."""
    return json.dumps({**base, "response": {**base["response"], **response}})


# Each a credential field as posted: (what it is, a function of a real credential giving the post).
BAD: list[tuple[str, Any]] = [
    ("not JSON", lambda c: "not json"),
    ("JSON null", lambda c: "null"),
    ("a list", lambda c: "[]"),
    ("a number", lambda c: "1"),
    ("a string", lambda c: '"x"'),
    ("an empty object", lambda c: "{}"),
    ("fields missing", lambda c: json.dumps({"id": c["id"], "type": "public-key"})),
    ("client data without its type", lambda c: spoiled(c, clientDataJSON=b64(b'{"challenge": "abc"}'))),
    ("client data not JSON", lambda c: spoiled(c, clientDataJSON=b64(b"\xff\xfe"))),
    ("not base64", lambda c: spoiled(c, clientDataJSON="%%%", attestationObject="%%%", signature="%%%")),
    ("wrong types", lambda c: json.dumps({"id": 1, "rawId": [1], "type": 5, "response": "x"})),
    ("a response that is a list", lambda c: json.dumps({**c, "response": []})),
    ("fields of the wrong types", lambda c: spoiled(c, clientDataJSON=7, attestationObject={}, userHandle=[])),
    ("id not rawId", lambda c: json.dumps({**c, "id": "AAAA"})),
    ("a NUL byte", lambda c: json.dumps({**c, "clientExtensionResults": {"x": "\u0000"}})),
    ("a NUL in a key", lambda c: json.dumps({**c, "clientExtensionResults": {"\u0000": 1}})),
    ("a lone surrogate", lambda c: json.dumps(c)[:-1] + ', "x": "\\ud800"}'),
    ("NaN", lambda c: json.dumps(c)[:-1] + ', "x": NaN}'),
    (
        "a number past a double's range",
        lambda c: json.dumps({**c, "clientExtensionResults": {"x": 1}})[:-3] + "1e999}}",
    ),
    ("huge", lambda c: json.dumps({**c, "clientExtensionResults": {"x": "A" * 1_000_000}})),
    ("deeply nested", lambda c: "[" * 100_000 + "]" * 100_000),
]
IDS = [what for what, _ in BAD]


def said(page: str) -> str:
    main = page[page.index("<main") : page.index("</main>")]
    return html.unescape(re.sub(r"<[^>]+>", " ", main))


def ready_to_add(client: Client, name: str) -> None:
    sign_up(client, name)
    client.post(reverse("account_reauthenticate"), {"password": PASSWORD})
    client.get(reverse("mfa_add_webauthn"))  # the challenge the passkey answers


def with_passkey(name: str, language: str = "en") -> tuple[Client, SoftPasskey]:
    """A player who added a passkey, signed in, and a browser whose session is theirs."""
    client = Client(HTTP_HOST="localhost", HTTP_ACCEPT_LANGUAGE=language)
    ready_to_add(client, name)
    passkey = SoftPasskey()
    response = client.post(
        reverse("mfa_add_webauthn"), {"name": "Phone", "credential": json.dumps(passkey.register(client))}
    )
    assert response.status_code == 302, said(response.content.decode())
    assert Authenticator.objects.filter(user=user(name)).count() == 1
    return client, passkey


@pytest.mark.parametrize("bad", [make for _, make in BAD], ids=IDS)
def test_adding_a_passkey_refuses_a_credential_that_is_not_one(bad: Any) -> None:
    client = Client(HTTP_HOST="localhost")
    ready_to_add(client, "ada")
    credential = SoftPasskey().register(client)
    response = client.post(reverse("mfa_add_webauthn"), {"name": "Phone", "credential": bad(credential)})
    assert response.status_code == 200
    assert NOT_CHECKED_NO_PASSWORD in said(response.content.decode())
    assert not Authenticator.objects.exists()


def test_adding_a_real_passkey_keeps_it() -> None:
    with_passkey("ann")
    assert Authenticator.objects.get().data["name"] == "Phone"


@pytest.mark.parametrize("bad", [make for _, make in BAD], ids=IDS)
def test_signing_in_with_a_passkey_refuses_a_credential_that_is_not_one(bad: Any, settings: Any) -> None:
    settings.MFA_RATE_LIMITS = False  # allauth's 10 passkey sign-ins a minute per address
    _, passkey = with_passkey("bea")
    client = Client(HTTP_HOST="localhost")
    client.get(reverse("mfa_login_webauthn"), HTTP_X_REQUESTED_WITH="XMLHttpRequest")  # the challenge
    credential = passkey.assertion(client, user("bea"))
    response = client.post(reverse("mfa_login_webauthn"), {"credential": bad(credential)}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("account_login")
    assert NOT_CHECKED in said(response.content.decode())
    assert "_auth_user_id" not in client.session


def test_signing_in_with_a_real_passkey_signs_in() -> None:
    _, passkey = with_passkey("bob")
    client = Client(HTTP_HOST="localhost")
    client.get(reverse("mfa_login_webauthn"), HTTP_X_REQUESTED_WITH="XMLHttpRequest")
    credential = json.dumps(passkey.assertion(client, user("bob")))
    client.post(reverse("mfa_login_webauthn"), {"credential": credential})
    assert client.session["_auth_user_id"] == str(user("bob").pk)  # type: ignore[attr-defined]


@pytest.mark.parametrize("bad", [make for _, make in BAD], ids=IDS)
def test_confirming_it_is_you_with_a_passkey_refuses_a_credential_that_is_not_one(bad: Any) -> None:
    client, passkey = with_passkey("cal")
    confirmed = len(client.session[AUTHENTICATION_METHODS_SESSION_KEY])
    client.get(reverse("mfa_reauthenticate_webauthn"))  # the challenge
    credential = passkey.assertion(client, user("cal"))
    response = client.post(reverse("mfa_reauthenticate_webauthn"), {"credential": bad(credential)}, follow=True)
    assert response.status_code == 200
    assert NOT_CHECKED in said(response.content.decode())
    assert len(client.session[AUTHENTICATION_METHODS_SESSION_KEY]) == confirmed


def test_confirming_it_is_you_with_a_passkey_that_fails_stays_on_the_page_then_goes_where_it_was_asked_from() -> None:
    """A passkey that cannot be checked (another device's, or no passkey's answer at all) does not
    send the player on to the sign-in page's redirect, away from the page that asked, with the
    error as a message there: they stay on "Confirm it is you", told why, the page that asked still
    to go to once confirmed, and nothing is confirmed. Their own passkey then takes them there."""
    client, passkey = with_passkey("eve")
    asked = reverse("mfa_list_webauthn")
    page = f"{reverse('mfa_reauthenticate_webauthn')}?next={asked}"
    client.get(page)  # the challenge
    confirmed = len(client.session[AUTHENTICATION_METHODS_SESSION_KEY])
    for credential in (json.dumps(SoftPasskey().assertion(client, user("eve"))), "not json"):
        response = client.post(page, {"credential": credential, "next": asked})
        assert response.status_code == 200, response.get("Location")
        text = said(response.content.decode())
        assert "Confirm it is you" in text and NOT_CHECKED in text, text
        assert re.search(
            rf'<div role="alert">[^<]*<ul class="errorlist[^>]*><li>{re.escape(NOT_CHECKED)}',
            html.unescape(response.content.decode()),
        )
        assert f'name="next" value="{asked}"' in response.content.decode()
        assert len(client.session[AUTHENTICATION_METHODS_SESSION_KEY]) == confirmed
        # Said on this page, not again on the next one as a message.
        assert NOT_CHECKED not in said(client.get(asked).content.decode())
    # The page came with a new challenge, which the player's own passkey answers.
    response = client.post(page, {"credential": json.dumps(passkey.assertion(client, user("eve"))), "next": asked})
    assert response.status_code == 302 and response["Location"] == asked
    assert len(client.session[AUTHENTICATION_METHODS_SESSION_KEY]) == confirmed + 1


# Where a crafted "Confirm it is you" link could try to send the player once confirmed: another site,
# written each way a browser reads as one.
OFF_SITE = [
    "https://evil.example/",
    "//evil.example/",
    "/\\evil.example/",
    "\\\\evil.example/",
    "\t//evil.example/",
    "javascript:alert(1)",
]


@pytest.mark.parametrize("page", ["account_reauthenticate", "mfa_reauthenticate_webauthn"])
@pytest.mark.parametrize("elsewhere", OFF_SITE, ids=repr)
def test_confirming_it_is_you_never_sends_the_player_to_another_site(page: str, elsewhere: str) -> None:
    """A ``next`` of another site's, in the link or the form, on the password's page and the
    passkey's (whose refused passkey shows the page again with ``next`` still in it): confirmed,
    the player lands on the site's own page, never elsewhere."""
    client, passkey = with_passkey("ivy")
    address = f"{reverse(page)}?{urlencode({'next': elsewhere})}"
    client.get(address)  # the passkey's challenge
    if page == "mfa_reauthenticate_webauthn":
        assert client.post(address, {"credential": "not json", "next": elsewhere}).status_code == 200
        proof = {"credential": json.dumps(passkey.assertion(client, user("ivy")))}
    else:
        proof = {"password": PASSWORD}
    response = client.post(address, {**proof, "next": elsewhere})
    assert response.status_code == 302
    assert response["Location"] == reverse("profile_me")


def password_then_passkey(name: str, language: str = "en") -> tuple[Client, SoftPasskey]:
    """A browser past the password of an account with a passkey, on "Confirm with your passkey"."""
    _, passkey = with_passkey(name)
    client = Client(HTTP_HOST="localhost", HTTP_ACCEPT_LANGUAGE=language)
    response = client.post(reverse("account_login"), {"login": name, "password": PASSWORD})
    assert response["Location"] == reverse("mfa_authenticate")
    client.get(reverse("mfa_authenticate"))  # the challenge
    return client, passkey


@pytest.mark.parametrize("bad", [make for _, make in BAD], ids=IDS)
def test_the_passkey_after_the_password_refuses_a_credential_that_is_not_one(bad: Any) -> None:
    client, passkey = password_then_passkey("dan")
    credential = passkey.assertion(client, user("dan"))
    response = client.post(reverse("mfa_authenticate"), {"credential": bad(credential)})
    assert response.status_code == 200
    assert NOT_CHECKED_NO_PASSWORD in said(response.content.decode())
    assert "_auth_user_id" not in client.session


def test_the_passkey_after_the_password_signs_in() -> None:
    client, passkey = password_then_passkey("eve")
    credential = json.dumps(passkey.assertion(client, user("eve")))
    client.post(reverse("mfa_authenticate"), {"credential": credential})
    assert client.session["_auth_user_id"] == str(user("eve").pk)  # type: ignore[attr-defined]


def test_another_passkey_than_the_accounts_is_refused_in_the_readers_language() -> None:
    """A passkey that checks out but is not this account's: the site's words, never "Incorrect code."
    of codes the site does not have, in the reader's language ("Falscher Code.")."""
    client, _ = password_then_passkey("fay", language="de")
    stranger = SoftPasskey().assertion(client, user("fay"))
    page = said(client.post(reverse("mfa_authenticate"), {"credential": json.dumps(stranger)}).content.decode())
    with translation.override("de"):
        assert translation.gettext(NOT_CHECKED_NO_PASSWORD) in page
        assert "Falscher Code" not in page and "Incorrect code" not in page
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize("language", ["en", "de", "fr"])
def test_a_passkey_sign_in_that_fails_says_so_in_the_readers_words(language: str) -> None:
    client = Client(HTTP_HOST="localhost", HTTP_ACCEPT_LANGUAGE=language)
    client.get(reverse("mfa_login_webauthn"), HTTP_X_REQUESTED_WITH="XMLHttpRequest")
    stranger = SoftPasskey().assertion(client, type("Nobody", (), {"pk": 10**6})())
    response = client.post(reverse("mfa_login_webauthn"), {"credential": json.dumps(stranger)}, follow=True)
    page = said(response.content.decode())
    with translation.override(language):
        assert translation.gettext(NOT_CHECKED) in page
        # A refusal is an alert, read out as the page comes back; its list is still a list.
        alert = re.escape(html.escape(translation.gettext(NOT_CHECKED)))
        assert re.search(
            rf'<div role="alert"><ul class="messages"><li class="error">{alert}</li>', response.content.decode()
        )
    for code in ("Incorrect code", "Falscher Code", "Code incorrect"):
        assert code not in page
