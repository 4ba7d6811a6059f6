"""Data only: games, seats, score boxes and the append-only move log.

A column added after the first release has a default in the database (``db_default``) besides
Django's own: the release before, still serving while the migration runs, inserts rows without
naming it (docs/deploy.md, "Upgrading")."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Now
from django.utils import timezone

from games.domain.codes import shown_code
from games.domain.room import Room
from games.domain.rules import RULESETS, Box

RULESET_CHOICES = [(rs.name, rs.label) for rs in RULESETS.values()]
BOX_CHOICES = [(box.value, box.value.replace("_", " ").title()) for box in Box]


class Game(models.Model):
    """A room and the game played in it."""

    class Status(models.TextChoices):
        LOBBY = "lobby", "Lobby"
        PLAYING = "playing", "Playing"
        FINISHED = "finished", "Finished"
        ABANDONED = "abandoned", "Abandoned"

    OVER = (Status.FINISHED, Status.ABANDONED)  # the statuses of a game that is over (its seed revealed)
    LIVE = (Status.LOBBY, Status.PLAYING)  # a game not over yet

    class Pace(models.TextChoices):
        LIVE = "live", "Live"
        OWN = "own", "At your own pace"

    code = models.CharField(max_length=16, unique=True)
    ruleset = models.CharField(max_length=16, choices=RULESET_CHOICES, default="official")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.LOBBY, db_index=True)
    private = models.BooleanField(default=True)
    # Pass-and-play: every seat is played from the one browser that made the room.
    local = models.BooleanField(default=False)
    # Whether the coach may give the current player a hint.
    hints = models.BooleanField(default=True, db_default=True)
    # Social play (games.services.chat, games.services.clock): may spectators post in the
    # chat; the seconds each turn may last (0: no turn timer); when the current turn's time
    # runs out (null: no clock running: no timer, paused, a computer to play, not playing).
    chat_spectators = models.BooleanField(default=False, db_default=False)
    turn_timer = models.PositiveIntegerField(default=0, db_default=0)
    turn_deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    # When the scheduler (games.scheduling) must next act for this room at its current
    # version: a computer player's step, the turn's deadline, or the work owed after the
    # game ended (``followups_owed``). Null: nothing is due. Written with the action that
    # made it due, in the same statement, so no process's death can lose it.
    due_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # The game ended and what follows it (its players' records, stats and ratings: the
    # receivers of ``signals.game_finished``) has not been completed yet.
    followups_owed = models.BooleanField(default=False, db_default=False)
    # The times in a row the scheduler's due work for this room failed (refused, raised, a
    # follow-up's receiver failing): it waits twice as long after each (games.scheduling.work.backoff).
    due_failures = models.PositiveIntegerField(default=0, db_default=0)
    # Live: everyone at the table, an optional timer of minutes. Own: moves days apart, a time
    # per move of days (or none), the player to move told by e-mail and Web Push (games.services.notices).
    pace = models.CharField(max_length=4, choices=Pace.choices, default=Pace.LIVE, db_default=Pace.LIVE)
    # The controller token of the seat to move ("" when nobody is waited for: a computer's
    # turn, paused, not playing, pass-and-play), kept by every recorded action
    # (games.services.pace): the header's "waiting for you" count is one indexed lookup.
    waiting_on = models.CharField(max_length=64, blank=True, default="", db_default="", db_index=True)
    host = models.ForeignKey("Player", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Bumped by every applied action; clients send it back as expected_version.
    version = models.PositiveIntegerField(default=0)
    # The room's state (games.domain.room.Room): the rules state, the seats, the roll
    # counter, the clock, pause, rematch, the spectators muted. Read and written as ``Game.room``.
    snapshot = models.JSONField(default=dict)
    # Fair dice: the secret seed stays hidden until the game ends; its SHA-256 is public.
    server_seed = models.CharField(max_length=64)
    seed_commitment = models.CharField(max_length=64)
    client_seed = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-created_at"]
        # The sweep of rooms never started (games.services.sweeps) reads those alone, not every game
        # played or given up, of which a site that ran for years has millions.
        indexes = [models.Index(fields=["created_at"], name="game_never_started", condition=Q(started_at__isnull=True))]

    def __str__(self) -> str:
        return f"{shown_code(self.code)} ({self.get_ruleset_display()}, {self.get_status_display()})"

    @property
    def room(self) -> Room:
        """The snapshot as the typed ``Room``: decoded once per snapshot read or stored."""
        snapshot = self.snapshot
        kept: tuple[Any, Room] | None = self.__dict__.get("_room")
        if kept is None or kept[0] is not snapshot:
            kept = (snapshot, Room.from_snapshot(snapshot))
            self.__dict__["_room"] = kept
        return kept[1]

    @room.setter
    def room(self, room: Room) -> None:
        # The one place a room is encoded for its row (saved by the caller's write). Rules
        # the action did not change keep the stored form they were read from.
        kept: tuple[Any, Room] | None = self.__dict__.get("_room")
        stored_rules = None
        if kept is not None and kept[0] is self.snapshot and kept[1].rules is room.rules:
            stored_rules = kept[0].get("rules")
        snapshot = room.to_snapshot(stored_rules)
        self.snapshot = snapshot
        self.__dict__["_room"] = (snapshot, room)

    def seed_room(self, snapshot: dict[str, Any], room: Room) -> None:
        """Set the snapshot with the ``Room`` it is known to encode, which is then not decoded again."""
        self.snapshot = snapshot
        self.__dict__["_room"] = (snapshot, room)

    def stored_room(self) -> Room | None:
        """The ``Room`` the snapshot encodes, if known without decoding it (None otherwise)."""
        kept: tuple[Any, Room] | None = self.__dict__.get("_room")
        return kept[1] if kept is not None and kept[0] is self.snapshot else None

    @property
    def is_over(self) -> bool:
        """Finished or abandoned: nothing more can be played, and the server seed is revealed."""
        return self.status in Game.OVER


class Player(models.Model):
    """A seat at a game."""

    class Kind(models.TextChoices):
        HUMAN = "human", "Human"
        BOT = "bot", "Bot"

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        LEFT = "left", "Left"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="players")
    # Turn order once the game starts; join order (and null after leaving) in the lobby.
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    name = models.CharField(max_length=24)
    # The browser that controls the seat: a random token kept in that browser's session.
    controller = models.CharField(max_length=64, blank=True, db_index=True)
    # While a computer plays the seat for its away player: that player's token, so their
    # list of games still finds the seat. The row's seat, name, controller, kind, status and
    # this follow the room's seat (games.store.players).
    away_controller = models.CharField(max_length=64, blank=True, default="", db_default="", db_index=True)
    # While a computer plays on a seat its player left: that player's token. The seat's result is
    # still theirs: an account finds its record by it at sign-in, and its name at deletion.
    left_controller = models.CharField(max_length=64, blank=True, default="", db_default="", db_index=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.HUMAN)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.ACTIVE)
    client_seed = models.CharField(max_length=64, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)
    # False for a seat a rematch carried over from the game before, until its person shows they
    # follow the new room (their browser opens its page, or asks for the rematch from the game's
    # end): its turns and its end are not mailed nor pushed to them before (games.services.notices),
    # since being seated by someone else's press is not agreeing to play. Every other seat is its
    # player's own doing, and followed from the start.
    follows = models.BooleanField(default=True, db_default=True)

    class Meta:
        ordering = ["game", "seat", "id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], condition=Q(seat__isnull=False), name="unique_seat"),
        ]

    def __str__(self) -> str:
        return f"{self.name} (seat {self.seat} of {shown_code(self.game.code)})"


class ScoreEntry(models.Model):
    """One filled box: written once, never changed."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="scores")
    column = models.PositiveSmallIntegerField(default=0)
    box = models.CharField(max_length=16, choices=BOX_CHOICES)
    points = models.IntegerField()
    # The Yahtzee bonus the same turn earned.
    bonus = models.IntegerField(default=0)
    turn = models.PositiveIntegerField()

    class Meta:
        ordering = ["player", "turn"]
        constraints = [
            models.UniqueConstraint(fields=["player", "column", "box"], name="unique_box"),
        ]
        verbose_name_plural = "score entries"

    def __str__(self) -> str:
        return f"{self.player.name}: {self.box}[{self.column}] = {self.points}"


