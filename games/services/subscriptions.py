"""Who is told when it is their turn, and how: a browser's Web Push subscription, an account's e-mails.

Each channel is opt-in and stopped in one click (``notices_stop``, with the token every
e-mail and push carries). The sending itself is ``games.services.notices``.
"""

from __future__ import annotations

import base64
import binascii
import logging
import re
import secrets
import smtplib
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any, Literal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.domain import errors as E
from games.domain.rules import RuleViolation
from games.services import notices
from games.services.notices import PUSH_PER_CONTROLLER
from games.store.models import NoticeSettings, PushSubscription

log = logging.getLogger(__name__)

ENDPOINT_MAX = 1000
# The session's list of the subscriptions its browser made (the pages keep it; ``push_sign_out``).
SESSION_ENDPOINTS = "push_endpoints"


# base64url (a browser's ``toJSON()``) or standard base64, with or without its padding.
_KEY_TEXT = re.compile(r"(?:[A-Za-z0-9_-]+|[A-Za-z0-9+/]+)={0,2}")
_KEY_LETTERS = re.compile(r"[A-Za-z0-9_+/-]+={0,2}")


def _key(value: object, name: str, size: int) -> str:
    """A subscription key of exactly ``size`` bytes (p256dh: a P-256 point, 65; auth: 16), spelt as
    this site stores and compares it: base64url without padding. A browser's ``toJSON()`` gives that,
    but a key may come in standard base64 or padded, and the same key in another spelling is the same
    key: compared as sent, a browser's own auth secret would not be recognised as its own."""
    if not isinstance(value, str) or len(value) > 200:
        raise RuleViolation(E.BAD_SUBSCRIPTION, f"The subscription's {name} key is missing or not text.")
    # Checked letter by letter: the decoder skips letters outside the alphabet, so a key padded
    # with them would pass for one of the right size. One alphabet or the other, not a mix of both.
    if not _KEY_TEXT.fullmatch(value):
        mixed = _KEY_LETTERS.fullmatch(value) is not None
        why = "mixes base64url's letters with standard base64's" if mixed else "is not base64url"
        raise RuleViolation(E.BAD_SUBSCRIPTION, f"The subscription's {name} key {why}.")
    text = value.replace("-", "+").replace("_", "/")
    if "=" not in text:
        text += "=" * (-len(text) % 4)
    try:
        # Padding, when sent, is the right one: "AAAA=" is no spelling of a key.
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise RuleViolation(
            E.BAD_SUBSCRIPTION, f"The subscription's {name} key is not base64url: its length or padding is wrong."
        ) from None
    if len(raw) != size or (name == "p256dh" and raw[0] != 4):
        raise RuleViolation(E.BAD_SUBSCRIPTION, f"The subscription's {name} key is not a key of the right size.")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _checked(subscription: object) -> tuple[str, str, str]:
    """The endpoint and keys of a subscription as ``PushSubscription.toJSON()`` gives it, checked
    whole: an https endpoint at a push service allowed (``PUSH_HOSTS``) and both keys of the right
    size (BAD_SUBSCRIPTION otherwise), not one its push service said is gone (SUBSCRIPTION_GONE)."""
    if not isinstance(subscription, dict):
        raise RuleViolation(E.BAD_SUBSCRIPTION, "A subscription is an object with an endpoint and keys.")
    endpoint = subscription.get("endpoint")
    if not isinstance(endpoint, str) or not endpoint or len(endpoint) > ENDPOINT_MAX:
        raise RuleViolation(E.BAD_SUBSCRIPTION, "The subscription has no endpoint.")
    if not notices.push_allowed(endpoint):
        raise RuleViolation(E.BAD_SUBSCRIPTION, "The subscription's endpoint is not a push service this site sends to.")
    keys: Any = subscription.get("keys")
    if not isinstance(keys, dict):
        raise RuleViolation(E.BAD_SUBSCRIPTION, "The subscription has no keys.")
    p256dh = _key(keys.get("p256dh"), "p256dh", 65)
    auth = _key(keys.get("auth"), "auth", 16)
    if PushSubscription.objects.filter(endpoint=endpoint).exclude(gone_at=None).exists():
        # Expired at its push service while the browser still holds it: stored again, it would be
        # told nothing, and its page would say notifications are on. The page makes a new one.
        raise RuleViolation(
            E.SUBSCRIPTION_GONE, "The push service no longer takes this subscription: the browser is to make a new one."
        )
    return endpoint, p256dh, auth


