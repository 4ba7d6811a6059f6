"""Every frame of a room's websocket, declared once: msgspec Structs, decoded and checked at the edge.

An incoming frame is one of the tagged Structs below (the tag is its ``"type"``). ``decode``
turns the socket's text into one of them or raises ``FrameError`` with the code a client
switches on (games.domain.errors); the no-script form posts (games.web.views) build the
same Structs with ``from_form``. A Struct is checked whole here (ints are not bools, the
lengths, the ranges that do not depend on the room, no NUL character nor lone surrogate in any text, which
the database cannot store), so the services take typed arguments and check only what
depends on the room. Fields a frame does not declare are ignored: clients send ``version``
and ``id`` on every frame, social ones too.

Each frame that changes the room names its service (``service``) and the keyword arguments
it passes (``arguments``); games.services.perform is the one call both edges make.

Outgoing frames with a fixed shape are declared here too (``Error``, ``You``, ``Pong``,
``Presence``, ``ChatHistory``, ``Route``), and the codes the server closes a socket with
(``CLOSE_*``); the state frame is the room's public state
(games.store.selectors.game_state), encoded with ``dumps``. The JSON of the frames and of
the stored jsonb values is written by orjson (``dumps``, ``dumpb``, ``loads``): a state
frame is encoded once per action and sent as it is to every socket of the room, and the
stdlib encoder took about a tenth of an action's CPU for it (docs/performance.md).
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, ClassVar, Final, get_args

import msgspec
import orjson
from msgspec import UNSET, Meta, Struct, UnsetType

from games.domain import errors
from games.domain.rules import DICE, RULESETS, Box

MAX_FRAME_BYTES: Final = 4096
ACTION_ID_MAX: Final = 64  # Move.action_id's column
LEVEL_MAX: Final = 32
COLUMNS_MAX: Final = max(ruleset.columns for ruleset in RULESETS.values())

# The codes the server closes a room socket with (docs/protocol.md, "Close codes"), each of them
# here; static/js/room/protocol.js switches on them. A socket refused after the handshake is
# accepted only to be closed with its code (games.realtime.consumer.refuse, which says why).
CLOSE_SESSION_CHANGED: Final = 4001  # the browser signed in or out since the socket opened: its page connects again
CLOSE_RATE_LIMITED: Final = 4008  # too many frames, or too many guesses of room codes from the address
CLOSE_TOO_SLOW: Final = 4009  # more than WS_SEND_BACKLOG unsent (games.realtime.backlog)
CLOSE_TOO_MANY: Final = 4029  # over WS_MAX_PER_ADDRESS / WS_MAX_PER_BROWSER / WS_CONNECT_RATE (games.realtime.sockets)
CLOSE_ORIGIN: Final = 4403  # the handshake of another site's page, refused before the accept (games.realtime.origin)
CLOSE_NO_ROOM: Final = 4404  # no such room (or an address that is no room's): the page stops trying

# PostgreSQL's text cannot hold U+0000, and no database (nor UTF-8) a lone surrogate (U+D800 to
# U+DFFF alone): refused on every database alike. JSON text on the wire meets the surrogates in
# ``decode``; a value already in Python (a form's fields) meets them here.
_STORABLE = "\\x00\\ud800-\\udfff"
_TEXT = f"^[^{_STORABLE}]*$"

Text = Annotated[str, Meta(pattern=_TEXT)]
# The server's own actions (a computer player's, the turn timer's) take ids with these
# prefixes, recorded under the seat's controller for the timer: a client's id with one could
# stand in the way of the timer's move (the ids are unique per actor and room).
TIMER_ID_PREFIX: Final = "timeout-"  # games.services.clock
BOT_ID_PREFIX: Final = "bot-"  # games.scheduling.botplay
RESERVED_ID_PREFIXES: Final = (TIMER_ID_PREFIX, BOT_ID_PREFIX)
ActionId = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=ACTION_ID_MAX,
        pattern=r"^(?!" + "|".join(RESERVED_ID_PREFIXES) + f")[^{_STORABLE}]*$",
    ),
]
# The id of a frame that is not an action (a hint, chat, reaction, back), echoed in its answer:
# as long as an action's, with any prefix (it is never stored as a Move's).
FrameId = Annotated[str, Meta(min_length=1, max_length=ACTION_ID_MAX, pattern=_TEXT)]
HIDDEN_FOR_LIMIT = 2**31 - 1  # a visibility frame's hidden_for, in seconds
Die = Annotated[int, Meta(ge=0, lt=DICE)]
Held = Annotated[list[Die], Meta(max_length=DICE)]
Column = Annotated[int, Meta(ge=0, lt=COLUMNS_MAX)]
Seat = Annotated[int, Meta(ge=0)]
Level = Annotated[str, Meta(max_length=LEVEL_MAX, pattern=_TEXT)]
HANDLE_LENGTH: Final = 12
# A spectator's handle in a room's chat (games.store.selectors.spectator_handle): hex digits.
Handle = Annotated[str, Meta(pattern=f"^[0-9a-f]{{{HANDLE_LENGTH}}}$")]


class FrameError(Exception):
    """A frame the server cannot take: the error code, the message and the field at fault (if one is)."""

    def __init__(self, code: str, message: str, field: str = "") -> None:
        super().__init__(message)
        self.code, self.message, self.field = code, message, field


# --- incoming ---------------------------------------------------------------------------------


class Incoming(Struct, tag_field="type", kw_only=True):
    """A frame from a client.

    ``problems``: a field's code and message when its value is out of range (bad_field when
    not listed); a value of the wrong type is bad_field, a missing field missing_field.
    ``refused``: a field's code and message for any refusal of it, missing or wrong too.
    """

    problems: ClassVar[dict[str, tuple[str, str]]] = {}
    refused: ClassVar[dict[str, tuple[str, str]]] = {}
    service: ClassVar[str] = ""  # the games.services function this frame calls ("": the consumer answers it)

    @property
    def kind(self) -> str:
        """The frame's ``type``."""
        return str(type(self).__struct_config__.tag)

    def arguments(self) -> dict[str, Any]:
        """The service's keyword arguments besides the room's code and the caller's controller."""
        return {}


