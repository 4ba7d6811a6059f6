"""The room page's protocol client (static/js/room/protocol.js) in Chromium, against a fake socket.

No server and no Node: the module is served to the page from the repository by a Playwright
route, the page's WebSocket and timers are fakes the test drives, and each test reads back
the frames the client sent. What is checked is docs/protocol.md's client side: one action in
flight, the queue behind it, the exactly-once resend after a reconnect, the backoff, pings.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pytestmark = pytest.mark.browser

HARNESS = """<!doctype html><title>protocol client</title><script type="module">
import { RoomClient } from "/static/js/room/protocol.js";

class FakeSocket {
  static all = [];
  constructor(url) { this.url = url; this.sent = []; this.listeners = {}; FakeSocket.all.push(this); }
  addEventListener(type, fn) { (this.listeners[type] ??= []).push(fn); }
  send(text) { this.sent.push(JSON.parse(text)); }
  emit(type, event) { for (const fn of this.listeners[type] ?? []) fn(event); }
  close(code) { this.closedWith = code; this.emit("close", { code }); }
}

const timers = [];
const env = {
  WebSocket: FakeSocket,
  setTimeout: (fn, delay) => timers.push({ fn, delay, repeat: false }),
  setInterval: (fn, delay) => timers.push({ fn, delay, repeat: true }),
  pageId: "p",
  // The room's address asked over HTTP (a route check): answers window.h.routeAnswer.
  fetch: async (url, options) => {
    window.h.fetched.push([url, options.cache]);
    return { json: async () => ({ worker: window.h.routeAnswer }) };
  },
  random: () => window.h?.random ?? 0.5,
};

function state(version, extra = {}) {
  return { type: "state", version, status: "playing", turn: { seat: 0, held: [], rolls_left: 3 }, ...extra };
}

