"""The account pages a player walks through: forgotten and changed passwords, a new passkey's
name, and allauth's and Django's own words in the site's voice and terms in each language."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import translation
from django.utils.translation import trans_real

from accounts.adapters import device_name
from tests.accounts.helpers import PASSWORD, sign_up

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a brand new pass 42"
CHROME_LINUX = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"


def text_of(page: str) -> str:
    """The words a reader sees: no tags, entities decoded, spaces collapsed."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_the_forgotten_password_page_sends_a_signed_in_player_back_to_their_account_not_to_sign_in() -> None:
    client = Client()
    sign_up(client, "forgetful")
    page = client.get("/accounts/password/reset/").content.decode()
    assert "Back to sign in" not in page and 'href="/accounts/login/' not in page
    # They know it: the change-password page; they forgot it: the administrator sets a new one.
    assert re.search(r'<a class="btn[^"]*" href="/accounts/password/change/">Change password</a>', page)
    assert "administrator" in page
    # Someone signed out still gets the way back to signing in.
    anonymous = Client().get("/accounts/password/reset/").content.decode()
    assert 'href="/accounts/login/">Back to sign in</a>' in anonymous


@pytest.mark.parametrize(
    ("language", "changed"),
    [("en", "Password successfully changed."), ("de", "Das Passwort wurde geändert."), ("es", "Contraseña")],
)
def test_a_password_change_lands_on_the_players_profile_saying_so_in_their_language(
    language: str, changed: str
) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    sign_up(client, f"changer_{language}")
    client.get("/me", follow=True)  # the sign-up's own "Signed in as" read
    data = {"oldpassword": PASSWORD, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD}
    response = client.post("/accounts/password/change/", data, follow=True)
    assert response.redirect_chain[0] == ("/me", 302)
    assert response.request["PATH_INFO"] == f"/u/changer_{language}/"
    page = response.content.decode()
    assert f'lang="{language}"' in page
    assert re.search(rf'<div role="status"><ul class="messages">\s*<li[^>]*>{re.escape(changed)}', page), page[:3000]
    assert get_user_model().objects.get(username=f"changer_{language}").check_password(NEW_PASSWORD)


def test_a_refused_password_change_stays_on_the_form_with_its_errors() -> None:
    client = Client()
    sign_up(client, "typo")
    data = {"oldpassword": PASSWORD, "password1": NEW_PASSWORD, "password2": "a brand new pass 43"}
    response = client.post("/accounts/password/change/", data)
    assert response.status_code == 200
    assert response.context["form"].errors["password2"]
    assert get_user_model().objects.get(username="typo").check_password(PASSWORD)


def test_a_new_passkeys_suggested_name_is_in_the_players_language(monkeypatch: Any) -> None:
    """The name a player reads on their passkeys page is worded in their language ("Chrome unter
    Linux"); only the browser's and the system's own names stay as they are."""
    german = trans_real.translation("de")
    words = {
        "passkey's name\x04%(browser)s on %(system)s": "%(browser)s unter %(system)s",
        "passkey's name\x04Passkey %(number)s": "Passkey Nr. %(number)s",
    }
    original = german.gettext
    monkeypatch.setattr(german, "gettext", lambda message: words.get(message) or original(message))
    with translation.override("de"):
        assert device_name(CHROME_LINUX) == "Chrome unter Linux"
    with translation.override("en"):
        assert device_name(CHROME_LINUX) == "Chrome on Linux"
    client = Client(HTTP_ACCEPT_LANGUAGE="de", HTTP_USER_AGENT=CHROME_LINUX)
    sign_up(client, "schluessel")
    client.post("/accounts/reauthenticate/", {"password": PASSWORD})  # "Confirm it is you" first
    page = client.get("/accounts/2fa/webauthn/add/").content.decode()
    assert 'value="Chrome unter Linux"' in page
    nameless = Client(HTTP_ACCEPT_LANGUAGE="de", HTTP_USER_AGENT="curl/8")
    nameless.cookies = client.cookies
    assert 'value="Passkey Nr. 1"' in nameless.get("/accounts/2fa/webauthn/add/").content.decode()


