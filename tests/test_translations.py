"""The site's catalogs (locale/): every language complete, nothing fuzzy, the compiled .mo files
those of the .po files, the placeholders of every translation the source's, and no message in
the code or the templates that the catalogs lack."""

from __future__ import annotations

import gettext
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import allauth
import django
import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "locale"
# The catalogs of dependencies whose words a catalog of the site's may put in its own voice.
THEIR_LOCALES = [
    Path(allauth.__file__).parent / "locale",
    Path(django.__file__).parent / "conf" / "locale",
    Path(django.__file__).parent / "contrib" / "auth" / "locale",
]
DOMAINS = ("django", "djangojs")
TRANSLATED = [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
CATALOGS = [(language, domain) for language in TRANSLATED for domain in DOMAINS]


@dataclass
class Entry:
    msgid: str = ""
    msgctxt: str | None = None
    msgid_plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def _unquote(text: str) -> str:
    """A PO string literal's text: the escapes gettext writes (\\n, \\t, \\", \\\\) undone."""
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), text[1:-1])


def read_po(path: Path) -> list[Entry]:
    """The entries of a PO file, the header (msgid "") included."""
    entries: list[Entry] = []
    entry: Entry | None = None
    target: tuple[str, int] = ("msgid", 0)
    for raw in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        line = raw.strip()
        if not line:
            if entry is not None:
                entries.append(entry)
            entry = None
            continue
        if entry is None:
            entry = Entry()
        if line.startswith("#~"):
            entry.obsolete = True
            continue
        if line.startswith("#,"):
            entry.flags |= {flag.strip() for flag in line[2:].split(",")}
            continue
        if line.startswith("#"):
            continue
        found = re.match(r'^(msgctxt|msgid_plural|msgid|msgstr)(?:\[(\d+)\])? (".*")$', line)
        if found:
            key, index, value = found.group(1), int(found.group(2) or 0), _unquote(found.group(3))
            target = (key, index)
        else:
            value = _unquote(line)
        key, index = target
        if key == "msgstr":
            entry.msgstr[index] = entry.msgstr.get(index, "") + value
        else:
            setattr(entry, key, (getattr(entry, key) or "") + value)
    return entries


def messages(language: str, domain: str) -> list[Entry]:
    return [e for e in read_po(LOCALE / language / "LC_MESSAGES" / f"{domain}.po") if e.msgid]


def plural_count(language: str, domain: str) -> int:
    header = next(e for e in read_po(LOCALE / language / "LC_MESSAGES" / f"{domain}.po") if not e.msgid)
    found = re.search(r"nplurals=(\d+)", header.msgstr[0])
    assert found, f"{language}/{domain}: no Plural-Forms in the header"
    return int(found.group(1))


PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


@pytest.mark.parametrize(("language", "domain"), CATALOGS)
def test_every_message_is_translated_and_none_is_fuzzy(language: str, domain: str) -> None:
    entries = messages(language, domain)
    assert len(entries) > 100, f"{language}/{domain} holds only {len(entries)} messages"
    forms = plural_count(language, domain)
    untranslated = [e.msgid for e in entries if not e.obsolete and (not e.msgstr or not all(e.msgstr.values()))]
    assert untranslated == [], f"{language}/{domain}: untranslated: {untranslated}"
    fuzzy = [e.msgid for e in entries if "fuzzy" in e.flags]
    assert fuzzy == [], f"{language}/{domain}: fuzzy: {fuzzy}"
    obsolete = [e.msgid for e in entries if e.obsolete]
    assert obsolete == [], f"{language}/{domain}: obsolete entries left in: {obsolete}"
    short = [e.msgid for e in entries if e.msgid_plural is not None and len(e.msgstr) != forms]
    assert short == [], f"{language}/{domain}: plurals without all {forms} forms: {short}"