class Move(models.Model):
    """The append-only log of everything that happened in a game, in order."""

    class Kind(models.TextChoices):
        CREATE = "create", "Create"
        JOIN = "join", "Join"
        LEAVE = "leave", "Leave"
        KICK = "kick", "Kick"
        START = "start", "Start"
        ROLL = "roll", "Roll"
        HOLD = "hold", "Hold"
        SCORE = "score", "Score"
        REMOVE = "remove", "Remove absent player"
        HOST = "host", "Host handed on"
        FINISH = "finish", "Finish"
        ABANDON = "abandon", "Abandon"
        REMATCH = "rematch", "Rematch offered"
        BOT = "bot", "Seat handed to a bot"
        RECLAIM = "reclaim", "Seat taken back from a bot"
        TIMEOUT = "timeout", "Turn timed out"
        PAUSE = "pause", "Paused"
        RESUME = "resume", "Resumed"
        MUTE = "mute", "Chat muted or unmuted"
        CLAIM = "claim", "Seats taken into a player's account"
        FORGET = "forget", "A deleted account's name withdrawn"
        EXTEND = "extend", "Time to move extended by staff"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    seq = models.PositiveIntegerField()
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="moves")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    payload = models.JSONField(default=dict)
    # Who asked (a browser's controller token) and the id its client gave the action.
    actor = models.CharField(max_length=64, blank=True)
    action_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="unique_move_seq"),
            models.UniqueConstraint(
                fields=["game", "actor", "action_id"], condition=~Q(action_id=""), name="unique_action_id"
            ),
        ]

    def __str__(self) -> str:
        return f"{shown_code(self.game.code)} #{self.seq} {self.kind}"


