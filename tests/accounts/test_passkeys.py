"""The passkey pages in players' words, and why passkeys cannot work at a numeric address."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.adapters import device_name
from tests.accounts.helpers import PASSWORD, sign_up

pytestmark = pytest.mark.django_db

CHROME_ANDROID = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36"
)
SAFARI_IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.5 Mobile/15E148 Safari/604.1"
)
EDGE_WINDOWS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0 Safari/537.36 Edg/131.0"
)


def test_a_new_passkey_is_named_after_its_browser_and_device() -> None:
    assert device_name(CHROME_ANDROID) == "Chrome on Android"
    assert device_name(SAFARI_IPHONE) == "Safari on iPhone"
    assert device_name(EDGE_WINDOWS) == "Edge on Windows"
    assert device_name("Firefox/128.0") == "Firefox"
    assert device_name("curl/8") == ""


def passkeys_page(host: str, path: str = "/accounts/2fa/") -> str:
    client = Client(HTTP_HOST=host, HTTP_USER_AGENT=CHROME_ANDROID)
    sign_up(client, f"pk{abs(hash(host)) % 10_000}")
    response = client.get(path)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize(
    ("host", "link"),
    [
        ("127.0.0.1:8000", "http://localhost:8000/accounts/2fa/"),
        ("[::1]:8000", "http://localhost:8000/accounts/2fa/"),
        ("127.0.0.1", "http://localhost/accounts/2fa/"),
    ],
)
def test_the_passkey_pages_at_this_machines_address_say_why_and_link_localhost(host: str, link: str) -> None:
    page = passkeys_page(host)
    assert "Passkeys cannot work at this address" in page and "numeric address" in page
    assert f'href="{link}"' in page


def test_at_another_numeric_address_the_page_says_to_use_the_sites_name(settings: object) -> None:
    settings.ALLOWED_HOSTS = ["203.0.113.9"]  # type: ignore[attr-defined]
    page = passkeys_page("203.0.113.9")
    assert "Passkeys cannot work at this address" in page and "by its name" in page and "localhost" not in page


def test_the_passkey_pages_speak_of_passkeys_and_say_nothing_at_a_name() -> None:
    page = passkeys_page("localhost:8000")
    assert "<h1>Passkeys</h1>" in page and "Add a passkey" in page and "You have no passkey yet" in page
    assert "cannot work at this address" not in page
    for jargon in ("Two-Factor", "Security Key", "Master key", "Passwordless"):
        assert jargon not in page, jargon


def test_the_list_of_passkeys_names_each_with_what_it_does() -> None:
    # allauth's own list page loads django.contrib.humanize, which the site does not install: a 500.
    from allauth.mfa.models import Authenticator

    from tests.accounts.helpers import user

    client = Client(HTTP_HOST="localhost:8000")
    sign_up(client, "zed")
    Authenticator.objects.create(
        user=user("zed"), type=Authenticator.Type.WEBAUTHN, data={"name": "Laptop", "credential": {}}
    )
    response = client.get("/accounts/2fa/webauthn/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "<h1>Your passkeys</h1>" in page and "Laptop" in page and "Not used yet" in page
    assert "Rename" in page and "Remove" in page


@pytest.mark.parametrize(
    ("language", "ago", "recent"),
    [
        ("en", "Last used 3 days ago.", "Last used 1 minute ago."),
        ("de", "3 Tage", "1 Minute"),
        ("fr", "il y a 3 jours.", "il y a 1 minute."),
    ],
)
def test_the_list_of_passkeys_says_how_long_ago_each_was_used(language: str, ago: str, recent: str) -> None:
    """In the reader's language, and a passkey used seconds ago was used a minute ago, not "0 minutes" ago."""
    from datetime import timedelta

    from allauth.mfa.models import Authenticator
    from django.utils import timezone

    from tests.accounts.helpers import user

    client = Client(HTTP_HOST="localhost:8000", HTTP_ACCEPT_LANGUAGE=language)
    sign_up(client, f"used{language}")
    now = timezone.now()
    for name, used in (("Laptop", now - timedelta(days=3, minutes=5)), ("Phone", now - timedelta(seconds=20))):
        Authenticator.objects.create(
            user=user(f"used{language}"),
            type=Authenticator.Type.WEBAUTHN,
            data={"name": name, "credential": {}},
            last_used_at=used,
        )
    page = client.get("/accounts/2fa/webauthn/").content.decode()
    said = html.unescape(re.sub(r"<[^>]+>", " ", main_of(page))).replace("\xa0", " ")
    assert ago in said and recent in said, said
    assert not re.search(r"\b0 [^\W\d]", said), said  # no "0 minutes", "0 Minuten", "0 minute"


def main_of(page: str) -> str:
    return page[page.index("<main") : page.index("</main>")]


