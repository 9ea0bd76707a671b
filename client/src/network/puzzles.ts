// Puzzles over HTTP (docs/protocol.md §2.13): the day's puzzle, a player's next one, a
// chosen one, each move judged by the server (the solution stays there until the end).

import { request } from "./api";
import type { Side } from "../board/notation";

export type PuzzleMode = "rated" | "streak";
export type Theme = "escape" | "capture" | "defend";

export interface PuzzleView {
  id: string;
  ruleset: string;
  position: string;
  side: Side;
  prompt: string;
  legal: string[];
  depth: number;
  rating: number;
  plays: number;
}

export interface Started {
  puzzle: PuzzleView;
  mode: PuzzleMode;
  ply: number;
  streak: number;
  rating: number;
}

export interface Daily extends Started {
  date: string;
}

export interface Answer {
  result: "right" | "solved" | "failed";
  move: string;
  moved: string;
  reply: string | null;
  ply: number;
  position: string;
  legal: string[];
  right: string | null;
  refutation: string | null;
  solution: string[] | null;
  theme: Theme | null;
  rated: boolean;
  rating: { before: number; after: number } | null;
  streak: number | null;
  best_streak: number | null;
}

export interface Standing {
  rating: number;
  rd: number;
  provisional: boolean;
  attempts: number;
  best_streak: number;
  account: boolean;
}

export const puzzlesApi = {
  daily: () => request<Daily>("GET", "/api/puzzles/daily"),
  me: () => request<Standing>("GET", "/api/puzzles/me"),
  next: (mode: PuzzleMode, theme: Theme | null) =>
    request<Started>("POST", "/api/puzzles/next", theme ? { mode, theme } : { mode }),
  start: (id: string) => request<Started>("POST", `/api/puzzles/${encodeURIComponent(id)}/start`),
  move: (id: string, ply: number, move: string) =>
    request<Answer>("POST", `/api/puzzles/${encodeURIComponent(id)}/move`, { ply, move }),
};