@pytest.mark.parametrize(("language", "domain"), CATALOGS)
def test_translations_keep_the_placeholders(language: str, domain: str) -> None:
    """A translation names exactly the placeholders its message fills (a missing one raises at
    run time in Python, and shows a raw %(name)s on the page)."""
    wrong = []
    for e in messages(language, domain):
        wanted = set(PLACEHOLDER.findall(e.msgid)) | set(PLACEHOLDER.findall(e.msgid_plural or ""))
        for text in e.msgstr.values():
            # A plural's singular may say "one" instead of its count: %(n)s may be left out there.
            got = set(PLACEHOLDER.findall(text))
            if got != wanted and not (e.msgid_plural and got | {"n"} == wanted):
                wrong.append((e.msgid, text))
    assert wrong == []


# English is the code's own, but for django-allauth's title-case words, put in the site's sentence case.
@pytest.mark.parametrize(("language", "domain"), [*CATALOGS, ("en", "django")])
def test_the_compiled_catalogs_are_the_sources(language: str, domain: str) -> None:
    """The .mo files in the repository (what `make run` serves, with no gettext tools) say what
    the .po files say: compile them again after every change (docs/translations.md)."""
    folder = LOCALE / language / "LC_MESSAGES"
    with (folder / f"{domain}.mo").open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    catalog: dict[object, str] = compiled._catalog  # type: ignore[attr-defined]
    expected: dict[object, str] = {}
    for e in messages(language, domain):
        msgid = e.msgid if e.msgctxt is None else f"{e.msgctxt}\x04{e.msgid}"
        if e.msgid_plural is None:
            expected[msgid] = e.msgstr[0]
        else:
            expected.update({(msgid, i): text for i, text in e.msgstr.items()})
    stale = {k: (v, catalog.get(k)) for k, v in expected.items() if catalog.get(k) != v}
    assert stale == {}, f"{language}/{domain}.mo is older than its .po: run `make messages`"
    extra = set(catalog) - set(expected) - {""}
    assert extra == set(), f"{language}/{domain}.mo holds messages its .po does not"


def test_the_catalogs_hold_every_message_of_the_code(tmp_path: Path) -> None:
    """makemessages run on a copy of the sources finds nothing the catalogs lack: every string
    marked in Python, the templates and the pages' JavaScript is translated."""
    for tool in ("xgettext", "msgmerge", "msguniq"):
        assert shutil.which(tool), f"GNU gettext ({tool}) is needed to extract the messages: apt-get install gettext"
    for name in ("manage.py", "yahtzee", "games", "accounts", "bots", "templates", "static", "locale"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, tmp_path / name)
    args = [sys.executable, "manage.py", "makemessages", "--no-location", "--no-obsolete"]
    args += [f"--locale={language}" for language in TRANSLATED]
    for domain in DOMAINS:
        subprocess.run([*args, f"--domain={domain}"], cwd=tmp_path, check=True, capture_output=True)
    for language, domain in CATALOGS:
        found = {
            (e.msgctxt, e.msgid)
            for e in read_po(tmp_path / "locale" / language / "LC_MESSAGES" / f"{domain}.po")
            if e.msgid
        }
        known = {(e.msgctxt, e.msgid) for e in messages(language, domain)}
        assert found - known == set(), f"{language}/{domain}: marked in the code but not in the catalog"
        # Words of django-allauth's and Django's that a catalog puts in the site's voice (the Spanish "tú").
        theirs = {
            (e.msgctxt, e.msgid)
            for folder in THEIR_LOCALES
            if (po := folder / language / "LC_MESSAGES" / f"{domain}.po").exists()
            for e in read_po(po)
        }
        assert known - found - theirs == set(), f"{language}/{domain}: in the catalog but no longer in the code"


# A message marked in the pages' JavaScript, read without xgettext: the context (pgettext) and the
# msgid, each a string literal in double quotes.
_JS_MARKED = re.compile(r'\b(?:(n?gettext)|(n?pgettext))\(\s*"((?:[^"\\]|\\.)*)"(?:\s*,\s*"((?:[^"\\]|\\.)*)")?')