def push_subscribe(
    *,
    controller: str,
    user_id: int | None,
    subscription: object,
    language: str = "",
    heals: object = None,
    posted: Sequence[str] = (),
) -> PushSubscription:
    """Store (or move to this browser's seats) a Web Push subscription as ``PushSubscription.toJSON()`` gives it.

    Checked whole before anything is written: an https endpoint at a push service allowed
    (``PUSH_HOSTS``) and both keys of the right size; BAD_SUBSCRIPTION otherwise.

    ``heals``: the endpoint of the subscription the browser already held, posted again by its page
    without anyone pressing a button (to heal a server that lost it) rather than turned on by the
    person at it. Taken only from whoever it was made for: its endpoint is among ``posted`` (those
    this session posted, ``SESSION_ENDPOINTS``), or stored for these seats (``controller``).
    Otherwise SUBSCRIPTION_ENDED, and nothing is stored: a sign-out ended it (which flushes the
    session and deletes the row, ``push_sign_out``) or it is someone else's, and on a shared device
    whoever comes next turns their own notifications on. But SUBSCRIPTION_HELD, as for a post of it
    by a press, when it is stored as another browser's (its keys are not the ones posted): its page
    says why nothing is sent to it, and the browser keeps the subscription nobody asked to drop.
    """
    if not controller:
        raise RuleViolation(E.BAD_REQUEST, "Your browser has no session yet: open a room or take a seat first.")
    if isinstance(heals, str):
        _endpoint_named(heals)
    if heals is not None and not (
        isinstance(heals, str)
        and (heals in posted or PushSubscription.objects.filter(endpoint=heals, controller=controller).exists())
    ):
        if isinstance(heals, str) and _held_by_another(
            heals, controller=controller, user_id=user_id, posting=subscription, posted=posted
        ):
            raise _held()
        raise RuleViolation(
            E.SUBSCRIPTION_ENDED, "This browser's subscription was ended by a sign-out: it is to be turned on again."
        )
    endpoint, p256dh, auth = _checked(subscription)
    fields = {
        "p256dh": p256dh,
        "auth": auth,
        "controller": controller,
        "user_id": user_id,
        "language": _language(language),
    }
    with transaction.atomic():
        held = PushSubscription.objects.select_for_update().filter(endpoint=endpoint).first()
        if held is None:
            # A new endpoint has no row to lock: two first posts of it at once both get here, and
            # the unique endpoint orders them. The second waits for the first's commit and is then
            # checked against the row it made, as any later post is.
            made = _first_post(endpoint, fields)
            if made is not None:
                _drop_oldest(controller, keep=[made.pk])
                return made
            held = PushSubscription.objects.select_for_update().filter(endpoint=endpoint).first()
        if held is not None and not _posted_by_its_own(
            held, controller=controller, user_id=user_id, auth=auth, posted=posted
        ):
            # Taken, the row would tell its browser nothing more, and push the poster's turns to a
            # device that cannot read them.
            raise _held()
        row, _ = PushSubscription.objects.update_or_create(endpoint=endpoint, defaults=fields)
        _drop_oldest(controller, keep=[row.pk])
    return row


def _first_post(endpoint: str, fields: dict[str, Any]) -> PushSubscription | None:
    """The row of a first post of ``endpoint``, or None where another post stored it first."""
    try:
        with transaction.atomic():  # a savepoint: the refused INSERT leaves the post's transaction usable
            return PushSubscription.objects.create(endpoint=endpoint, **fields)
    except IntegrityError:
        return None


def _held() -> RuleViolation:
    return RuleViolation(
        E.SUBSCRIPTION_HELD, "That notification subscription is another browser's: it cannot be moved to this one."
    )


def _held_by_another(
    endpoint: str, *, controller: str, user_id: int | None, posting: object, posted: Sequence[str]
) -> bool:
    """Whether ``endpoint``, healed by a visit and not taken, is stored as another browser's, posted
    with other keys than its own (as a post of it without ``heals`` is refused): the browser holding
    it was refused it before, and is told the same, so that its page keeps the subscription and says
    why nothing is sent to it. Not so for a row its own browser's secret matches (a session
    after cleared cookies, or the next person at a shared device), for no row at all (a
    sign-out deleted it), nor for one its push service said is gone (nothing is sent to it, and
    it waits only for the sweep): those are ended."""
    held = PushSubscription.objects.filter(endpoint=endpoint).first()
    if held is None or held.gone_at is not None:
        return False
    keys: Any = posting.get("keys") if isinstance(posting, dict) else None
    try:
        auth = _key(keys.get("auth") if isinstance(keys, dict) else None, "auth", 16)
    except RuleViolation:
        return False  # no secret of its own to be told apart by
    return not _posted_by_its_own(held, controller=controller, user_id=user_id, auth=auth, posted=posted)


