// A game's life beyond the moves: which controls a viewer has in which state (draw
// offers, resigning, aborting, rematches), the notes the page shows for events other than
// moves, and how a game's end reads. Pure functions only.

import type { Side } from "../board/notation";
import type { EventFrame, GameResult, State } from "../network/protocol";
import { otherSide, reasonText, resultText } from "./status";

/** Where a rematch stands, kept per game from the snapshot, `rematch` notices and acks. */
export interface RematchBook {
  /** the side whose rematch offer is open */
  offer: Side | null;
  /** the agreed rematch game's id */
  next: string | null;
  /** the side that declined the other's offer */
  declined?: Side | null;
}

export const NO_REMATCH: RematchBook = { offer: null, next: null, declined: null };

/** A rematch book after a `rematch` notice or ack: an offer, a decline, or the agreed game. */
export function updateRematch(
  book: RematchBook,
  news: { offer?: Side | null; next?: string | null; declined?: Side | null },
): RematchBook {
  if (book.next) return book; // agreed: nothing changes it any more
  if (news.next) return { offer: null, next: news.next, declined: book.declined ?? null };
  const declined = news.declined ?? book.declined ?? null;
  // A decline closes the offer it answered (the other side's); a later offer by the side
  // that declined opens again.
  if (news.declined && news.declined !== book.declined) return { offer: null, next: null, declined };
  if (news.offer && news.offer !== book.offer) return { offer: news.offer, next: null, declined };
  return book;
}

/** The draw-offer button: shown enabled, or disabled with the reason in words. */
export interface OfferDrawControl {
  enabled: boolean;
  reason: string | null;
}

/** The takeback button: at once against the bot, an offer to a person in a casual game. */
export interface TakebackControl {
  /** "takeback": against the bot; "takeback_offer": ask the opponent */
  kind: "takeback" | "takeback_offer";
  enabled: boolean;
  label: string;
  reason: string | null;
}

export type RematchControl =
  | { kind: "offer"; label: string }
  | { kind: "waiting" }
  | { kind: "accept" }
  /** the opponent declined this player's offer: it cannot be offered again */
  | { kind: "declined" }
  | { kind: "open"; game: string };

/** What a viewer may do now. Spectators get `player: false` and nothing else. */
export interface Controls {
  player: boolean;
  /** null: no draw-offer button (not running, a bot game, or the opponent's offer is open) */
  offerDraw: OfferDrawControl | null;
  /** the opponent's offer is open: accept or decline it */
  answerDraw: boolean;
  /** null: no takeback here (a rated or tournament game, or the opponent's offer is open) */
  takeback: TakebackControl | null;
  /** the opponent asks to take their move back: accept or decline */
  answerTakeback: boolean;
  resign: boolean;
  /** before both sides have moved (ply 0 or 1) */
  abort: boolean;
  rematch: RematchControl | null;
  /** a line explaining a control that is not there */
  note: string | null;
}

const NONE: Controls = {
  player: false,
  offerDraw: null,
  answerDraw: false,
  takeback: null,
  answerTakeback: false,
  resign: false,
  abort: false,
  rematch: null,
  note: null,
};

/** How many of one side's own moves `n` plies (both sides' moves) make: "1 more move". */
function ownMoves(n: number): string {
  const k = Math.ceil(n / 2);
  return k === 1 ? "1 more move" : `${k} more moves`;
}

/** The controls of the player on `side` (null: a spectator) in this state. */
export function controlsFor(state: State, side: Side | null, rematch: RematchBook = NO_REMATCH): Controls {
  if (side === null) return NONE;
  if (state.status === "ended") {
    return { ...NONE, player: true, rematch: rematchControl(state, side, rematch) };
  }
  if (state.status !== "active") return { ...NONE, player: true };

  const bot = state.opponent === "bot";
  const offer = state.draw_offer;
  let offerDraw: OfferDrawControl | null = null;
  if (!bot && offer !== otherSide(side)) {
    const from = state.draw_block?.[side] ?? 0;
    if (offer === side) {
      offerDraw = { enabled: false, reason: "Your draw offer is open: waiting for your opponent's answer." };
    } else if (state.ply < from) {
      offerDraw = {
        enabled: false,
        reason: `Your last draw offer was declined: you can offer again from move ${Math.floor(from / 2) + 1} (after ${ownMoves(from - state.ply)}).`,
      };
    } else {
      offerDraw = { enabled: true, reason: null };
    }
  }
  const early = state.ply < 2;
  return {
    player: true,
    offerDraw,
    answerDraw: !bot && offer === otherSide(side),
    takeback: takebackControl(state, side),
    answerTakeback: !bot && (state.takeback_offer ?? null) === otherSide(side),
    // Before both sides have moved, aborting ends the game with no result: it takes the
    // place of resigning (which the server would also accept, as a loss).
    resign: !early,
    abort: early,
    rematch: null,
    note: bot ? "The bot plays every game out: it does not take draw offers." : null,
  };
}

/** Whether a game allows takebacks: any game against the bot, casual games between people. */
export function takebacksAllowed(state: State): boolean {
  return state.opponent === "bot" || (!state.rated && !state.tournament);
}

