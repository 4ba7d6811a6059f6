"""The frames as declared (games.domain.protocol): every kind decodes, every bad input is refused with its code.

No database and no socket: the decoder alone, as the consumer and the form posts use it.
What reaches the room over a socket is tested in tests/realtime/consumers.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.domain import errors, protocol
from games.domain.rules import Box

# One frame of every kind a client sends, with the service each calls and its arguments. The
# extra fields are those a client sends on every frame: ignored where not declared.
EVERY_FRAME: list[tuple[dict[str, Any], type[protocol.Incoming], dict[str, Any]]] = [
    ({"type": "ping"}, protocol.Ping, {}),
    ({"type": "ping", "version": 4, "id": "p-1"}, protocol.Ping, {}),
    ({"type": "sync", "version": 4, "id": "s-1"}, protocol.Sync, {}),
    ({"type": "visibility", "hidden": True}, protocol.Visibility, {}),
    ({"type": "visibility", "hidden": True, "hidden_for": 95}, protocol.Visibility, {}),
    ({"type": "visibility", "hidden": False, "version": 4, "id": "v-1"}, protocol.Visibility, {}),
    ({"type": "hint", "version": 12, "id": "h-1"}, protocol.Hint, {}),
    ({"type": "start", "version": 3, "id": "c-1"}, protocol.Start, {"expected_version": 3, "action_id": "c-1"}),
    ({"type": "roll", "version": 4, "id": "c-2"}, protocol.Roll, {"expected_version": 4, "action_id": "c-2"}),
    (
        {"type": "roll", "held": [1, 4], "version": 6, "id": "c-2b"},
        protocol.Roll,
        {"expected_version": 6, "action_id": "c-2b", "held": [1, 4]},
    ),
    (
        {"type": "hold", "held": [0, 3], "version": 5, "id": "c-3"},
        protocol.Hold,
        {"expected_version": 5, "action_id": "c-3", "held": [0, 3]},
    ),
    (
        {"type": "hold", "held": [], "version": 5, "id": "c-3b"},
        protocol.Hold,
        {"expected_version": 5, "action_id": "c-3b", "held": []},
    ),
    (
        {"type": "score", "box": "full_house", "version": 7, "id": "c-4"},
        protocol.Score,
        {"expected_version": 7, "action_id": "c-4", "box": "full_house", "column": 0},
    ),
    (
        {"type": "score", "box": "chance", "column": 2, "version": 7, "id": "c-4b"},
        protocol.Score,
        {"expected_version": 7, "action_id": "c-4b", "box": "chance", "column": 2},
    ),
    (
        {"type": "leave", "seat": 1, "version": 8, "id": "c-5"},
        protocol.Leave,
        {"expected_version": 8, "action_id": "c-5", "seat": 1},
    ),
    (
        {"type": "kick", "seat": 2, "version": 2, "id": "c-6"},
        protocol.Kick,
        {"expected_version": 2, "action_id": "c-6", "seat": 2},
    ),
    (
        {"type": "remove", "seat": 2, "version": 30, "id": "c-7"},
        protocol.Remove,
        {"expected_version": 30, "action_id": "c-7", "seat": 2},
    ),
    ({"type": "add_bot", "version": 3, "id": "c-8"}, protocol.AddBot, {"expected_version": 3, "action_id": "c-8"}),
    (
        {"type": "add_bot", "level": "casual", "version": 3, "id": "c-8b"},
        protocol.AddBot,
        {"expected_version": 3, "action_id": "c-8b", "level": "casual"},
    ),
    (
        {"type": "replace", "seat": 1, "level": "optimal", "version": 31, "id": "c-9"},
        protocol.Replace,
        {"expected_version": 31, "action_id": "c-9", "seat": 1, "level": "optimal"},
    ),
    (
        {"type": "replace", "seat": 1, "version": 31, "id": "c-9b"},
        protocol.Replace,
        {"expected_version": 31, "action_id": "c-9b", "seat": 1},
    ),
    ({"type": "pause", "version": 30, "id": "c-30"}, protocol.Pause, {"expected_version": 30, "action_id": "c-30"}),
    ({"type": "resume", "version": 31, "id": "c-31"}, protocol.Resume, {"expected_version": 31, "action_id": "c-31"}),
    (
        {"type": "mute", "seat": 1, "version": 12, "id": "c-20"},
        protocol.Mute,
        {"expected_version": 12, "action_id": "c-20", "seat": 1},
    ),
    (
        {"type": "unmute", "seat": 1, "version": 13, "id": "c-21"},
        protocol.Unmute,
        {"expected_version": 13, "action_id": "c-21", "seat": 1},
    ),
    (
        {"type": "mute_spectator", "spectator": "3f9a0c1b2d4e", "version": 14, "id": "c-22"},
        protocol.MuteSpectator,
        {"expected_version": 14, "action_id": "c-22", "spectator": "3f9a0c1b2d4e"},
    ),
    (
        {"type": "unmute_spectator", "spectator": "3f9a0c1b2d4e", "version": 15, "id": "c-23"},
        protocol.UnmuteSpectator,
        {"expected_version": 15, "action_id": "c-23", "spectator": "3f9a0c1b2d4e"},
    ),
    (
        {"type": "chat", "text": "good luck!", "id": "chat-14", "version": 9},
        protocol.Chat,
        {"text": "good luck!", "frame_id": "chat-14"},
    ),
    ({"type": "chat", "text": "my turn", "seat": 2}, protocol.Chat, {"text": "my turn", "seat": 2}),
    ({"type": "react", "reaction": "👏", "id": "r-16", "version": 9}, protocol.React, {"reaction": "👏"}),
    ({"type": "react", "reaction": "👏", "seat": 0}, protocol.React, {"reaction": "👏", "seat": 0}),
    ({"type": "back"}, protocol.Back, {}),
    ({"type": "back", "version": 9, "id": "b-1", "anything": [1, {"else": None}]}, protocol.Back, {}),
    ({"type": "back", "seat": 2, "id": "back-3"}, protocol.Back, {"seat": 2}),
]


@pytest.mark.parametrize(("sent", "kind", "arguments"), EVERY_FRAME)
def test_every_frame_kind_decodes_to_its_struct_with_the_services_arguments(
    sent: dict[str, Any], kind: type[protocol.Incoming], arguments: dict[str, Any]
) -> None:
    frame = protocol.decode(json.dumps(sent))
    assert type(frame) is kind and frame.kind == sent["type"]
    assert frame.arguments() == arguments


def test_every_declared_frame_is_tried_and_each_names_a_service_of_the_package() -> None:
    from games import services

    assert {sent["type"] for sent, _, _ in EVERY_FRAME} == set(protocol.FRAMES)
    for kind in protocol.FRAMES.values():
        if kind.service:
            assert callable(getattr(services, kind.service)), kind


BAD = errors.BAD_SPECTATOR
# Each bad input: the frame's text, the code, and the field named (for the form posts' messages).
REFUSED: list[tuple[str, str, str]] = [
    ("not json", errors.BAD_JSON, ""),
    ("[" * 2000 + "]" * 2000, errors.BAD_JSON, ""),
    ('{"type": "ping", "pad": ' + "[" * 1500 + "]" * 1500 + "}", errors.BAD_JSON, ""),
    ("[1, 2]", errors.BAD_FRAME, ""),
    ('"roll"', errors.BAD_FRAME, ""),
    ('{"version": 3}', errors.BAD_FRAME, ""),
    ('{"type": ["roll"], "version": 3, "id": "x"}', errors.BAD_FRAME, ""),
    ('{"type": null}', errors.BAD_FRAME, ""),
    ('{"type": "dance"}', errors.UNKNOWN_TYPE, ""),
    ('{"type": "state"}', errors.UNKNOWN_TYPE, ""),
    ('{"type": "roll", "id": "x"}', errors.MISSING_FIELD, "version"),
    ('{"type": "roll", "version": 3}', errors.MISSING_FIELD, "id"),
    ('{"type": "hold", "version": 3, "id": "x"}', errors.MISSING_FIELD, "held"),
    ('{"type": "score", "version": 3, "id": "x"}', errors.MISSING_FIELD, "box"),
    ('{"type": "kick", "version": 3, "id": "x"}', errors.MISSING_FIELD, "seat"),
    ('{"type": "chat"}', errors.MISSING_FIELD, "text"),
    ('{"type": "react", "seat": 0}', errors.MISSING_FIELD, "reaction"),
    # ints are not bools, strings or floats
    ('{"type": "roll", "version": "3", "id": "x"}', errors.BAD_FIELD, "version"),
    ('{"type": "roll", "version": true, "id": "x"}', errors.BAD_FIELD, "version"),
    ('{"type": "roll", "version": 3.0, "id": "x"}', errors.BAD_FIELD, "version"),
    ('{"type": "leave", "seat": false, "version": 3, "id": "x"}', errors.BAD_FIELD, "seat"),
    ('{"type": "score", "box": "chance", "column": true, "version": 3, "id": "x"}', errors.BAD_FIELD, "column"),
    ('{"type": "score", "box": "chance", "column": null, "version": 3, "id": "x"}', errors.BAD_FIELD, "column"),
    ('{"type": "chat", "text": "hi", "seat": true}', errors.BAD_FIELD, "seat"),
    ('{"type": "chat", "text": "hi", "seat": null}', errors.BAD_FIELD, "seat"),
    ('{"type": "chat", "text": 5}', errors.BAD_FIELD, "text"),
    ('{"type": "chat", "text": "hi", "id": 7}', errors.BAD_FIELD, "id"),
    ('{"type": "hint"}', errors.BAD_FIELD, "version"),
    ('{"type": "visibility"}', errors.MISSING_FIELD, "hidden"),
    ('{"type": "visibility", "hidden": 1}', errors.BAD_FIELD, "hidden"),
    ('{"type": "visibility", "hidden": "true"}', errors.BAD_FIELD, "hidden"),
    ('{"type": "visibility", "hidden": true, "hidden_for": -1}', errors.BAD_FIELD, "hidden_for"),
    ('{"type": "visibility", "hidden": true, "hidden_for": 1.5}', errors.BAD_FIELD, "hidden_for"),
    ('{"type": "visibility", "hidden": true, "hidden_for": false}', errors.BAD_FIELD, "hidden_for"),
    ('{"type": "visibility", "hidden": true, "hidden_for": 2147483648}', errors.BAD_FIELD, "hidden_for"),
    ('{"type": "hint", "version": "12"}', errors.BAD_FIELD, "version"),
    # the action id: 1 to ACTION_ID_MAX characters
    ('{"type": "roll", "version": 3, "id": ""}', errors.BAD_FIELD, "id"),
    ('{"type": "roll", "version": 3, "id": "' + "x" * (protocol.ACTION_ID_MAX + 1) + '"}', errors.BAD_FIELD, "id"),
    ('{"type": "roll", "version": 3, "id": 5}', errors.BAD_FIELD, "id"),
    # every frame's id, not only an action's (docs/protocol.md)
    ('{"type": "hint", "version": 3, "id": ""}', errors.BAD_FIELD, "id"),
    ('{"type": "hint", "version": 3, "id": "' + "x" * (protocol.ACTION_ID_MAX + 1) + '"}', errors.BAD_FIELD, "id"),
    ('{"type": "chat", "text": "hi", "id": "' + "x" * (protocol.ACTION_ID_MAX + 1) + '"}', errors.BAD_FIELD, "id"),
    ('{"type": "react", "reaction": "x", "id": ""}', errors.BAD_FIELD, "id"),
    ('{"type": "back", "id": "' + "x" * (protocol.ACTION_ID_MAX + 1) + '"}', errors.BAD_FIELD, "id"),
    ('{"type": "chat", "text": "hi", "id": "c\\u0000"}', errors.BAD_FIELD, "id"),
    # the server's own ids (the turn timer's, a computer player's)
    ('{"type": "hold", "held": [], "version": 3, "id": "timeout-5"}', errors.BAD_FIELD, "id"),
    ('{"type": "score", "box": "chance", "version": 3, "id": "bot-3"}', errors.BAD_FIELD, "id"),
    # held dice: a list of at most five indices 0 to 4
    ('{"type": "hold", "held": "01", "version": 3, "id": "x"}', errors.BAD_FIELD, "held"),
    ('{"type": "roll", "held": 1, "version": 3, "id": "x"}', errors.BAD_FIELD, "held"),
    ('{"type": "roll", "held": null, "version": 3, "id": "x"}', errors.BAD_FIELD, "held"),
    ('{"type": "hold", "held": [5], "version": 3, "id": "x"}', errors.BAD_DIE_INDEX, "held"),
    ('{"type": "hold", "held": [-1], "version": 3, "id": "x"}', errors.BAD_DIE_INDEX, "held"),
    ('{"type": "hold", "held": [1, "2"], "version": 3, "id": "x"}', errors.BAD_DIE_INDEX, "held"),
    ('{"type": "hold", "held": [true], "version": 3, "id": "x"}', errors.BAD_DIE_INDEX, "held"),
    ('{"type": "hold", "held": [0, 1, 2, 3, 4, 0], "version": 3, "id": "x"}', errors.BAD_DIE_INDEX, "held"),
    # boxes by name, columns in range
    ('{"type": "score", "box": 5, "version": 3, "id": "x"}', errors.BAD_FIELD, "box"),
    ('{"type": "score", "box": "yatzy", "version": 3, "id": "x"}', errors.UNKNOWN_BOX, "box"),
    ('{"type": "score", "box": "", "version": 3, "id": "x"}', errors.UNKNOWN_BOX, "box"),
    ('{"type": "score", "box": "chance", "column": -1, "version": 3, "id": "x"}', errors.BAD_COLUMN, "column"),
    (
        '{"type": "score", "box": "chance", "column": ' + str(protocol.COLUMNS_MAX) + ', "version": 3, "id": "x"}',
        errors.BAD_COLUMN,
        "column",
    ),
    # seats from 0, levels of a bounded length
    ('{"type": "kick", "seat": -1, "version": 3, "id": "x"}', errors.BAD_SEAT, "seat"),
    ('{"type": "replace", "seat": -2, "version": 3, "id": "x"}', errors.BAD_SEAT, "seat"),
    ('{"type": "back", "seat": -1}', errors.BAD_SEAT, "seat"),
    ('{"type": "back", "seat": "1"}', errors.BAD_FIELD, "seat"),
    ('{"type": "add_bot", "level": "' + "x" * 40 + '", "version": 3, "id": "x"}', errors.BAD_LEVEL, "level"),
    ('{"type": "add_bot", "level": 3, "version": 3, "id": "x"}', errors.BAD_FIELD, "level"),
    # a spectator by the handle on their lines: twelve hex digits (the handle as written into the JSON text)
    ('{"type": "mute_spectator", "version": 3, "id": "x"}', errors.BAD_SPECTATOR, "spectator"),
    ('{"type": "mute_spectator", "spectator": 7, "version": 3, "id": "x"}', errors.BAD_SPECTATOR, "spectator"),
    *(
        (json.dumps({"type": kind, "version": 3, "id": "x"})[:-1] + f', "spectator": "{handle}"}}', BAD, "spectator")
        for kind, handle in [
            ("unmute_spectator", "3F9A0C1B2D4E"),
            ("mute_spectator", "3f9a0c1b2d4e0"),
            ("mute_spectator", "3f9a0c1b2d\\u0000e"),
        ]
    ),
    # text the database cannot hold: a NUL character, a lone surrogate
    ('{"type": "chat", "text": "a\\u0000b"}', errors.BAD_FIELD, "text"),
    ('{"type": "react", "reaction": "\\u0000"}', errors.BAD_FIELD, "reaction"),
    ('{"type": "roll", "version": 3, "id": "r\\u0000"}', errors.BAD_FIELD, "id"),
    ('{"type": "add_bot", "level": "casual\\u0000", "version": 3, "id": "x"}', errors.BAD_FIELD, "level"),
    ('{"type": "score", "box": "chance\\u0000", "version": 3, "id": "x"}', errors.UNKNOWN_BOX, "box"),
    ('{"type": "roll", "version": 1, "id": "\\ud800"}', errors.BAD_FIELD, ""),
    ('{"type": "ping", "pad": "\\ud83d"}', errors.BAD_FIELD, ""),
]


@pytest.mark.parametrize(("text", "code", "field"), REFUSED)
def test_each_bad_input_is_refused_with_its_code_and_a_message(text: str, code: str, field: str) -> None:
    with pytest.raises(protocol.FrameError) as refused:
        protocol.decode(text)
    assert (refused.value.code, refused.value.field) == (code, field)
    assert refused.value.message


def test_ids_like_the_servers_own_are_refused_saying_why_and_others_with_those_words_are_not() -> None:
    with pytest.raises(protocol.FrameError) as refused:
        protocol.decode('{"type": "roll", "version": 3, "id": "timeout-9"}')
    assert "timeout-" in refused.value.message and "bot-" in refused.value.message
    with pytest.raises(protocol.FrameError):
        protocol.from_form("roll", {"version": "3", "id": "bot-4"})
    for fine in ("timeouts-1", "x-timeout-9", "bots-2", "robot-1", "Timeout9"):
        assert protocol.decode(json.dumps({"type": "roll", "version": 3, "id": fine})).id == fine
        assert protocol.checked_action_id(fine) == fine


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ({"type": "chat", "text": "hi \ud800"}, "text"),
        ({"type": "chat", "text": "\udfff"}, "text"),
        ({"type": "react", "reaction": "\ud83d"}, "reaction"),
        ({"type": "add_bot", "level": "casual\udc80", "version": 3, "id": "x"}, "level"),
        ({"type": "roll", "version": 3, "id": "r\ud800"}, "id"),
        ({"type": "chat", "text": "hi", "id": "\ud800"}, "id"),
    ],
)
def test_a_lone_surrogate_in_a_frames_text_is_refused_by_convert_and_the_form_alike(
    value: dict[str, Any], field: str
) -> None:
    """A value that is already Python text (a form's fields, a decoded value) can hold a lone
    surrogate that JSON text on the wire would have been refused for: no database can store it."""
    for refused in (
        lambda: protocol.convert(value),
        lambda: protocol.from_form(str(value["type"]), {k: str(v) for k, v in value.items()}),
    ):
        with pytest.raises(protocol.FrameError) as why:
            refused()
        assert (why.value.code, why.value.field) == (errors.BAD_FIELD, field)
        assert "surrogate" in why.value.message


def test_text_with_a_surrogate_pair_written_whole_is_taken() -> None:
    assert protocol.convert({"type": "chat", "text": "ok \U0001f3b2"}).text == "ok \U0001f3b2"


@pytest.mark.parametrize("refused", ["timeout-9", "bot-4", "c\x00", "x" * 65, ""])
def test_an_action_id_sent_without_a_frame_is_refused_as_a_frames_is(refused: str) -> None:
    """The lobby's join form sends its id in a form post that builds no frame: the same check."""
    with pytest.raises(protocol.FrameError) as framed:
        protocol.decode(json.dumps({"type": "roll", "version": 3, "id": refused}))
    with pytest.raises(protocol.FrameError) as alone:
        protocol.checked_action_id(refused)
    assert (alone.value.code, alone.value.message, alone.value.field) == (
        framed.value.code,
        framed.value.message,
        framed.value.field,
    )


def test_binary_and_oversized_frames_are_refused_before_they_are_read() -> None:
    with pytest.raises(protocol.FrameError) as binary:
        protocol.decode(None, b'{"type": "ping"}')
    assert binary.value.code == errors.BAD_FRAME
    padded = json.dumps({"type": "ping", "pad": "é" * (protocol.MAX_FRAME_BYTES // 2)})  # few characters, many bytes
    with pytest.raises(protocol.FrameError) as large:
        protocol.decode(padded)
    assert large.value.code == errors.FRAME_TOO_LARGE
    fits = json.dumps({"type": "ping", "pad": "x" * (protocol.MAX_FRAME_BYTES - 40)})
    assert isinstance(protocol.decode(fits), protocol.Ping)


def test_fields_a_frame_does_not_declare_are_ignored_whatever_they_hold() -> None:
    frame = protocol.decode(
        json.dumps({"type": "chat", "text": "hi", "version": "not a number", "id": "c", "held": [9], "x": {"y": []}})
    )
    assert frame.arguments() == {"text": "hi", "frame_id": "c"}


def test_a_form_posts_strings_and_gets_the_same_frame_and_the_same_refusals() -> None:
    frame = protocol.from_form("roll", {"version": "7", "id": "f-1", "held": ["0", "3"]})
    assert frame == protocol.Roll(version=7, id="f-1", held=[0, 3])
    score = protocol.from_form("score", {"version": "8", "id": "f-2", "box": "chance", "column": "0"})
    assert score.arguments() == {"expected_version": 8, "action_id": "f-2", "box": "chance", "column": 0}
    for fields, code, field in [
        ({"version": "seven", "id": "f"}, errors.BAD_FIELD, "version"),
        ({"id": "f"}, errors.MISSING_FIELD, "version"),
        ({"version": "7", "id": "f", "held": ["5"]}, errors.BAD_DIE_INDEX, "held"),
        ({"version": "7", "id": "f\x00"}, errors.BAD_FIELD, "id"),
    ]:
        with pytest.raises(protocol.FrameError) as refused:
            protocol.from_form("roll", fields)
        assert (refused.value.code, refused.value.field) == (code, field)


def test_the_outgoing_frames_have_the_documented_shape() -> None:
    assert json.loads(protocol.error(errors.STALE, "moved on", "c-1")) == {
        "type": "error",
        "code": "stale",
        "message": "moved on",
        "id": "c-1",
    }
    assert json.loads(protocol.error(errors.BAD_JSON, "no", 5)) == {
        "type": "error",
        "code": "bad_json",
        "message": "no",
    }
    assert json.loads(protocol.encode(protocol.You(seats=[1]))) == {"type": "you", "seats": [1]}
    you = protocol.encode(protocol.You(seats=[], spectator="3f9a0c1b2d4e"))
    assert json.loads(you) == {"type": "you", "seats": [], "spectator": "3f9a0c1b2d4e"}
    assert json.loads(protocol.encode(protocol.Pong(version=None))) == {"type": "pong", "version": None}
    presence = protocol.encode(protocol.Presence(seats={"0": "connected", "1": "away"}, spectators=2))
    assert json.loads(presence) == {"type": "presence", "seats": {"0": "connected", "1": "away"}, "spectators": 2}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)
frame_like = st.fixed_dictionaries(
    {"type": st.sampled_from([*protocol.FRAMES, "", "state", "bogus"])},
    optional={
        name: json_values | st.sampled_from([0, 1, 4, -1, "chance", [0, 1], [], "", "\x00"])
        for name in ("version", "id", "held", "box", "column", "seat", "level", "text", "reaction", "spectator")
    },
)
CODES = {value for name, value in vars(errors).items() if name.isupper() and isinstance(value, str)}

# A decode takes microseconds: a call over a deadline, or a slow first draw, is the machine's load
# (the process off the CPU a moment), not the decoder's, and would fail a run that found no bug.
FUZZ_SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ_SETTINGS
@given(st.one_of(st.text(max_size=200), frame_like.map(json.dumps), json_values.map(json.dumps)))
def test_random_junk_never_crashes_the_decoder(text: str) -> None:
    """Whatever arrives is a declared frame or a FrameError with a known code: never another exception."""
    try:
        frame = protocol.decode(text)
    except protocol.FrameError as refused:
        assert refused.code in CODES and refused.message
        return
    assert type(frame) in protocol.FRAMES.values()
    arguments = frame.arguments()
    if isinstance(frame, protocol.Action):
        assert isinstance(arguments["expected_version"], int) and not isinstance(arguments["expected_version"], bool)
        assert 0 < len(arguments["action_id"]) <= protocol.ACTION_ID_MAX and "\x00" not in arguments["action_id"]
        assert all(0 <= i <= 4 and type(i) is int for i in arguments.get("held", []))
        assert arguments.get("box", "chance") in {box.value for box in Box}


@FUZZ_SETTINGS
@given(st.binary(max_size=200))
def test_random_bytes_as_text_never_crash_the_decoder(data: bytes) -> None:
    try:
        protocol.decode(data.decode("utf-8", errors="surrogateescape"))
    except protocol.FrameError as refused:
        assert refused.code in CODES
