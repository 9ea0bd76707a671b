// What the lesson pages decide without the server: which stage comes next, what to call a
// course's progress, the words of a move's answer.

import type { LessonCourse, LessonVerdict } from "../network/learn";

/** The first stage without a star (the one to do next), or null when all have one. Stages
 *  that are games carry no star: the next one is the game once the boards are done. */
export function nextStage(course: LessonCourse, stars: readonly string[]): string | null {
  const done = new Set(stars);
  const open = course.stages.find((s) => s.kind === "board" && !done.has(s.id));
  if (open) return open.id;
  const game = course.stages.find((s) => s.kind === "game");
  return game ? game.id : null;
}

/** "3 of 12 stars": the boards with a star over every board of the course. */
export function progressText(course: LessonCourse, stars: readonly string[]): string {
  const boards = course.stages.filter((s) => s.kind === "board");
  const done = boards.filter((s) => stars.includes(s.id)).length;
  return `${done} of ${boards.length} stars`;
}

/** The stage after `id` in the course, or null after the last. */
export function stageAfter(course: LessonCourse, id: string): string | null {
  const i = course.stages.findIndex((s) => s.id === id);
  return i >= 0 && i + 1 < course.stages.length ? course.stages[i + 1].id : null;
}

/** The side that answers the learner. */
export function otherSide(side: string): string {
  return side === "attackers" ? "defenders" : "attackers";
}

/** What the page says after a move that keeps the stage going. */
export function goingOnText(verdict: LessonVerdict, side: string): string {
  const left = verdict.moves_left === 1 ? "1 move left" : `${verdict.moves_left} moves left`;
  return verdict.reply ? `The ${otherSide(side)} answered ${verdict.reply}. ${left}.` : `${left}.`;
}
