"""Immutable game state and the pure functions that advance it.

Every function takes a state and returns a new one, or raises ``RuleViolation`` and
changes nothing. Randomness comes in from outside: ``apply_roll`` takes a
``random.Random`` (the bots' simulated games and the tests pass a seeded one), and
``apply_rolled`` takes the new faces themselves: the server's, derived from the room's
committed seeds (games.domain.fairness), or a log's when it is replayed.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from games.domain import errors as E
from games.domain.kept import KeptByIdentity

from .errors import RuleViolation
from .rulesets import COLOUR_SECTION, UPPER_VALUE, Box, RuleSet
from .scoring import Column, ScoreOption, score_options

DICE = 5
ROLLS_PER_TURN = 3
MAX_PLAYERS = 8


@dataclass(frozen=True, slots=True)
class TurnState:
    """The current player's dice: ``dice`` is empty before the first roll.

    ``colours`` (Painted only, else empty) holds each die's colour index 0-4 (``COLOURS``),
    in die order beside ``dice``.
    """

    dice: tuple[int, ...] = ()
    held: frozenset[int] = frozenset()
    rolls_used: int = 0
    colours: tuple[int, ...] = ()

    @property
    def rolls_left(self) -> int:
        return ROLLS_PER_TURN - self.rolls_used


@dataclass(frozen=True, slots=True)
class Scorecard:
    """One player's boxes: ``columns[k]`` maps each filled box to its points (multiplier included)."""

    columns: tuple[tuple[tuple[Box, int], ...], ...]
    # Yahtzee bonuses earned, per column of the box the five of a kind was scored in.
    yahtzee_bonus: tuple[int, ...]

    @classmethod
    def empty(cls, columns: int) -> Scorecard:
        return cls(columns=((),) * columns, yahtzee_bonus=(0,) * columns)

    def column(self, k: int) -> Column:
        return dict(self.columns[k])

    def as_columns(self) -> list[Column]:
        return [dict(col) for col in self.columns]

    def get(self, box: Box, column: int = 0) -> int | None:
        return self.column(column).get(box)

    @property
    def filled(self) -> int:
        return sum(len(col) for col in self.columns)


@dataclass(frozen=True, slots=True)
class ColumnTotals:
    upper: int
    upper_bonus: int
    lower: int
    yahtzee_bonus: int
    colour: int = 0  # Painted: the colour boxes' sum (no bonus)

    @property
    def total(self) -> int:
        return self.upper + self.upper_bonus + self.lower + self.yahtzee_bonus + self.colour


@dataclass(frozen=True, slots=True)
class Totals:
    columns: tuple[ColumnTotals, ...]

    @property
    def upper(self) -> int:
        return sum(c.upper for c in self.columns)

    @property
    def upper_bonus(self) -> int:
        return sum(c.upper_bonus for c in self.columns)

    @property
    def lower(self) -> int:
        return sum(c.lower for c in self.columns)

    @property
    def yahtzee_bonus(self) -> int:
        return sum(c.yahtzee_bonus for c in self.columns)

    @property
    def colour(self) -> int:
        return sum(c.colour for c in self.columns)

    @property
    def grand_total(self) -> int:
        return sum(c.total for c in self.columns)


# The options of a card and dice, by their values (and the rule set's identity): a roll's state
# frame works them out, and the hold or score that follows asks again for the same card and dice
# (its frame, the score's own check), as does a socket's state read afresh from the row, whose
# decoded card is an equal object, not the same one. About 4,096 such (card, dice) pairs are
# the live turns of thousands of rooms; each entry is one tuple of shared options.
_options: KeptByIdentity[tuple[ScoreOption, ...]] = KeptByIdentity(4096)


@dataclass(frozen=True, slots=True)
class GameState:
    """A whole game: seats 0..n-1, whose turn, the turn in progress, every scorecard."""

    ruleset: RuleSet
    cards: tuple[Scorecard, ...]
    current: int = 0
    turn: TurnState = field(default_factory=TurnState)
    started: bool = False
    # Seats removed mid-game keep their scores but are skipped from then on.
    active: tuple[bool, ...] = ()
    turns_played: int = 0

    @property
    def players(self) -> int:
        return len(self.cards)

    @property
    def is_over(self) -> bool:
        if not self.started:
            return False
        full = self.ruleset.turns_per_player
        return all(card.filled == full for card, on in zip(self.cards, self.active, strict=True) if on)

    def totals(self, seat: int) -> Totals:
        return card_totals(self.ruleset, self.cards[seat])

    def options(self) -> tuple[ScoreOption, ...]:
        """The current player's open boxes for the dice on the table (empty before the first roll)."""
        if not self.started or self.is_over or not self.turn.dice:
            return ()
        ruleset, card, dice, colours = self.ruleset, self.cards[self.current], self.turn.dice, self.turn.colours
        return _options.get(
            (id(ruleset), card, dice, colours),
            ruleset,
            lambda: score_options(ruleset, card.as_columns(), dice, colours),
        )

    def winners(self) -> tuple[int, ...]:
        """The seats with the highest grand total among seats still in the game; ties share."""
        if not self.is_over:
            return ()
        seats = [s for s in range(self.players) if self.active[s]]
        if not seats:
            return ()
        best = max(self.totals(s).grand_total for s in seats)
        return tuple(s for s in seats if self.totals(s).grand_total == best)


