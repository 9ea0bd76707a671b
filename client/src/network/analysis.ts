// The analysis by the bot (docs/analysis.md): its JSON, the HTTP calls that ask for it, the
// analysis board's walk and evaluation, and their words (judgment marks, refusals, chances).
// Pure but for the `analysisApi` calls.

import { ApiError, request, requestText } from "./api";
import type { Side } from "../board/notation";

export type Judgment = "inaccuracy" | "mistake" | "blunder";
export const JUDGMENTS: readonly Judgment[] = ["inaccuracy", "mistake", "blunder"];

/** A win the search proved: who wins, in how many plies, in words. */
export interface Forced {
  winner: Side;
  in: number;
  text: string;
}

/** The evaluation of one position (the defenders' point of view). */
export interface Eval {
  score: number;
  /** the defenders' chance to win, 0..1 */
  chance: number;
  forced: Forced | null;
  /** the best line from this position */
  pv: string[];
}

/** One move of the game with the evaluation of the position after it. */
export interface PlyEval extends Eval {
  ply: number;
  move: string;
  side: Side;
  judgment: Judgment | null;
  /** the move the search preferred instead (null: the played move was the best) */
  best: string | null;
  /** the preferred line from the position before the move */
  line: string[];
}

export interface SideSummary {
  inaccuracy: number;
  mistake: number;
  blunder: number;
  /** 0..100 */
  accuracy: number;
}

export interface Analysis {
  version: number;
  ruleset: string;
  nodes: number;
  start: Eval;
  plies: PlyEval[];
  sides: Record<Side, SideSummary>;
}

/** `GET /api/games/<id>/analysis` (and what the request answers). */
export interface AnalysisStatus {
  status: "none" | "queued" | "running" | "done";
  position?: number;
  ply?: number;
  of?: number;
  analysis?: Analysis;
}

export interface WalkStep {
  position: string;
  turn: Side;
  legal: string[];
  result: { winner: Side | null; reason: string } | null;
}

export type PositionEval = Eval & { cached?: boolean };

/** Why a tried move was judged as it was (brandubh.analysis.exercise). */
export type TriedWhy = "best" | "played" | "won" | "lost" | "win_lost" | "chance";

/** `POST /api/games/<id>/analysis/exercise`: a move tried in place of a judged one. */
export interface TriedMove {
  ply: number;
  /** the canonical text of the move tried */
  move: string;
  good: boolean;
  why: TriedWhy;
  /** what the move would have been judged (null: nothing) */
  judgment: Judgment | null;
  /** the mover's chance before and after it, 0..1 */
  before: number;
  after: number;
  eval: Eval;
  nodes: number;
  cached: boolean;
}

/** `POST /api/otn/import`: an OpenTafl record, rules string or position as our line. */
export interface OtnImport {
  ruleset: string;
  position: string | null;
  moves: string[];
  result: { winner: Side | null; reason: string } | null;
  attackers: string | null;
  defenders: string | null;
}

const enc = encodeURIComponent;

export const analysisApi = {
  status: (game: string) => request<AnalysisStatus>("GET", `/api/games/${enc(game)}/analysis`),
  ask: (game: string) => request<AnalysisStatus>("POST", `/api/games/${enc(game)}/analysis`, {}),
  walk: (ruleset: string, position: string | null, moves: readonly string[]) =>
    request<{ steps: WalkStep[] }>("POST", "/api/board/walk", position ? { ruleset, position, moves } : { ruleset, moves }),
  tryMove: (game: string, ply: number, move: string) =>
    request<TriedMove>("POST", `/api/games/${enc(game)}/analysis/exercise`, { ply, move }),
  evaluate: (ruleset: string, position: string) =>
    request<PositionEval>("POST", "/api/analysis/position", { ruleset, position }),
  /** `ruleset`: the rule set a bare OTN position (one without rules) is played under. */
  importOtn: async (text: string, ruleset: string) =>
    JSON.parse(await requestText("POST", `/api/otn/import?ruleset=${enc(ruleset)}`, text)) as OtnImport,
};

/** Where a game's record with the analysis as comments is downloaded. */
export function analysisRecordUrl(game: string): string {
  return `/api/games/${enc(game)}/record?analysis=1`;
}

/** The mark of a judgment in the move list and on the graph, with its words. */
export function judgmentMark(j: Judgment | null): { symbol: string; title: string } | null {
  switch (j) {
    case "inaccuracy":
      return { symbol: "?!", title: "Inaccuracy" };
    case "mistake":
      return { symbol: "?", title: "Mistake" };
    case "blunder":
      return { symbol: "??", title: "Blunder" };
    default:
      return null;
  }
}

/** "Blunder: b3-b6 was better (line: b3-b6 Kd4-d7 …)", for a move's title and the caption. */
export function judgmentText(p: PlyEval): string {
  const mark = judgmentMark(p.judgment);
  if (!mark) return "";
  const better = p.best ? `: ${p.best} was better` : "";
  return `${mark.title}${better}`;
}

/** "64 %" — the defenders' chance as a whole percentage. */
export function chanceText(chance: number): string {
  return `${Math.round(Math.min(1, Math.max(0, chance)) * 100)} %`;
}

/** The evaluation in words: the forced win if proved, else both sides' chances. */
export function evalText(e: Eval): string {
  if (e.forced) return `${e.forced.text[0].toUpperCase()}${e.forced.text.slice(1)} (${e.forced.winner} win)`;
  const d = Math.round(Math.min(1, Math.max(0, e.chance)) * 100);
  return `Defenders ${d} % · attackers ${100 - d} %`;
}

/** "ply 23 of 60" / "waiting: you are number 2 in the queue" for a status. */
export function progressText(s: AnalysisStatus): string {
  if (s.status === "running") return s.of ? `Analysing: ply ${s.ply ?? 0} of ${s.of}` : "Analysing…";
  if (s.status === "queued") {
    if (s.position === 1) return "Queued: yours is next.";
    return s.position ? `Queued: you are number ${s.position}.` : "Queued.";
  }
  return "";
}

/** "the queue is full" -> "The queue is full." */
function sentence(text: string): string {
  const t = text.trim();
  if (!t) return t;
  return `${t[0].toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? "" : "."}`;
}

/** A refusal or failure of the analysis requests, in words. */
export function analysisErrorText(err: unknown): string {
  if (!(err instanceof ApiError)) return "Something went wrong. Try again.";
  switch (err.code) {
    case "not_finished":
      return "The game is still being played: it can be analysed once it has ended.";
    case "not_allowed":
      return "Only the game's players, or for a public game anyone with a confirmed account, may ask for its analysis.";
    case "analysis_limit":
    case "analysis_busy":
      // The server's words say how many and when ("… so yours would be number 3; …").
      return sentence(err.message);
    case "own_game":
      return "You are playing this game now: no engine help during your own game.";
    case "position_in_play":
      return "A game in progress stands in this position, or one move from it: no engine help for games being played.";
    case "illegal_move":
      return `The line stops there: ${err.message}.`;
    case "otn_invalid":
    case "otn_unsupported":
      // The server's words name the line, the turn and the move, or the rules that differ.
      return `That cannot be loaded: ${err.message}`;
    case "bad_position":
      return `That is not a position the board can show: ${err.message}`;
    case "not_analysed":
      return "This game has no analysis yet: ask for it first.";
    case "not_a_mistake":
      return sentence(err.message);
    default:
      return err.message;
  }
}

/** The chance of each position of the game: the start, then after each ply. */
export function chances(a: Analysis): number[] {
  return [a.start.chance, ...a.plies.map((p) => p.chance)];
}
