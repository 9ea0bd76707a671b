// `/learn` and `/learn/<rule set>/<stage>`: the lessons (docs/learn.md). The list shows a
// course per rule set (a switch, nielsen first) with a star on each stage done and the next
// one marked; a stage shows its task, the board, the explanation and a hint. Every move goes
// to the server, which checks it with the engine and answers (the other side's reply, a
// success and its star, or why the move fails); the last stage starts a game against the bot.

import "../learn.css";
import { ApiError, api } from "../network/api";
import { type Learn, type LessonCourse, type LessonStage, type LessonVerdict, learnApi } from "../network/learn";
import { Board } from "../board/board";
import { parsePosition } from "../board/notation";
import type { AppContext, Unmount } from "../context";
import { clear, h } from "../dom";
import { goingOnText, nextStage, progressText, stageAfter } from "../logic/learn";

const FIRST_GAME_MOVE_TIME = 180; // as the home page's bot game: the bot answers at once

function loadError(err: unknown): string {
  return err instanceof ApiError ? `The lessons could not be loaded: ${err.message}` : "The lessons could not be loaded.";
}

function courseOf(learn: Learn, ruleset: string): LessonCourse | undefined {
  return learn.courses.find((c) => c.ruleset === ruleset);
}

/** `/learn` (or `/learn/<rule set>`): the courses, one shown at a time. */
export function mountLearn(root: HTMLElement, ctx: AppContext, chosen: string): Unmount {
  ctx.setTitle("Learn");
  let gone = false;
  const status = h("p", { class: "hint", id: "learn-status", "aria-live": "polite", text: "Loading the lessons…" });
  const switcher = h("div", { class: "learn-switch", id: "learn-switch", role: "group", "aria-label": "Rule set" });
  const progress = h("p", { class: "learn-progress", id: "learn-progress" });
  const list = h("ol", { class: "learn-stages", id: "learn-stages" });
  root.append(
    h(
      "div",
      { class: "page page-learn", id: "learn" },
      h("h1", { text: "Learn to play" }),
      h("p", { class: "hero-lead", text: "Short lessons, each a small board and one goal: from how the pieces move to your first game against the bot." }),
      switcher,
      status,
      progress,
      list,
    ),
  );

  function show(learn: Learn, ruleset: string): void {
    const course = courseOf(learn, ruleset) ?? learn.courses[0];
    const stars = learn.stars[course.ruleset] ?? [];
    const next = nextStage(course, stars);
    for (const b of switcher.querySelectorAll<HTMLButtonElement>("button")) b.setAttribute("aria-pressed", String(b.dataset.ruleset === course.ruleset));
    progress.textContent = `${course.title}: ${progressText(course, stars)}`;
    clear(list);
    course.stages.forEach((stage, i) => {
      const done = stars.includes(stage.id);
      const isNext = stage.id === next;
      const item = h(
        "li",
        { class: `learn-stage${done ? " done" : ""}${isNext ? " next" : ""}`, "data-stage": stage.id },
        h(
          "a",
          { href: `/learn/${course.ruleset}/${stage.id}` },
          h("span", { class: "learn-no", text: String(i + 1) }),
          h("span", { class: "learn-name" }, h("strong", { text: stage.title }), h("span", { class: "learn-task", text: stage.task })),
          h("span", {
            class: `learn-star${done ? " on" : ""}`,
            "aria-label": stage.kind === "game" ? "a game" : done ? "done: a star" : "not done yet",
            text: stage.kind === "game" ? "▶" : done ? "★" : "☆",
          }),
        ),
        isNext ? h("span", { class: "learn-next-tag", text: "Next" }) : null,
      );
      list.append(item);
    });
  }

  learnApi
    .courses()
    .then((learn) => {
      if (gone) return;
      status.textContent = "";
      status.hidden = true;
      for (const course of learn.courses) {
        const b = h("button", { type: "button", class: "btn btn-small", "data-ruleset": course.ruleset, text: course.title });
        b.addEventListener("click", () => {
          history.replaceState(null, "", `/learn/${course.ruleset}`);
          show(learn, course.ruleset);
        });
        switcher.append(b);
      }
      show(learn, chosen || learn.default);
    })
    .catch((err: unknown) => {
      if (!gone) status.textContent = loadError(err);
    });
  return () => {
    gone = true;
  };
}

/** `/learn/<rule set>/<stage>`: one stage. */
export function mountLesson(root: HTMLElement, ctx: AppContext, ruleset: string, stageId: string): Unmount {
  ctx.setTitle("Lesson");
  let gone = false;
  const page = h("div", { class: "page page-lesson", id: "lesson" }, h("p", { class: "hint", id: "lesson-status", text: "Loading the lesson…" }));
  root.append(page);
  learnApi
    .courses()
    .then((learn) => {
      if (gone) return;
      const course = courseOf(learn, ruleset);
      const stage = course?.stages.find((s) => s.id === stageId);
      clear(page);
      if (!course || !stage) {
        page.append(h("h1", { text: "No such lesson" }), h("p", {}, "There is no lesson here. ", h("a", { href: "/learn", text: "See every lesson" }), "."));
        return;
      }
      ctx.setTitle(`${stage.title} · Learn`);
      buildStage(page, course, stage, learn.stars[course.ruleset] ?? []);
    })
    .catch((err: unknown) => {
      if (!gone) page.querySelector("#lesson-status")!.textContent = loadError(err);
    });
  return () => {
    gone = true;
  };
}