FORMAL = re.compile(
    r"\b(usted|su|sus|ha|desea|tiene|Introduzca|escriba|inicie|regístrese|(?<!contraseña )Debe|Inténtelo)\b", re.I
)


def test_allauths_and_djangos_own_words_on_the_spanish_account_pages_say_tu_as_the_site_does(settings: Any) -> None:
    """allauth's Spanish says "usted" ("¿Ha olvidado su contraseña?"); the site says "tú" everywhere,
    and its catalog, read first, words allauth's messages that these pages show."""
    settings.ACCOUNT_RATE_LIMITS = False
    client = Client(HTTP_ACCEPT_LANGUAGE="es")
    seen = {
        "login": client.get("/accounts/login/").content.decode(),
        "wrong password": client.post("/accounts/login/", {"login": "nadie", "password": "x"}).content.decode(),
    }
    signup = client.post("/accounts/signup/", {"username": "tuteo", "password1": PASSWORD, "password2": "otra"})
    # The sign-up form's link, its mismatch error and Django's own help for the password.
    seen["sign-up"] = signup.content.decode()
    sign_up(client, "tuteo")
    seen["signed in"] = client.get("/me", follow=True).content.decode()
    seen["password change refused"] = client.post("/accounts/password/change/", {"oldpassword": "no"}).content.decode()
    seen["confirm it is you"] = client.get("/accounts/reauthenticate/").content.decode()
    seen["sign out"] = client.get("/accounts/logout/").content.decode()
    client.post("/accounts/logout/")
    seen["signed out"] = client.get("/accounts/login/").content.decode()
    words = {name: text_of(page) for name, page in seen.items()}
    assert all('lang="es"' in page for page in seen.values())
    formal = {name: FORMAL.findall(text) for name, text in words.items() if FORMAL.search(text)}
    assert formal == {}, formal
    assert "¿Has olvidado tu contraseña?" in words["login"]
    assert "Si aún no tienes una cuenta, regístrate primero." in words["login"]
    assert "El usuario y/o la contraseña que has indicado no son correctos." in words["wrong password"]
    assert "¿Ya tienes una cuenta? Entonces inicia sesión ." in words["sign-up"]
    assert "Tienes que escribir la misma contraseña las dos veces." in words["sign-up"]
    assert "Has iniciado sesión como tuteo." in words["signed in"]
    assert "Escribe tu contraseña actual." in words["password change refused"]
    assert "Tu contraseña no puede tener solo números." in words["password change refused"]
    assert "Introduce tu contraseña:" in words["confirm it is you"]
    assert "¿Seguro que quieres cerrar sesión?" in words["sign out"]
    assert "Has cerrado sesión." in words["signed out"]
    assert "Entrar con llave de acceso" in words["login"]  # the site's "Entrar" and its word for a passkey