class Ping(Incoming, tag="ping"):
    """Keeps this socket's presence fresh; answered by ``Pong``."""


class Sync(Incoming, tag="sync"):
    """Asks for the room's state again."""


class Visibility(Incoming, tag="visibility"):
    """The socket's page was hidden or shown (the Page Visibility API), for the notices only.

    ``hidden_for``: how many seconds a hidden page has been hidden already (a socket that
    connects while its page is in the background), so that a reconnect does not start the wait
    over. Nothing is answered.
    """

    hidden: bool
    # At most 2**31 - 1 seconds (68 years): more is no page's, and more than a date can go back.
    hidden_for: Annotated[int, Meta(ge=0, le=HIDDEN_FOR_LIMIT)] = 0


class Hint(Incoming, tag="hint"):
    version: int
    id: FrameId | None = None
    refused: ClassVar[dict[str, tuple[str, str]]] = {
        "version": (errors.BAD_FIELD, "A hint frame needs the 'version' it is for."),
    }


_HELD_PROBLEM = (errors.BAD_DIE_INDEX, "Held dice are a list of at most five indices 0 to 4.")
_SEAT_PROBLEM = (errors.BAD_SEAT, "A seat is a number from 0.")


# Social frames: not versioned actions; "seat" is whose they are on a shared device (who speaks, who is back).


class Chat(Incoming, tag="chat"):
    text: Text  # its length is counted after trimming, by the service (chat_too_long)
    seat: int | UnsetType = UNSET
    id: FrameId | UnsetType = UNSET
    service: ClassVar[str] = "chat_post"

    def arguments(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"text": self.text}
        if self.seat is not UNSET:
            arguments["seat"] = self.seat
        if self.id is not UNSET:
            arguments["frame_id"] = self.id
        return arguments


class React(Incoming, tag="react"):
    reaction: Text
    seat: int | UnsetType = UNSET
    id: FrameId | UnsetType = UNSET
    service: ClassVar[str] = "chat_react"

    def arguments(self) -> dict[str, Any]:
        return {"reaction": self.reaction} | ({} if self.seat is UNSET else {"seat": self.seat})


class Back(Incoming, tag="back"):
    """A player back at the table takes their seat back from the computer.

    ``seat``: the seat taken back, which a browser playing several seats must name (without
    it, only a browser's one seat is taken back).
    """

    seat: Seat | UnsetType = UNSET
    id: FrameId | UnsetType = UNSET
    service: ClassVar[str] = "seat_reclaim"
    problems: ClassVar[dict[str, tuple[str, str]]] = {"seat": _SEAT_PROBLEM}

    def arguments(self) -> dict[str, Any]:
        return {} if self.seat is UNSET else {"seat": self.seat}


