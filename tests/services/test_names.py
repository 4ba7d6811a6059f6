"""Display names: what people see is what is stored, and two names that look alike cannot sit side by side."""

from __future__ import annotations

import pytest

from games import services
from games.domain.errors import NAME_TAKEN
from games.domain.rules import RuleViolation
from games.services.codes import isolated
from games.store.models import Game, Player
from tests.factories import open_room


def stored_room(code: str) -> tuple[int, list[str], int, int]:
    """What a refused join must leave as it was: the version, the seats, the moves and the players."""
    game = Game.objects.get(code=code)
    return game.version, [s.name for s in game.room.seats], game.moves.count(), Player.objects.filter(game=game).count()


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("Ho\u200bst", "Host"),  # zero-width space
        ("\u202eHost", "Host"),  # right-to-left override
        ("Host\u2066\u2069", "Host"),  # bidi isolates
        ("Ho\u00adst", "Host"),  # soft hyphen
        ("Jose\u0301", "Jos\u00e9"),  # NFC: e + combining acute is é
        ("Ann\tMarie", "Ann Marie"),
        # A name goes into e-mail subjects ("Ann's turn in room ..."): no line break may reach a header.
        ("Ann\r\nBcc: x@evil.example", "Ann Bcc: x@evil.example"),
        ("Ann\u2028Lee\u2029", "Ann Lee"),  # Unicode's line and paragraph separators
        ("Ann\u0085Lee", "AnnLee"),  # a control character (NEL)
        ("Z\u0301\u0302\u0303\u0304\u0305\u0306\u0307", "\u0179\u0302\u0303\u0304"),  # marks capped at 3
    ],
)
def test_a_name_is_normalised_and_loses_its_invisible_characters(typed: str, stored: str) -> None:
    cleaned = services.clean_name(typed)
    assert cleaned == stored
    assert all(ord(c) not in (0x200B, 0x202E, 0x2066, 0x2069, 0xAD) for c in cleaned)


@pytest.mark.parametrize(
    "typed",
    [
        "\U0001f469\U0001f3fd\u200d\U0001f4bb",  # woman technologist, medium skin: one emoji, joined
        "\U0001f3f3\ufe0f\u200d\U0001f308",  # rainbow flag: white flag (emoji style), joiner, rainbow
        "Liv \u2764\ufe0f",  # a red heart, not the black text one
        "Team 1\ufe0f\u20e3",  # keycap one
        "\u0639\u0644\u06cc\u200c\u0631\u0636\u0627",  # Persian "Ali-Reza": the non-joiner is its spelling
        "\u0915\u094d\u200d\u0937",  # Devanagari: a half form asked for by the joiner
    ],
)
def test_the_joiners_and_emoji_style_that_a_name_is_spelt_with_stay(typed: str) -> None:
    """An emoji drawn of several (a family, a flag, a skin tone with a job), a symbol in emoji style,
    and Persian or Indic letters that the zero-width (non-)joiner shapes draw as typed only with
    them: dropped, "👩🏽‍💻" would show as two pictures and "علی‌رضا" run its two words together."""
    assert services.clean_name(typed) == typed


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("Ho\u200dst", "Host"),  # between Latin letters a joiner changes nothing drawn
        ("\u200cAnn\u200d", "Ann"),  # at either end, nothing to join
        ("\U0001f469\u200d\u200d\U0001f4bb", "\U0001f469\u200d\U0001f4bb"),  # one is all a join takes
        ("\U0001f469\u200d", "\U0001f469"),
        ("Ann\ufe0f", "Ann"),  # emoji style of a letter: nothing
        ("\u2764\ufe0f\ufe0f", "\u2764\ufe0f"),
    ],
)
def test_a_joiner_or_emoji_style_that_joins_nothing_is_dropped(typed: str, stored: str) -> None:
    assert services.clean_name(typed) == stored


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("first", "twin"),
    [
        ("\u0639\u0644\u06cc\u200c\u0631\u0636\u0627", "\u0639\u0644\u06cc\u0631\u0636\u0627"),
        ("\U0001f469\u200d\U0001f4bb", "\U0001f469\U0001f4bb"),
        ("Liv \u2764\ufe0f", "Liv \u2764"),
    ],
)
def test_a_name_that_differs_from_another_only_by_a_joiner_or_emoji_style_is_taken(first: str, twin: str) -> None:
    table = open_room(1, start=False)
    services.game_join(code=table.code, name=first, controller="someone")
    for name, controller in ((twin, "someone-else"), (first, "a-third")):
        with pytest.raises(RuleViolation) as caught:
            services.game_join(code=table.code, name=name, controller=controller)
        assert caught.value.code == NAME_TAKEN
    table = open_room(1, start=False)
    services.game_join(code=table.code, name=twin, controller="someone")
    with pytest.raises(RuleViolation) as caught:
        services.game_join(code=table.code, name=first, controller="someone-else")
    assert caught.value.code == NAME_TAKEN