window.h = {
  FakeSocket, timers, state, log: [], fetched: [], routeAnswer: null,
  make(version = 1) {
    const log = (window.h.log = []);
    const client = new RoomClient({
      url: "ws://client.test/ws/rooms/abc/", state: state(version), seats: [0], env,
      hooks: {
        onConnection: (s) => log.push(["connection", s]),
        onState: (s) => log.push(["state", s.version]),
        onEvent: (f) => log.push(["event", f.type]),
        onError: (f, mine) => log.push(["error", f.code, mine]),
        onPresence: (f) => log.push(["presence", f.spectators]),
      },
    });
    window.client = client;
    client.start();
    return client;
  },
  socket() { return FakeSocket.all[FakeSocket.all.length - 1]; },
  // The server's side of one socket: open it and say hello, as games/realtime/consumer.py does.
  hello(version, seats = [0]) {
    const s = window.h.socket();
    s.emit("open", {});
    window.h.frame({ type: "you", seats });
    window.h.frame(state(version));
  },
  frame(obj) { window.h.socket().emit("message", { data: JSON.stringify(obj) }); },
  drop(code = 1006) { window.h.socket().emit("close", { code }); },
  // Run the timers that are due at `delay` (once-only timers are used up).
  fire(delay) {
    for (const t of [...timers]) {
      if (t.delay !== delay) continue;
      if (!t.repeat) timers.splice(timers.indexOf(t), 1);
      t.fn();
    }
  },
  // The same, waiting for what they started (a route check's question and answer).
  async fireAndWait(delay) {
    const due = timers.filter((t) => t.delay === delay && !t.repeat);
    for (const t of due) timers.splice(timers.indexOf(t), 1);
    await Promise.all(due.map((t) => t.fn()));
  },
  sent() { return window.h.socket().sent; },
};
window.ready = true;
</script>"""


@pytest.fixture
def page(harness: Any) -> Any:
    return harness(HARNESS)


def js(page: Any, script: str) -> Any:
    return page.evaluate(f"() => {{ {script} }}")


def sent(page: Any) -> list[dict[str, Any]]:
    return list(page.evaluate("h.sent()"))


def test_an_action_carries_the_state_version_and_a_fresh_id(page: Any) -> None:
    js(page, "h.make(); h.hello(7); client.enqueue(() => ({type: 'roll'}), 'roll');")
    assert sent(page) == [{"type": "roll", "version": 7, "id": "p-1"}]
    assert page.evaluate("client.busy()") is True


def test_an_action_asked_while_not_connected_is_refused_not_kept_for_later(page: Any) -> None:
    assert page.evaluate("h.make(); h.socket().emit('open', {}); client.enqueue(() => ({type: 'start'}))") is False
    js(page, "h.frame(h.state(3))")
    assert sent(page) == [] and page.evaluate("client.idle()") is True
    js(page, "h.drop()")
    assert page.evaluate("client.enqueue(() => ({type: 'roll'}), 'roll')") is False
    js(page, "h.fire(500); h.hello(3);")
    assert sent(page) == []
    assert page.evaluate("client.enqueue(() => ({type: 'start'}))") is True
    assert sent(page) == [{"type": "start", "version": 3, "id": "p-1"}]


def test_one_action_in_flight_and_the_next_is_built_from_the_answered_state(page: Any) -> None:
    js(
        page,
        """h.make(); h.hello(4);
        client.enqueue(() => ({type: 'hold', held: [0]}), 'hold');
        client.enqueue((s) => ({type: 'hold', held: [0, s.version]}), 'hold');""",
    )
    assert sent(page) == [{"type": "hold", "held": [0], "version": 4, "id": "p-1"}]
    js(page, "h.frame(h.state(5))")
    assert sent(page)[1:] == [{"type": "hold", "held": [0, 5], "version": 5, "id": "p-2"}]
    assert page.evaluate("client.idle()") is False
    js(page, "h.frame(h.state(6))")
    assert page.evaluate("client.idle()") is True


def test_an_action_of_a_kind_on_its_way_or_waiting_is_pending_until_answered(page: Any) -> None:
    js(page, "h.make(); h.hello(4); client.enqueue(() => ({type: 'add_bot', level: 'casual'}), 'add_bot');")
    assert page.evaluate("[client.pending('add_bot'), client.pending('start')]") == [True, False]
    js(page, "client.enqueue(() => ({type: 'start'}), 'start');")  # waits behind the first
    assert page.evaluate("[client.pending('add_bot'), client.pending('start')]") == [True, True]
    js(page, "h.frame(h.state(5))")  # the first answered: the second is sent
    assert page.evaluate("[client.pending('add_bot'), client.pending('start')]") == [False, True]
    js(page, "h.frame(h.state(6))")
    assert page.evaluate("[client.pending('add_bot'), client.pending('start')]") == [False, False]


def test_a_queued_action_that_no_longer_applies_is_skipped(page: Any) -> None:
    js(
        page,
        """h.make(); h.hello(4);
        client.enqueue(() => ({type: 'roll'}), 'roll');
        client.enqueue(() => null, 'hold');
        client.enqueue(() => ({type: 'score', box: 'chance', column: 0}), 'score');
        h.frame(h.state(5));""",
    )
    assert [f["type"] for f in sent(page)] == ["roll", "score"]
    assert sent(page)[1]["version"] == 5


def test_an_older_state_is_ignored_while_connected(page: Any) -> None:
    js(page, "h.make(); h.hello(9); h.frame(h.state(8));")
    assert page.evaluate("client.state.version") == 9
    assert page.evaluate("h.log.filter(e => e[0] === 'state').map(e => e[1])") == [9]


def test_after_a_drop_the_unanswered_action_is_sent_again_identically(page: Any) -> None:
    js(page, "h.make(); h.hello(10); client.enqueue(() => ({type: 'roll'}), 'roll'); h.drop();")
    first = sent(page)[0]
    assert page.evaluate("client.status") == "reconnecting"
    js(page, "h.fire(500); h.hello(10);")  # the server never saw it: same version
    assert page.evaluate("h.FakeSocket.all.length") == 2
    assert sent(page) == [first]  # same type, version and id: applied at most once
    js(page, "h.frame(h.state(11))")
    assert page.evaluate("client.idle()") is True


def test_after_a_drop_an_action_that_had_landed_is_not_sent_again(page: Any) -> None:
    js(
        page,
        "h.make(); h.hello(10); client.enqueue(() => ({type: 'roll'}), 'roll'); h.drop(); h.fire(500); h.hello(11);",
    )
    # The roll landed (version 11): nothing goes out.
    assert sent(page) == []
    assert page.evaluate("client.idle()") is True


def test_after_a_drop_what_waited_behind_the_unanswered_action_is_not_sent(page: Any) -> None:
    """Tapped while the socket was already gone (the page cannot know yet), they would be played
    on the table the page comes back to, where the turn may have moved on."""
    js(
        page,
        """h.make(); h.hello(10);
        client.enqueue(() => ({type: 'hold', held: [0]}), 'hold');
        client.enqueue(() => ({type: 'score', box: 'chance', column: 0}), 'score');
        h.drop(); h.fire(500); h.hello(10);""",
    )
    # The hold, never answered, is sent again as it was; the score that waited behind it is not.
    assert sent(page) == [{"type": "hold", "held": [0], "version": 10, "id": "p-1"}]
    js(page, "h.frame(h.state(11))")
    assert sent(page) == [{"type": "hold", "held": [0], "version": 10, "id": "p-1"}]
    assert page.evaluate("client.idle()") is True


def test_a_reconnect_accepts_an_older_state_as_the_truth(page: Any) -> None:
    js(page, "h.make(); h.hello(10); h.drop(); h.fire(500); h.hello(8);")
    assert page.evaluate("client.state.version") == 8


def test_reconnect_backoff_doubles_to_ten_seconds_and_resets_when_open(page: Any) -> None:
    js(page, "h.make();")
    delays = []
    for _ in range(7):
        js(page, "h.drop()")
        delay = page.evaluate("h.timers.filter(t => !t.repeat).map(t => t.delay)")
        delays.append(delay[0])
        js(page, f"h.fire({delay[0]})")
    assert delays == [500, 1000, 2000, 4000, 8000, 10000, 10000]
    js(page, "h.socket().emit('open', {}); h.drop();")
    assert page.evaluate("h.timers.filter(t => !t.repeat).map(t => t.delay)") == [500]


def test_reconnect_delays_are_spread_around_each_step_so_a_restart_is_not_a_stampede(page: Any) -> None:
    js(page, "h.make();")
    spread = []
    for fraction in (0, 0.9999, 0.25):
        js(page, f"h.random = {fraction}; h.drop();")
        delay = page.evaluate("h.timers.filter(t => !t.repeat).map(t => t.delay)")[0]
        spread.append(delay)
        js(page, f"h.fire({delay})")
    # The steps are 500, 1000 and 2000 ms; each try waits half to one and a half times its step.
    assert spread == [250, 1500, 1500]


def test_a_room_that_is_gone_is_not_retried(page: Any) -> None:
    js(page, "h.make(); h.hello(2); h.drop(4404);")
    assert page.evaluate("client.status") == "gone"
    assert page.evaluate("h.timers.filter(t => !t.repeat).length") == 0
    assert page.evaluate("h.log.filter(e => e[0] === 'connection').map(e => e[1])") == [
        "connecting",
        "connected",
        "gone",
    ]


def test_an_error_for_my_action_clears_the_queue_and_keeps_the_state(page: Any) -> None:
    js(
        page,
        """h.make(); h.hello(5);
        client.enqueue(() => ({type: 'score', box: 'sevens', column: 0}), 'score');
        client.enqueue(() => ({type: 'roll'}), 'roll');
        h.frame({type: 'error', code: 'unknown_box', message: 'No such box.', id: 'p-1'});""",
    )
    assert page.evaluate("client.idle()") is True
    assert page.evaluate("h.log.at(-1)") == ["error", "unknown_box", True]
    assert len(sent(page)) == 1 and page.evaluate("client.state.version") == 5


def test_an_error_for_someone_else_leaves_my_action_in_flight(page: Any) -> None:
    js(
        page,
        """h.make(); h.hello(5); client.enqueue(() => ({type: 'roll'}), 'roll');
        h.frame({type: 'error', code: 'not_your_turn', message: 'x', id: 'other-3'});""",
    )
    assert page.evaluate("client.inflight && client.inflight.id") == "p-1"
    assert page.evaluate("h.log.at(-1)") == ["error", "not_your_turn", False]


def test_a_refusal_that_comes_after_someone_elses_newer_state_is_still_my_actions(page: Any) -> None:
    """Start pressed as another player joins: the join's state reaches the page before the refusal
    of the Start (its version has been passed), and is not the Start's answer. The refusal names
    the Start: it is this page's, to be told."""
    js(
        page,
        """h.make(); h.hello(2); client.enqueue(() => ({type: 'start'}), 'start');
        h.frame(h.state(3));
        h.frame({type: 'error', code: 'stale', message: 'x', id: 'p-1'});
        h.frame(h.state(3));""",
    )
    assert page.evaluate("h.log.filter(e => e[0] === 'error')") == [["error", "stale", True]]
    assert page.evaluate("client.idle()") is True
    # A refusal of another page's action is still not this page's.
    js(page, "h.frame({type: 'error', code: 'stale', message: 'x', id: 'other-1'});")
    assert page.evaluate("h.log.at(-1)") == ["error", "stale", False]