def account_pages(language: str, settings: Any) -> dict[str, str]:
    """The words of every account page a player reaches, each form refused as it can be and each
    action's message, in ``language``: what allauth's and Django's catalogs put before them."""
    from allauth.mfa.models import Authenticator

    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    name = f"walker_{language}"
    seen = {
        "sign-in": client.get("/accounts/login/"),
        "wrong password": client.post("/accounts/login/", {"login": "nobody", "password": "x"}),
        "sign-up": client.get("/accounts/signup/"),
        "passwords differ": client.post(
            "/accounts/signup/", {"username": name, "password1": PASSWORD, "password2": "x"}
        ),
        "password short, common, numeric": client.post(
            "/accounts/signup/", {"username": name, "password1": "1234", "password2": "1234"}
        ),
        "password like the name": client.post(
            "/accounts/signup/", {"username": name, "password1": f"{name}1", "password2": f"{name}1"}
        ),
        "name too short": client.post(
            "/accounts/signup/", {"username": "ab", "password1": PASSWORD, "password2": PASSWORD}
        ),
    }
    sign_up(client, name)
    seen["signed in"] = client.get("/me", follow=True)
    seen["password change"] = client.get("/accounts/password/change/")
    seen["password change refused"] = client.post("/accounts/password/change/", {"oldpassword": "no"})
    changed = {"oldpassword": PASSWORD, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD}
    seen["password changed"] = client.post("/accounts/password/change/", changed, follow=True)
    seen["confirm it is you"] = client.get("/accounts/reauthenticate/")
    seen["confirm refused"] = client.post("/accounts/reauthenticate/", {"password": "no"})
    client.post("/accounts/reauthenticate/", {"password": NEW_PASSWORD})
    seen["passkeys"] = client.get("/accounts/2fa/")
    seen["add a passkey"] = client.get("/accounts/2fa/webauthn/add/")
    account = get_user_model().objects.get(username=name)
    Authenticator.objects.create(
        user=account, type=Authenticator.Type.WEBAUTHN, data={"name": "Laptop", "credential": {}}
    )
    seen["your passkeys"] = client.get("/accounts/2fa/webauthn/")
    seen["sign out"] = client.get("/accounts/logout/")
    seen["signed out"] = client.post("/accounts/logout/", follow=True)
    # An account an administrator made without a password sets one; one they turned off is inactive.
    account.set_unusable_password()
    account.save()
    client.force_login(account, backend="django.contrib.auth.backends.ModelBackend")
    seen["set a password"] = client.get("/accounts/password/set/")
    done = {"password1": PASSWORD, "password2": PASSWORD}
    seen["password set"] = client.post("/accounts/password/set/", done, follow=True)
    client.post("/accounts/logout/", follow=True)
    get_user_model().objects.filter(pk=account.pk).update(is_active=False)
    seen["inactive"] = client.post("/accounts/login/", {"login": name, "password": PASSWORD}, follow=True)
    settings.ACCOUNT_RATE_LIMITS = {"login_failed": "1/m/ip"}
    for _ in range(2):
        seen["too many failures"] = client.post("/accounts/login/", {"login": "nobody", "password": "x"})
    pages = {what: response.content.decode() for what, response in seen.items()}
    assert all(f'lang="{language}"' in page for page in pages.values())
    return {what: text_of(page) for what, page in pages.items()}


def found(pattern: re.Pattern[str], pages: dict[str, str]) -> dict[str, list[str]]:
    return {what: pattern.findall(text) for what, text in pages.items() if pattern.search(text)}


# German pages address the player as "du": "Sie", "Ihr" and "Ihnen" capitalised address them as a
# stranger ("Geben Sie Ihr Passwort ein"); "sie" (they, them) is lower case mid-sentence.
GERMAN_SIE = re.compile(r"\b(Sie|Ihnen|Ihr|Ihre|Ihren|Ihrem|Ihrer|Ihres)\b")


def test_allauths_and_djangos_own_words_on_the_german_account_pages_say_du_as_the_site_does(settings: Any) -> None:
    pages = account_pages("de", settings)
    assert found(GERMAN_SIE, pages) == {}
    assert "Gib dein Passwort ein:" in pages["confirm refused"]
    assert "Dieses Konto ist inaktiv." in pages["inactive"]


def test_the_danish_account_pages_say_adgangskode_and_speak_plainly(settings: Any) -> None:
    """allauth's Danish says "password" and "Password ændret med success." where the site says
    "adgangskode" ("Skift adgangskode" in its menu)."""
    pages = account_pages("da", settings)
    assert found(re.compile(r"\bpassword\b|\bsucces\w*|\bsuccess\b|\blogge af\b", re.I), pages) == {}
    assert "Skift adgangskode Nuværende adgangskode" in pages["password change"]  # the form's heading
    assert "Adgangskoden er skiftet." in pages["password changed"]
    assert "Du er logget ind som walker_da." in pages["signed in"]
    assert "Er du sikker på, at du vil logge ud?" in pages["sign out"]
    assert "Har du ikke en konto endnu? Så opret en først." in pages["sign-in"]