def test_stacked_combining_marks_are_capped_per_character() -> None:
    cleaned = services.clean_name(("a" + "\u0316\u0317\u0318\u0319\u031a" * 4) * 3)
    assert cleaned == ("a" + "\u0316\u0317\u0318") * 3


@pytest.mark.parametrize("typed", ["\u200b\u200b", "\u202e", " \u0301\u0301 ", "\u00ad", "\x00\x01", "\u3164"])
def test_a_name_without_a_visible_character_is_refused(typed: str) -> None:
    with pytest.raises(RuleViolation) as caught:
        services.clean_name(typed)
    assert caught.value.code == services.BAD_NAME


@pytest.mark.django_db
@pytest.mark.parametrize("twin", ["Host\u200b", "HOST", "\uff28\uff4f\uff53\uff54", "host", "Ho\u202est"])
def test_a_name_that_only_looks_different_is_taken(twin: str) -> None:
    lobby = open_room(1, start=False)
    Player.objects.filter(game__code=lobby.code).update(name="Host")
    game = Game.objects.get(code=lobby.code)
    game.snapshot["seats"][0]["name"] = "Host"
    game.save(update_fields=["snapshot"])
    before = Game.objects.get(code=lobby.code).version
    with pytest.raises(RuleViolation) as caught:
        services.game_join(code=lobby.code, name=twin, controller="someone-else")
    assert caught.value.code == services.NAME_TAKEN
    assert Game.objects.get(code=lobby.code).version == before


@pytest.mark.django_db
def test_pass_and_play_names_must_differ_beyond_case_and_width() -> None:
    with pytest.raises(RuleViolation) as caught:
        services.local_game_create(names=["Ann", "\uff41\uff4e\uff4e"], controller="home")
    assert caught.value.code == services.NAME_TAKEN


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("names", "code", "index"),
    [
        (["Ann", "Ben", "ben"], NAME_TAKEN, 2),
        (["Ann", "\u200b", "Cy"], services.BAD_NAME, 1),
        (["Former player", "Ben"], services.NAME_RESERVED, 0),
    ],
)
def test_a_pass_and_play_name_refused_says_which_player_it_was(names: list[str], code: str, index: int) -> None:
    with pytest.raises(services.NameRefused) as caught:
        services.local_game_create(names=names, controller="home")
    assert (caught.value.code, caught.value.index) == (code, index)
    assert not Game.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "twin",
    [
        "Host\u034f",  # COMBINING GRAPHEME JOINER: draws nothing
        "Host\ufe0f",  # VARIATION SELECTOR-16: draws nothing after a letter
        "Ho\ufe00st",  # VARIATION SELECTOR-1
        "Host\U000e0100",  # VARIATION SELECTOR-17
        "Host\u180b",  # MONGOLIAN FREE VARIATION SELECTOR ONE
        "Host\u17b4",  # KHMER VOWEL INHERENT AQ: invisible
    ],
)
def test_a_name_with_an_invisible_mark_cannot_sit_beside_its_twin(twin: str) -> None:
    """security.md: names lose what draws nothing, and two names that only look different cannot
    sit in one room: "Host" with a mark or selector that draws nothing after it (or within it)
    is the name "Host", taken."""
    table = open_room(1, start=False)
    services.game_join(code=table.code, name="Host", controller="someone")
    with pytest.raises(RuleViolation) as caught:
        services.game_join(code=table.code, name=twin, controller="someone-else")
    assert caught.value.code == NAME_TAKEN