def test_an_error_without_an_id_asks_for_the_state_again(page: Any) -> None:
    js(
        page,
        """h.make(); h.hello(5); client.enqueue(() => ({type: 'roll'}), 'roll');
        h.frame({type: 'error', code: 'bad_json', message: 'x'});""",
    )
    assert sent(page)[-1] == {"type": "sync"}
    assert page.evaluate("client.idle()") is True


def test_pings_every_twenty_seconds_while_connected_and_a_newer_pong_syncs(page: Any) -> None:
    js(page, "h.make(); h.fire(20000);")
    assert sent(page) == []  # not connected yet
    js(page, "h.hello(4); h.fire(20000);")
    assert sent(page) == [{"type": "ping"}]
    js(page, "h.frame({type: 'pong', version: 4}); h.frame({type: 'pong', version: 6});")
    assert sent(page) == [{"type": "ping"}, {"type": "sync"}]


def test_a_hint_is_asked_once_and_kept_for_its_version_only(page: Any) -> None:
    js(page, "h.make(); h.hello(12);")
    assert page.evaluate("[client.askHint(), client.askHint()]") == [True, False]
    assert sent(page) == [{"type": "hint", "version": 12, "id": "hint-p-1"}]
    js(page, "h.frame({type: 'hint', version: 12, options: []})")
    assert page.evaluate("client.hint && client.hint.version") == 12
    js(page, "h.frame(h.state(13))")
    assert page.evaluate("client.hint") is None
    js(page, "client.askHint(); h.frame({type: 'error', code: 'coach_busy', message: 'x', id: 'hint-p-2'});")
    assert page.evaluate("client.hintPending") is False


def test_you_presence_and_a_states_event_reach_the_page(page: Any) -> None:
    js(
        page,
        """h.make(); h.hello(3, [1, 2]);
        h.frame({type: 'presence', seats: {}, spectators: 2});
        h.frame(h.state(4, {event: {type: 'scored', box: 'chance', points: 20}}));""",
    )
    assert page.evaluate("client.mine") == [1, 2]
    assert page.evaluate("client.presence.spectators") == 2
    assert json.loads(page.evaluate("JSON.stringify(h.log.slice(-3))")) == [
        ["presence", 2],
        ["event", "scored"],
        ["state", 4],
    ]