class Presence(models.Model):
    """One open websocket in a room, across all server processes.

    Written on connect, refreshed by the client's pings, deleted on disconnect; a row
    whose process died stops being refreshed and counts as away after PRESENCE_TIMEOUT.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="presences")
    channel_name = models.CharField(max_length=200, unique=True)
    # The socket's browser (its controller token, "" for a spectator without a session): the
    # seats it plays are read from the room as it is now, since a seat that leaves the lobby
    # moves the later ones up and a seat can change hands while the socket is open.
    controller = models.CharField(max_length=64, blank=True, default="", db_default="")
    # The browser session's own mark (games.services.presence.SESSION_BROWSER; "" for a session
    # without one): a sign-in keeps it and a sign-out ends it, so that signing out tells this
    # browser's sockets from those of the account's other browsers, which share its token.
    browser = models.CharField(max_length=32, blank=True, default="", db_default="")
    seen_at = models.DateTimeField()
    # The serving process that holds the socket (games.services.processes.ORIGIN): when that process
    # dies, its rows go at once, not when they have grown stale.
    origin = models.CharField(max_length=32, blank=True, default="", db_default="", db_index=True)
    # Since when the socket's page has been hidden (another tab in front, the phone's browser in
    # the background), as the page says (games.realtime.sockets.PageVisibility); None while it is
    # shown, or from a page that never says. The notices count a player whose every socket of the
    # room has been hidden for HIDDEN_AWAY as away from the table (games.services.notices).
    hidden_since = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{shown_code(self.game.code)}: {self.channel_name}"


class HintTaken(models.Model):
    """A seat that asked the coach during its game: its points lost are not its own play's, so the
    accounts' accuracy leaves the game out (one row a seat, written at its first hint)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="hints_taken")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "player"], name="one_hint_row_a_seat")]

    def __str__(self) -> str:
        return f"{self.game_id}: {self.player_id}"


