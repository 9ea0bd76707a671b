// The words of a puzzle attempt, pure: the theme's hint, the rating change, what a wrong
// move came to.

import type { Side } from "../board/notation";
import type { Answer, Theme } from "../network/puzzles";

export const THEME_HINTS: Record<Theme, string> = {
  escape: "Theme: escape — the king reaches a corner.",
  capture: "Theme: capture — the king is taken.",
  defend: "Theme: defend — one move holds.",
};

export function otherSide(side: Side): Side {
  return side === "attackers" ? "defenders" : "attackers";
}

/** "Your puzzle rating: 1500 → 1538 (+38)", or why it did not move. */
export function ratingText(a: Pick<Answer, "rated" | "rating" | "streak">): string {
  if (!a.rating) return "";
  const { before, after } = a.rating;
  if (!a.rated) {
    return a.streak !== null ? `Streak puzzles are unrated (your rating: ${before}).` : `Unrated: you have tried this puzzle before (your rating: ${before}).`;
  }
  const d = after - before;
  return `Your puzzle rating: ${before} → ${after} (${d >= 0 ? "+" : "−"}${Math.abs(d)})`;
}

/** What the opponent's answer to a wrong move does, in words. */
export function refutationText(a: Pick<Answer, "move" | "refutation" | "right">, side: Side): string {
  const them = otherSide(side);
  const parts = [`${a.move} is not it.`];
  if (a.refutation) parts.push(`The ${them} answer ${a.refutation} (the arrow on the board).`);
  if (a.right) parts.push(`The move was ${a.right}.`);
  return parts.join(" ");
}

/** The message after a solved puzzle. */
export function solvedText(depth: number, streak: number | null): string {
  const base = depth > 1 ? `Solved: all ${depth} moves found.` : "Solved!";
  return streak !== null ? `${base} Streak: ${streak}.` : base;
}