def _posted_by_its_own(
    held: PushSubscription, *, controller: str, user_id: int | None, auth: str, posted: Sequence[str]
) -> bool:
    """Whether a post of the endpoint ``held`` is stored under comes from whoever it is stored for,
    and may move it (to this session's seats, with the keys posted).

    A push service gives each subscription an endpoint of its own, and a browser keeps its endpoint
    and keys for the subscription's life: the same endpoint with its own auth secret (which only
    that browser and this site hold, as ``push_renew`` checks) is its browser, whose session
    changed (cookies cleared, signed in or out). The same seats (``controller``: the browser's, or
    the account's shared by its devices), the same account, or a session that posted it before
    (``posted``) are its person too, whatever keys they post: a subscription made again keeps its
    endpoint at some push services. Anyone else only learned the endpoint.
    """
    if held.controller == controller or held.endpoint in posted:
        return True
    if user_id is not None and held.user_id == user_id:
        return True
    return same_key(held.auth, auth)


def same_key(stored: str, other: str) -> bool:
    """Whether a stored key and one as ``_key`` spells it are one key, compared in constant time.
    Rows stored before keys were spelt one way kept theirs as posted (base64url or base64, padded or
    not): compared as bytes, they are still their browser's."""
    text = stored.replace("-", "+").replace("_", "/").rstrip("=")
    try:
        raw = base64.b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return False
    return secrets.compare_digest(base64.urlsafe_b64encode(raw).rstrip(b"="), other.encode())


def _drop_oldest(controller: str, *, keep: list[int]) -> None:
    """Past ``PUSH_PER_CONTROLLER``, the subscriptions of ``controller`` made first are deleted, those
    gone before any other; ``keep`` (the one just posted, or those of the device that just signed
    in) stay whatever their age: that device's page says its pushes are on, and does not subscribe
    again."""
    rows = PushSubscription.objects.filter(controller=controller).exclude(pk__in=keep).order_by("-created_at", "-pk")
    kept = max(0, PUSH_PER_CONTROLLER - len(keep))
    # Those their push service said are gone make room first: one that still works tells a device
    # of its turns, a gone one only that its page is to subscribe again (which it then does).
    ranked = [
        *rows.filter(gone_at=None).values_list("pk", flat=True),
        *rows.exclude(gone_at=None).values_list("pk", flat=True),
    ]
    oldest = ranked[kept:]
    if oldest:
        PushSubscription.objects.filter(pk__in=oldest).delete()


def push_renew(*, old: object, new: object) -> PushSubscription:
    """The browser's push service renewed a subscription (``pushsubscriptionchange`` in its service
    worker): ``new`` takes the place of ``old``, for the same seats and in the same language, both as
    ``PushSubscription.toJSON()`` gives them.

    No session or CSRF token is needed (a service worker has neither to hand, and the browser's
    session may have ended): ``old``'s auth secret, which only the browser and this site hold,
    shows it is the browser's own. The old one may be gone already (its push service expired it
    first). Checked whole before anything is written; BAD_SUBSCRIPTION otherwise, and
    SUBSCRIPTION_HELD for a ``new`` endpoint another browser holds. The browser keeps as many
    subscriptions as before: one replaces the other.
    """
    keys: Any = old.get("keys") if isinstance(old, dict) else None
    endpoint = old.get("endpoint") if isinstance(old, dict) else None
    secret = keys.get("auth") if isinstance(keys, dict) else None
    if not isinstance(endpoint, str) or not isinstance(secret, str):
        raise RuleViolation(E.BAD_SUBSCRIPTION, "Say which subscription was renewed: its endpoint and auth key.")
    _endpoint_named(endpoint)
    secret = _key(secret, "auth", 16)
    if not isinstance(new, dict):
        raise RuleViolation(E.BAD_SUBSCRIPTION, "A subscription is an object with an endpoint and keys.")
    with transaction.atomic():
        row = PushSubscription.objects.select_for_update().filter(endpoint=endpoint).first()
        if row is None or not same_key(row.auth, secret):
            raise RuleViolation(E.BAD_SUBSCRIPTION, "That subscription is not one this site holds for this browser.")
        new_endpoint, p256dh, auth = _checked(new)
        row.endpoint, row.p256dh, row.auth = new_endpoint, p256dh, auth
        row.gone_at = row.failing_since = None
        for _ in range(2):
            held = PushSubscription.objects.select_for_update().filter(endpoint=new_endpoint).exclude(pk=row.pk).first()
            if held is not None and held.controller != row.controller:
                # Refused as a post of it is (push_subscribe): it stays its browser's.
                raise _held()
            if held is not None:
                held.delete()  # posted from a page already: one row for the browser's one subscription
            if _moved(row):
                return row
            # A first post of the new endpoint stored it after the look above, and the unique
            # endpoint refused the move: that row, committed now, is looked at as any is.
        raise _held()  # taken again after the second look