@pytest.mark.django_db
def test_a_join_sent_twice_by_one_browser_keeps_its_seat_and_another_browser_is_still_refused_the_name() -> None:
    """A double click on "Take a seat" posts the join twice: the second is answered with the seat the
    browser has, not "someone here is already called Bob" while Bob sits there."""
    table = open_room(1, start=False)
    first = services.game_join(code=table.code, name="Bob", controller="bobs-browser", action_id="join-a-1")
    version = Game.objects.get(code=table.code).version
    again = services.game_join(code=table.code, name="bob", controller="bobs-browser", action_id="join-a-1")
    assert again.pk == first.pk and Game.objects.get(code=table.code).version == version
    # A page that sends no form id (served by the release before) is answered the same.
    assert services.game_join(code=table.code, name="Bob", controller="bobs-browser").pk == first.pk
    assert [s.name for s in Game.objects.get(code=table.code).room.seats] == ["P0", "Bob"]
    with pytest.raises(RuleViolation) as caught:
        services.game_join(code=table.code, name="Bob", controller="someone-else")
    assert caught.value.code == NAME_TAKEN and Game.objects.get(code=table.code).version == version


@pytest.mark.django_db
def test_a_second_player_of_one_device_given_the_first_ones_name_is_told_so_and_takes_no_seat() -> None:
    """Another join form of the browser (not the same one sent twice) naming a seat it has: a
    companion typed the host's name, and is told rather than answered with the host's seat."""
    table = open_room(1, start=False)
    services.game_join(code=table.code, name="Bob", controller="bobs-browser", action_id="join-a-1")
    before = stored_room(table.code)
    with pytest.raises(services.NameRefused) as caught:
        services.game_join(code=table.code, name="BOB", controller="bobs-browser", action_id="join-b-2")
    assert caught.value.code == NAME_TAKEN
    assert caught.value.message == (
        "\u2068Bob\u2069 already sits at this table on this device: each player on it needs a name of their own."
    )
    assert stored_room(table.code) == before


def reserved(name: str) -> str:
    """``name`` refused as reserved for a seat taken in a lobby and for a room made, online or on
    one device, and nothing written: the message of the join's refusal."""
    lobby = open_room(1, start=False)
    before = Game.objects.get(code=lobby.code).version
    with pytest.raises(RuleViolation) as joined:
        services.game_join(code=lobby.code, name=name, controller="someone-else")
    assert joined.value.code == services.NAME_RESERVED
    assert Game.objects.get(code=lobby.code).version == before
    assert not Player.objects.filter(game__code=lobby.code, controller="someone-else").exists()
    games = Game.objects.count()
    for create in (
        lambda: services.game_create(host_name=name, controller="host"),
        lambda: services.local_game_create(names=["Ann", name], controller="home"),
    ):
        with pytest.raises(RuleViolation) as caught:
            create()
        assert caught.value.code == services.NAME_RESERVED
    assert Game.objects.count() == games
    return joined.value.message


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["Former player", "former  PLAYER", "\uff26ormer player", "Ehemalige Person"])
def test_nobody_may_take_the_name_a_deleted_accounts_seat_is_shown_under(name: str) -> None:
    """Whatever language the name is typed in: a German reader sees "Ehemalige Person" on a deleted account's seat."""
    assert "deleted accounts" in reserved(name)


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["Spectator", "SPECTATOR", "Zuschauer", "Tilskuer", "Åskådare", "Espectador"])
def test_nobody_may_take_the_name_a_spectators_chat_lines_are_shown_under(name: str) -> None:
    """A spectator's chat line is shown under "Spectator", in the reader's language: a seat under
    that name (in any of them) would pass for a spectator in the chat."""
    assert "spectators" in reserved(name)


def test_a_name_that_only_holds_the_spectators_word_is_free() -> None:
    assert services.clean_name("Spectator Sam") == "Spectator Sam"


@pytest.mark.django_db
def test_a_name_that_only_contains_the_deleted_accounts_name_is_anyones() -> None:
    assert services.clean_name("Former player 2") == "Former player 2"
    table = open_room(1, start=False)
    assert services.game_join(code=table.code, name="Former Playerine", controller="someone").name == "Former Playerine"


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["B\ufffdb", "\ufffd\ufffd\ufffdx", "Bob\ufffd"])
def test_a_name_holding_a_lost_letter_is_refused_not_stored_without_it(name: str) -> None:
    """U+FFFD is what a decoder puts where bytes were not UTF-8 (a form post, a JSON escape): the
    name has lost a letter, and no seat, host or player on one device is stored under it."""
    lobby = open_room(1, start=False)
    before = Game.objects.get(code=lobby.code).version
    with pytest.raises(services.NameRefused) as caught:
        services.game_join(code=lobby.code, name=name, controller="someone-else")
    assert caught.value.code == services.BAD_NAME and "�" in caught.value.message
    assert Game.objects.get(code=lobby.code).version == before
    assert not Player.objects.filter(game__code=lobby.code, controller="someone-else").exists()
    games = Game.objects.count()
    with pytest.raises(services.NameRefused) as caught:
        services.game_create(host_name=name, controller="host")
    assert caught.value.code == services.BAD_NAME
    with pytest.raises(services.NameRefused) as caught:
        services.local_game_create(names=["Ann", name], controller="home")
    assert (caught.value.code, caught.value.index) == (services.BAD_NAME, 1)
    assert Game.objects.count() == games


