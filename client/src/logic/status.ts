// Who am I in this game, and the sentences that say so. Pure functions only.

import type { Side } from "../board/notation";
import type { GameResult, State } from "../network/protocol";
import { declinedText } from "./declines";

export function otherSide(side: Side): Side {
  return side === "attackers" ? "defenders" : "attackers";
}

/** The side a player id plays in this state, or null for a spectator. */
export function sideOf(state: State, playerId: string | null | undefined): Side | null {
  if (!playerId) return null;
  if (state.players.attackers?.id === playerId) return "attackers";
  if (state.players.defenders?.id === playerId) return "defenders";
  return null;
}

export function isSpectator(state: State, playerId: string | null | undefined): boolean {
  return sideOf(state, playerId) === null;
}

export function isMyTurn(state: State, playerId: string | null | undefined): boolean {
  const side = sideOf(state, playerId);
  return state.status === "active" && side !== null && state.turn === side;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const REASONS: Record<string, string> = {
  king_escaped: "the king reached a corner",
  king_captured: "the king was captured",
  attackers_eliminated: "every attacker was captured",
  defenders_eliminated: "every defender was captured",
  no_legal_moves: "a side had no legal move",
  repetition: "the same position came round a third time",
  move_limit: "400 plies were played without a result",
  timeout: "a player's time for a move ran out",
  resignation: "a player resigned",
  draw_agreed: "the players agreed a draw",
  abandoned: "a player left the game and the other claimed it",
  aborted: "the game was aborted before both sides had moved",
};

/**
 * The reason of a result in words. With the winner known, the reasons that name the
 * loser say who: "the attackers ran out of time", "the defenders resigned".
 */
export function reasonText(reason: string, winner: Side | null = null): string {
  if (winner !== null) {
    const loser = otherSide(winner);
    if (reason === "timeout") return `the ${loser} ran out of time`;
    if (reason === "resignation") return `the ${loser} resigned`;
    if (reason === "abandoned") return `the ${loser} left the game`;
    if (reason === "no_legal_moves") return `the ${loser} had no legal move`;
  }
  return REASONS[reason] ?? reason.replace(/_/g, " ");
}

/** "The defenders won: the king reached a corner." / "Draw: …" / "No result: …" */
export function resultText(result: GameResult): string {
  const why = reasonText(result.reason, result.winner);
  if (result.reason === "aborted") return `No result: ${why}.`;
  if (result.winner === null) return `Draw: ${why}.`;
  return `The ${result.winner} won: ${why}.`;
}

/** Whether this player created the game (a friend game waits for its second player). */
export function isCreator(state: State, playerId: string | null | undefined): boolean {
  return !!playerId && state.creator?.id === playerId;
}

/** Where a game came from, as its page and the games list label it (docs/protocol.md `origin`). */
export function originLabel(origin: string | null | undefined, opponent: string): string {
  switch (origin ?? (opponent === "bot" ? "bot" : "person")) {
    case "bot":
      return "vs bot";
    case "invite":
      return "Friend game";
    case "challenge":
      return "Challenge";
    case "seek":
      return "Lobby game";
    case "quick":
      return "Quick pairing";
    case "rematch":
      return "Rematch";
    case "match":
      return "Match game";
    case "tournament":
      return "Tournament game";
    default:
      return "Game vs a person";
  }
}

/** The words for an invitation its creator withdrew, for its creator or anyone else. */
export function withdrawnText(state: State, playerId: string | null | undefined): string {
  if (isCreator(state, playerId)) return "You withdrew this invitation";
  return `This invitation was withdrawn by ${state.creator?.name ?? "the player who sent it"}`;
}

/** Whether the game is a challenge to one player (it waits for them alone). */
export function isChallenge(state: Pick<State, "invitee">): boolean {
  return !!state.invitee;
}

/** The words for a challenge that ended unanswered: declined (by whom, why) or cancelled.
 *  `invitee` is the challenged player's name, when known. */
export function challengeEndText(state: State, playerId: string | null | undefined, invitee: string | null): string {
  const them = invitee ?? "Your opponent";
  if (state.declined !== undefined) {
    if (playerId && state.invitee === playerId) return "You declined this challenge";
    const whom = isCreator(state, playerId) ? them : (invitee ?? "The player challenged");
    return declinedText(whom, state.declined).replace(/\.$/, "");
  }
  if (isCreator(state, playerId)) return "You cancelled this challenge";
  return `This challenge was cancelled by ${state.creator?.name ?? "the player who sent it"}`;
}

/** The line above the board, on every state. `invitee`: a challenge's challenged player's
 *  name, when known. */
export function statusLine(state: State | null, playerId: string | null | undefined, invitee: string | null = null): string {
  if (state === null) return "Loading the game…";
  const side = sideOf(state, playerId);
  const who = side ? `You are the ${side}` : "You are watching";
  if (state.status === "waiting") {
    if (isChallenge(state)) {
      if (isCreator(state, playerId)) return `Waiting for ${invitee ?? "your opponent"} to accept your challenge`;
      if (playerId && state.invitee === playerId) return `${state.creator?.name ?? "A player"} challenges you — accept or decline`;
      return `${who} — waiting for ${invitee ?? "the player challenged"} to accept the challenge`;
    }
    return isCreator(state, playerId)
      ? "Waiting for your friend to join — send them the invite link"
      : `${who} — waiting for the second player to join`;
  }
  if (isChallenge(state) && (state.declined !== undefined || state.withdrawn)) return challengeEndText(state, playerId, invitee);
  if (state.withdrawn) return withdrawnText(state, playerId);
  if (state.status === "ended") {
    const r = state.result;
    if (!r) return `${who} — the game is over`;
    const why = reasonText(r.reason, r.winner);
    if (r.reason === "aborted") return `${who} — game over: aborted, no result`;
    if (r.winner === null) return `${who} — game over: a draw, ${why}`;
    const outcome = side ? (r.winner === side ? "you won" : "you lost") : `the ${r.winner} won`;
    return `${who} — game over: ${outcome}, ${why}`;
  }
  const turn = state.turn ?? "attackers";
  if (side === null) return `${who} — ${turn} to move`;
  if (side === turn) return `${who} — your move`;
  return `${who} — waiting for the ${turn}`;
}

/** "1 minute", "3 minutes", "1 hour", "7 days". */
export function durationText(seconds: number): string {
  const units: [number, string][] = [
    [86_400, "day"],
    [3_600, "hour"],
    [60, "minute"],
  ];
  for (const [size, name] of units) {
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${n} ${name}${n === 1 ? "" : "s"}`;
    }
  }
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}

/** How many spectators; a spectator is one of them. */
export function watchersText(count: number, spectator = false): string {
  if (spectator) {
    if (count <= 1) return "Only you are watching";
    return count === 2 ? "You and 1 other person are watching" : `You and ${count - 1} others are watching`;
  }
  if (count <= 0) return "Nobody is watching";
  return count === 1 ? "1 person watching" : `${count} people watching`;
}

/** The names line for one side: "Attackers: Swift Raven 42 (you)". */
export function playerLine(state: State, side: Side, playerId: string | null | undefined): string {
  const p = state.players[side];
  const name = p ? p.name : "waiting for a player";
  const you = p && playerId && p.id === playerId ? " (you)" : "";
  return `${capitalise(side)}: ${name}${you}`;
}

/** What a third occurrence of a position does, by rule set (docs/rules.md §Rule table). */
const THIRD_REPETITION: Record<string, string> = {
  nielsen: "the game is a draw",
  walker: "the game is a draw",
  newsome: "the game is a draw",
  federation: "the defenders lose, whoever repeats it",
  common: "the player whose move brings it round loses",
};

/**
 * The warning after a position has come round twice (`state.repetitions == 2`), for
 * players and spectators alike: one more time ends the game as the rule set says.
 */
export function repetitionWarning(state: State): string | null {
  if (state.status !== "active" || state.repetitions !== 2) return null;
  const what = THIRD_REPETITION[state.ruleset] ?? "the game ends";
  return `This position has now occurred twice. If it comes round a third time, ${what}.`;
}

/** Words for an `error` frame's code, used with the server's own message. */
export function errorText(code: string, message: string): string {
  const lead: Record<string, string> = {
    illegal_move: "That move is not allowed",
    not_your_turn: "It is not your move",
    stale_ply: "The game had moved on",
    game_not_active: "No moves now",
    not_a_player: "You are watching this game",
    rate_limited: "Too many messages",
    busy: "The server was busy",
    not_found: "No such game",
    unavailable: "The server could not load the game",
    deadline_passed: "Too late",
    cannot_abort: "The game cannot be aborted now",
    draw_offer_open: "A draw offer is already open",
    draw_offer_too_soon: "Not yet",
    no_draw_offer: "There is no draw offer to answer",
    bot_declines: "The bot does not take draws",
    nothing_to_take_back: "Nothing to take back",
    takeback_not_allowed: "No takebacks here",
    takeback_offer_open: "A takeback offer is already open",
    takeback_offer_too_soon: "Not yet",
    no_takeback_offer: "There is no takeback offer to answer",
    game_not_over: "The game is not over yet",
  };
  const head = lead[code];
  const body = message ? capitalise(message) : code;
  if (!head) return body.endsWith(".") ? body : `${body}.`;
  return `${head}: ${message}${message.endsWith(".") ? "" : "."}`;
}