def test_the_swedish_account_pages_use_the_sites_words(settings: Any) -> None:
    """allauth's Swedish asks "Har du redan ett konto?" on the sign-in page itself, and says "Ändra
    lösenord" where the site's menu says "Byt lösenord"."""
    pages = account_pages("sv", settings)
    assert "Har du inget konto än? Skapa ett först." in pages["sign-in"]
    assert "Har du redan ett konto?" not in pages["sign-in"]
    assert found(re.compile(r"Ändra lösenord|Lösenordet ändrat|Säkerställ"), pages) == {}
    assert "Byt lösenord Nuvarande lösenord" in pages["password change"]  # the form's heading
    assert "Lösenordet är bytt." in pages["password changed"]
    assert "Du måste skriva samma lösenord båda gångerna." in pages["passwords differ"]
    assert "Är du säker på att du vill logga ut?" in pages["sign out"]


def test_the_french_account_pages_say_vous_and_the_sites_words(settings: Any) -> None:
    """allauth's French says "vous" as the site does, but "pseudo" for the username its own form
    calls "Nom d'utilisateur", "Modifier le mot de passe" where the menu says "Changer de mot de
    passe", and "sûr(e)" where the site writes one word."""
    pages = account_pages("fr", settings)
    assert found(re.compile(r"\b(tu|toi|ton|ta|tes)\b|\(e\)|\bpseudo\b|Modifier le mot de passe", re.I), pages) == {}
    assert "Le nom d'utilisateur et/ou le mot de passe sont incorrects." in pages["wrong password"]
    assert "Changer de mot de passe Mot de passe actuel" in pages["password change"]  # the form's heading
    assert "Votre mot de passe a été changé." in pages["password changed"]
    assert "Connexion réussie. Bienvenue, walker_fr." in pages["signed in"]
    assert "Voulez-vous vraiment vous déconnecter ?" in pages["sign out"]
    assert "Vous n'avez pas encore de compte ? Créez-en un d'abord." in pages["sign-in"]


def test_signing_out_says_so_on_the_home_page_it_ends_on_not_later_on_another_page() -> None:
    client = Client()
    sign_up(client, "leaver")
    client.get("/me", follow=True)  # the sign-up's own "Signed in as" read
    response = client.post("/accounts/logout/", follow=True)
    assert response.request["PATH_INFO"] == "/"
    assert re.search(
        r'<div class="messages" role="status">\s*<p class="note">You have signed out.</p>', response.content.decode()
    )
    # Read there, it is not shown again as a room's or the sign-in's alert.
    assert "You have signed out." not in client.get("/accounts/login/").content.decode()


@pytest.mark.parametrize("path", ["/accounts/password/change/", "/accounts/logout/", "/accounts/reauthenticate/"])
def test_each_account_forms_main_button_is_the_primary_one(path: str) -> None:
    """As on the sign-in and sign-up pages: the form's one action is drawn as the main button."""
    client = Client()
    sign_up(client, "buttons")
    page = client.get(path).content.decode()
    main = page[page.index("<main") : page.index("</main>")]
    assert re.search(r'<button class="btn btn-primary"\s+type="submit"', main), main


def test_the_english_change_password_form_labels_its_fields_in_the_sites_sentence_case() -> None:
    """allauth's labels are title case ("New Password"); the site's English catalog puts them in
    its own case, as it does for "Sign in" (locale/en)."""
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    sign_up(client, "cased")
    words = text_of(client.get("/accounts/password/change/").content.decode())
    for label in ("Current password", "New password", "New password (again)"):
        assert label in words
    assert not re.search(r"\b(Current|New) Password\b", words)