def test_every_message_the_scripts_mark_is_in_their_catalog() -> None:
    """Each gettext/ngettext/pgettext call with a literal in static/js names a message of the
    djangojs catalogs, read here from the sources themselves: xgettext's JavaScript reader loses
    its place after some literals (a regular expression with a "/" in a character class), and
    then every message after it in the file is missing from the catalogs, and from the check above,
    without a word (the page shows them in English)."""

    def unescaped(text: str) -> str:  # a double-quoted literal's escapes are JSON's ("\\u00a0")
        return str(json.loads(f'"{text}"'))

    marked = set()
    for script in (ROOT / "static" / "js").rglob("*.js"):
        for _, with_context, first, second in _JS_MARKED.findall(script.read_text()):
            marked.add((unescaped(first), unescaped(second)) if with_context else (None, unescaped(first)))
    assert len(marked) > 100
    for language in TRANSLATED:
        known = {(e.msgctxt, e.msgid) for e in messages(language, "djangojs")}
        assert marked - known == set(), f"{language}: marked in static/js but not in djangojs.po"


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_painted_dice_colour_has_its_own_letter_in_every_language(language: str) -> None:
    """A painted die shows its colour by hue, pattern and a letter (static/js/words.js colourMark),
    so that it is never told by hue alone. The colour name's initial is not that letter: German's
    gelb and grün are both G, French vert and violet both V. Each language gives its five letters."""
    marks = {e.msgid: e.msgstr.get(0, "") for e in messages(language, "djangojs") if e.msgctxt == "dice colour letter"}
    assert sorted(marks) == ["B", "G", "P", "R", "Y"], f"{language}: the dice colour letters are not all in the catalog"
    assert all(len(mark) == 1 for mark in marks.values()), f"{language}: not one letter each: {marks}"
    assert len({mark.upper() for mark in marks.values()}) == 5, f"{language}: two colours share a letter: {marks}"


def test_the_pages_count_points_in_each_languages_plural_forms() -> None:
    """A screen reader reads an open box's button as "Score Ones for 1 point" (and French says
    "0 point"): a message of the page that counts points is a plural one (ngettext), so that each
    language gives the count its own form."""
    counted = {
        (language, e.msgid)
        for language in TRANSLATED
        for e in messages(language, "djangojs")
        if "%(points)s points" in e.msgid and e.msgid_plural is None
    }
    assert counted == set()


# A span of time is one of the pages' spans ("1 day", "3 hours", "1 day, 2 hours"): a translation
# that agrees a word with it reads wrong for one of them ("1 jour restants", "quedan 1 día",
# "es bleiben 1 Tag").
SPAN_MESSAGES = re.compile(r"%\((time|left)\)s (of (your|their) time to move is )?left")
AGREES_WITH_THE_SPAN = {
    "fr": re.compile(r"%\((time|left)\)s restant"),
    "es": re.compile(r"quedan %\((time|left)\)s"),
    "de": re.compile(r"bleiben %\((time|left)\)s"),
}


@pytest.mark.parametrize("language", sorted(AGREES_WITH_THE_SPAN))
@pytest.mark.parametrize("domain", DOMAINS)
def test_time_left_reads_right_for_one_day_and_for_three_hours(language: str, domain: str) -> None:
    """Your games and the turn notices say how long is left for a move: in French, Spanish and
    German the sentence is put so that nothing in it agrees with the span's number or gender ("Il
    reste 1 jour", "Tiempo restante: 1 día", "verbleibende Zeit: 1 Tag")."""
    spans = [e for e in messages(language, domain) if SPAN_MESSAGES.search(e.msgid)]
    assert spans, "no message says how long is left"
    wrong = [
        (e.msgid, text)
        for e in spans
        for text in e.msgstr.values()
        if AGREES_WITH_THE_SPAN[language].search(text.lower())
    ]
    assert wrong == []


# Messages that name the Yahtzee box itself or its bonus (not the game, whose name stays "Yahtzee").
NAMES_THE_BOX = re.compile(r"Yahtzee (box|boxes|bonus)\b")


@pytest.mark.parametrize("domain", DOMAINS)
def test_german_messages_call_the_yahtzee_box_and_its_bonus_kniffel_as_the_card_does(domain: str) -> None:
    """A German player's card names the box "Kniffel" and its bonus row "Kniffel-Bonus"
    (pgettext "Yahtzee box"; "%(box)s bonus"), and the German rules page says "Kniffel-Feld" and
    "Kniffel-Boni": every other message that names the box or its bonus (the joker's refusals,
    the score button's bonus, the log's and the e-mail's) says the same."""
    wrong = [
        (e.msgid, text)
        for e in messages("de", domain)
        if NAMES_THE_BOX.search(e.msgid)
        for text in e.msgstr.values()
        if "Kniffel" not in text
    ]
    assert wrong == []