def test_signing_in_with_a_passkey_without_script_says_passkeys_need_javascript() -> None:
    """Without script "Sign in with a passkey" still posts its form, with no passkey in it: the
    sign-in page says passkeys need JavaScript, not "This field is required." of no field shown."""
    response = Client().post(reverse("mfa_login_webauthn"), {"credential": ""}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("account_login")
    main = main_of(response.content.decode())
    assert "Passkeys need JavaScript: turn it on for this site, or use your password." in main
    assert "This field is required." not in main


def test_adding_a_passkey_without_script_says_passkeys_need_javascript_in_an_alert() -> None:
    """Not "This field is required." of no field shown; and the passkey is a hidden field, so its
    error is tied to nothing a reader can focus: it is an alert, read out when the page comes back."""
    client = Client()
    sign_up(client, "ada")
    client.post(reverse("account_reauthenticate"), {"password": PASSWORD})  # "Confirm it is you" first
    page = client.post(reverse("mfa_add_webauthn"), {"name": "Phone", "credential": ""}).content.decode()
    assert re.search(r'<div role="alert">\s*<ul class="errorlist[^"]*"[^>]*><li>Passkeys need JavaScript', page), page


def test_confirming_with_a_passkey_without_script_says_passkeys_need_javascript() -> None:
    from accounts.forms import ReauthenticateWebAuthnForm
    from tests.accounts.helpers import user

    sign_up(Client(), "amy")
    form = ReauthenticateWebAuthnForm(data={"credential": ""}, user=user("amy"))
    assert form.errors["credential"] == ["Passkeys need JavaScript: turn it on for this site, or use your password."]


def test_a_new_passkeys_name_field_is_tied_to_what_the_name_is_for() -> None:
    client = Client()
    sign_up(client, "ari")
    client.post(reverse("account_reauthenticate"), {"password": PASSWORD})
    page = client.get(reverse("mfa_add_webauthn")).content.decode()
    field = re.search(r'<input type="text" name="name"[^>]*aria-describedby="([^"]+)"', page)
    assert field, "the name field names no explanation"
    assert re.search(rf'id="{field.group(1)}"[^>]*>To tell your passkeys apart', page)


def test_the_second_step_of_a_sign_in_without_script_says_passkeys_need_javascript() -> None:
    """ "Confirm with your passkey", after the password of an account that has one (MFA_FORMS)."""
    from django.conf import settings

    from accounts.forms import AuthenticateWebAuthnForm
    from tests.accounts.helpers import user

    assert settings.MFA_FORMS["authenticate_webauthn"] == "accounts.forms.AuthenticateWebAuthnForm"
    sign_up(Client(), "abe")
    form = AuthenticateWebAuthnForm(data={"credential": ""}, user=user("abe"))
    assert form.errors["credential"] == ["Passkeys need JavaScript: turn it on for this site, or use your password."]


def test_the_sign_in_pages_note_that_passkeys_need_javascript_follows_its_passkey_button() -> None:
    """In the page's card beside the button it is about, not after the site's footer."""
    page = Client().get("/accounts/login/").content.decode()
    note = "Passkeys need JavaScript."
    assert page.count(note) == 1
    main = main_of(page)
    assert 0 <= main.find('id="passkey_login"') < main.find(note)


def test_a_passkeys_name_is_refused_past_its_length_and_the_name_it_had_stays() -> None:
    """A name pasted by mistake (a page of text) drew the list of passkeys thousands of pixels tall:
    the name fields take as much as a device's name needs, and say so past it."""
    from allauth.mfa.models import Authenticator

    from accounts.forms import PASSKEY_NAME_MAX
    from tests.accounts.helpers import user

    client = Client(HTTP_HOST="localhost:8000")
    sign_up(client, "kai")
    client.post(reverse("account_reauthenticate"), {"password": PASSWORD})
    assert f'maxlength="{PASSKEY_NAME_MAX}"' in client.get(reverse("mfa_add_webauthn")).content.decode()
    page = client.post(reverse("mfa_add_webauthn"), {"name": "z" * (PASSKEY_NAME_MAX + 1), "credential": ""})
    assert f"Ensure this value has at most {PASSKEY_NAME_MAX} characters" in page.content.decode()
    key = Authenticator.objects.create(
        user=user("kai"), type=Authenticator.Type.WEBAUTHN, data={"name": "Laptop", "credential": {}}
    )
    edit = reverse("mfa_edit_webauthn", kwargs={"pk": key.pk})
    assert f'maxlength="{PASSKEY_NAME_MAX}"' in client.get(edit).content.decode()
    response = client.post(edit, {"name": "y" * 5000})
    assert response.status_code == 200
    assert f"Ensure this value has at most {PASSKEY_NAME_MAX} characters" in response.content.decode()
    key.refresh_from_db()
    assert key.data["name"] == "Laptop"
    client.post(edit, {"name": "y" * PASSKEY_NAME_MAX})
    key.refresh_from_db()
    assert key.data["name"] == "y" * PASSKEY_NAME_MAX
