// Challenges (docs/protocol.md, "Challenges"): the record, the list a player holds (open
// ones to and from them, and the declines of their own not yet read), how the websocket's
// `challenge` / `challenge_gone` frames change it, and the words for terms, reasons and
// refusals. No DOM: the header's panel (frame/challengenav.ts) and the profile's form
// (panels/challengeform.ts) draw from here.

import { ApiError } from "../network/api";
import { RULES } from "../board/rules";
import { durationText } from "./status";
import { DECLINE_REASONS, declinedText as declinedWords } from "./declines";

export { DECLINE_REASONS };

export type ChallengeStatus = "created" | "accepted" | "declined" | "canceled";
export type ChallengeSide = "random" | "attackers" | "defenders";

export interface ChallengePlayer {
  id: string;
  name: string;
  bot: boolean;
}

export interface Challenge {
  /** the waiting game's id */
  id: string;
  url: string;
  status: ChallengeStatus;
  from: ChallengePlayer;
  to: ChallengePlayer;
  ruleset: string;
  move_time: number;
  rated: boolean;
  /** the challenger's side */
  side: ChallengeSide;
  created: number;
  declineReason?: string;
}

/** What a player sees: open challenges to them (`incoming`) and from them (`outgoing`),
 *  newest first, and declines of their own challenges they have not dismissed. */
export interface ChallengeList {
  incoming: Challenge[];
  outgoing: Challenge[];
  declined: Challenge[];
}

export const NO_CHALLENGES: ChallengeList = { incoming: [], outgoing: [], declined: [] };

function newestFirst(list: Challenge[]): Challenge[] {
  return [...list].sort((a, b) => b.created - a.created || a.id.localeCompare(b.id));
}

function without(list: Challenge[], id: string): Challenge[] {
  return list.filter((c) => c.id !== id);
}

/** The list as `GET /api/challenge` answers it (declines already read stay read). */
export function loaded(prev: ChallengeList, answer: { in: Challenge[]; out: Challenge[] }): ChallengeList {
  const open = (c: Challenge) => c.status === "created";
  return { incoming: newestFirst(answer.in.filter(open)), outgoing: newestFirst(answer.out.filter(open)), declined: prev.declined };
}

/** A `challenge` frame: a challenge to or from `me` was made (again: it replaces). */
export function created(prev: ChallengeList, c: Challenge, me: string): ChallengeList {
  if (c.status !== "created") return gone(prev, c, me);
  if (c.to.id === me) return { ...prev, incoming: newestFirst([...without(prev.incoming, c.id), c]) };
  if (c.from.id === me) return { ...prev, outgoing: newestFirst([...without(prev.outgoing, c.id), c]) };
  return prev;
}

/** A `challenge_gone` frame: accepted, declined or cancelled. A decline of my own
 *  challenge is kept to be read. */
export function gone(prev: ChallengeList, c: Challenge, me: string): ChallengeList {
  const next: ChallengeList = { incoming: without(prev.incoming, c.id), outgoing: without(prev.outgoing, c.id), declined: prev.declined };
  if (c.status === "declined" && c.from.id === me) next.declined = [c, ...without(prev.declined, c.id)];
  return next;
}

/** The declined challenge read and put away. */
export function dismissed(prev: ChallengeList, id: string): ChallengeList {
  return { ...prev, declined: without(prev.declined, id) };
}

/** The header's count: what asks for the player's attention (challenges to answer and
 *  declines not yet read). */
export function attentionCount(list: ChallengeList): number {
  return list.incoming.length + list.declined.length;
}

// -- words ---------------------------------------------------------------------------------

/** "Ann declined: too fast, ask with more time per move." */
export function declinedText(c: Pick<Challenge, "to" | "declineReason">): string {
  return declinedWords(c.to.name, c.declineReason);
}

/** "Nielsen · 3 minutes a move · rated" */
export function termsText(c: Pick<Challenge, "ruleset" | "move_time" | "rated">): string {
  return `${RULES[c.ruleset]?.title ?? c.ruleset} · ${durationText(c.move_time)} a move · ${c.rated ? "rated" : "casual"}`;
}

/** The sides as the player `me` of the challenge plays them: "you play the defenders",
 *  "sides drawn at random". */
export function sideText(c: Pick<Challenge, "side" | "from">, me: string): string {
  if (c.side === "random") return "sides drawn at random";
  const mine = c.from.id === me ? c.side : c.side === "attackers" ? "defenders" : "attackers";
  return `you play the ${mine}`;
}

/** The rated line of the form: what a rated game against this player counts for. */
export function ratedHint(targetIsBot: boolean): string {
  return targetIsBot
    ? "A rated game against a bot account counts: your rating moves, and the bot's on the bots' own leaderboard."
    : "A rated game moves both ratings; a casual one counts for nothing.";
}

function sentence(text: string): string {
  const t = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

/** Words for a refusal of the challenge routes (the server's sentence where it names
 *  the case best). */
export function challengeErrorText(err: unknown): string {
  if (!(err instanceof ApiError)) return "Something went wrong. Please try again.";
  switch (err.code) {
    case "challenges_closed":
      return sentence(err.message || "This player does not take challenges from bots");
    case "too_many_challenges":
      return "You have as many open challenges as you may: cancel one, or wait for an answer, before sending another.";
    case "rate_limited":
      return `Too many challenges in a short time: ${err.message.replace(/^[^:]*: /, "")}`.replace(/\.?$/, ".");
    case "verification_required":
      return "Confirm your email address first: open the link we mailed you.";
    case "account_required":
    case "not_logged_in":
      return "Log in to send and answer challenges.";
    case "not_found":
      return "There is no such player or challenge any more.";
    case "bot_account":
      return "A bot account sends and accepts challenges through its API token, not from the site.";
    case "invitation_withdrawn":
      return "This challenge was cancelled meanwhile.";
    case "game_not_waiting":
      return "This challenge was answered meanwhile.";
    case "network":
      return err.message;
    default:
      return sentence(err.message);
  }
}