class Action(Incoming):
    """A versioned action: applied at most once (``id``), only to the version it was meant for."""

    version: int
    id: ActionId

    def arguments(self) -> dict[str, Any]:
        return {"expected_version": self.version, "action_id": self.id, **self.fields()}

    def fields(self) -> dict[str, Any]:
        return {}


class Start(Action, tag="start"):
    service: ClassVar[str] = "game_start"


class Roll(Action, tag="roll"):
    held: Held | UnsetType = UNSET  # hold exactly these dice first
    service: ClassVar[str] = "turn_roll"
    problems: ClassVar[dict[str, tuple[str, str]]] = {"held": _HELD_PROBLEM}

    def fields(self) -> dict[str, Any]:
        return {} if self.held is UNSET else {"held": self.held}


class Hold(Action, tag="hold"):
    held: Held
    service: ClassVar[str] = "turn_hold"
    problems: ClassVar[dict[str, tuple[str, str]]] = {"held": _HELD_PROBLEM}

    def fields(self) -> dict[str, Any]:
        return {"held": self.held}


class Score(Action, tag="score"):
    box: Box
    column: Column = 0
    service: ClassVar[str] = "turn_score"
    problems: ClassVar[dict[str, tuple[str, str]]] = {
        "box": (errors.UNKNOWN_BOX, "There is no box by that name."),
        "column": (errors.BAD_COLUMN, f"A column is a number from 0 to {COLUMNS_MAX - 1}."),
    }

    def fields(self) -> dict[str, Any]:
        return {"box": self.box.value, "column": self.column}


class SeatAction(Action):
    seat: Seat
    problems: ClassVar[dict[str, tuple[str, str]]] = {"seat": _SEAT_PROBLEM}

    def fields(self) -> dict[str, Any]:
        return {"seat": self.seat}


class Leave(SeatAction, tag="leave"):
    service: ClassVar[str] = "game_leave"


class Kick(SeatAction, tag="kick"):
    service: ClassVar[str] = "game_kick"


class Remove(SeatAction, tag="remove"):
    service: ClassVar[str] = "game_remove_absent"


class Mute(SeatAction, tag="mute"):
    service: ClassVar[str] = "seat_mute"


class Unmute(SeatAction, tag="unmute"):
    service: ClassVar[str] = "seat_unmute"


class SpectatorAction(Action):
    spectator: Handle
    refused: ClassVar[dict[str, tuple[str, str]]] = {
        "spectator": (errors.BAD_SPECTATOR, "A spectator is named by the handle on their chat lines."),
    }

    def fields(self) -> dict[str, Any]:
        return {"spectator": self.spectator}


class MuteSpectator(SpectatorAction, tag="mute_spectator"):
    service: ClassVar[str] = "spectator_mute"


class UnmuteSpectator(SpectatorAction, tag="unmute_spectator"):
    service: ClassVar[str] = "spectator_unmute"


class AddBot(Action, tag="add_bot"):
    level: Level | UnsetType = UNSET  # the service's default level when absent
    service: ClassVar[str] = "game_add_bot"
    problems: ClassVar[dict[str, tuple[str, str]]] = {"level": (errors.BAD_LEVEL, "That is not a computer level.")}

    def fields(self) -> dict[str, Any]:
        return {} if self.level is UNSET else {"level": self.level}


class Replace(Action, tag="replace"):
    seat: Seat
    level: Level | UnsetType = UNSET
    service: ClassVar[str] = "game_replace_with_bot"
    problems: ClassVar[dict[str, tuple[str, str]]] = {
        "seat": _SEAT_PROBLEM,
        "level": (errors.BAD_LEVEL, "That is not a computer level."),
    }

    def fields(self) -> dict[str, Any]:
        return {"seat": self.seat} | ({} if self.level is UNSET else {"level": self.level})


class Pause(Action, tag="pause"):
    service: ClassVar[str] = "game_pause"


class Resume(Action, tag="resume"):
    service: ClassVar[str] = "game_resume"


Frame = (
    Ping
    | Sync
    | Visibility
    | Hint
    | Chat
    | React
    | Back
    | Start
    | Roll
    | Hold
    | Score
    | Leave
    | Kick
    | Remove
    | AddBot
    | Replace
    | Pause
    | Resume
    | Mute
    | Unmute
    | MuteSpectator
    | UnmuteSpectator
)