def test_a_states_event_and_game_over_are_heard_before_it_with_the_state_before_still_current(page: Any) -> None:
    # The page says "Ada scored …" from the state the action was made in, then draws the new one.
    js(
        page,
        """h.make(); h.hello(7);
        window.heard = [];
        client.hooks.onEvent = (f) =>
          heard.push([f.type, f.version, client.state.version, f.winners ?? null, f.box ?? null]);
        const scored = {type: 'scored', box: 'chance', game_over: true, winners: [0]};
        h.frame(h.state(8, {event: scored, game_over: {winners: [0]}}));
        h.frame(h.state(6, {event: {type: 'rolled', held: [], dice: [1, 1, 1, 1, 1]}}));
        h.frame(h.state(8));""",
    )
    assert page.evaluate("heard") == [["scored", 8, 7, [0], "chance"], ["game_over", 8, 7, [0], None]]
    assert page.evaluate("client.state.version") == 8


def test_the_moves_of_one_commit_are_heard_in_order_each_with_its_version(page: Any) -> None:
    # A turn the timer played: the timeout and its roll, then the score, in one state.
    js(
        page,
        """h.make(); h.hello(7);
        window.heard = [];
        client.hooks.onEvent = (f) => heard.push([f.type, f.version, client.state.version]);
        const earlier = [
          {type: 'timed_out', seat: 0, version: 8}, {type: 'rolled', held: [], dice: [1, 2, 3, 4, 6], version: 9},
        ];
        h.frame(h.state(10, {earlier, event: {type: 'scored', box: 'chance'}}));""",
    )
    assert page.evaluate("heard") == [["timed_out", 8, 7], ["rolled", 9, 7], ["scored", 10, 7]]


def test_the_versions_a_page_never_heard_are_named_once_to_it(page: Any) -> None:
    """A socket back after missing states, or a state of an action further on than the one before
    it (a state gone astray): the page is told which versions it never heard the lines of."""
    js(
        page,
        """h.make(5); window.missed = [];
        client.hooks.onMissed = (after, before) => missed.push([after, before]);
        h.hello(5);
        h.frame(h.state(6, {event: {type: 'rolled', held: [], dice: [1, 2, 3, 4, 6]}}));
        h.frame(h.state(8, {event: {type: 'rolled', held: [0], dice: [1, 2, 3, 4, 6]}}));
        h.drop(); h.fire(500); h.hello(12);
        h.frame(h.state(16, {earlier: [{type: 'timed_out', seat: 0, version: 15}], event: {type: 'scored'}}));
        h.frame(h.state(17));""",
    )
    # A hold and its roll (two versions, one event) and the socket's first state with nothing missed
    # ask nothing.
    assert page.evaluate("missed") == [[8, 13], [12, 15]]


def test_a_socket_back_one_version_on_names_that_version_as_never_heard(page: Any) -> None:
    """The socket was away for one move (another player's leave): its first state is one version
    on, with no event, and the page is told it never heard that version's line."""
    js(
        page,
        """h.make(5); window.missed = [];
        client.hooks.onMissed = (after, before) => missed.push([after, before]);
        h.hello(5);
        h.drop(); h.fire(500); h.hello(6);""",
    )
    assert page.evaluate("missed") == [[5, 7]]


def test_a_sync_answered_one_version_on_names_that_version_as_never_heard(page: Any) -> None:
    """The page asked for the state again (a newer pong, an error without an id, shown again while a
    clock runs): an answer one version on (the room's whole state, its rule set in it), with no
    event, is a state it missed, as a new socket's."""
    js(
        page,
        """h.make(5); window.missed = [];
        client.hooks.onMissed = (after, before) => missed.push([after, before]);
        h.hello(5);
        h.frame({type: 'pong', version: 6}); h.frame(h.state(6, {ruleset: {label: 'Yahtzee'}}));
        client.enqueue(() => ({type: 'roll'}), 'roll');
        h.frame({type: 'error', code: 'bad_json', message: 'x'});
        h.frame(h.state(7, {ruleset: {label: 'Yahtzee'}}));""",
    )
    assert [frame["type"] for frame in sent(page)] == ["sync", "roll", "sync"]
    assert page.evaluate("missed") == [[5, 7], [6, 8]]
    # A state one version on that nobody asked for (a hold's) still names nothing.
    js(page, "h.frame(h.state(8));")
    assert page.evaluate("missed") == [[5, 7], [6, 8]]


def once_timers(page: Any) -> list[int]:
    return list(page.evaluate("h.timers.filter(t => !t.repeat).map(t => t.delay)"))


def test_a_route_check_keeps_a_socket_on_the_worker_the_proxy_still_sends_the_room_to(page: Any) -> None:
    js(page, "h.make(); h.hello(3); h.routeAnswer = 'w1'; h.frame({type: 'route', worker: 'w1'});")
    assert once_timers(page) == [1500]  # half of ROUTE_JITTER, with random() at 0.5
    page.evaluate("h.fireAndWait(1500)")
    assert page.evaluate("h.fetched") == [["http://client.test/ws/rooms/abc/", "no-store"]]
    assert page.evaluate("h.socket().closedWith") is None and page.evaluate("h.FakeSocket.all.length") == 1
    assert page.evaluate("client.status") == "connected"


def test_a_route_check_moves_the_socket_at_once_when_the_proxy_names_another_worker(page: Any) -> None:
    js(page, "h.make(); h.hello(3); h.routeAnswer = 'w2'; h.frame({type: 'route', worker: 'w1'});")
    page.evaluate("h.fireAndWait(1500)")
    assert page.evaluate("h.socket().closedWith") == 4000
    assert once_timers(page) == [0]  # no backoff: the room's worker is up
    js(page, "h.fire(0); h.hello(3);")
    assert page.evaluate("h.FakeSocket.all.length") == 2 and page.evaluate("client.status") == "connected"
    js(page, "h.drop()")  # a later drop backs off as ever
    assert once_timers(page) == [500]