# Names that read as one at a table, by the rule account names are compared by (name_skeleton):
# glyphs the site's font draws alike, a Cyrillic or Greek letter drawn as a Latin one, a language's
# own spelling, and the marks between the parts of a name, a space among them.
READ_ALIKE = [
    ("Ann1", "Annl"),
    ("AnnI", "Anni"),
    ("Ann1", "Ann|"),  # a vertical bar: a seat's name may hold one, a username not
    ("Annl", "Ann\uff5c"),  # a full-width one
    ("Pip", "P\u01c0p"),  # the Latin letter of a click, drawn as a bar
    ("B0b", "Bob"),
    ("Ann", "\u0410nn"),  # a Cyrillic capital A
    ("\u0421\u043e\u0440", "Cop"),  # all Cyrillic
    ("Dılek", "Dilek"),
    ("Straße", "STRASSE"),
    ("Ann Lee", "Ann_Lee"),
    ("Ann Lee", "AnnLee"),
    ("ann.lee", "Ann Lee"),
    # One name in capitals and in small letters: the Greek capital "Ν" is drawn as "N", its small
    # letter as a "v", yet "ΝΙΚΟ" and "νικο" are one name.
    ("ΝΙΚΟ", "νικο"),
    ("νικο", "NΙΚΟ"),
    # Every dash, connector and middle dot parts a name as "-" or "_" does.
    ("Ann-Lee", "Ann–Lee"),  # an en dash
    ("Ann-Lee", "Ann—Lee"),  # an em dash
    ("Ann-Lee", "Ann−Lee"),  # a minus sign
    ("Ann_Lee", "Ann‿Lee"),  # an undertie
    ("Ann.Lee", "Ann·Lee"),  # a middle dot
    ("Ann Lee", "Ann・Lee"),  # a katakana middle dot
    # Letters and signs drawn as a middle dot or a hyphen, though Unicode counts them as neither.
    ("Ann·Lee", "Ann\ua78fLee"),  # the Latin letter sinological dot
    ("Ann·Lee", "Ann\u1427Lee"),  # the Canadian syllabics final middle dot
    ("Ann·Lee", "Ann\u318dLee"),  # the Hangul letter araea
    ("Ann-Lee", "Ann\u02d7Lee"),  # the modifier letter minus sign
    ("Ann-Lee", "Ann\u2043Lee"),  # the hyphen bullet
]


@pytest.mark.django_db
@pytest.mark.parametrize(("seated", "twin"), READ_ALIKE)
def test_a_name_that_reads_as_a_seated_players_is_taken_and_not_given_their_seat(seated: str, twin: str) -> None:
    table = open_room(1, start=False)
    mine = services.game_join(code=table.code, name=seated, controller="first")
    before = Game.objects.get(code=table.code).version
    with pytest.raises(services.NameRefused) as caught:
        services.game_join(code=table.code, name=twin, controller="impersonator")
    # The refusal names the seated player's name it reads as (seat names are public at the table);
    # the same name in another case is that name.
    said = (
        f"Someone here is already called {twin}."
        if services.name_key(twin) == services.name_key(seated)
        else f"{twin} reads the same as {isolated(seated)}, who is already at the table: please choose another name."
    )
    assert caught.value.code == NAME_TAKEN and caught.value.message == said
    game = Game.objects.get(code=table.code)
    assert game.version == before
    assert [(s.name, s.controller) for s in game.room.seats][1:] == [(seated, "first")]
    assert game.room.seats[1].player == mine.pk
    assert not Player.objects.filter(game=game, controller="impersonator").exists()