class ChatMessage(models.Model):
    """One line of a room's chat: plain text, kept with the game, never part of its Move log.

    ``after_seq`` is the game's version when it was posted, which places it among the moves.
    Staff may hide a message (``ChatModeration`` keeps who did); the room then stops showing it.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat")
    # The seat that posted it; null for a spectator.
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # A spectator's message: the browser that posted it (its controller token, the account's when
    # signed in), which the host mutes by the line; "" for a seat's (the seat says whose).
    controller = models.CharField(max_length=64, blank=True, default="", db_default="")
    name = models.CharField(max_length=24)
    text = models.CharField(max_length=300)
    after_seq = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    hidden = models.BooleanField(default=False)

    class Meta:
        ordering = ["game", "id"]
        # A browser signing in finds the rooms it spoke in as a spectator by its token (its mutes
        # follow it to the account): an index of the spectators' lines only, not the whole chat.
        indexes = [
            models.Index(fields=["controller"], name="chat_spectator_controller", condition=Q(seat__isnull=True))
        ]

    def __str__(self) -> str:
        # No name: the admin's log keeps this, and a deleted account's name is withdrawn from the message only.
        return f"{shown_code(self.game.code)}: {self.text[:40]}"


class ChatModeration(models.Model):
    """Staff hid a chat message from its room, or showed it again: who and when.

    The message's record of it, kept with the game: Django's LogEntry, which the admin also
    writes, is deleted with the staff account that acted.
    """

    message = models.ForeignKey(ChatMessage, on_delete=models.CASCADE, related_name="moderations")
    hidden = models.BooleanField()  # hidden by it, or shown again
    staff = models.CharField(max_length=150)  # the staff account's username when it acted
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["message", "at", "id"]

    def __str__(self) -> str:
        return f"{'hidden' if self.hidden else 'shown'} by {self.staff} at {self.at:%Y-%m-%d %H:%M:%S}"


class Heartbeat(models.Model):
    """When a process of the site last showed it was up (one row per name).

    The scheduler beats every few seconds, ``at`` by the database's clock; a gap longer than
    ``SCHEDULER_OUTAGE`` (games.scheduling.work.outage_after) means no process was serving, and
    running turn deadlines are moved on by the gap, so a turn does not run out while its
    player could not reach the room.
    """

    name = models.CharField(max_length=32, primary_key=True)
    at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} at {self.at:%Y-%m-%d %H:%M:%S}"


class ServingProcess(models.Model):
    """A server process that is serving now (or was, until ``seen_at``): what it must share with the others.

    Workers that do not share the secret key, or that relay rooms on different channel
    layers (or on none: the in-memory layer), break games in ways no single worker can see.
    Each serving process writes its row at start and refreshes it; a new one compares
    itself with the live ones and refuses to serve on a mismatch (games.services.processes).
    """

    origin = models.CharField(max_length=32, primary_key=True)
    host = models.CharField(max_length=255)
    pid = models.PositiveIntegerField()
    key_fingerprint = models.CharField(max_length=16)
    layer = models.CharField(max_length=255)
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.host}:{self.pid} ({self.layer})"


class Notice(models.Model):
    """A "your turn" notice or a reminder owed to the player of one seat for one turn, the
    "game over" owed to each person of a game at your own pace when it ends (on the first of their
    seats; its turn: the turns played), or the notice owed to the player of a seat the computer
    took over in such a game, their time to move having run out twice in a row (its turn: the
    turns played then).

    Written in the transaction of the Move that made it that seat's turn (games.services.pace),
    so a crash right after the commit cannot lose it; sent by a background task
    (games.services.notices), which claims it under the row's lock and marks it sent: once per turn,
    whichever worker runs it, however often it is queued.
    """

    class Kind(models.TextChoices):
        TURN = "turn", "Your turn"
        REMINDER = "reminder", "Reminder"
        OVER = "over", "Game over"
        AWAY = "away", "Computer plays"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="notices")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="notices")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    # The turn it is about: the rules state's turns_played and current seat when it was owed.
    turn = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    # What happened ("Ana just scored 24 in Chance"), in English: the admin's and the log's line.
    text = models.CharField(max_length=300)
    # The same as codes and data (games.services.waiting.what_happened), worded when it is sent
    # in the language of each channel's reader.
    event = models.JSONField(default=dict, db_default={}, blank=True)
    due_at = models.DateTimeField(db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # When the turn it tells of became the player's (the move that owed it, or the resume that owed
    # it again): a room page of theirs shown since then has told them (games.services.notices).
    owed_at = models.DateTimeField(default=timezone.now, db_default=Now())
    # A worker took it (sending is under way, or the worker died doing it: see games.services.notices.LEASE).
    claimed_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    # Done: sent (to the channels listed), or dropped (the turn moved on, nobody to tell).
    done_at = models.DateTimeField(null=True, blank=True, db_index=True)
    outcome = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["game", "id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "turn", "seat", "kind"], name="one_notice_per_turn"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} for {self.player_id} in {self.game_id}, turn {self.turn}"


class PushSubscription(models.Model):
    """One browser's Web Push subscription (its push service's endpoint and keys), opted in on that browser."""

    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    # Whose turns it is told of: the seats of this controller token (an account's when signed in).
    controller = models.CharField(max_length=64, db_index=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE)
    # The language of the page it was made on (settings.LANGUAGES; an account's when it changes):
    # its pushes are worded in it.
    language = models.CharField(max_length=8, blank=True, default="", db_default="")
    created_at = models.DateTimeField(auto_now_add=True)
    # Since when every push to it has failed (None: the last one went, or none was tried yet);
    # the sweep deletes one failing for ``PUSH_FAILING_DAYS`` (games.services.sweeps).
    failing_since = models.DateTimeField(null=True, blank=True)
    # When its push service said it is gone (404, 410: expired, or unsubscribed by the browser):
    # nothing more is sent to it, and a browser that still holds it and posts it again is told
    # to make a new one (games.services.subscriptions); it goes with the ones failing.
    gone_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"push to {self.endpoint[:60]}"


class NoticeSettings(models.Model):
    """An account's choice to be e-mailed when it is their turn, when the computer takes over their seat and
    when a game ends, and the address its owner confirmed for it."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notice_settings")
    email = models.BooleanField(default=False)
    # The address confirmed through the link sent there (games.services.subscriptions), the only
    # one the e-mails go to: not the account's user.email as such, which an administrator or an
    # older version of the site may have set with nobody confirming it.
    address = models.EmailField(max_length=254, blank=True, default="", db_default="")
    # The request waiting for its owner's confirmation: the address asked for, the random nonce
    # the link sent there carries (the link holds nothing else), and the seat token and language
    # the e-mails are to take. A newer request or a confirmation replaces it and turning e-mails
    # off clears it, so an older link finds nothing to confirm.
    pending_address = models.EmailField(max_length=254, blank=True, default="", db_default="")
    pending_nonce = models.CharField(max_length=64, blank=True, default="", db_default="", db_index=True)
    pending_controller = models.CharField(max_length=64, blank=True, default="", db_default="")
    pending_language = models.CharField(max_length=8, blank=True, default="", db_default="")
    # When the link went: asked again for the same address soon after, the site sends no other.
    pending_at = models.DateTimeField(null=True, blank=True)
    # The account's seat token when it chose (its seats' controller): a seat taken while signed
    # in is the account's through it, whatever device took it.
    controller = models.CharField(max_length=64, blank=True, db_index=True)
    # The account's language (settings.LANGUAGES) when it chose, kept in step with the account's:
    # its e-mails are in it.
    language = models.CharField(max_length=8, blank=True, default="", db_default="")

    class Meta:
        verbose_name_plural = "notice settings"

    def __str__(self) -> str:
        return f"{self.user}: e-mail {'on' if self.email else 'off'}"


class GameUnderWay(Game):
    """A game not over yet, as staff see it in the admin: its pace, whose move, the deadline (no table of its own)."""

    class Meta:
        proxy = True
        verbose_name = "game under way"
        verbose_name_plural = "games under way"