def _moved(row: PushSubscription) -> bool:
    """Whether ``row`` was saved under its new endpoint, or another row took that endpoint first."""
    try:
        with transaction.atomic():  # a savepoint: the refused UPDATE leaves the renewal's transaction usable
            row.save(update_fields=["endpoint", "p256dh", "auth", "gone_at", "failing_since"])
    except IntegrityError:
        return False
    return True


def push_hand_over(*, controller: str, to: str, user_id: int, language: str = "") -> int:
    """A browser signs in: the pushes it subscribed to follow its seats to the account's token.

    Without it the subscription would stay with the browser's old token, whose seats are now
    the account's, and the device would hear of none of its turns. ``language``: the
    account's, which its pushes are worded in from now on, as its other devices' are; ""
    (an account that never chose one) keeps the page's they were turned on from. Returns how many moved.

    The account keeps at most ``PUSH_PER_CONTROLLER`` of them, those of the device signing in
    and the newest of the others, as when one is posted: every browser that signs in brings up
    to as many again.
    """
    if not controller or controller == to:
        return 0
    moved: dict[str, Any] = {"controller": to, "user_id": user_id}
    if language := _language(language):
        moved["language"] = language
    with transaction.atomic():
        rows = list(PushSubscription.objects.filter(controller=controller).values_list("pk", flat=True))
        count = PushSubscription.objects.filter(pk__in=rows, controller=controller).update(**moved)
        if count:
            _drop_oldest(to, keep=rows)
    return count


def push_sign_out(*, user_id: int, endpoints: list[str]) -> int:
    """A browser signs out: the subscriptions it made while signed in (``endpoints``, kept in its
    session) stop telling it of the account's turns; returns how many were removed.

    The device may be a shared one: whoever uses it next must not read the account's notices.
    Its page subscribes again, for its own seats, the next time it asks to be told.
    """
    endpoints = [e for e in endpoints if isinstance(e, str)][:PUSH_PER_CONTROLLER]
    if not endpoints:
        return 0
    deleted, _ = PushSubscription.objects.filter(user_id=user_id, endpoint__in=endpoints).delete()
    return deleted


def push_password_changed(*, user_id: int, keep: list[str]) -> int:
    """The account's password changed, which signs out every browser signed in to it but the one
    that changed it: the account's subscriptions stop, but those that browser made (``keep``, the
    endpoints its session kept); returns how many were removed.

    No sign-out runs in the browsers the change signs out (their sessions end at their next
    request, or never come back): without this, a shared computer left signed in would go on
    showing the account's turns, with the link to its private rooms, to whoever sits there next.
    """
    keep = [e for e in keep if isinstance(e, str)][:PUSH_PER_CONTROLLER]
    deleted, _ = PushSubscription.objects.filter(user_id=user_id).exclude(endpoint__in=keep).delete()
    return deleted


def _endpoint_named(endpoint: str) -> str:
    """An endpoint a request names to find a stored subscription by, or BAD_SUBSCRIPTION when no
    stored one can have it (too long, or not printable ASCII): looked up as it came, a NUL in it
    fails the query on PostgreSQL, and a lone surrogate on every database."""
    if len(endpoint) > ENDPOINT_MAX or not endpoint.isascii() or not endpoint.isprintable():
        raise RuleViolation(E.BAD_SUBSCRIPTION, "That is not the endpoint of a subscription.")
    return endpoint


def push_unsubscribe(*, controller: str, endpoint: object) -> bool:
    """This browser stops its pushes (the endpoint it subscribed with); True if one was stored."""
    if not isinstance(endpoint, str):
        raise RuleViolation(E.BAD_SUBSCRIPTION, "Say which subscription: its endpoint.")
    _endpoint_named(endpoint)
    if not controller:
        raise RuleViolation(E.BAD_SUBSCRIPTION, "This browser has no subscription here to stop.")
    deleted, _ = PushSubscription.objects.filter(endpoint=endpoint, controller=controller).delete()
    return bool(deleted)


