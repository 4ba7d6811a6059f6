"""Pages: thin views over selectors and services, like a command line would be.

A visitor needs no account: a random controller token in their session says which seats
are theirs. Anyone holding a room's code may look at it; without the code there is
nothing to find (no listing), and an unknown code gets the same 404 as any other page.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import math
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote_to_bytes, urlencode

from asgiref.sync import sync_to_async
from csp.decorators import csp_replace
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import SESSION_KEY
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse, QueryDict
from django.http.request import RawPostDataException
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import json_script
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django.views.decorators.vary import vary_on_headers

from games import services
from games.domain import errors, protocol
from games.domain.rules import RULESETS, RuleViolation
from games.realtime import broadcast
from games.realtime.limits import Slot, client_ip, form_frames_over, form_refusal, limiter, take_confirmation_mail
from games.services import coach, notices, presence
from games.services.chat import CHAT_MAX
from games.services.codes import shown_name
from games.services.release import static_version
from games.services.replay import fairness_check, replay_steps
from games.store import selectors, tables
from games.store.selectors import game_state, ruleset_info, seats_of
from games.web import docpages, noscript
from games.web.errorpages import NO_ROOM_PAGE, answers_json
from games.web.forms import (
    MAX_LOCAL_PLAYERS,
    CreateRoomForm,
    EmailNoticesForm,
    JoinByCodeForm,
    JoinRoomForm,
    code_length_said,
)
from games.web.head import is_head, without_body
from games.web.here import form_on
from games.web.limits import mark_refused
from games.web.refusals import WORDS, Worded, refusal

if TYPE_CHECKING:  # named in annotations only: the pages read rooms through selectors
    from games.store.models import Game

log = logging.getLogger(__name__)


def controller_for(request: HttpRequest, *, create: bool = False) -> str:
    """This browser's controller token (made on first need).

    A session signed in to an account holds the account's token: reading the user first checks
    the session's auth hash, which ends a session signed in before the account's password changed
    (a browser left signed in elsewhere, a stolen cookie), so its seats are not played from it.
    A session whose account is gone (deleted, or deactivated by staff) ends too: Django reads it
    as nobody's and would keep it, with the token of seats that are nobody's to play now.
    """
    signed_in = SESSION_KEY in request.session and hasattr(request, "user")
    # Reading the user, Django flushes a session whose hash is stale; one whose account it does not
    # find (or finds inactive) it reads as nobody's and keeps, signed in still.
    if signed_in and not request.user.is_authenticated and SESSION_KEY in request.session:
        request.session.flush()
    token: str = request.session.get("controller", "")
    if not token and create:
        return give_controller(request, services.new_controller())
    if token:
        # The browser's own mark beside the token (a session made before it had one gets it now):
        # signing out tells its sockets by it from the account's other browsers'.
        presence.browser_mark(request.session)
    return token


def give_controller(request: HttpRequest, token: str) -> str:
    """``token`` kept in the browser's session as its controller token (which stores the session)."""
    request.session["controller"] = token
    presence.browser_mark(request.session)
    return token


def seat_holder(request: HttpRequest, code: str, *args: object, **kwargs: object) -> bool:
    """Whether this browser has (or had) a seat in the room ``code`` names: it knows the code, so
    the limit on guessing codes is no reason to keep it out of its own room."""
    return selectors.seat_holder_in(services.normalize_code(code), controller_for(request))


def found_seat_holder(request: HttpRequest) -> bool:
    """Whether the code typed in the home page's field (or the invite link pasted there) names a room
    this browser has (or had) a seat in: as on the room page, others at its address guessing codes
    are no reason to keep it out of its own room."""
    form = JoinByCodeForm(request.GET)
    return form.is_valid() and seat_holder(request, form.cleaned_data["code"])