function buildStage(page: HTMLElement, course: LessonCourse, stage: LessonStage, stars: string[]): void {
  const index = course.stages.indexOf(stage);
  const after = stageAfter(course, stage.id);
  const crumbs = h(
    "p",
    { class: "lesson-crumbs" },
    h("a", { href: `/learn/${course.ruleset}`, id: "lesson-back", text: `← ${course.title} lessons` }),
    h("span", { class: "muted", text: ` · stage ${index + 1} of ${course.stages.length}` }),
  );
  const had = stars.includes(stage.id);
  const star = h("span", { class: `lesson-star${had ? " on" : ""}`, id: "lesson-star", "aria-label": had ? "done: a star" : "no star yet", text: had ? "★" : "☆" });
  const heading = h("h1", { class: "lesson-title" }, h("span", { text: stage.title }), stage.kind === "board" ? star : null);
  const task = h("p", { class: "lesson-task", id: "lesson-task", text: stage.task });
  const explain = h("p", { class: "lesson-explain", id: "lesson-explain", text: stage.explanation });
  const next = h("a", { class: "btn btn-primary", id: "lesson-next", href: after ? `/learn/${course.ruleset}/${after}` : `/learn/${course.ruleset}`, text: after ? "Next →" : "All lessons", hidden: true });

  if (stage.kind === "game") {
    const error = h("p", { class: "error", id: "lesson-error", role: "alert" });
    const play = h("button", { type: "button", class: "btn btn-primary", id: "lesson-play", text: `Play the bot (level ${stage.bot_level})` });
    play.addEventListener("click", () => {
      play.disabled = true;
      error.textContent = "";
      api
        .createGame({ ruleset: course.ruleset, move_time: FIRST_GAME_MOVE_TIME, opponent: "bot", bot_level: stage.bot_level })
        // A full load: the game may have made this visitor's session.
        .then((game) => window.location.assign(game.url))
        .catch((err: unknown) => {
          play.disabled = false;
          error.textContent = err instanceof ApiError ? `The game could not be started: ${err.message}` : "The game could not be started.";
        });
    });
    page.append(crumbs, heading, task, explain, h("div", { class: "lesson-actions" }, play), error);
    return;
  }

  let moves: string[] = [];
  let position = stage.position;
  let legal = stage.legal;
  let last: string | null = stage.prelude.length ? stage.prelude[stage.prelude.length - 1] : null;
  let over = false;
  let busy = false;

  const board = new Board((move) => void play(move));
  const feedback = h("p", { class: "lesson-feedback", id: "lesson-feedback", "aria-live": "polite", "data-kind": "task", text: movesText(stage.moves) });
  const hint = h("p", { class: "lesson-hint", id: "lesson-hint", text: `Hint: ${stage.hint}`, hidden: true });
  const hintButton = h("button", { type: "button", class: "btn", id: "lesson-hint-btn", text: "Hint" });
  const retry = h("button", { type: "button", class: "btn", id: "lesson-retry", text: "Try again", hidden: true });
  const prelude = stage.prelude.length
    ? h("p", { class: "hint lesson-prelude", id: "lesson-prelude", text: `Already played: ${stage.prelude.join(" ")}. The position on the board has now come round twice.` })
    : null;
  hintButton.addEventListener("click", () => {
    hint.hidden = false;
    hintButton.disabled = true;
  });
  retry.addEventListener("click", () => reset());

  page.append(
    crumbs,
    heading,
    task,
    h(
      "div",
      { class: "lesson-layout" },
      h("div", { class: "lesson-board" }, board.root),
      h("div", { class: "lesson-side" }, feedback, h("div", { class: "lesson-actions" }, hintButton, retry, next), hint, explain, prelude),
    ),
  );
  draw();

  function movesText(n: number): string {
    const side = stage.side === "attackers" ? "the attackers" : "the defenders";
    return `You play ${side}: ${n === 1 ? "one move" : `${n} moves`}.`;
  }

  function draw(): void {
    board.update({
      position: parsePosition(position),
      legal: over || busy ? [] : legal,
      interactive: !over && !busy,
      last,
      pending: null,
      ply: moves.length * 2,
      status: over ? "finished" : "playing",
      turn: stage.side || null,
    });
  }

  function say(kind: "task" | "going" | "success" | "failure" | "refused", text: string): void {
    feedback.dataset.kind = kind;
    feedback.textContent = text;
  }

  function reset(): void {
    moves = [];
    position = stage.position;
    legal = stage.legal;
    last = stage.prelude.length ? stage.prelude[stage.prelude.length - 1] : null;
    over = false;
    retry.hidden = true;
    say("task", movesText(stage.moves));
    draw();
  }

  async function play(move: string): Promise<void> {
    if (over || busy) return;
    busy = true;
    draw();
    let verdict: LessonVerdict;
    try {
      verdict = await learnApi.move(course.ruleset, stage.id, [...moves, move]);
    } catch (err) {
      busy = false;
      say("refused", err instanceof ApiError ? err.message : "The move could not be checked: try again.");
      draw();
      return;
    }
    busy = false;
    moves.push(verdict.move);
    position = verdict.position;
    last = verdict.reply ?? verdict.move;
    legal = verdict.legal;
    if (verdict.status === "continue") {
      say("going", goingOnText(verdict, stage.side));
    } else if (verdict.status === "success") {
      over = true;
      say("success", verdict.message);
      star.textContent = "★";
      star.classList.add("on");
      star.setAttribute("aria-label", "done: a star");
      next.hidden = false;
      retry.hidden = false;
      retry.textContent = "Again";
    } else {
      over = true;
      say("failure", verdict.message);
      retry.hidden = false;
      retry.textContent = "Try again";
    }
    draw();
    board.animate(last);
  }
}
