// The lessons over HTTP (docs/protocol.md §2.12): the courses with the caller's stars, and a
// learner's move, which the server checks (the client is never trusted for a star).

import { request } from "./api";

export interface LessonStage {
  id: string;
  title: string;
  kind: "board" | "game";
  task: string;
  explanation: string;
  hint: string;
  side: "attackers" | "defenders" | "";
  start: string;
  prelude: string[];
  position: string;
  moves: number;
  legal: string[];
  bot_level: number;
}

export interface LessonCourse {
  ruleset: string;
  title: string;
  stages: LessonStage[];
}

export interface Learn {
  default: string;
  courses: LessonCourse[];
  stars: Record<string, string[]>;
}

export interface LessonVerdict {
  status: "continue" | "success" | "failure";
  move: string;
  reply: string | null;
  position: string;
  message: string;
  moves_left: number;
  legal: string[];
  star: boolean;
}

export const learnApi = {
  courses: () => request<Learn>("GET", "/api/learn"),
  move: (ruleset: string, stage: string, moves: string[]) =>
    request<LessonVerdict>("POST", `/api/learn/${encodeURIComponent(ruleset)}/${encodeURIComponent(stage)}/move`, { moves }),
};