FRAMES: Final[dict[str, type[Incoming]]] = {str(kind.__struct_config__.tag): kind for kind in get_args(Frame)}

_NOT_UNICODE = "That frame holds text that is not valid Unicode (a lone surrogate)."
_decoder = msgspec.json.Decoder(Frame)
_any = msgspec.json.Decoder()
_AT = re.compile(r" - at `\$\.(\w+)(.*)`$")
_WRONG_TYPE = re.compile(r"^Expected `[^`]+`, got `[^`]+`")


def decode(text: str | None, binary: bytes | None = None) -> Incoming:
    """The frame a socket sent, checked whole, or ``FrameError`` naming what is wrong."""
    if binary is not None or text is None:
        raise FrameError(errors.BAD_FRAME, "Frames are JSON text, not binary.")
    if len(text) > MAX_FRAME_BYTES // 4 and len(text.encode(errors="surrogatepass")) > MAX_FRAME_BYTES:
        raise FrameError(errors.FRAME_TOO_LARGE, f"Frames are at most {MAX_FRAME_BYTES} bytes.")
    try:
        frame: Incoming = _decoder.decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, UnicodeEncodeError):
        pass  # the slow path says why
    else:
        return frame
    return convert(_parsed(text))


def _parsed(text: str) -> object:
    try:
        return _any.decode(text)
    except RecursionError as exc:  # "[[[[..." well under the size limit
        raise FrameError(errors.BAD_JSON, "That frame is nested too deeply.") from exc
    except UnicodeEncodeError as exc:  # a surrogate in the text itself, not escaped (no websocket sends one)
        raise FrameError(errors.BAD_FIELD, _NOT_UNICODE) from exc
    except msgspec.DecodeError as exc:
        # msgspec refuses a lone surrogate escape ("\ud800"), which is valid JSON but no text.
        if "\\u" in text:
            try:
                json.loads(text)
            except (ValueError, RecursionError):
                pass
            else:
                raise FrameError(errors.BAD_FIELD, _NOT_UNICODE) from exc
        raise FrameError(errors.BAD_JSON, errors.message(errors.BAD_JSON)) from exc


def convert(value: object, *, strict: bool = True) -> Incoming:
    """A decoded JSON value (or, ``strict=False``, a form's strings) as its frame, or ``FrameError``."""
    if not isinstance(value, dict):
        raise FrameError(errors.BAD_FRAME, errors.message(errors.BAD_FRAME))
    kind = value.get("type")
    if not isinstance(kind, str):
        raise FrameError(errors.BAD_FRAME, errors.message(errors.BAD_FRAME))
    declared = FRAMES.get(kind)
    if declared is None:
        raise FrameError(errors.UNKNOWN_TYPE, f"Unknown frame type {kind!r}.")
    try:
        frame: Incoming = msgspec.convert(value, declared, strict=strict)
    except msgspec.ValidationError as exc:
        raise _refusal(declared, kind, str(exc)) from exc
    return frame


def _refusal(declared: type[Incoming], kind: str, problem: str) -> FrameError:
    """The code for msgspec's refusal. A ValidationError carries only its message: its wording
    ("Object missing required field `x`", "Expected `int`, got `bool` - at `$.x`") is read
    here, and tests/realtime/test_protocol.py fails if a msgspec release words it otherwise."""
    if problem.startswith("Object missing required field `"):
        name = problem.split("`")[1]
        code, message = declared.refused.get(name, (errors.MISSING_FIELD, f"A {kind} frame needs '{name}'."))
        return FrameError(code, message, name)
    at = _AT.search(problem)
    name, inside = (at.group(1), at.group(2)) if at else ("", "")
    if name in declared.refused:
        code, message = declared.refused[name]
        return FrameError(code, message, name)
    if not inside and _WRONG_TYPE.match(problem):
        return FrameError(errors.BAD_FIELD, f"'{name}' of a {kind} frame has the wrong type.", name)
    if name == "id":
        return _id_refusal(problem, action=issubclass(declared, Action))
    if "matching regex" in problem:
        return FrameError(
            errors.BAD_FIELD, f"'{name}' of a {kind} frame holds a NUL character or a lone surrogate.", name
        )
    code, message = declared.problems.get(name, (errors.BAD_FIELD, f"'{name}' of a {kind} frame is out of range."))
    return FrameError(code, message, name)