def card_totals(ruleset: RuleSet, card: Scorecard) -> Totals:
    columns = []
    for k in range(ruleset.columns):
        upper = lower = colour = 0
        for b, p in card.column(k).items():  # one pass, sorted as box_section() does
            if b in UPPER_VALUE:
                upper += p
            elif b in COLOUR_SECTION:
                colour += p
            else:
                lower += p
        # Stored points include the multiplier, so the plain threshold scales with it too.
        mult = ruleset.multipliers[k]
        bonus = ruleset.upper_bonus * mult if upper >= ruleset.upper_bonus_threshold * mult else 0
        columns.append(ColumnTotals(upper, bonus, lower, card.yahtzee_bonus[k], colour))
    return Totals(tuple(columns))


def new_game(ruleset: RuleSet, players: int) -> GameState:
    """A game for ``players`` seats, not yet started."""
    if not 1 <= players <= MAX_PLAYERS:
        raise RuleViolation(E.BAD_PLAYERS, f"A game needs 1 to {MAX_PLAYERS} players, not {players}.")
    return GameState(
        ruleset=ruleset,
        cards=tuple(Scorecard.empty(ruleset.columns) for _ in range(players)),
        active=(True,) * players,
    )


def apply_start(state: GameState) -> GameState:
    if state.started:
        raise RuleViolation(E.ALREADY_STARTED, "The game has already started.")
    return replace(state, started=True)


def _check_turn(state: GameState, player: int) -> None:
    if not state.started:
        raise RuleViolation(E.GAME_NOT_STARTED, "The game has not started yet.")
    if state.is_over:
        raise RuleViolation(E.GAME_OVER, "The game is over.")
    if player != state.current:
        raise RuleViolation(E.NOT_YOUR_TURN, "It is not your turn.")


def check_roll(state: GameState, player: int) -> int:
    """Raise if ``player`` may not roll now; else how many dice the roll changes."""
    _check_turn(state, player)
    if state.turn.rolls_left == 0:
        raise RuleViolation(E.NO_ROLLS_LEFT, "No rolls left this turn: choose a box to score.")
    if state.turn.dice and len(state.turn.held) == DICE:
        raise RuleViolation(E.ALL_HELD, "All five dice are held: release one to roll, or score.")
    return DICE - len(state.turn.held) if state.turn.dice else DICE


def face_value(face: int) -> int:
    """The value 1-6 that outcome ``face`` (1 to ``ruleset.outcomes``) shows."""
    return (face - 1) % 6 + 1


def face_colour(face: int) -> int:
    """The colour index 0-4 that Painted outcome ``face`` (1-30) shows: 1-6 red, 7-12 yellow, ..."""
    return (face - 1) // 6


def apply_rolled(state: GameState, *, player: int, faces: Sequence[int]) -> GameState:
    """Roll with the given new faces for the unheld dice, in die order.

    A face is one of the rule set's ``outcomes`` equally likely outcomes of a die, 1-based: the
    value 1-6 for plain dice; for Painted 1-30, showing value ``face_value(f)`` in colour
    ``face_colour(f)`` (so 1-6 are red ones to sixes, 7-12 yellow, ..., 25-30 purple).
    """
    needed = check_roll(state, player)
    top = state.ruleset.outcomes
    if len(faces) != needed or any(isinstance(f, bool) or not (isinstance(f, int) and 1 <= f <= top) for f in faces):
        raise RuleViolation(E.BAD_DICE, f"A roll needs {needed} faces from 1 to {top}.")
    kept = state.turn.held if state.turn.dice else frozenset()
    new = iter(faces)
    rolled = {i: next(new) for i in range(DICE) if i not in kept}
    dice = tuple(face_value(rolled[i]) if i in rolled else state.turn.dice[i] for i in range(DICE))
    colours: tuple[int, ...] = ()
    if state.ruleset.colours:
        colours = tuple(face_colour(rolled[i]) if i in rolled else state.turn.colours[i] for i in range(DICE))
    turn = TurnState(dice=dice, held=state.turn.held, rolls_used=state.turn.rolls_used + 1, colours=colours)
    return replace(state, turn=turn)