def test_a_route_check_moves_nothing_while_an_action_is_unanswered(page: Any) -> None:
    js(
        page,
        """h.make(); h.hello(3); client.enqueue(() => ({type: 'roll'}), 'roll');
        h.routeAnswer = 'w2'; h.frame({type: 'route', worker: 'w1'});""",
    )
    page.evaluate("h.fireAndWait(1500)")
    assert page.evaluate("h.fetched.length") == 1
    assert page.evaluate("h.socket().closedWith") is None  # the server asks again in its next round


def test_the_page_follows_its_players_to_new_seat_numbers_when_an_earlier_seat_leaves(page: Any) -> None:
    seats = "[{player: 10}, {player: 11}, {player: 12}]"
    js(
        page,
        "h.make(); h.hello(3, [1]); h.frame({type: 'you', seats: [2], players: [12]});"
        f"h.frame(h.state(4, {{seats: {seats}}}));",
    )
    assert page.evaluate("client.mine") == [2]
    js(page, "h.frame(h.state(5, {seats: [{player: 10}, {player: 12}]}))")  # seat 1 left the lobby
    assert page.evaluate("client.mine") == [1]


def test_a_seat_of_the_page_taken_out_of_the_game_is_no_longer_its_own_without_a_reconnect(page: Any) -> None:
    """Two people on one device play seats 1 and 2; the host takes seat 2 out. The state says so
    (its ``status``), and the page counts as its own the seats the server's next ``you`` would:
    seat 1, not the one taken out (the game over then says "You win!" to the one left). Taken
    out of both, it holds none, and has given both up, as the server's ``you`` says of them."""

    def seats(two: str, one: str = "active", gave_up: str = "false") -> str:
        last = f"{{player: 12, status: '{two}', gave_up: {gave_up}}}"
        return f"[{{player: 10, status: 'active'}}, {{player: 11, status: '{one}'}}, {last}]"

    js(
        page,
        "h.make(); h.hello(3, [1, 2]); h.frame({type: 'you', seats: [1, 2], players: [11, 12]});"
        f"h.frame(h.state(4, {{seats: {seats('active')}}}));",
    )
    assert page.evaluate("client.mine") == [1, 2]
    js(page, f"h.frame(h.state(5, {{seats: {seats('left')}}}))")
    assert page.evaluate("[client.mine, client.left, client.former]") == [[1], [], False]
    # A computer played on for its player, who left: not this browser's seat either (``gave_up``).
    js(page, f"h.frame(h.state(6, {{seats: {seats('active', gave_up='true')}}}))")
    assert page.evaluate("client.mine") == [1]
    js(page, f"h.frame(h.state(7, {{seats: {seats('left', one='left')}}}))")
    assert page.evaluate("[client.mine, client.left, client.former]") == [[], [1, 2], True]
    assert page.evaluate("h.FakeSocket.all.length") == 1  # no reconnect was needed


def test_a_tab_told_other_players_by_another_tab_of_its_browser_connects_again_at_once(page: Any) -> None:
    # The tabs share the browser's session: a seat taken in one is the other's too, but only a
    # new socket is told so (`you`).
    js(page, "h.make(); h.hello(3, []); h.frame({type: 'you', seats: [1], players: [11]}); h.frame(h.state(3));")
    js(page, "client.otherTab([11])")  # the same: nothing to do
    assert page.evaluate("h.FakeSocket.all.length") == 1 and once_timers(page) == []
    js(page, "client.otherTab([11, 12])")  # a seat taken in the other tab
    assert page.evaluate("h.FakeSocket.all[0].closedWith") == 4003
    assert page.evaluate("client.status") == "reconnecting" and once_timers(page) == [0]
    js(page, "h.FakeSocket.all[0].emit('close', {code: 4003}); h.fire(0);")  # its close, late: heard no more
    assert page.evaluate("h.FakeSocket.all.length") == 2
    js(page, "h.socket().emit('open', {}); h.frame({type: 'you', seats: [1, 2], players: [11, 12]});")
    js(page, "h.frame(h.state(4))")
    assert page.evaluate("client.mine") == [1, 2]
    js(page, "client.otherTab([12, 11])")
    assert page.evaluate("h.FakeSocket.all.length") == 2
    # A spectator's `you` leaves its players out: none.
    js(page, "h.drop(); h.fire(500); h.socket().emit('open', {}); h.frame({type: 'you', seats: []});")
    js(page, "h.frame(h.state(5))")
    assert page.evaluate("client.myPlayers") == []
    js(page, "client.otherTab([])")
    assert page.evaluate("h.FakeSocket.all.length") == 3


def test_a_page_taken_out_connects_again_at_once_when_the_hosts_word_changes_and_is_told_it_anew(page: Any) -> None:
    # The host took this browser out (its `you` says so); an unmute of that seat may give it its
    # voice back, which only a new socket's `you` tells (room.js: the `muted` event).
    js(page, "h.make(); h.hello(3, []); h.frame({type: 'you', seats: [], former: true, taken_out: true});")
    js(page, "h.frame(h.state(3))")
    assert page.evaluate("client.takenOut") is True
    js(page, "client.standingChanged()")
    assert page.evaluate("h.FakeSocket.all[0].closedWith") == 4003
    assert page.evaluate("client.status") == "reconnecting" and once_timers(page) == [0]
    js(page, "h.fire(0); h.socket().emit('open', {}); h.frame({type: 'you', seats: [], former: true});")
    assert page.evaluate("h.FakeSocket.all.length") == 2 and page.evaluate("client.takenOut") is False