@pytest.mark.django_db
def test_a_browser_typing_a_look_alike_of_its_own_seats_name_is_refused_a_second_seat_not_given_the_first() -> None:
    """The same name again (any case) is a join sent twice, answered with the seat the browser has;
    a look-alike is another name, which would read as that seat's beside it: refused."""
    table = open_room(1, start=False)
    first = services.game_join(code=table.code, name="Ann1", controller="home")
    version = Game.objects.get(code=table.code).version
    assert services.game_join(code=table.code, name="ANN1", controller="home").pk == first.pk
    with pytest.raises(services.NameRefused) as caught:
        services.game_join(code=table.code, name="Annl", controller="home")
    assert caught.value.code == NAME_TAKEN
    game = Game.objects.get(code=table.code)
    assert game.version == version and [s.name for s in game.room.seats] == ["P0", "Ann1"]


@pytest.mark.django_db
@pytest.mark.parametrize(("one", "other"), [("Ann", "Anna"), ("Bob", "Bab"), ("Ann Lee", "Ann Leo"), ("barn", "bam")])
def test_names_that_read_differently_sit_side_by_side(one: str, other: str) -> None:
    table = open_room(1, start=False)
    services.game_join(code=table.code, name=one, controller="one")
    services.game_join(code=table.code, name=other, controller="other")
    assert [s.name for s in Game.objects.get(code=table.code).room.seats] == ["P0", one, other]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("names", "index"),
    [
        (["Ann1", "Annl"], 1),
        (["B0b", "Cy", "Bob"], 2),
        (["Ann Lee", "Ann_Lee"], 1),
        (["ΝΙΚΟ", "νικο"], 1),
        (["Ann-Lee", "Cy", "Ann–Lee"], 2),
    ],
)
def test_players_of_one_device_may_not_have_names_that_read_alike(names: list[str], index: int) -> None:
    with pytest.raises(services.NameRefused) as caught:
        services.local_game_create(names=names, controller="home")
    assert (caught.value.code, caught.value.index, caught.value.message) == (
        NAME_TAKEN,
        index,
        "Give each player a different name.",
    )
    assert not Game.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("F0rmer P1ayer", "deleted accounts"),
        ("Former_player", "deleted accounts"),
        ("Formerplayer", "deleted accounts"),
        ("Ehemal1ge Person", "deleted accounts"),
        ("Spectat0r", "spectators"),
        ("SPECTAT0R", "spectators"),
        ("Spe\u0441tator", "spectators"),  # a Cyrillic "с"
        ("Zusc\u04bbauer", "spectators"),  # a Cyrillic "һ"
    ],
)
def test_a_name_that_reads_as_the_sites_own_words_is_reserved(name: str, said: str) -> None:
    lobby = open_room(1, start=False)
    with pytest.raises(services.NameRefused) as caught:
        services.game_join(code=lobby.code, name=name, controller="someone-else")
    assert caught.value.code == services.NAME_RESERVED and said in caught.value.message
    with pytest.raises(services.NameRefused) as caught:
        services.local_game_create(names=["Ann", name], controller="home")
    assert (caught.value.code, caught.value.index) == (services.NAME_RESERVED, 1)


@pytest.mark.django_db
def test_a_computer_is_not_named_as_a_player_at_the_table_reads() -> None:
    """A person seated as "R0lly" or "P1p": the computers added take names that read as nobody's."""
    table = open_room(1, start=False)
    host = table.controllers[0]
    services.game_join(code=table.code, name="R0lly", controller="one")
    services.game_join(code=table.code, name="P1p", controller="two")
    version = Game.objects.get(code=table.code).version
    bot = services.game_add_bot(code=table.code, controller=host, expected_version=version, action_id="b")
    assert bot.name == "Dicey"


@pytest.mark.parametrize("joiner", ["\u200d", "\u200c"])
def test_combining_marks_parted_by_joiners_are_still_capped_per_character(joiner: str) -> None:
    # A joiner draws nothing and parts no letters: the marks after it stack on the letter before.
    cleaned = services.clean_name("a" + ("\u0316" + joiner) * 12 + "b")
    assert cleaned == "a\u0316\u0316\u0316b"


@pytest.mark.parametrize("before", [" ", "\t", "\u3000", " \u200b"])
def test_combining_marks_on_the_space_a_name_is_trimmed_of_go_with_it(before: str) -> None:
    # Trimmed of its space, a name would begin with marks on nothing, drawn over what comes before it.
    assert services.clean_name(before + "\u0338\u0338Ann") == "Ann"
    with pytest.raises(RuleViolation):  # nothing left to show
        services.clean_name(before + "\u0338")