def room_gone_is_404(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A room view whose room is swept between its lookup and its service's lock (the service raises
    ``Game.DoesNotExist``) answers as for any unknown room: the 404 (a page, or JSON where asked)."""

    @functools.wraps(view)
    def answer(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except selectors.RoomGone as exc:
            raise Http404("No such room.") from exc

    return answer


def _game_or_404(code: str) -> Game:
    game = selectors.room_or_none(services.normalize_code(code))
    if game is None:
        raise Http404("No such room.")
    return game


def _home(
    request: HttpRequest, form: CreateRoomForm, status: int = 200, join_form: JoinByCodeForm | None = None
) -> HttpResponse:
    context = {
        "rulesets": list(RULESETS.values()),
        # The rule sets whose computer players are still getting ready (games.store.tables), with about how long.
        "getting_ready": [
            {"name": name, "label": RULESETS[name].label, "eta": math.ceil(tables.eta(name) or tables.LEAST_LEFT)}
            for name in tables.building()
        ],
        "form": form,
        "join_form": join_form or JoinByCodeForm(),
        "max_seats": MAX_LOCAL_PLAYERS,
        "name_typed_max": services.NAME_TYPED_MAX,
    }
    return render(request, "games/home.html", context, status=status)


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    return _home(request, CreateRoomForm())


@form_on("home")
@require_POST
def room_create(request: HttpRequest) -> HttpResponse:
    form = CreateRoomForm(request.POST)
    if not form.is_valid():
        return _home(request, form, status=400)
    data = form.cleaned_data
    controller = controller_for(request, create=True)
    try:
        if data["mode"] == "local":
            game = services.local_game_create(
                names=data["names"],
                controller=controller,
                ruleset=data["ruleset"],
                client_seed=data["client_seed"],
                bots=data["bots"],
                level=data["level"],
                hints=data["hints"],
                turn_timer=data["turn_timer"] or 0,
                chat_spectators=data["chat_spectators"],
            )
        else:
            game = services.game_create(
                host_name=data["name"],
                controller=controller,
                ruleset=data["ruleset"],
                client_seed=data["client_seed"],
                hints=data["hints"],
                turn_timer=data["turn_timer"] or 0,
                chat_spectators=data["chat_spectators"],
                pace=data["pace"],
            ).game
    except services.NameRefused as exc:  # beside the field of the name refused
        form.add_error(f"player_{exc.index + 1}" if data["mode"] == "local" else "name", refusal(exc))
        return _home(request, form, status=400)
    except RuleViolation as exc:
        form.add_error(None, refusal(exc))
        return _home(request, form, status=400)
    return redirect("room", code=game.code)


@require_safe
def room_find(request: HttpRequest) -> HttpResponse:
    """Open a room from its code or its pasted invite link; anything else, a code of no room
    included, gets the home page with the reason beside the field and what was typed in it."""
    form = JoinByCodeForm(request.GET)
    if not form.is_valid():
        return _home(request, CreateRoomForm(), status=400, join_form=form)
    code = form.cleaned_data["code"]
    if selectors.room_or_none(code) is not None:
        return redirect("room", code=code)
    # Said beside the field with the code as typed, to be put right there: a 404, which the miss
    # limit counts as it counts the room page's (games/web/urls.py).
    if len(code) != services.CODE_LENGTH:
        form.add_error("code", code_length_said(len(code)))
    else:
        form.add_error("code", _("No room has this code: check it with whoever sent it."))
    return _home(request, CreateRoomForm(), status=404, join_form=form)


@require_safe
def room_here(request: HttpRequest, code: str) -> HttpResponse:
    """The room page's stylesheet for a seated browser without script (only such a browser loads what
    is inside ``<noscript>``): its fetch, with each load of the page (each form posted leads back to
    it, and the page reloads itself while it waits), says the browser is at the table
    (``presence.at_table_without_script``). Empty, and never cached, so that every load asks."""
    game = _game_or_404(code)
    controller = controller_for(request)
    if not is_head(request):  # a HEAD is no load of the page
        presence.at_table_without_script(game.code, controller, request.session.get(presence.SESSION_BROWSER, ""))
    return HttpResponse("", content_type="text/css", headers={"Cache-Control": "no-store"})


# How often the frame of a page without script that holds still reloads itself (``room_here_frame``):
# well within the time a socket's ping may be missed, after which the browser would count as away.
HERE_EVERY = int(selectors.PRESENCE_TIMEOUT.total_seconds()) // 3


@require_safe
@csp_replace({"frame-ancestors": ["'self'"]})  # type: ignore[arg-type]  # the stubs type a view of the request alone
def room_here_frame(request: HttpRequest, code: str) -> HttpResponse:
    """``room_here`` for a page without script that holds still (the page to write a message on, one
    whose reader stopped its reloads, the player's own turn): a frame in it that reloads itself
    every ``HERE_EVERY`` seconds, each load at the table, so the browser stays there while the page
    is open (a stylesheet is loaded once). Framed by the site's own pages only; never cached."""
    game = _game_or_404(code)
    controller = controller_for(request)
    if not is_head(request):  # a HEAD is no load of the frame
        presence.at_table_without_script(game.code, controller, request.session.get(presence.SESSION_BROWSER, ""))
    page = f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="{HERE_EVERY}"><title></title>'
    # Set here, the clickjacking middleware leaves it: framed by the site's own pages (its policy too).
    return HttpResponse(page, headers={"Cache-Control": "no-store", "X-Frame-Options": "SAMEORIGIN"})


# The cookie that keeps the room page without script from reloading itself: a screen reader's
# user turns it off (``?refresh=off``) so that the reading is not started over every few seconds.
NS_REFRESH_COOKIE = "ns_refresh"


@require_safe
def room(request: HttpRequest, code: str) -> HttpResponse:
    """The room: lobby, table and game over, drawn by static/js/room.js from the same state the socket sends,
    and by the server for a browser without script (games.web.noscript), which plays by form posts."""
    game = _game_or_404(code)
    if code != game.code:
        return redirect("room", code=game.code)
    state = game_state(game)
    # The page without script reloads itself while it waits, unless its reader turned that off.
    asked = request.GET.get("refresh")
    refreshing = asked == "on" or (asked != "off" and request.COOKIES.get(NS_REFRESH_COOKIE) != "off")
    # A look at the room stores nothing (a link preview, a crawler, a script keeping no cookies): a
    # spectator who posts is given a token first (``room_spectator``).
    controller = controller_for(request)
    mine = seats_of(game, controller)
    if mine and not is_head(request):
        # A seat's player looking at the room follows it: a rematch's seats are told of their turns from now on.
        # Not a HEAD's: a mail scanner or a link preview opening the invite is no player looking.
        services.seats_follow(game=game, controller=controller)
    refused = join_refused(request, game.code)
    handle = selectors.spectator_handle(game.code, controller)
    # A player the host took out reads that they post no more, as the chat refuses them.
    former, left, taken_out = selectors.former_player(game, controller, mine)
    # Who is at the table as the page is drawn: a reload shows it at once, not only once its
    # socket is counted and the first presence frame comes.
    at_table = _presence(game.code)
    # Kicked from this lobby: no seat is offered (the join would be refused). Its chat is not
    # the kick's to close (``taken_out`` is the game's take-out).
    kicked = former and selectors.kicked_from_lobby(game, controller)
    page = {
        "state": state,
        "you": mine,
        "spectator": handle,
        "former": former,
        "left": left,
        "taken_out": taken_out,
        "kicked": kicked,
        "bot_levels": services.BOT_LEVELS,
        "host_away": settings.HOST_AWAY,
        "presence": at_table,
        # The feed's last lines, which a page open through them showed: once, with the page, not
        # in every state every socket is sent.
        "feed": broadcast.recent_events(game),
        # Whether the header's count of games waiting for this browser's move, drawn with the
        # page, counts this game: the page keeps this game's part of it as the turn goes round.
        "waiting_here": bool(controller) and game.waiting_on == controller,
    }
    if refused is not None:
        # room.js draws the reason under the name field (#join-error); the template says it without script.
        page["join_refused"] = {"name": refused["name"], "error": refused["error"]}
    context = {
        "game": game,
        "state": state,
        "page": page,
        "join_refused": refused,
        "mine": mine,
        "join_form": JoinRoomForm(),
        "invite_url": request.build_absolute_uri(reverse("room", args=[game.code])),
        # The table drawn by the server, for a browser without script (templates/games/room_table.html).
        "ns": noscript.table(
            state,
            mine,
            f"ns-{uuid.uuid4().hex[:16]}",
            refreshing=refreshing,
            presence=at_table,
            chat=selectors.chat_history_for(game.code, controller),
            spectator=handle,
            former=former,
            left=left,
            taken_out=taken_out,
            kicked=kicked,
            query=request.GET,
            chat_refused=chat_refused(request, game.code),
            hint=hint_kept(request, game.code),
            standings=game.room.standings() if game.is_over else (),
        ),
        "chat_max": CHAT_MAX,
        "name_typed_max": services.NAME_TYPED_MAX,
    }
    response = render(request, "games/room.html", context)
    if asked == "off":
        response.set_cookie(NS_REFRESH_COOKIE, "off", max_age=365 * 86400, samesite="Lax", httponly=True)
    elif asked == "on":
        response.delete_cookie(NS_REFRESH_COOKIE, samesite="Lax")
    return response


@answers_json
@require_POST
def room_spectator(request: HttpRequest, code: str) -> JsonResponse:
    """A spectator's page about to post in a room where spectators may: the browser's token, made now
    if it has none, and the handle its lines go by (``{"spectator": ...}``).

    The host mutes a spectator by the browser, so a spectator posts with a token, which its page
    asks for before its first post (static/js/room.js) and then connects again to post with: a
    page that only looks stores no session.
    """
    game = _game_or_404(code)
    if not game.chat_spectators or game.is_over:
        exc = RuleViolation(errors.CHAT_CLOSED, "Only the players can post in this room's chat; you can read it.")
        return JsonResponse({"error": exc.code, "message": refusal(exc)}, status=409)
    controller = controller_for(request, create=True)
    return JsonResponse({"spectator": selectors.spectator_handle(game.code, controller)})


@form_on("room")
@require_POST
def room_join(request: HttpRequest, code: str) -> HttpResponse:
    game = _game_or_404(code)
    form = JoinRoomForm(request.POST)
    if form.is_valid():
        # A browser without a token is given one with its seat, not before: a join refused for the
        # room made nothing, and a session stored for it would be a year's row per post of a client
        # that keeps no cookies. A refused name is kept in the session to be put right beside its
        # field, so that session is stored anyway, and gets the token its refusals count against.
        controller = controller_for(request)
        joiner = controller or services.new_controller()
        try:
            action_id = join_id(request.POST)
            services.game_join(
                code=game.code,
                name=form.cleaned_data["name"],
                controller=joiner,
                client_seed=form.cleaned_data["client_seed"],
                action_id=action_id,
            )
        except services.NameRefused as exc:
            mark_refused(request)
            refuse_name(request, game.code, refusal(exc))
        except RuleViolation as exc:
            mark_refused(request)
            messages.error(request, refusal(exc))
            joiner = controller  # refused for the room: nothing to keep a token for
        if joiner != controller:
            give_controller(request, joiner)
    else:
        mark_refused(request)
        for field, errors in form.errors.items():
            said = " ".join(map(str, errors))
            if field == "name":  # beside the name, to be put right
                refuse_name(request, game.code, said)
            else:  # the hidden seed: nothing in sight to put right
                messages.error(request, said)
    return redirect("room", code=game.code)


def _presence(code: str) -> dict[str, Any]:
    """The room's presence frame as a page without script reads it (which seats are away, and how long
    each away seat's wait has left), as a socket's page is sent it."""
    frame = presence.room_frame(code)
    return protocol.loads(frame) if frame is not None else {"seats": {}, "waits": {}}


def chat_refused(request: HttpRequest, code: str) -> dict[str, str] | None:
    """The refused chat line (its text and why) ``room_action`` kept for room ``code``, once."""
    refused = request.session.pop(CHAT_REFUSED, None)
    return refused if isinstance(refused, dict) and refused.get("code") == code else None


# A join refused for its name, kept in the session for the room page the refusal goes back to.
JOIN_REFUSED = "join_refused"


def refuse_name(request: HttpRequest, code: str, error: str) -> None:
    """The join's name was refused: the room page says why beside the name as it was typed
    (static/js/room/render.js, lobbyHtml), to be put right rather than typed again."""
    typed = request.POST.get("name", "")[: services.NAME_TYPED_MAX]
    request.session[JOIN_REFUSED] = {"code": code, "name": typed, "error": error}


def join_refused(request: HttpRequest, code: str) -> dict[str, str] | None:
    """The refused join ``refuse_name`` kept for room ``code``, once."""
    refused = request.session.pop(JOIN_REFUSED, None)
    return refused if isinstance(refused, dict) and refused.get("code") == code else None


# The no-script form posts under /r/<code>/; anything else there is no page (a 404, not a 405).
ROOM_ACTIONS = frozenset(
    {
        "start", "roll", "score", "leave", "kick", "remove", "back", "add_bot", "replace", "pause", "resume", "chat",
        "mute", "unmute", "mute_spectator", "unmute_spectator", "react", "hint",
    }
)  # fmt: skip
# What a form that lost a field says; any other bad field gets its code's words (refusal()).
FORM_PROBLEMS = {
    "version": (services.BAD_REQUEST, _("The form was missing its game version; reload the page.")),
    "seat": (services.BAD_SEAT, _("The form did not say which seat; reload the page.")),
}
# The form fields a frame may take (each frame's declaration ignores those it does not declare).
FORM_FIELDS = ("version", "box", "column", "seat", "level", "text", "reaction", "spectator")
# How long a chat form's id is remembered, so that the same form sent again (a double click, the
# back button) posts its line once: a chat line is no Move, whose ids the services keep.
CHAT_FORM_KEPT = 3600


def posted_utf8(request: HttpRequest) -> bool:
    """Whether the form's body is UTF-8 text. Django reads bytes that are not (a lone surrogate's
    ``%ED%A0%80`` among them) as U+FFFD, which a frame could hold: the line would be stored with its
    letters lost, where a socket's text holding a lone surrogate is refused."""
    try:
        body = request.body
    except RawPostDataException:
        # A multipart body, already parsed (the CSRF check reads the fields first): its bytes are
        # gone, and the parser put U+FFFD where they were not UTF-8. No form of the site posts one:
        # a field holding that letter is taken for one lost.
        return not any("\ufffd" in value for values in request.POST.lists() for value in values[1])
    if request.content_type == "application/x-www-form-urlencoded":
        body = unquote_to_bytes(body)
    try:
        body.decode()
    except UnicodeDecodeError:
        return False
    return True


def form_frame(action: str, post: QueryDict) -> protocol.Incoming:
    """The form's fields as the frame a socket would send for the same action, checked the same way."""
    fields: dict[str, Any] = {name: post[name] for name in FORM_FIELDS if name in post}
    if action in ("chat", "react") and fields.get("seat") == "":  # "Post as" on its default: the browser's first seat
        del fields["seat"]
    if action == "roll":  # the dice ticked to keep: a roll from the form always says which (maybe none)
        fields["held"] = list(dict.fromkeys(post.getlist("held")))
    # A form without an id cannot be told from its resending: any fresh one applies it once, as "" did.
    fields["id"] = post.get("action_id") or f"form-{uuid.uuid4().hex}"
    try:
        return protocol.from_form(action, fields)
    except protocol.FrameError as exc:
        if exc.field == "text" and exc.code == errors.MISSING_FIELD:  # as the service refuses an empty line
            raise RuleViolation(errors.BAD_MESSAGE, "A chat message needs some text.") from exc
        if exc.field in FORM_PROBLEMS:
            code, words = FORM_PROBLEMS[exc.field]
            raise Worded(code, str(words)) from exc
        raise RuleViolation(exc.code, exc.message) from exc  # worded for the page by refusal()


def join_id(post: QueryDict) -> str:
    """The join form's own id: sent twice (a double click), it is the same join, answered with the
    seat taken; another form naming a seat this browser has is a second player given its name. An
    action's id, refused as a frame's ``id`` is (a join builds no frame); "" from a form without one."""
    sent = post.get("action_id", "")
    try:
        return protocol.checked_action_id(sent) if sent else ""
    except protocol.FrameError as exc:
        raise RuleViolation(exc.code, exc.message) from exc  # worded for the page by refusal()


@form_on("room")
def room_action(request: HttpRequest, code: str, action: str) -> HttpResponse:
    """One form post, one service call: the no-script way to play, through the socket's frames and dispatch."""
    if action in ROOM_ACTIONS and request.method != "POST":
        return HttpResponseNotAllowed(["POST"])  # before the lookup: it says nothing of the room
    game = _game_or_404(code)
    if action not in ROOM_ACTIONS:
        raise Http404(NO_ROOM_PAGE)
    try:
        # A form post is the frame a socket would send: counted as one, against its browser's frames
        # a second and its address's (else a page without script would play faster than any socket).
        if form_frames_over(request.session.get("controller", ""), client_ip(request)):
            raise RuleViolation(errors.RATE_LIMITED, "Too many actions at once: slow down a little.")
        if not posted_utf8(request):
            raise Worded(
                errors.BAD_FIELD,
                gettext("Some of what was sent was lost on the way (it was not UTF-8): please type it again."),
            )
        frame = form_frame(action, request.POST)
        if isinstance(frame, protocol.Chat):
            # A spectator may post where the room lets them: the host mutes them by their browser's token.
            # A browser without one is given it with its first line posted, not before: a line refused
            # made nothing, and a session stored for it would be a year's row per post of a client
            # that keeps no cookies.
            controller = controller_for(request)
            poster = controller or (services.new_controller() if game.chat_spectators else "")
            chat_form(request, game.code, frame, poster)
            if poster != controller:
                give_controller(request, poster)
        elif isinstance(frame, protocol.React):
            chat_form(request, game.code, frame, controller_for(request))
        elif isinstance(frame, protocol.Hint):
            hint_form(request, game.code, frame, controller_for(request))
        else:
            services.perform(frame, code=game.code, controller=controller_for(request))
    except RuleViolation as exc:
        # A form of a page drawn before the table moved on: the page it goes back to shows the table
        # as it is now, so it says that in the page's words (not the service's version numbers).
        said = str(WORDS[errors.STALE]) if exc.code == errors.STALE else refusal(exc)
        if action == "react" and exc.code == errors.REPEATED:
            pass  # sent once already: the table has it, and a reaction shows nothing on this page
        elif action != "chat":
            messages.error(request, said)
        elif not request.session.session_key:
            # A browser without a session (none stored: its key is None once the session is read)
            # is told above the table, as for the other forms: one made to keep the refusal in
            # would be stored for a post that made nothing.
            messages.error(request, said)
        else:
            # Said beside the chat's field (the page opens there), with what was typed, to be
            # shortened or sent again rather than typed again (a line already sent is not).
            typed = "" if exc.code == errors.REPEATED else request.POST.get("text", "")[:CHAT_KEPT_MAX]
            request.session[CHAT_REFUSED] = {"code": game.code, "text": typed, "error": said}
    # A chat line's page opens at the chat, where the line (or why it was refused) is.
    return redirect(reverse("room", args=[game.code]) + ("#ns-chat" if action == "chat" else ""))


# A refused chat line, kept in the session for the page the refusal goes back to (at most this
# many characters: a line over the limit is shown to be shortened, not stored whatever its size).
CHAT_REFUSED = "chat_refused"
CHAT_KEPT_MAX = 2 * CHAT_MAX


def chat_form(request: HttpRequest, code: str, frame: protocol.Chat | protocol.React, controller: str) -> None:
    """A chat line or a reaction posted by a page without script: sent once per form (its id), counted
    against the socket's chat (or reactions) limit, then the socket frame's service."""
    # Worded here, not by the code's general words: a reader of the page sends no "frames", and a
    # line sent twice is not a move the table shows.
    sent = frame.id if isinstance(frame.id, str) else ""
    key = f"ns-{frame.kind}:v1:{code}:{hashlib.sha256(f'{controller}:{sent}'.encode()).hexdigest()[:32]}"
    # The same form sent again (a double click) is told apart first: it posts nothing, so it does not
    # use up the reader's next line against the chat limit.
    if sent and not _first_sending(key):
        raise Worded(errors.REPEATED, gettext("That message was already sent."))
    try:
        if form_refusal(frame.kind, controller, client_ip(request)):
            if isinstance(frame, protocol.React):
                slow = gettext("You are reacting quickly: wait a moment before the next reaction.")
            else:
                slow = gettext("You are posting quickly: wait a moment before the next message.")
            raise Worded(errors.RATE_LIMITED, slow)
        services.perform(frame, code=code, controller=controller)
    except RuleViolation:
        if sent:
            with contextlib.suppress(Exception):  # the cache away: nothing was kept to forget
                cache.delete(key)  # refused: the same form, put right, may be sent again
        raise


# The coach's last answer to this browser's page without script, kept in the session for the pages
# that follow while the table stays at the version it was given for (``noscript.table``'s ``hint``).
NS_HINT = "ns_hint"


def hint_form(request: HttpRequest, code: str, frame: protocol.Hint, controller: str) -> None:
    """The coach's hint asked for by a page without script: counted against the socket's hint limit,
    then the socket's ``coach.hint_for``; its answer is kept for the page the post goes back to."""
    if form_refusal(frame.kind, controller, client_ip(request)):
        raise Worded(errors.RATE_LIMITED, gettext("You have asked the coach often: wait a moment before asking again."))
    try:
        hint = coach.hint_for(code=code, controller=controller, version=frame.version)
    except RuleViolation:
        raise
    except Exception as exc:  # the coach failing is said as the socket says it, not a server error page
        log.exception("hint in %s failed", code)
        raise Worded(errors.COACH_ERROR, str(WORDS[errors.COACH_ERROR])) from exc
    request.session[NS_HINT] = {"code": code, "hint": hint}


def hint_kept(request: HttpRequest, code: str) -> dict[str, Any] | None:
    """The coach's answer ``hint_form`` kept for room ``code`` (the page shows it while it fits the table)."""
    kept = request.session.get(NS_HINT)
    return kept["hint"] if isinstance(kept, dict) and kept.get("code") == code else None


def _first_sending(key: str) -> bool:
    """Whether the chat form ``key`` names is sent for the first time (noted in the shared cache).

    With the cache out of reach the line is posted all the same, as a socket's is: a form sent
    twice meanwhile may post it twice, which is better than a line nobody can send.
    """
    try:
        return bool(cache.add(key, True, CHAT_FORM_KEPT))
    except Exception:  # noqa: BLE001 - Redis away: the chat goes on without the once-only note
        log.warning("chat form: the cache is out of reach; posting without checking for a resend", exc_info=True)
        return True


@form_on("room")
@require_POST
def room_rematch(request: HttpRequest, code: str) -> HttpResponse:
    """Open (or follow) the rematch room: same rules, same players, already seated."""
    game = _game_or_404(code)
    try:
        rematch = services.game_rematch(
            code=game.code, controller=controller_for(request), client_seed=request.POST.get("client_seed", "")
        )
    except RuleViolation as exc:
        mark_refused(request)
        messages.error(request, refusal(exc))
        return redirect("room", code=game.code)
    return redirect("room", code=rematch.code)


def roll_dice(roll: dict[str, Any]) -> list[dict[str, Any]]:
    """One replayed roll's dice for a page: value, colour name (Painted) and whether it was held."""
    colours = roll.get("colours") or [""] * len(roll["dice"])
    return [
        {"value": value, "colour": colour, "held": i in roll["held"]}
        for i, (value, colour) in enumerate(zip(roll["dice"], colours, strict=True))
    ]


@require_safe
def room_fairness(request: HttpRequest, code: str) -> HttpResponse:
    """Anyone with the code can check a finished game's dice against the seed shown from the start."""
    game = _game_or_404(code)
    state = game_state(game)
    seeds = seed_owners(game.client_seed, state, selectors.seated_computers(game) if game.client_seed else set())
    context: dict[str, Any] = {"game": game, "state": state, "seeds": seeds}
    if game.is_over:
        check = fairness_check(game)
        context.update(report=check.report, problems=check.problems)
        if RULESETS[game.ruleset].colours:
            # Painted: every roll with each die's value and colour by name.
            context["painted_rolls"] = [
                {"turn": turn, "name": shown_name(name), "roll": roll["roll"], "dice": roll_dice(roll)}
                for turn, name, roll in check.rolls
            ]
    return render(request, "games/fairness.html", context)


def seed_owners(client_seed: str, state: dict[str, Any], computers: set[int]) -> list[dict[str, Any]]:
    """Each distinct seed with the seats that gave it, in seat order (pass-and-play: one device, one seed).

    A seat without a seed is a computer's (``computers``: the Player rows seated as computers),
    which adds an empty one, or a person's who had not followed the rematch when it started:
    each is listed apart, so that nobody's seat is called a computer's.
    """
    if not client_seed:
        return []
    seats = state["seats"]
    owners: dict[tuple[str, bool], list[str]] = {}
    for index, seed in enumerate(client_seed.split(",")):
        seat = seats[index] if index < len(seats) else None
        name = shown_name(seat["name"]) if seat is not None else f"seat {index + 1}"
        computer = not seed and seat is not None and seat["player"] in computers
        owners.setdefault((seed, computer), []).append(name)
    return [{"seed": seed, "computer": computer, "names": names} for (seed, computer), names in owners.items()]


@require_safe
def replay(request: HttpRequest, code: str) -> HttpResponse:
    """A finished game step by step, for anyone with the room's link: replay_steps as JSON for static/js/replay.js."""
    game = _game_or_404(code)
    if code != game.code:
        return redirect("replay", code=game.code)
    context: dict[str, Any] = {"game": game, "ruleset": RULESETS[game.ruleset]}
    if not game.is_over:
        # A room still in its lobby has no game going yet: its page says so, not that it is going.
        lobby = game.started_at is None
        return render(request, "games/replay.html", {**context, "not_over": True, "lobby": lobby}, status=409)
    if game.started_at is None:
        # Everyone left the lobby: no die was ever rolled. The room is there (a 404 would count
        # the right code as a guess against the address's misses); its replay, as one in
        # progress, is not, in the state the game is in.
        return render(request, "games/replay.html", {**context, "never_started": True}, status=409)
    if is_head(request):  # the page's status and type, without the review and the steps it would show
        return without_body(render(request, "games/replay.html", context))
    review: dict[str, Any] | None = None
    try:
        review = coach.review(game)
        verdicts = coach.verdict_map(game)
    except RuleViolation:  # the coach's table is still being built: the replay shows without verdicts
        verdicts = {}
    # The reader's own seats: the page opens their part of the coach's review.
    you = seats_of(game, controller_for(request))
    context.update(review=review, replay_data=_replay_data(game, verdicts), you=you)
    return render(request, "games/replay.html", context)


# How long a finished game's replay stays in the cache once made.
REPLAY_KEPT = 3600


def _replay_data(game: Game, verdicts: dict[int, dict[str, Any]]) -> SafeString:
    """The replay page's data (replay_steps and the seats) as its ``<script id="replay-data">``.

    A finished game does not change but for a deleted account's name withdrawn (a new version),
    and replaying its log and writing out every step takes a worker a good part of a second for
    a long game: so each version is made once per language (the steps are worded) and with or
    without the coach's verdicts, then kept in the shared cache (``REPLAY_KEPT``; the local
    cache holds a bounded number of entries) for every view that follows. The key names the
    release of the scripts that read it (``static_version``): after a deploy the new replay.js
    never reads data made for the old one.
    """
    variant = "coach" if verdicts else "plain"
    key = f"replay-data:v1:{static_version()}:{game.code}:{game.version}:{get_language()}:{variant}"
    found = cache.get(key)
    if isinstance(found, str):
        return mark_safe(found)  # json_script's own output, escaped when it was made
    data = {
        "code": game.code,
        "ruleset": ruleset_info(game.ruleset),
        "seats": [{"name": shown_name(s.name), "kind": s.kind} for s in game.room.seats],
        "steps": replay_steps(game, verdicts),
        "coach": bool(verdicts),
    }
    script = json_script(data, "replay-data")
    cache.set(key, str(script), REPLAY_KEPT)
    return script


@require_safe
async def room_review(request: HttpRequest, code: str) -> JsonResponse:
    """The coach's look back at a finished game: the expected points each seat's choices lost.

    A table still being built (a fresh install) is waited for, holding no thread, up to
    COACH_WAIT seconds; only past that does the review answer 503.
    """
    game = await sync_to_async(_game_or_404)(code)
    if is_head(request):
        return head_of_review(game)
    if game.is_over:
        await tables.wait_ready(game.ruleset, timeout=settings.COACH_WAIT)
    try:
        return JsonResponse(await sync_to_async(coach.review)(game))
    except RuleViolation as exc:
        status = 503 if exc.code == errors.COACH_BUSY else 409
        return JsonResponse({"error": exc.code, "message": refusal(exc)}, status=status)


def head_of_review(game: Game) -> JsonResponse:
    """A HEAD of the review: the GET's status without the review made, nor a table asked for or
    waited for (a table not ready is the 503 a GET answers once its wait is over)."""
    status = 409 if not game.is_over else 200 if tables.ready(game.ruleset) else 503
    return without_body(JsonResponse({}, status=status))


@require_safe
def room_state(request: HttpRequest, code: str) -> JsonResponse:
    """The public state as JSON, with which seats are this browser's."""
    game = _game_or_404(code)
    state = game_state(game)
    state["you"] = {"seats": seats_of(game, controller_for(request))}
    return JsonResponse(state)


@require_safe
def room_feed(request: HttpRequest, code: str) -> JsonResponse:
    """The room's last events, as the room page carries them (``feed``): for a page whose socket
    was away, which puts the lines it missed in its feed by their versions."""
    game = _game_or_404(code)
    return JsonResponse({"feed": broadcast.recent_events(game)}, headers={"Cache-Control": "no-store"})


@require_safe
def room_log(request: HttpRequest, code: str) -> JsonResponse:
    """Everything needed to re-derive a finished game's dice (see docs/fairness.md)."""
    game = _game_or_404(code)
    if not game.is_over:
        return JsonResponse(
            {"error": errors.NOT_FINISHED, "message": gettext("The seed is revealed when the game ends.")},
            status=409,
        )
    return JsonResponse(
        {
            "code": game.code,
            "ruleset": game.ruleset,
            "commitment": game.seed_commitment,
            "server_seed": game.server_seed,
            "client_seed": game.client_seed,
            # Outcomes per die: 6, or 30 (value x colour) in Painted Yahtzee; see docs/fairness.md.
            "sides": RULESETS[game.ruleset].outcomes,
            # Whose turn each roll is, and what ends turns, for checking turns too; see docs/fairness.md.
            **selectors.turn_log(game),
        }
    )


@require_safe
def doc_page(request: HttpRequest, name: str) -> HttpResponse:
    """The rules or the fair-dice method, from the project's docs/ (see games.web.docpages)."""
    page = docpages.PAGES[name]
    return render(request, "games/doc.html", {"title": page.title, "body": docpages.html(name), "name": name})


# --- your games and being told it is your turn -------------------------------------------------


def _user_id(request: HttpRequest) -> int | None:
    return request.user.pk if request.user.is_authenticated else None


@require_safe
def my_games(request: HttpRequest) -> HttpResponse:
    """Every unfinished game of this browser (the account's, signed in), those waiting for a move first;
    below them its finished games, the last to end first (``?done=N``: their N-th page)."""
    user_id = _user_id(request)
    on, address = selectors.email_notices(user_id)
    pending = _email_pending(user_id)
    # While a new address waits for its link the e-mails still go to the confirmed one, which the
    # field (showing the new address) no longer shows: said beside it. Not one that cannot receive
    # mail (saved before the form refused such ones): nothing goes there.
    meanwhile = address if pending and on and address and notices.mailable(address) else ""
    if pending:
        # What its player asked for while the link waits: saved again as shown, it mails no second
        # link, where a blank and unticked form would turn the e-mails off and void the link.
        on, address = True, pending
    elif saved := selectors.email_notices_saved(user_id):
        # Saved with the e-mails off, not confirmed: shown as typed, the box unticked.
        address = saved
    # A saved address no mail goes to (saved before the form refused such ones): said beside the
    # field, which asks for another; the box stays as chosen, so a new address saved asks for its link.
    unmailable = address if address and not notices.mailable(address) else ""
    # The address the e-mails go to; the account's own is offered until one is confirmed. Shown
    # otherwise, saving the form as it stands would ask to move the e-mails to the account's address.
    if not address and user_id is not None:
        address = getattr(request.user, "email", "") or ""
    context = {
        "games": selectors.my_games(controller_for(request), request.GET.get("page")),
        "finished": selectors.my_finished_games(controller_for(request), request.GET.get("done")),
        "email_form": EmailNoticesForm(initial={"address": address, "on": on}),
        "vapid_key": notices.vapid_public_key(),
        # The message straight after saving says where the link went: the form's line would say it twice.
        "email_pending": "" if _link_sent_just_now(request) else pending,
        "email_unmailable": unmailable,
        "email_meanwhile": meanwhile,
    }
    return render(request, "games/my_games.html", context)


# Marks the message that says a confirmation link went (or went already) to an address.
LINK_SENT_TAG = "link-sent"


def _link_sent_just_now(request: HttpRequest) -> bool:
    """Whether this page shows the message of a link sent, from the e-mail form just saved."""
    return any(LINK_SENT_TAG in m.tags.split() for m in messages.get_messages(request))


def _email_pending(user_id: int | None) -> str:
    """The address a confirmation link was sent to and waits at (said on every visit, not only
    in the message straight after saving), or ""."""
    return selectors.email_notices_pending(user_id, max_age=services.CONFIRM_MAX_AGE)


def _back_to_my_games(request: HttpRequest) -> HttpResponse:
    """Your games at the pages of its lists the form was sent from (its action's ``?page=N``, and
    ``done=N`` for the finished games')."""
    pages = {}
    for name in ("page", "done"):
        value = request.GET.get(name, "")
        # ASCII digits only: str.isdigit() takes a superscript two too, which int() refuses.
        number = int(value) if value.isascii() and value.isdigit() else 0
        if number > 1:
            pages[name] = number
    to = reverse("my_games")
    return redirect(f"{to}?{urlencode(pages)}" if pages else to)


@form_on("my_games")
@require_POST
def notices_email(request: HttpRequest) -> HttpResponse:
    """An account turns its e-mails (its turn, a seat the computer took over, a game's end) on or off (and
    sets the address they go to), from any page of Your games: the form goes back to the page of the list it
    was sent from."""
    user_id = _user_id(request)
    if user_id is None:
        mark_refused(request)
        messages.error(request, gettext("Sign in to be e-mailed: e-mails go to an account's address."))
        return _back_to_my_games(request)
    shown = (selectors.email_notices(user_id)[1], getattr(request.user, "email", "") or "")
    form = EmailNoticesForm(request.POST, shown=shown)
    if not form.is_valid():
        return render(
            request,
            "games/my_games.html",
            {
                "games": selectors.my_games(controller_for(request), request.GET.get("page")),
                "finished": selectors.my_finished_games(controller_for(request), request.GET.get("done")),
                "email_form": form,
                "vapid_key": notices.vapid_public_key(),
                "email_pending": _email_pending(user_id),
            },
            status=400,
        )
    taken: list[Slot] = []

    def may_mail(to: str) -> str | None:
        places = take_confirmation_mail(to, str(user_id))
        if isinstance(places, str):
            return places
        taken.extend(places)
        return None

    done = ""
    try:
        done = services.email_notices_set(
            user_id=user_id,
            on=form.cleaned_data["on"],
            address=form.cleaned_data["address"],
            controller=controller_for(request),
            language=request.LANGUAGE_CODE,
            may_mail=may_mail,
        )
    except RuleViolation as exc:
        mark_refused(request)
        messages.error(request, refusal(exc))
        return _back_to_my_games(request)
    finally:
        if done != "confirm":  # only a letter sent counts, against its mailbox and this account
            for slot in taken:
                limiter.give_back(slot)
    on = form.cleaned_data["on"]
    if done == "confirm":
        messages.info(
            request,
            gettext(
                "We sent a link to %(address)s: open it to be e-mailed there when it is your turn, when the computer"
                " takes over your seat and when a game ends."
            )
            % {"address": form.cleaned_data["address"]},
            extra_tags=LINK_SENT_TAG,
        )
    elif done == "sent already":
        messages.info(
            request,
            gettext(
                "A link was already sent to %(address)s less than an hour ago: look for it in that mailbox"
                " (and its spam folder), and open it to be e-mailed there when it is your turn, when the computer takes"
                " over your seat and when a game ends."
            )
            % {"address": form.cleaned_data["address"]},
            extra_tags=LINK_SENT_TAG,
        )
    elif on:
        messages.success(
            request,
            gettext(
                "E-mails on: you are told when it is your turn, when the computer takes over your seat"
                " and when a game ends."
            ),
        )
    elif done == "saved":
        messages.success(
            request,
            gettext("E-mails off. Address saved: %(address)s. Turn e-mails on to be sent the link that confirms it.")
            % {"address": form.cleaned_data["address"]},
        )
    elif form.cleaned_data["address"]:
        messages.success(
            request, gettext("E-mails off. Address saved: %(address)s.") % {"address": form.cleaned_data["address"]}
        )
    else:
        messages.success(request, gettext("E-mails off."))
    return _back_to_my_games(request)


# Like the stop link's: a GET only shows the button, since links in e-mails get fetched by
# scanners, which must not confirm an address for whoever typed it in (a HEAD is such a GET).
@require_http_methods(["GET", "HEAD", "POST"])
def notices_email_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The link sent to a new address for the e-mails of an account's games: its owner agrees to them there."""
    if request.method == "POST":
        state, address = services.email_notices_confirm(token=token)
    else:
        state, address = services.email_confirmation(token)
    context = {"token": token, "address": address, state: True}
    # 410: the link was good, and a newer request, a confirmation or e-mails off voided it.
    return render(request, "games/notices_confirm.html", context, status={"bad": 400, "void": 410}.get(state, 200))


# A subscription (an endpoint of at most 1,000 characters and two keys) is well under this.
JSON_BODY_MAX = 4096


def _json_body(request: HttpRequest) -> Any:
    if len(request.body) > JSON_BODY_MAX:
        raise RuleViolation(errors.BAD_SUBSCRIPTION, f"The request's body is over {JSON_BODY_MAX} bytes.")
    try:
        return json.loads(request.body or b"null")
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: arrays nested thousands deep
        raise RuleViolation(errors.BAD_SUBSCRIPTION, "The request's body is not JSON.") from None


@answers_json
@require_POST
def notices_push(request: HttpRequest) -> JsonResponse:
    """This browser's Web Push subscription (``PushSubscription.toJSON()``), stored to tell it of its turns."""
    try:
        body = _json_body(request)
        row = services.push_subscribe(
            controller=controller_for(request, create=True),
            user_id=_user_id(request),
            subscription=body,
            language=request.LANGUAGE_CODE,
            # The page's own post at a visit, not a press, names the subscription it found.
            heals=body.get("heals") if isinstance(body, dict) else None,
            posted=request.session.get(services.SESSION_ENDPOINTS, []),
        )
    except RuleViolation as exc:
        return JsonResponse({"error": exc.code, "message": refusal(exc)}, status=400)
    # Kept in the session, so that signing out on this browser stops them (accounts.receivers).
    kept = [e for e in request.session.get(services.SESSION_ENDPOINTS, []) if e != row.endpoint]
    request.session[services.SESSION_ENDPOINTS] = [*kept, row.endpoint][-services.PUSH_PER_CONTROLLER :]
    return JsonResponse({"ok": True}, status=201)


@answers_json
@require_POST
def notices_push_remove(request: HttpRequest) -> JsonResponse:
    """This browser stops its pushes: ``{"endpoint": ...}``."""
    try:
        body = _json_body(request)
        endpoint = body.get("endpoint") if isinstance(body, dict) else None
        removed = services.push_unsubscribe(controller=controller_for(request), endpoint=endpoint)
    except RuleViolation as exc:
        return JsonResponse({"error": exc.code, "message": refusal(exc)}, status=400)
    return JsonResponse({"ok": True, "removed": removed})


# The old subscription's auth secret is the credential (only the browser and this site hold it):
# the service worker posts this without a page, so without a CSRF token, and maybe after its
# session ended. A refusal counts against the client's refused posts (games.web.limits).
@answers_json
@csrf_exempt
@require_POST
def notices_push_renew(request: HttpRequest) -> JsonResponse:
    """The browser renewed its Web Push subscription: ``{"old": …, "new": …}``, each as ``toJSON()`` gives it."""
    try:
        body = _json_body(request)
        if not isinstance(body, dict):
            raise RuleViolation(errors.BAD_SUBSCRIPTION, "Send the renewed subscription and the new one.")
        old = body.get("old")
        row = services.push_renew(old=old, new=body.get("new"))
    except RuleViolation as exc:
        return JsonResponse({"error": exc.code, "message": refusal(exc)}, status=400)
    # Signing out on this browser stops the new one as it would have the old (accounts.receivers).
    endpoints = request.session.get(services.SESSION_ENDPOINTS, [])
    old_endpoint = old["endpoint"] if isinstance(old, dict) else None
    if old_endpoint in endpoints:
        kept = [e for e in endpoints if e not in (old_endpoint, row.endpoint)]
        request.session[services.SESSION_ENDPOINTS] = [*kept, row.endpoint]
    return JsonResponse({"ok": True})


# The token is the credential (signed by the site, sent only in the e-mail or push it stops):
# a mail program's one-click unsubscribe (RFC 8058) and the service worker post it without a
# CSRF token. GET (and a scanner's HEAD) only shows the button, since links in e-mails get
# fetched by scanners.
@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def notices_stop(request: HttpRequest, token: str) -> HttpResponse:
    """One click stops the e-mails (or this device's pushes) the token came with."""
    if request.method == "POST":
        kind = services.notices_stop(token=token)
        status = 200 if kind else 400
        return render(
            request, "games/notices_stop.html", {"token": token, "done": kind, "bad": not kind}, status=status
        )
    read = notices.read_stop_token(token)
    # Opened again once stopped (the same e-mail, an older one): it says so, not asks as if the
    # first click had done nothing. A GET still changes nothing (a mail scanner opens links).
    # A device's subscription gone is not said to be this device's notifications stopped: it may
    # have subscribed again since (services.notices_stop).
    done = None
    if read is not None and selectors.notices_stopped(*read):
        done = "email" if read[0] == "email" else "gone"
    # Which channel the click stops: the e-mails and a notification lead to the same page.
    kind = read[0] if read is not None else None
    return render(
        request,
        "games/notices_stop.html",
        {"token": token, "bad": read is None, "done": done, "kind": kind},
        status=400 if read is None else 200,
    )


SERVICE_WORKER = settings.BASE_DIR / "static" / "js" / "sw.js"


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, from the site's root so that it may show the notices of every page."""
    response = HttpResponse(SERVICE_WORKER.read_bytes(), content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"  # a browser checks for a new version at each visit
    return response


# The page links the manifest with crossorigin="use-credentials": a browser fetches it without
# cookies otherwise, and so without the switcher's language or the account's.
@require_safe
@vary_on_headers("Accept-Language", "Cookie")
def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest, in the reader's language: the site installs as an app (on a phone's
    home screen too) that opens on Your games."""
    data = {
        "name": settings.SITE_NAME,
        "short_name": "Yahtzee",
        "description": gettext("Multiplayer Yahtzee: live, or at your own pace over days."),
        "lang": request.LANGUAGE_CODE,
        "start_url": reverse("my_games"),
        "scope": "/",
        "display": "standalone",
        "background_color": "#faf7f2",
        "theme_color": "#b8322a",
        "icons": [
            {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {"src": static("favicon.svg"), "sizes": "any", "type": "image/svg+xml"},
        ],
    }
    return JsonResponse(data, content_type="application/manifest+json")