def test_a_presence_with_this_pages_seat_away_while_its_socket_is_open_has_it_connect_again_at_once(
    page: Any,
) -> None:
    # The room counts no socket of this browser at its seat, this one open: the browser signed out in
    # another tab. A new socket is told the seats the browser has now (`you`).
    seats = "[{seat: 0, status: 'active', kind: 'human'}, {seat: 1, status: 'active', kind: 'bot'}]"
    js(page, f"h.make(); h.hello(3, [0, 1]); h.frame(h.state(3, {{seats: {seats}}}));")
    js(page, "h.frame({type: 'presence', seats: {'0': 'connected', '1': 'away'}, spectators: 0})")
    assert page.evaluate("h.FakeSocket.all.length") == 1  # a seat a computer plays is nobody's at the table
    js(page, "h.frame({type: 'presence', seats: {'0': 'away', '1': 'away'}, spectators: 1})")
    assert page.evaluate("h.FakeSocket.all[0].closedWith") == 4003
    assert page.evaluate("client.status") == "reconnecting" and once_timers(page) == [0]
    js(page, "h.fire(0); h.socket().emit('open', {}); h.frame({type: 'you', seats: []});")
    js(page, f"h.frame(h.state(3, {{seats: {seats}}}))")
    js(page, "h.frame({type: 'presence', seats: {'0': 'away', '1': 'away'}, spectators: 1})")
    assert page.evaluate("client.mine") == [] and page.evaluate("h.FakeSocket.all.length") == 2
    assert page.evaluate("client.status") == "connected"


# --- a socket that goes silent without closing ---------------------------------------------------
#
# A connection can die without a word (Wi-Fi gone, a phone's network switching, a NAT dropping
# the flow): the browser goes on calling its socket open for minutes. In Chromium with the
# network cut (``context.set_offline``) a page that trusted it would say "Connected" for a full
# minute while its Roll went nowhere. docs/protocol.md: "While the socket is down ... the client accepts no
# new action". Here the client runs against a fake socket and a virtual clock: timers,
# Date.now and performance.now all follow ``h.advance(ms)``.

CLOCKED = """<!doctype html><title>liveness</title><script type="module">
import { RoomClient } from "/static/js/room/protocol.js";

let now = 0;
let base = Date.now();
Date.now = () => base + now;
performance.now = () => now;
let nextId = 1;
const timers = new Map();
const env = {
  setTimeout: (fn, delay = 0) => { const id = nextId++; timers.set(id, { fn, at: now + delay, every: 0 }); return id; },
  setInterval: (fn, delay) => {
    const id = nextId++;
    timers.set(id, { fn, at: now + delay, every: delay });
    return id;
  },
  clearTimeout: (id) => timers.delete(id),
  clearInterval: (id) => timers.delete(id),
  pageId: "p",
  fetch: async () => ({ json: async () => ({}) }),
  random: () => 0.5,
};
window.setTimeout = env.setTimeout;
window.setInterval = env.setInterval;
window.clearTimeout = env.clearTimeout;
window.clearInterval = env.clearInterval;

class FakeSocket {
  static all = [];
  constructor(url) {
    this.url = url; this.sent = []; this.listeners = {}; this.readyState = 0; FakeSocket.all.push(this);
  }
  addEventListener(type, fn) { (this.listeners[type] ??= []).push(fn); }
  send(text) { this.sent.push(JSON.parse(text)); }
  emit(type, event) { for (const fn of this.listeners[type] ?? []) fn(event); }
  // A socket whose network is gone: a real one may take minutes to say it closed.
  close(code = 1000) { this.closedWith = code; this.readyState = 2; }
}
env.WebSocket = FakeSocket;

const state = (version) => ({ type: "state", version, status: "playing", turn: { seat: 0, held: [], rolls_left: 3 } });

window.h = {
  FakeSocket,
  state,
  advance(ms) {
    const end = now + ms;
    for (;;) {
      const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      const [id, t] = due;
      now = Math.max(now, t.at);
      if (t.every) t.at += t.every; else timers.delete(id);
      t.fn();
    }
    now = end;
  },
  // The device's clock set forward or back (by hand, or by the network's time): Date.now jumps,
  // time itself (the timers, performance.now) runs on as before.
  setDeviceClock(ms) { base += ms; },
  socket() { return FakeSocket.all[FakeSocket.all.length - 1]; },
  frame(obj, socket = h.socket()) { socket.emit("message", { data: JSON.stringify(obj) }); },
  hello(version = 3, socket = h.socket()) {
    socket.readyState = 1;
    socket.emit("open", {});
    h.frame({ type: "you", seats: [0] }, socket);
    h.frame(state(version), socket);
  },
  // The server's side of a live socket: every ping sent since the last call is answered.
  answer(socket = h.socket()) {
    const pings = socket.sent.filter((f) => f.type === "ping").length;
    for (let i = socket.answered ?? 0; i < pings; i++) h.frame({ type: "pong", version: client.state.version }, socket);
    socket.answered = pings;
  },
  pings(socket = h.socket()) { return socket.sent.filter((f) => f.type === "ping").length; },
};
window.make = () => {
  const client = new RoomClient({ url: "ws://client.test/ws/rooms/abc/", state: state(3), seats: [0], env });
  window.client = client;
  client.start();
  h.hello(3);
  return client.status;
};
window.ready = true;
</script>"""