CONFIRM_SALT = "yahtzee.notices.email-confirm"
CONFIRM_MAX_AGE = 3 * 86_400  # seconds a confirmation link works
# The same address asked for again this soon after its link went: no other link is sent.
CONFIRM_AGAIN_AFTER = timedelta(hours=1)
# No request waiting: what a new request, a confirmation or turning e-mails off leaves.
NO_PENDING: dict[str, Any] = {
    "pending_address": "",
    "pending_nonce": "",
    "pending_controller": "",
    "pending_language": "",
    "pending_at": None,
}
# What a confirmation link comes to: "ask" (its page's question, with the address), "done"
# (confirmed, with the address), "bad" (cut short, changed or expired), or "void" (a newer
# request, a confirmation or turning e-mails off came after it, or the account is gone).
Confirmation = tuple[Literal["ask", "done", "bad", "void"], str]


MAIL_REFUSALS = {
    E.MAILED_ENOUGH: "That address has been sent enough links for today: try again tomorrow.",
    E.ASKED_ENOUGH: "You have asked for enough links for today: try again tomorrow.",
}


def email_notices_set(
    *,
    user_id: int,
    on: bool,
    address: str | None = None,
    controller: str = "",
    language: str = "",
    may_mail: Callable[[str], str | None] = lambda address: None,
) -> str:
    """An account turns its e-mails (its turns, its seats the computer took over, its games' ends) on or
    off; ``address`` (checked by the form) is where they go.

    ``controller``: the account's seat token (the signed-in browser's), whose seats the e-mails are for.
    Returns "set", or "confirm": the e-mails are to go to an address the account has not
    confirmed through the link sent there, so only the request is kept (``NoticeSettings``'s
    pending fields, replacing any earlier one) and a link went there (``email_notices_confirm``),
    since anyone may type anyone's address and have the site mail them at every turn. The
    account's own address (user.email) counts for nothing here: an administrator may have set
    it, and nobody confirmed it. Any other choice voids a request waiting.

    Or "saved": the e-mails are off and ``address``, not the confirmed one, is kept unconfirmed
    (``pending_address`` with no link: ``email_notices_saved``) for the form to show; nothing is
    mailed there until the e-mails are turned on with it, which sends its link as above.

    Or "sent already": the request waiting is for this very address, and its link went less
    than ``CONFIRM_AGAIN_AFTER`` ago; nothing is sent nor changed. Refused, with nothing
    stored: with the code ``may_mail(address)`` answers when a link may not go there (the
    page's rate limits: MAILED_ENOUGH, the mailbox got as many links as it may whichever
    accounts ask; ASKED_ENOUGH, the account asked for as many as it may; the caller counts a
    "confirm"), and MAIL_FAILED when the mail server did not take the letter.
    """
    user = get_user_model().objects.get(pk=user_id)
    language = _language(language)
    with transaction.atomic():
        row = NoticeSettings.objects.select_for_update().filter(user=user).first()
        confirmed = row.address if row is not None else ""
        if on and address and not same_address(address, confirmed):
            now = timezone.now()
            if (
                row is not None
                and row.pending_nonce
                and same_address(row.pending_address, address)
                and row.pending_at is not None
                and row.pending_at > now - CONFIRM_AGAIN_AFTER
            ):
                return "sent already"
            refused = may_mail(address)
            if refused is not None:
                raise RuleViolation(refused, MAIL_REFUSALS[refused])
            nonce = secrets.token_urlsafe(32)
            pending = {
                "pending_address": address,
                "pending_nonce": nonce,
                "pending_controller": controller,
                "pending_language": language,
                "pending_at": now,
            }
            NoticeSettings.objects.update_or_create(user=user, defaults=pending)
            # Inside the transaction: a letter that cannot be sent leaves no request behind
            # (the refusal rolls it back).
            try:
                notices.send_confirmation(address, confirm_token(nonce), language)
            except (OSError, smtplib.SMTPException):
                log.exception("the confirmation e-mail for user %s could not be sent", user_id)
                raise RuleViolation(
                    E.MAIL_FAILED, "The e-mail could not be sent just now; please try again later."
                ) from None
            return "confirm"
        if on and not confirmed:
            raise RuleViolation(E.NO_ADDRESS, "Give an e-mail address to be e-mailed at.")
        # Off with an address not confirmed: kept as typed, with no link (its owner asked for
        # no e-mails, and whoever typed it may not own it); turned on, it gets its link then.
        saved = {"pending_address": address} if not on and address and not same_address(address, confirmed) else {}
        NoticeSettings.objects.update_or_create(
            user=user, defaults={"email": on, "controller": controller, "language": language, **NO_PENDING, **saved}
        )
    return "saved" if saved else "set"


