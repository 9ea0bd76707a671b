// `/verify`: check a finished game's record or a tournament's export — pasted, from a file,
// or fetched with `?game=<id>` / `?tournament=<id>` — with `POST /api/verify`, and say
// plainly what holds or what does not.

import { ApiError, type VerifyResult, api } from "../network/api";
import type { AppContext, Unmount } from "../context";
import { h } from "../dom";
import { RULES } from "../board/rules";
import { resultText } from "../logic/status";
import { formatName } from "../logic/tournament";

/** The hub accepts records up to 64 KiB, tournament exports (JSON) up to 1 MiB. */
const MAX_RECORD = 64 * 1024;
const MAX_EXPORT = 1024 * 1024;

/** A tournament's export is JSON; a game's record is text starting with a tag. */
function isExport(text: string): boolean {
  return text.trimStart().startsWith("{");
}
const GAME_ID_RE = /^[A-Za-z0-9_-]{6,32}$/;

function sentence(text: string): string {
  const t = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

export function mountVerify(root: HTMLElement, ctx: AppContext, search: string): Unmount {
  ctx.setTitle("Verify a game");
  let gone = false;
  let run = 0; // the latest verification; answers to older ones are dropped

  const text = h("textarea", {
    id: "record-text",
    class: "record-text",
    rows: 10,
    spellcheck: "false",
    autocapitalize: "off",
    autocomplete: "off",
    "aria-describedby": "record-help",
    placeholder: '[Game "…"]\n[Ruleset "nielsen"]\n[Commitment "…"]\n[Seed "…"]\n…\n\n1. g4-g3 d5-g5 2. …',
  });
  const file = h("input", { type: "file", id: "record-file", accept: ".txt,.record,.json,text/plain,application/json", class: "file-input" });
  const submit = h("button", { type: "submit", class: "btn btn-primary", id: "verify-button", text: "Verify" });
  const progress = h("p", { class: "waiting", id: "verify-progress", role: "status", hidden: true });
  const outcome = h("div", { class: "verify-outcome", id: "verify-result", "aria-live": "polite" });

  const form = h(
    "form",
    { class: "panel verify-form", id: "verify-form" },
    h("label", { for: "record-text", class: "field-label", text: "Game record or tournament export" }),
    text,
    h(
      "p",
      { class: "hint", id: "record-help" },
      "Paste a record here, or choose a file. A game's page has a “Download record” link and a “Verify this game” link once it has ended; a finished tournament's page has “Download the export” and “Verify”.",
    ),
    h(
      "div",
      { class: "verify-actions" },
      file,
      h("label", { class: "btn file-pick", for: "record-file" }, "Choose a file…"),
      submit,
    ),
  );

  const explain = h(
    "section",
    { class: "panel verify-explain", "aria-labelledby": "verify-what" },
    h("h2", { id: "verify-what", text: "What is checked" }),
    h("p", {
      text: "Everything left to chance in a game comes from its seed: 32 random bytes drawn when the game is created and kept secret until it ends. Only the seed's SHA-256, the commitment, is shown while the game runs. The check takes these steps and names the first one that fails:",
    }),
    h(
      "ol",
      { class: "verify-steps" },
      h("li", {}, "The record has a result, the seed and the commitment, and ", h("strong", { text: "SHA-256(seed) equals the commitment" }), "."),
      h(
        "li",
        {},
        h("strong", { text: "The sides follow from the seed: " }),
        h("code", { text: 'SHA-256("brandubh-live/sides/v1:" ‖ seed ‖ game id)' }),
        "; the game's creator attacks when the lowest bit of its first byte is 0, and defends when it is 1.",
      ),
      h("li", {}, h("strong", { text: "Every move is legal" }), ", in order, from the start position."),
      h(
        "li",
        {},
        h("strong", { text: "The result follows" }),
        ": the moves end the game as the record says — or, for a timeout, resignation, agreed draw or abort, they leave it running.",
      ),
    ),
    h(
      "p",
      { id: "verify-tournaments" },
      h("strong", { text: "A tournament's export" }),
      " (JSON) is checked the same way: its seed against the commitment shown from its creation, then every pairing recomputed from the seed, the joins and the results in order, and the standings from the results (docs/tournaments.md).",
    ),
    h(
      "p",
      { class: "hint" },
      "The full description is in docs/fair-play.md of the Brandubh Live source; the command ",
      h("code", { text: "brandubh verify RECORD_FILE" }),
      " runs the same check on your own computer.",
    ),
  );

  root.appendChild(
    h(
      "div",
      { class: "page page-verify" },
      h("h1", { text: new URLSearchParams(search).has("tournament") ? "Verify a tournament" : "Verify a game" }),
      h("p", {
        class: "lead",
        text: "Check that a finished game was fair: its sides were drawn from a seed fixed before it started, and every move and the result follow the rules.",
      }),
      form,
      progress,
      outcome,
      explain,
    ),
  );

  function showProgress(message: string | null): void {
    progress.replaceChildren();
    progress.hidden = message === null;
    if (message !== null) progress.append(h("span", { class: "spinner", "aria-hidden": "true" }), message);
  }

  function showOutcome(result: VerifyResult): void {
    if (result.ok && result.kind === "tournament") {
      const rows: [string, Node | string][] = [];
      if (result.tournament) rows.push(["Tournament", h("a", { href: `/t/${encodeURIComponent(result.tournament)}`, text: result.name ?? result.tournament })]);
      rows.push(["Format", formatName(result.format)]);
      rows.push(["Players", String(result.players)]);
      outcome.replaceChildren(
        h(
          "section",
          { class: "verdict verdict-ok", "data-ok": "true", "data-kind": "tournament", "aria-labelledby": "verdict-title" },
          h("h2", { id: "verdict-title" }, h("span", { class: "verdict-mark", "aria-hidden": "true", text: "✓" }), "The tournament verifies"),
          h("p", { text: "The seed matches its commitment, and every pairing and the standings recompute from the seed and the results." }),
          h("dl", { class: "info" }, ...rows.flatMap(([term, desc]) => [h("dt", { text: term }), h("dd", {}, desc)])),
        ),
      );
      return;
    }
    if (!result.ok && result.problems && result.problems.length > 0) {
      outcome.replaceChildren(
        h(
          "section",
          { class: "verdict verdict-fail", "data-ok": "false", "data-kind": "tournament", role: "alert", "aria-labelledby": "verdict-title" },
          h("h2", { id: "verdict-title" }, h("span", { class: "verdict-mark", "aria-hidden": "true", text: "✗" }), "The tournament does not verify"),
          h("ul", { class: "verdict-error", id: "verify-error" }, ...result.problems.map((p) => h("li", { text: sentence(p) }))),
        ),
      );
      return;
    }
    if (result.ok) {
      const rs = RULES[result.ruleset];
      const rows: [string, Node | string][] = [];
      if (result.game) rows.push(["Game", h("a", { href: `/g/${encodeURIComponent(result.game)}`, text: result.game })]);
      rows.push(["Rule set", rs ? rs.title : result.ruleset]);
      rows.push(["Moves", String(result.moves)]);
      rows.push(["Result", resultText({ winner: result.winner, reason: result.reason })]);
      outcome.replaceChildren(
        h(
          "section",
          { class: "verdict verdict-ok", "data-ok": "true", "aria-labelledby": "verdict-title" },
          h("h2", { id: "verdict-title" }, h("span", { class: "verdict-mark", "aria-hidden": "true", text: "✓" }), "The record verifies"),
          h("p", {
            text: "The seed matches the commitment, the sides follow from the seed, every move is legal and the result follows from them.",
          }),
          h("dl", { class: "info" }, ...rows.flatMap(([term, desc]) => [h("dt", { text: term }), h("dd", {}, desc)])),
        ),
      );
    } else {
      outcome.replaceChildren(
        h(
          "section",
          { class: "verdict verdict-fail", "data-ok": "false", role: "alert", "aria-labelledby": "verdict-title" },
          h("h2", { id: "verdict-title" }, h("span", { class: "verdict-mark", "aria-hidden": "true", text: "✗" }), "The record does not verify"),
          h("p", { class: "verdict-error", id: "verify-error", text: sentence(result.message) }),
        ),
      );
    }
  }

  function showProblem(message: string): void {
    outcome.replaceChildren(
      h(
        "section",
        { class: "verdict verdict-fail", "data-ok": "error", role: "alert" },
        h("p", { class: "verdict-error", id: "verify-error", text: message }),
      ),
    );
  }

  async function verify(record: string): Promise<void> {
    const mine = ++run;
    if (!record.trim()) {
      showProblem("Paste a record or choose a file first.");
      text.focus();
      return;
    }
    const size = new TextEncoder().encode(record).length;
    if (isExport(record) ? size > MAX_EXPORT : size > MAX_RECORD) {
      showProblem(isExport(record) ? "This export is over 1 MiB: the server checks exports up to that size." : "This record is over 64 KiB: the server checks records up to that size.");
      return;
    }
    outcome.replaceChildren();
    showProgress("Verifying…");
    submit.disabled = true;
    try {
      const result = await api.verify(record);
      if (!gone && mine === run) showOutcome(result);
    } catch (err) {
      if (!gone && mine === run) {
        showProblem(err instanceof ApiError ? `The record could not be checked: ${err.message}` : "The record could not be checked.");
      }
    } finally {
      if (!gone && mine === run) {
        showProgress(null);
        submit.disabled = false;
      }
    }
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void verify(text.value);
  });
  // A changed record has not been checked: the old verdict would mislead.
  text.addEventListener("input", () => {
    run += 1;
    outcome.replaceChildren();
  });
  file.addEventListener("change", async () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    if (chosen.size > MAX_EXPORT) {
      showProblem(`${chosen.name} is over 1 MiB: it cannot be a record or an export the server checks.`);
      return;
    }
    text.value = await chosen.text();
    file.value = "";
    void verify(text.value);
  });

  // `?game=<id>`: fetch that game's record and check it at once.
  const wanted = new URLSearchParams(search).get("game");
  if (wanted !== null) {
    if (!GAME_ID_RE.test(wanted)) {
      showProblem(`“${wanted}” is not a game id.`);
    } else {
      showProgress(`Fetching the record of game ${wanted}…`);
      api
        .record(wanted)
        .then((record) => {
          if (gone) return;
          text.value = record;
          return verify(record);
        })
        .catch((err: unknown) => {
          if (gone) return;
          showProgress(null);
          const why = err instanceof ApiError && err.code === "not_found" ? `There is no game ${wanted}.` : err instanceof ApiError ? sentence(err.message) : "";
          showProblem(`The record of game ${wanted} could not be fetched. ${why}`.trim());
        });
    }
  }

  // `?tournament=<id>`: fetch that tournament's export and check it at once.
  const event = new URLSearchParams(search).get("tournament");
  if (event !== null && wanted === null) {
    if (!GAME_ID_RE.test(event)) {
      showProblem(`“${event}” is not a tournament id.`);
    } else {
      ctx.setTitle("Verify a tournament");
      showProgress(`Fetching the export of tournament ${event}…`);
      api
        .tournamentExport(event)
        .then((data) => {
          if (gone) return;
          text.value = data;
          return verify(data);
        })
        .catch((err: unknown) => {
          if (gone) return;
          showProgress(null);
          const why = err instanceof ApiError && err.code === "not_found" ? `There is no tournament ${event}.` : err instanceof ApiError ? sentence(err.message) : "";
          showProblem(`The export of tournament ${event} could not be fetched. ${why}`.trim());
        });
    }
  }

  return () => {
    gone = true;
  };
}