def _id_refusal(problem: str, *, action: bool) -> FrameError:
    if "matching regex" in problem and not action:
        return FrameError(errors.BAD_FIELD, "'id' holds no NUL character and no lone surrogate.", "id")
    if "matching regex" in problem:
        reserved = " or ".join(RESERVED_ID_PREFIXES)
        message = (
            f"'id' holds no NUL character and no lone surrogate, and does not start with {reserved} (the server's own)."
        )
        return FrameError(errors.BAD_FIELD, message, "id")
    return FrameError(errors.BAD_FIELD, f"'id' is 1 to {ACTION_ID_MAX} characters.", "id")


def checked_action_id(value: str) -> str:
    """An action's id sent by a form that builds no frame (the lobby's join), checked and refused as
    an action frame's ``id`` is: an id beginning as the server's own is no client's, wherever it is sent."""
    try:
        return msgspec.convert(value, ActionId)
    except msgspec.ValidationError as exc:
        raise _id_refusal(str(exc), action=True) from exc


def from_form(kind: str, fields: dict[str, Any]) -> Incoming:
    """A form post's fields (strings) as the frame a socket would send, checked the same way."""
    return convert({**fields, "type": kind}, strict=False)


# --- outgoing ---------------------------------------------------------------------------------


class Outgoing(Struct, tag_field="type", kw_only=True, omit_defaults=True):
    """A frame to a client whose shape is fixed."""


class Error(Outgoing, tag="error"):
    code: str
    message: str
    id: str | None = None  # the refused frame's id, when it had one


class You(Outgoing, tag="you"):
    seats: list[int]  # the seats this socket's browser controls, or a computer plays for while its player is away
    # Their players (each seat's ``player`` in the state): the page follows them to new seat
    # numbers when an earlier seat leaves the lobby.
    players: list[int] = []
    # The browser's handle in the room's chat, the ``spectator`` of its lines as a spectator ("": a
    # socket without a session): the page knows by it when the host muted it (the state's ``chat``).
    spectator: str = ""
    # Whether the browser held a seat in the game and holds none now (it left, or the host took it
    # out): once the game is over its chat is still this browser's to read, not to post to.
    former: bool = False
    # The seats of the room's list it gave up (a muted one keeps it quiet as a spectator).
    left: list[int] = []
    # Whether the host took it out of the game (and has not unmuted it since): it reads the chat and
    # posts no more (games.services.chat.silenced).
    taken_out: bool = False
    # The release of the pages' scripts this server serves (games.services.release): a page of
    # another one (left open across a deploy) offers to reload.
    release: str = ""


class Pong(Outgoing, tag="pong"):
    version: int | None  # the room's version, so that a page notices a state it missed


class Presence(Outgoing, tag="presence"):
    seats: dict[str, str]  # seat index -> "connected" or "away"
    spectators: int
    # seat index -> seconds left before an away seat of a live game may be taken over (its
    # player's browser left only a moment ago: ``settings.HOST_AWAY``); absent once the wait is over
    waits: dict[str, float] = {}


class ChatHistory(Outgoing, tag="chat_history"):
    messages: list[dict[str, Any]]


class Route(Outgoing, tag="route"):
    worker: str  # the serving process that sent it: the page asks the proxy whether its room's route still ends there


_encoder = msgspec.json.Encoder()


def encode(frame: Outgoing) -> str:
    """A declared outgoing frame as JSON text."""
    return _encoder.encode(frame).decode()


def error(code: str, message: str, frame_id: object = None) -> str:
    """The error frame's text; the refused frame's id rides along if it was a string."""
    return encode(Error(code=code, message=message, id=frame_id if isinstance(frame_id, str) else None))


# --- JSON text ----------------------------------------------------------------------------------


def _fallback(value: object) -> str:
    # A lazy translation string or any other str-like value: as its text, like json.dumps(default=str).
    return str(value)


def dumps(value: Any) -> str:
    """``value`` as JSON text (for a websocket frame); orjson writes it compact, which every reader parses."""
    return orjson.dumps(value, default=_fallback).decode()


def dumpb(value: Any) -> bytes:
    """``value`` as JSON bytes (for a jsonb parameter)."""
    return orjson.dumps(value, default=_fallback)


def loads(text: str | bytes) -> Any:
    """JSON text as Python values; ``ValueError`` if it is not JSON.

    orjson refuses a lone surrogate escape (``"\\ud800"``), which is valid JSON: the standard
    decoder reads that (rare, hostile) text instead.
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        if "\\u" not in (text if isinstance(text, str) else text.decode(errors="replace")):
            raise
        return json.loads(text)