def same_address(one: str, other: str) -> bool:
    """Whether two e-mail addresses are one, compared as the accounts' are (allauth stores and looks
    them up lowercased, the part before the @ too): typed in other capitals, an address is the same."""
    return one.lower() == other.lower()


def confirm_token(nonce: str) -> str:
    """The link's token: the request's nonce, signed so that its age can be checked. The seat
    token and the address stay on the server: the link goes to whatever address was typed in."""
    return signing.dumps(nonce, salt=CONFIRM_SALT)


def read_confirm_token(token: str) -> str | None:
    """The nonce a link carries, or None for one cut short, changed or over three days old."""
    try:
        nonce = signing.loads(token, salt=CONFIRM_SALT, max_age=CONFIRM_MAX_AGE)
    except (signing.BadSignature, ValueError, TypeError):  # SignatureExpired is a BadSignature
        return None
    return nonce if isinstance(nonce, str) and nonce else None


def email_confirmation(token: str) -> Confirmation:
    """What the link ``token`` asks, for its page: ("ask", the address), or ("bad" / "void", "")."""
    nonce = read_confirm_token(token)
    if nonce is None:
        return "bad", ""
    address = NoticeSettings.objects.filter(pending_nonce=nonce).values_list("pending_address", flat=True).first()
    return ("ask", address) if address else ("void", "")


def email_notices_confirm(*, token: str) -> Confirmation:
    """The link e-mailed to a new address was followed: the account's e-mails go there from now on.

    ("done", the address); ("bad", "") for a link cut short, changed or expired; ("void", "")
    for one whose request is no longer the one waiting, which changes nothing.
    """
    nonce = read_confirm_token(token)
    if nonce is None:
        return "bad", ""
    with transaction.atomic():
        row = NoticeSettings.objects.select_for_update().select_related("user").filter(pending_nonce=nonce).first()
        if row is None or not row.pending_address:
            return "void", ""
        address = row.pending_address
        user = row.user
        if user.email != address:
            user.email = address
            user.save(update_fields=["email"])
        row.email, row.address = True, address
        row.controller, row.language = row.pending_controller, row.pending_language
        for name, value in NO_PENDING.items():
            setattr(row, name, value)
        row.save()
    return "done", address


def notices_language_set(*, language: str, user_id: int | None = None, controller: str = "") -> None:
    """A reader chose a language: their notices (turns, games' ends) are worded in it from now on.

    ``user_id``: an account's e-mails and the pushes of every browser signed in to it. Without an
    account, ``controller``: the pushes this browser subscribed to (e-mails need an account).
    A push opens the room, whose page never subscribes again, so nothing else would tell them.
    """
    language = _language(language)
    if user_id is not None:
        NoticeSettings.objects.filter(user_id=user_id).update(language=language)
        NoticeSettings.objects.filter(user_id=user_id).exclude(pending_nonce="").update(pending_language=language)
        PushSubscription.objects.filter(user_id=user_id).update(language=language)
    elif controller:
        PushSubscription.objects.filter(controller=controller, user__isnull=True).update(language=language)


def _language(language: str) -> str:
    """A language the site speaks (settings.LANGUAGES), or "" for the site's default."""
    return language if language in dict(settings.LANGUAGES) else ""


def notices_stop(*, token: str) -> str | None:
    """One click from an e-mail or a push: that channel stops. Returns which ("email", "push"), or
    "gone" for a push's link whose subscription was gone already, None for a bad token.

    A push's link stops the one subscription it came through and nothing else. Once that one is
    gone (a sign-out, the sweep, a renewal) the device may have subscribed again, under the same
    endpoint, for whoever uses it now: a sign-out ends its subscriptions because the next person
    at a shared device is someone else, so an old notice's link must not stop theirs.
    """
    read = notices.read_stop_token(token)
    if read is None:
        return None
    kind, ident = read
    if kind == "email":
        NoticeSettings.objects.filter(user_id=ident).update(email=False, **NO_PENDING)
        return kind
    deleted, _ = PushSubscription.objects.filter(pk=ident).delete()
    return kind if deleted else "gone"
