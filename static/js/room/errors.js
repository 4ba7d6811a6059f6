// What the error codes a room's socket and its posts answer with mean (games/domain/errors.py),
// in the reader's language. Only a refusal needs them, which the room page's first draw never
// shows: room.js fetches this once the page is idle, or when a refusal comes before that.

import { fmt, gettext, ngettext } from "../i18n.js";
import { CHAT_MAX } from "../words.js";

// The error codes a player can meet (games/domain/errors.py); any other shows the server's text.
const ERRORS = {
  game_not_started: gettext("The game has not started yet."),
  game_over: gettext("The game is over."),
  not_your_turn: gettext("It is not your turn."),
  no_rolls_left: gettext("No rolls left: choose a box to score."),
  not_rolled: gettext("Roll first."),
  all_held: gettext("Keep at most four dice: a roll needs at least one die to throw."),
  holds_used_up: gettext("You have changed the held dice often enough since this roll: roll or score."),
  joins_used_up: gettext("Seats in this room have been taken as often as one game allows: no more can be taken."),
  pauses_used_up: gettext("This game has been paused as often as one game allows."),
  mutes_used_up: gettext("Chat in this game has been muted as often as one game allows."),
  handovers_used_up: gettext("Seats in this game have been handed to a computer as often as one game allows."),
  rematches_used_up: gettext("This game has had as many rematches as one game allows: open a new room."),
  box_filled: gettext("That box is already filled."),
  joker_forbids: gettext("That box is not allowed for this roll."),
  card_full: gettext("That player's card is full: there is no turn left for a computer to play."),
  already_started: gettext("The game has already started."),
  not_a_player: gettext("You are not playing in this room."),
  not_host: gettext("Only the host can do that."),
  room_full: gettext("The room is full."),
  not_in_lobby: gettext("The game has already started."),
  not_playing: gettext("The game is not in progress."),
  bad_name: gettext("Choose a name of 1 to 24 characters."),
  name_taken: gettext("Someone at the table already has that name."),
  name_reserved: gettext("That name is how the site shows spectators or deleted accounts: please choose another."),
  kicked: gettext("The host took you out of this room: you can watch."),
  player_present: gettext("That player is here now: only an away player's seat can be taken over."),
  just_away: gettext("That player only just went away: give them a few more seconds to come back."),
  own_pace: gettext("At your own pace nobody need be online: a seat is not taken over for being away."),
  not_paused: gettext("The game is not paused."),
  bad_seat: gettext("That seat is not there any more: the table is being brought up to date."),
  own_device: gettext("That seat is played on your own device: leave it instead."),
  own_seat: gettext("That is your own seat."),
  already_computer: gettext("A computer already plays that seat."),
  not_reclaimable: gettext("A computer is not playing that seat for you."),
  already_muted: gettext("That player's chat is already muted."),
  not_muted: gettext("That player's chat is not muted."),
  bad_spectator: gettext("There is no such spectator in this room's chat."),
  own_chat: gettext("Those lines are your own: your own chat cannot be muted."),
  spectator_already_muted: gettext("That spectator's chat is already muted."),
  spectator_not_muted: gettext("That spectator's chat is not muted."),
  local_room: gettext("This game is played on one device."),
  paused: gettext("The host paused the game: play goes on when they resume it."),
  // Said to the host (an action of theirs from a page drawn before their pause, another tab's).
  you_paused: gettext("You paused the game: play goes on when you resume it."),
  // Said to a player handed the host during the pause (the host who paused left): theirs to resume.
  yours_to_resume: gettext("The game is paused: play goes on when you resume it."),
  // Said to the others when the host who paused left: the host's name is put in (errorText).
  host_to_resume: gettext("The game is paused: play goes on when %(name)s, the host, resumes it."),
  bad_message: gettext("Write something first."),
  chat_too_long: fmt(ngettext("A chat message is at most %(max)s character.", "A chat message is at most %(max)s characters.", CHAT_MAX), { max: CHAT_MAX }),
  chat_closed: gettext("Spectators may not post in this room's chat."),
  muted: gettext("The host muted your chat."),
  taken_out: gettext("The host took you out of this game: you can read its chat but not post to it."),
  hints_off: gettext("Hints are turned off in this room."),
  coach_busy: gettext("The coach is busy: try again in a moment."),
  roll_first: gettext("Roll first: the coach advises on the dice you have."),
  coach_error: gettext("The coach could not answer: try again."),
  unavailable: gettext("The server is busy for a moment: nothing was lost, try again."),
  outcome_unknown: gettext("The connection dropped mid-move: the table is being brought up to date."),
  rate_limited: gettext("Too many actions at once: slow down a little."),
  too_many_sockets: gettext("Too many open tables in this browser: close one and try again."),
  server_error: gettext("Something went wrong on the server: the table is being brought up to date."),
};

/**
 * What an error frame means, in the reader's words. `host`: the host's name as the page shows it,
 * for the words that name them (without it, the server's own sentence).
 */
export function errorText(frame, host = "") {
  if (frame.code === "host_to_resume" && !host) return frame.message ?? gettext("Something went wrong.");
  const words = ERRORS[frame.code];
  return words !== undefined ? fmt(words, { name: host }) : frame.message ?? gettext("Something went wrong.");
}