@pytest.fixture
def clocked(harness: Any) -> Any:
    return harness(CLOCKED)


def test_a_socket_that_answers_no_ping_is_given_up_and_play_pauses(clocked: Any) -> None:
    page = clocked
    assert page.evaluate("make()") == "connected"
    # The server answers every ping at once (a pong); here nothing comes back.
    page.evaluate("h.advance(44000)")
    assert page.evaluate("client.status") == "connected"  # a ping at 20 s, asked again at 40 s
    page.evaluate("h.advance(6000)")
    assert page.evaluate("h.pings(h.FakeSocket.all[0])") >= 2  # the page did ask
    # Given up within 45 s of the last frame heard (and checked every 5 s): the page no longer
    # calls itself connected, nor takes an action for a socket nobody hears.
    assert page.evaluate("client.status") != "connected"
    assert page.evaluate("client.enqueue(() => ({type: 'roll'}), 'roll')") is False
    assert page.evaluate("h.FakeSocket.all[0].closedWith") == 4002
    # ...and it is trying a new socket, soon (the backoff's first step).
    page.evaluate("h.advance(500)")
    assert page.evaluate("h.FakeSocket.all.length") == 2
    assert page.evaluate("client.status") == "connecting"
    page.evaluate("h.hello(3)")
    assert page.evaluate("client.status") == "connected"


def test_a_socket_that_answers_its_pings_is_kept_however_quiet_the_room(clocked: Any) -> None:
    page = clocked
    page.evaluate("make()")
    for _ in range(30):  # ten minutes, nothing but pongs
        page.evaluate("h.advance(20000); h.answer()")
    assert page.evaluate("h.FakeSocket.all.length") == 1
    assert page.evaluate("client.status") == "connected"
    assert page.evaluate("h.pings()") == 30


def test_an_action_sent_into_a_silent_socket_is_given_up_in_time_and_not_kept_for_later(clocked: Any) -> None:
    page = clocked
    page.evaluate("make(); h.advance(15000)")
    assert page.evaluate("client.enqueue(() => ({type: 'roll'}), 'roll')") is True
    page.evaluate("h.advance(24000)")
    assert page.evaluate("client.status") == "connected"
    page.evaluate("h.advance(1000)")  # 25 s after the roll, nothing heard
    assert page.evaluate("client.status") == "reconnecting"
    # What the given-up socket still says (late, or never) is not heard.
    page.evaluate("h.frame(h.state(9), h.FakeSocket.all[0]); h.FakeSocket.all[0].emit('close', {code: 1006})")
    assert page.evaluate("client.state.version") == 3
    assert page.evaluate("h.FakeSocket.all.length") == 1  # its close starts no second reconnection
    # Clicked while the page reconnects: refused, not applied later.
    assert page.evaluate("client.enqueue(() => ({type: 'score', box: 'chance'}), 'score')") is False
    page.evaluate("h.advance(500); h.hello(3)")
    # The unanswered roll, and only it, is sent again as it was (docs/protocol.md: exactly once).
    assert page.evaluate("h.socket().sent") == [{"type": "roll", "version": 3, "id": "p-1"}]
    assert page.evaluate("h.FakeSocket.all.length") == 2


def test_setting_the_devices_clock_moves_no_wait_for_an_answer(clocked: Any) -> None:
    """A chat line sent, then the device's clock put forward an hour: the wait for its echo is
    not over, and the live socket is kept. Put back an hour, the wait for an answer that never
    comes still ends in time, and the page gives the dead socket up."""
    page = clocked
    page.evaluate("make(); h.advance(1000)")
    assert page.evaluate("client.sendSocial({type: 'chat', text: 'hi'})") is not None
    page.evaluate("h.setDeviceClock(3600000); h.advance(6000)")
    assert page.evaluate("client.status") == "connected"
    page.evaluate("h.frame({type: 'chat', message: {id: 1}, id: h.socket().sent.at(-1).id})")
    assert page.evaluate("client.status") == "connected"
    # Now the other way: sent, the clock put back an hour, and nothing comes back.
    page.evaluate("h.answer(); client.sendSocial({type: 'chat', text: 'anyone?'})")
    page.evaluate("h.setDeviceClock(-7200000); h.advance(30000)")  # 25 s, and the 5 s look
    assert page.evaluate("client.status") != "connected"
    assert page.evaluate("h.FakeSocket.all[0].closedWith") == 4002


def test_a_handshake_that_never_says_hello_is_given_up(clocked: Any) -> None:
    page = clocked
    page.evaluate("make(); h.socket().emit('close', {code: 1006}); h.advance(500)")
    assert page.evaluate("h.FakeSocket.all.length") == 2
    page.evaluate("h.socket().emit('open', {}); h.advance(44000)")
    assert page.evaluate("client.status") == "connecting"
    page.evaluate("h.advance(6000)")
    assert page.evaluate("h.FakeSocket.all[1].closedWith") == 4002
    assert page.evaluate("h.FakeSocket.all.length") == 3