function takebackControl(state: State, side: Side): TakebackControl | null {
  if (!takebacksAllowed(state)) return null;
  const bot = state.opponent === "bot";
  const open = state.takeback_offer ?? null;
  if (!bot && open === otherSide(side)) return null; // theirs to answer: the banner
  // The player's last move: the ply before, or two before on their own turn.
  const mine = state.ply - (state.turn === side ? 2 : 1) >= 0;
  const kind = bot ? "takeback" : "takeback_offer";
  if (!mine) return { kind, enabled: false, label: "Take back", reason: null };
  if (open === side) return { kind, enabled: false, label: "Takeback asked", reason: null };
  return { kind, enabled: true, label: "Take back", reason: null };
}

function rematchControl(state: State, side: Side, book: RematchBook): RematchControl {
  if (book.next) return { kind: "open", game: book.next };
  if (book.offer === side) return { kind: "waiting" };
  if (book.offer === otherSide(side)) return { kind: "accept" };
  if (book.declined === otherSide(side)) return { kind: "declined" };
  return { kind: "offer", label: state.opponent === "bot" ? "Play the bot again" : "Offer a rematch" };
}

/**
 * The game a player's page should open when a rematch is agreed: only when the page saw
 * this game over with no rematch yet (opening an old game later does not jump away).
 */
export function rematchDestination(book: RematchBook, side: Side | null, sawUnagreed: boolean): string | null {
  return side !== null && sawUnagreed && book.next ? book.next : null;
}

/** The rematch in words for spectators (and the record of it for players). */
export function rematchNote(book: RematchBook): string | null {
  if (book.next) return "The players agreed a rematch.";
  if (book.offer) return `The ${book.offer} offered a rematch.`;
  if (book.declined) return `The ${book.declined} declined the rematch.`;
  return null;
}

/** A note in the game's log: something other than a move happened (or a move said more). */
export interface GameNote {
  /** the event's number */
  n: number;
  /** the ply it happened at (moves played before it) */
  ply: number;
  kind: EventFrame["kind"];
  text: string;
}

/** An event in words, for everyone following the game; null for a plain move or the start. */
export function eventNote(frame: EventFrame): string | null {
  const by = frame.by ?? null;
  switch (frame.kind) {
    case "move":
      if (frame.draw_declined && by) return `The ${by} played on, declining the draw.`;
      return frame.takeback_closed && by ? `The ${by} played on: the takeback offer is closed.` : null;
    case "draw_offer":
      return by ? `The ${by} offered a draw.` : "A draw was offered.";
    case "draw_declined":
      return by ? `The ${by} declined the draw.` : "The draw was declined.";
    case "draw_agreed":
      return by ? `The ${by} accepted the draw: the game is drawn.` : "The players agreed a draw.";
    case "resign":
      return by ? `The ${by} resigned.` : "A player resigned.";
    case "claim":
      if (!by) return "The game was claimed: the opponent had left.";
      return frame.draw
        ? `The ${otherSide(by)} left the game and the ${by} called it a draw.`
        : `The ${otherSide(by)} left the game and the ${by} claimed victory.`;
    case "abort":
      if (by) return `The ${by} aborted the game: no result.`;
      if (frame.timeout) return `Aborted: the ${frame.timeout} did not make their first move in time.`;
      return "The game was aborted.";
    case "timeout":
      return frame.side ? `The ${frame.side} ran out of time.` : "A player ran out of time.";
    case "withdraw":
      if (frame.declined !== undefined) return "The challenge was declined before the game started.";
      if (frame.state.invitee) return "The challenge was cancelled before the game started.";
      return "The invitation was withdrawn before anyone joined.";
    case "takeback": {
      const plies = frame.plies ?? 1;
      const what = plies === 1 ? "their last move" : "their last move and the reply";
      return by ? `The ${by} took back ${what}.` : "Moves were taken back.";
    }
    case "takeback_offer":
      return by ? `The ${by} asked to take back their last move.` : "A takeback was asked for.";
    case "takeback_declined":
      return by ? `The ${by} declined the takeback.` : "The takeback was declined.";
    case "deadline_extended": {
      const turn = frame.state.turn;
      return `The service was down for a while: ${turn ? `the ${turn}'` : "the"} time for this move was extended.`;
    }
    default:
      return null;
  }
}

/** "After 2. c1-d1" — where in the game a note belongs (attackers move first). */
export function notePlace(ply: number, moves: readonly string[]): string {
  if (ply <= 0) return "Before the first move";
  const number = Math.ceil(ply / 2);
  const dots = ply % 2 === 1 ? "." : "...";
  const move = moves[ply - 1];
  return move ? `After ${number}${dots} ${move}` : `At move ${number}`;
}

/** The big line of the game-over panel, from the viewer's side (null: a spectator). */
export function resultHeadline(result: GameResult, side: Side | null): string {
  if (result.reason === "aborted") return "Aborted — no result";
  if (result.winner === null) return "Draw";
  if (side === null) return `The ${result.winner} won`;
  return result.winner === side ? "You won!" : "You lost";
}

/**
 * The sentence under the headline: how it came about. A player's headline ("You won!")
 * does not name the sides, so theirs does; otherwise the headline already says the outcome.
 */
export function resultDetail(result: GameResult, side: Side | null): string {
  if (side !== null && result.winner !== null && result.reason !== "aborted") return resultText(result);
  const why = reasonText(result.reason, result.winner);
  return `${why.charAt(0).toUpperCase()}${why.slice(1)}.`;
}