def apply_roll(state: GameState, *, player: int, rng: random.Random) -> GameState:
    """Roll the unheld dice (all five on the first roll of a turn), each one of ``outcomes`` faces."""
    needed = check_roll(state, player)
    top = state.ruleset.outcomes
    return apply_rolled(state, player=player, faces=[rng.randint(1, top) for _ in range(needed)])


def apply_hold(state: GameState, *, player: int, held: Iterable[int]) -> GameState:
    """Set which dice are held: ``held`` is the full set of die indices 0-4."""
    _check_turn(state, player)
    if not state.turn.dice:
        raise RuleViolation(E.NOT_ROLLED, "Roll first: there are no dice to hold yet.")
    if state.turn.rolls_left == 0:
        raise RuleViolation(E.NO_ROLLS_LEFT, "No rolls left this turn: choose a box to score.")
    indices = list(held)
    for i in indices:
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < DICE:
            raise RuleViolation(E.BAD_DIE_INDEX, f"Dice are numbered 0 to 4; {i!r} is not a die.")
    return replace(state, turn=replace(state.turn, held=frozenset(indices)))


def find_option(state: GameState, box: str, column: int) -> ScoreOption:
    """The option for scoring ``box`` in ``column`` now, raising if it cannot be scored."""
    ruleset = state.ruleset
    try:
        the_box = Box(box)
    except ValueError:
        the_box = None
    if the_box is None or the_box not in ruleset.boxes:
        raise RuleViolation(E.UNKNOWN_BOX, f"There is no box called {box!r} in {ruleset.label}.")
    if isinstance(column, bool) or not isinstance(column, int) or not 0 <= column < ruleset.columns:
        raise RuleViolation(E.BAD_COLUMN, f"{ruleset.label} has no column {column!r}.")
    if the_box in state.cards[state.current].column(column):
        raise RuleViolation(E.BOX_FILLED, f"{ruleset.box_label(the_box)} is already filled.")
    option = next(o for o in state.options() if o.box is the_box and o.column == column)
    if not option.legal:
        raise RuleViolation(E.JOKER_FORBIDS, f"{ruleset.box_label(the_box)} is not allowed now: {option.reason}.")
    return option


def apply_score(state: GameState, *, player: int, box: str, column: int = 0) -> GameState:
    """Score the current dice in ``box`` of ``column`` and pass the turn on."""
    _check_turn(state, player)
    if not state.turn.dice:
        raise RuleViolation(E.NOT_ROLLED, "Roll first: a box can only be scored after a roll.")
    option = find_option(state, box, column)
    card = state.cards[player]
    columns = list(card.columns)
    columns[column] = (*columns[column], (option.box, option.points))
    bonuses = list(card.yahtzee_bonus)
    bonuses[column] += option.bonus
    cards = list(state.cards)
    cards[player] = Scorecard(columns=tuple(columns), yahtzee_bonus=tuple(bonuses))
    scored = replace(state, cards=tuple(cards), turn=TurnState(), turns_played=state.turns_played + 1)
    return replace(scored, current=_next_seat(scored, player))


def apply_remove(state: GameState, *, seat: int) -> GameState:
    """Take ``seat`` out of the game: its scores stay, its turns are skipped from now on."""
    if not 0 <= seat < state.players or not state.active[seat]:
        raise RuleViolation(E.BAD_PLAYERS, f"Seat {seat} is not in the game.")
    active = list(state.active)
    active[seat] = False
    removed = replace(state, active=tuple(active))
    if any(active) and state.current == seat:
        removed = replace(removed, turn=TurnState(), current=_next_seat(removed, seat))
    return removed


def apply_reinstate(state: GameState, *, seat: int) -> GameState:
    """Bring a removed seat back (a bot takes it over): its scores stand, its turns come round again."""
    if not 0 <= seat < state.players or state.active[seat]:
        raise RuleViolation(E.BAD_PLAYERS, f"Seat {seat} is still in the game.")
    if state.is_over:
        raise RuleViolation(E.GAME_OVER, "The game is over.")
    if state.cards[seat].filled >= state.ruleset.turns_per_player:
        raise RuleViolation(E.CARD_FULL, "That seat has filled every box: it has no turn left to play.")
    active = list(state.active)
    active[seat] = True
    return replace(state, active=tuple(active))


def _next_seat(state: GameState, after: int) -> int:
    """The next active seat after ``after`` that still has an open box (``after`` itself if none)."""
    full = state.ruleset.turns_per_player
    for step in range(1, state.players + 1):
        seat = (after + step) % state.players
        if state.active[seat] and state.cards[seat].filled < full:
            return seat
    return after
