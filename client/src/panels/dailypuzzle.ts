// The home page's puzzle of the day (GET /api/puzzles/daily): a small board of its start
// and one link to solve it (/puzzles/daily). Its place is kept from the first paint; with
// no puzzle kept, or the server out of reach, it says so in the same place.

import "../puzzles.css";
import { Board } from "../board/board";
import { parsePosition } from "../board/notation";
import { h } from "../dom";
import { puzzlesApi } from "../network/puzzles";

export function dailyPuzzleCard(): HTMLElement {
  const board = new Board(() => undefined);
  const words = h("p", { id: "home-daily-words", text: "Finding today's puzzle…" });
  const solve = h("a", { href: "/puzzles/daily", class: "btn btn-small", id: "home-daily-solve", "data-nav": "/puzzles", text: "Solve it" });
  const card = h(
    "section",
    { class: "panel home-daily", id: "home-daily", "aria-labelledby": "home-daily-h", "data-ready": "false" },
    h("a", { href: "/puzzles/daily", "aria-label": "Solve the puzzle of the day", tabindex: -1 }, board.root),
    h("div", { class: "daily-words" }, h("h2", { id: "home-daily-h", text: "Puzzle of the day" }), words, solve),
  );
  board.root.setAttribute("aria-hidden", "true");
  puzzlesApi.daily().then(
    (daily) => {
      const pos = parsePosition(daily.puzzle.position);
      board.update({ position: pos, legal: [], interactive: false, last: null, pending: null, ply: 0, status: "ended", turn: null });
      words.textContent = `${daily.puzzle.prompt}. Rated ${daily.puzzle.rating}.`;
      card.dataset.puzzle = daily.puzzle.id;
      card.dataset.ready = "true";
    },
    () => {
      words.textContent = "No puzzle today: try the puzzles page later.";
      solve.setAttribute("href", "/puzzles");
      card.dataset.ready = "none";
    },
  );
  return card;
}