def test_back_online_or_shown_again_the_page_reconnects_at_once(clocked: Any) -> None:
    page = clocked
    page.evaluate("make()")
    # Down for a while: the backoff has grown to ten seconds between tries.
    for _ in range(6):
        page.evaluate("h.socket().emit('close', {code: 1006}); h.advance(10000)")
    page.evaluate("h.socket().emit('close', {code: 1006})")
    count = page.evaluate("h.FakeSocket.all.length")
    page.evaluate("client.wake()")  # the browser's `online` event
    assert page.evaluate("h.FakeSocket.all.length") == count + 1
    page.evaluate("h.hello(3); h.advance(10000)")
    assert page.evaluate("h.FakeSocket.all.length") == count + 1  # the try that was due is not made too
    # Shown again after a phone's sleep: the open socket must answer a ping at once, or is given up.
    page.evaluate("client.wake()")
    assert page.evaluate("h.socket().sent.at(-1)") == {"type": "ping"}
    page.evaluate("h.advance(1000); h.answer(); h.advance(10000)")
    assert page.evaluate("client.status") == "connected"
    page.evaluate("client.wake(); h.advance(5000)")
    assert page.evaluate("client.status") == "reconnecting"
    assert page.evaluate("h.FakeSocket.all.length") == count + 1
    # The browser says it went offline: the socket is asked too, and given up as soon.
    page.evaluate("h.advance(500); h.hello(3); client.probe(); h.advance(5000)")
    assert page.evaluate("client.status") == "reconnecting"
    assert page.evaluate("h.FakeSocket.all.length") == count + 2


def test_shown_again_while_a_turns_clock_runs_the_page_asks_for_the_state_not_a_ping(clocked: Any) -> None:
    """The page's clock stood still while the device slept: the state's ``clock.left`` is the time
    the server gives, and its answer shows the socket alive as a pong would."""
    page = clocked
    page.evaluate("window.ticking = {...h.state(3), clock: {deadline: '2026-11-23T13:53:32+00:00', left: 50}}")
    page.evaluate("make(); h.frame(ticking); client.wake()")
    assert page.evaluate("h.socket().sent.at(-1)") == {"type": "sync"}
    page.evaluate("h.advance(1000); h.frame({...ticking, clock: {...ticking.clock, left: 40}}); h.advance(10000)")
    assert page.evaluate("client.status") == "connected"
    assert page.evaluate("client.state.clock.left") == 40
    page.evaluate("client.wake(); h.advance(5000)")  # this time nothing answers
    assert page.evaluate("h.FakeSocket.all[0].sent.at(-1)") == {"type": "sync"}
    assert page.evaluate("client.status") == "reconnecting"
    # No clock runs (paused, a computer to play): a ping is enough.
    page.evaluate("h.advance(500); h.hello(3); client.state.clock = {deadline: null, left: 50}; client.wake()")
    assert page.evaluate("h.socket().sent.at(-1)") == {"type": "ping"}


def test_a_presence_that_keeps_counting_the_seat_away_does_not_reconnect_at_once_for_ever(page: Any) -> None:
    """A presence counting this page's seat away has it connect again at once; a stale one (counted
    before the new socket's row existed) would do so again, and each close is another presence.
    A second such replace in a row waits, longer each time."""
    seats = "[{seat: 0, status: 'active', kind: 'human'}]"
    js(page, f"h.make(); h.hello(3, [0]); h.frame(h.state(3, {{seats: {seats}}}));")
    delays = []
    for _ in range(4):
        js(page, "h.frame({type: 'presence', seats: {'0': 'connected'}, spectators: 0})")  # the socket's own
        js(page, "h.frame({type: 'presence', seats: {'0': 'away'}, spectators: 0})")  # a stale one
        delays.append(once_timers(page)[-1])
        js(page, f"h.fire({delays[-1]}); h.hello(3, [0]); h.frame(h.state(3, {{seats: {seats}}}));")
    assert page.evaluate("h.FakeSocket.all.length") == 5
    assert delays[0] == 0 and 0 < delays[1] < delays[2] < delays[3], delays


def test_a_hold_heard_while_a_sync_is_unanswered_is_not_taken_for_its_answer(page: Any) -> None:
    """The answer to a sync is the room's whole state, its rule set in it, as a new socket's first
    state is; an action's state (a hold's, one version on) leaves the rule set out. One heard while
    the page waits for that answer, or after a sync the server never answered (refused as too many
    frames), names nothing as never heard: the hold has no line, and the page asks for none."""
    js(
        page,
        """h.make(5); window.missed = [];
        client.hooks.onMissed = (after, before) => missed.push([after, before]);
        h.hello(5); client.probe(true);
        h.frame(h.state(6));
        h.frame(h.state(6, {ruleset: {label: 'Yahtzee'}}));""",
    )
    assert sent(page)[-1] == {"type": "sync"}
    assert page.evaluate("missed") == []
    js(
        page,
        """client.probe(true); h.frame({type: 'error', code: 'rate_limited', message: 'x'});
        h.frame(h.state(7));""",
    )
    assert sent(page)[-1] == {"type": "sync"}
    assert page.evaluate("missed") == []
    # The answer to a sync one version on still names that version as never heard.
    js(page, "client.probe(true); h.frame(h.state(8, {ruleset: {label: 'Yahtzee'}}));")
    assert page.evaluate("missed") == [[7, 9]]