# Codes the room page never shows as they come: a resync answers them (stale, repeated_action),
# the page cannot send what they refuse (malformed frames, boxes, dice, levels it does not offer),
# or they belong to other pages (the create form, notices, a finished game's log). A spectator's
# mute is not among them: the host's page offers it on the host's own lines from before they took
# a seat too (``own_chat``).
NOT_SHOWN_IN_THE_ROOM = {
    "stale", "repeated_action", "bad_frame", "frame_too_large", "bad_json", "unknown_type", "missing_field",
    "bad_field", "bad_die_index", "unknown_box", "bad_column", "bad_players", "bad_dice", "bad_ruleset",
    "bad_request", "bad_level", "bad_reaction", "bad_timer", "bad_pace", "bad_subscription", "no_address",
    "not_over", "not_finished", "mail_failed", "mailed_enough", "no_room", "asked_enough",
    "same_hold", "subscription_gone", "subscription_ended", "subscription_held",
    # A fetch's empty 4xx (the room's fetches are GETs of addresses that take them), and its refused
    # CSRF token, whose message the server words in the reader's language (errorpages.csrf_failure).
    "forbidden", "not_found", "method_not_allowed", "csrf_failed",
}  # fmt: skip


def test_every_refusal_a_player_can_meet_in_the_room_has_words_in_the_readers_language() -> None:
    from games.domain import errors

    codes = {value for name, value in vars(errors).items() if name.isupper() and isinstance(value, str)}
    words = (settings.BASE_DIR / "static" / "js" / "room" / "errors.js").read_text()
    table = words[words.index("const ERRORS = {") : words.index("};", words.index("const ERRORS = {"))]
    worded = set(re.findall(r"^\s+([a-z_]+): (?:fmt\()?n?gettext\(", table, re.MULTILINE))
    assert sorted(codes - NOT_SHOWN_IN_THE_ROOM - worded) == []


def test_the_account_pages_speak_in_the_sentence_case_of_the_rest_of_the_site(client: Any) -> None:
    """django-allauth writes "Sign In", "Sign Up" where the site's menu says "Sign in": the English
    catalog puts its words in the site's case; the other languages keep allauth's translations."""
    for path, heading in (("/accounts/login/", "Sign in"), ("/accounts/signup/", "Sign up")):
        page = client.get(path, HTTP_ACCEPT_LANGUAGE="en").content.decode()
        assert f"<h1>{heading}</h1>" in page.replace("\n", "").replace("  ", ""), path
        assert "Sign In" not in page and "Sign Up" not in page and "Signup" not in page, path
    german = client.get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Anmeldung" in german


# French sets its high marks and guillemets apart with a space a line may not break at: a plain
# one lets a narrow screen start a line with the colon or the question mark.
_FRENCH_LOOSE_MARK = re.compile(r"[ \t][:;?!»]|«[ \t]")
_FRENCH_PAGES = [ROOT / "templates" / "games" / "rules.fr.md", ROOT / "docs" / "fairness.fr.md"]


@pytest.mark.parametrize("domain", DOMAINS)
def test_french_keeps_its_marks_on_the_line_of_the_word_before(domain: str) -> None:
    loose = [
        text
        for e in messages("fr", domain)
        for text in e.msgstr.values()
        if _FRENCH_LOOSE_MARK.search(text.replace("%%", ""))
    ]
    assert loose == [], f"fr/{domain}: a plain space before : ; ? ! » or after «: {loose}"


def test_the_french_pages_keep_their_marks_on_the_line_of_the_word_before() -> None:
    for page in _FRENCH_PAGES:
        prose = re.sub(r"```.*?```|`[^`]*`", "", page.read_text(encoding="utf-8"), flags=re.S)
        # a table's rows start with "| " and end with " |", which are not French marks
        loose = [line for line in prose.splitlines() if _FRENCH_LOOSE_MARK.search(line.replace(" |", ""))]
        assert loose == [], f"{page.name}: a plain space before : ; ? ! » or after «: {loose}"
