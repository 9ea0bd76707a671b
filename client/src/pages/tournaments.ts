// `/tournaments`: the events running, upcoming and finished (each a link to `/t/<id>`), and
// the form to create one (confirmed accounts; a guest is told why up front, in room kept
// for it from the first paint, so the answer moves nothing).

import { confirmFirst, isNewcomer } from "../network/account";
import type { AppContext, Unmount } from "../context";
import { clear, h } from "../dom";
import { durationWords } from "../logic/lobby";
import { RULES, RULESET_ORDER } from "../board/rules";
import {
  ARENA_DURATIONS,
  ARENA_MOVE_TIMES,
  LONG_MOVE_TIMES,
  MAX_ROUNDS,
  MIN_ROUNDS,
  NAME_MAX,
  checkCreate,
  countdown,
  fieldOf,
  formatLine,
  playersText,
  termsLine,
  tournamentApi,
  tournamentErrorText,
  whenText,
  type PagedSection,
  type TournamentFormat,
  type TournamentLists,
  type TournamentSummary,
} from "../logic/tournament";
import "../tournaments.css";

/** The lists are fetched again this often while the page is open (the event pages are live). */
export const LIST_REFRESH_MS = 10_000;

/** When an event may start, in minutes from now (0: a time of one's own; -1: at once, arenas
 *  only, which players join while they run). */
const STARTS = [
  [-1, "Now"],
  [1, "In 1 minute"],
  [5, "In 5 minutes"],
  [15, "In 15 minutes"],
  [30, "In 30 minutes"],
  [60, "In 1 hour"],
  [1440, "In 1 day"],
  [4320, "In 3 days"],
  [0, "At a time I choose…"],
] as const;

function serverNow(ctx: AppContext): number {
  return ctx.live.clock.now(Date.now());
}

function radioChips(name: string, values: readonly (readonly [string | number, string])[], checked: string | number, idPrefix: string, label: string): HTMLElement {
  return h(
    "div",
    { class: "chips", role: "radiogroup", "aria-label": label },
    ...values.map(([value, text]) => {
      const input = h("input", { type: "radio", name, value: String(value), id: `${idPrefix}-${value}` });
      input.checked = value === checked;
      return h("label", { class: "chip" }, input, h("span", { text }));
    }),
  );
}

/** When an event starts or ends, in words, at server time `now`. */
function whenLine(t: TournamentSummary, now: number): string {
  if (t.status === "finished") return `Finished · ${whenText(t.ends_at ?? t.starts_at)}`;
  const c = countdown(t, now);
  if (t.status === "upcoming") return `${whenText(t.starts_at)} · ${c.label.toLowerCase()} ${c.time}`.trim();
  return t.format === "arena" ? `${c.label} ${c.time}`.trim() : `Running since ${whenText(t.starts_at)}`;
}

/** One event in a list: a link to its page with its terms and when. */
function eventItem(t: TournamentSummary, now: number, whens: Map<HTMLElement, TournamentSummary>): HTMLElement {
  const when = h("span", { class: "t-when", text: whenLine(t, now) });
  if (t.status !== "finished") whens.set(when, t);
  return h(
    "li",
    { class: "t-item", "data-tournament": t.id, "data-status": t.status },
    h(
      "a",
      { href: `/t/${encodeURIComponent(t.id)}`, class: "t-link" },
      h("span", { class: "t-name", text: t.name }),
      h(
        "span",
        { class: "t-meta" },
        h("span", { class: `tag tag-format tag-${t.format}`, text: formatLine(t) }),
        h("span", { class: "t-terms", text: termsLine(t) }),
      ),
      h("span", { class: "t-meta t-meta2" }, when, h("span", { class: "t-players", text: playersText(t.players) })),
    ),
  );
}

export function mountTournaments(root: HTMLElement, ctx: AppContext): Unmount {
  ctx.setTitle("Tournaments");
  let gone = false;
  let lists: TournamentLists | null = null;

  // -- the lists ----------------------------------------------------------------------------

  // The upcoming and the running come a page at a time: "Show more" fetches the next, whose
  // events stay listed (after the first page's, refreshed) until the page is left.
  const more: Record<PagedSection, TournamentSummary[]> = { upcoming: [], running: [] };
  const cursors: Record<PagedSection, string | null> = { upcoming: null, running: null };
  const sections = (["running", "upcoming", "finished"] as const).map((status) => {
    const list = h("ul", { class: "t-list", id: `t-${status}` });
    const empty = h("p", { class: "muted empty", id: `t-${status}-empty`, text: "Loading…" });
    const title = { running: "Running now", upcoming: "Starting soon", finished: "Finished" }[status];
    const moreButton = h("button", { type: "button", class: "btn t-more", id: `t-${status}-more`, text: "Show more", hidden: true });
    if (status !== "finished") moreButton.addEventListener("click", () => void loadMore(status));
    const section = h("section", { class: "panel t-section", "aria-labelledby": `t-${status}-h` }, h("h2", { id: `t-${status}-h`, text: title }), list, empty, moreButton);
    return { status, list, empty, section, moreButton };
  });
  const listError = h("p", { class: "error", role: "alert", id: "t-list-error" });

  // The countdowns in the lists, updated in place each second (the links keep their focus).
  const whens = new Map<HTMLElement, TournamentSummary>();
  function renderLists(): void {
    const now = serverNow(ctx);
    whens.clear();
    for (const s of sections) {
      const first = lists?.[s.status] ?? [];
      const extra = s.status === "finished" ? [] : more[s.status].filter((t) => !first.some((f) => f.id === t.id));
      const items = [...first, ...extra];
      s.moreButton.hidden = s.status === "finished" || !cursors[s.status];
      clear(s.list);
      for (const t of items) s.list.appendChild(eventItem(t, now, whens));
      s.list.dataset.count = String(items.length);
      s.empty.hidden = items.length > 0;
      s.empty.textContent = !lists
        ? "Loading…"
        : { running: "No tournament is running right now.", upcoming: "None is scheduled. Create one: others find it here.", finished: "None has finished yet." }[s.status];
    }
  }

  async function load(): Promise<void> {
    try {
      const got = await tournamentApi.list();
      if (gone) return;
      lists = got;
      // The first page's cursor, unless further pages were fetched already.
      for (const section of ["upcoming", "running"] as const) {
        if (!more[section].length) cursors[section] = got.next?.[section] ?? null;
      }
      listError.textContent = "";
    } catch (err) {
      if (gone) return;
      listError.textContent = tournamentErrorText(err);
    }
    renderLists();
  }

  async function loadMore(section: PagedSection): Promise<void> {
    const after = cursors[section];
    if (!after) return;
    try {
      const got = await tournamentApi.more(section, after);
      if (gone) return;
      more[section] = [...more[section], ...(got[section] ?? [])];
      cursors[section] = got.next?.[section] ?? null;
      listError.textContent = "";
    } catch (err) {
      if (gone) return;
      listError.textContent = tournamentErrorText(err);
    }
    renderLists();
  }

  // -- the create form ----------------------------------------------------------------------

  const name = h("input", { type: "text", id: "tc-name", name: "name", maxlength: NAME_MAX, autocomplete: "off", placeholder: "Friday blitz arena", required: true });
  const formats = radioChips("format", [["arena", "Arena"], ["round_robin", "Round robin"], ["swiss", "Swiss"]], "arena", "tc-format", "Format");
  const formatHelp = h("p", { class: "hint", id: "tc-format-help" });
  const ruleset = h("select", { id: "tc-ruleset", name: "ruleset" });
  for (const id of RULESET_ORDER) ruleset.appendChild(h("option", { value: id, text: RULES[id].title }));
  const liveTimes = radioChips("move_time", ARENA_MOVE_TIMES.map((s) => [s, durationWords(s)] as const), 180, "tc-time", "Time for each move");
  const longTimes = radioChips("move_time_long", LONG_MOVE_TIMES.map((s) => [s, durationWords(s)] as const), 86_400, "tc-time", "Time for each move");
  const starts = h("select", { id: "tc-starts", name: "starts" });
  for (const [mins, text] of STARTS) starts.appendChild(h("option", { value: String(mins), text }));
  starts.value = "5";
  const startAt = h("input", { type: "datetime-local", id: "tc-start-at", name: "start_at", hidden: true });
  const duration = radioChips("duration", ARENA_DURATIONS.map((m) => [m, `${m} min`] as const), 60, "tc-duration", "How long the arena lasts");
  const rounds = h("input", { type: "number", id: "tc-rounds", name: "rounds", min: MIN_ROUNDS, max: MAX_ROUNDS, value: 5, inputmode: "numeric" });
  const durationField = h("div", { class: "field", id: "tc-duration-field" }, h("span", { class: "field-name", text: "Duration" }), duration);
  const roundsField = h("div", { class: "field", id: "tc-rounds-field" }, h("label", { for: "tc-rounds", class: "field-name", text: `Rounds (${MIN_ROUNDS}–${MAX_ROUNDS})` }), rounds);
  const submit = h("button", { type: "submit", class: "btn btn-primary", id: "tc-submit", text: "Create the tournament" });
  const createError = h("p", { class: "error", role: "alert", id: "tc-error" });
  const fieldset = h(
    "fieldset",
    { class: "tc-fields", id: "tc-fields" },
    h("div", { class: "field" }, h("label", { for: "tc-name", class: "field-name", text: "Name" }), name),
    h("div", { class: "field" }, h("span", { class: "field-name", text: "Format" }), formats, formatHelp),
    h("div", { class: "field" }, h("label", { for: "tc-ruleset", class: "field-name", text: "Rule set" }), ruleset),
    h("div", { class: "field" }, h("span", { class: "field-name", text: "Time for each move" }), liveTimes, longTimes),
    h("div", { class: "field" }, h("label", { for: "tc-starts", class: "field-name", text: "Starts" }), starts, startAt),
    durationField,
    roundsField,
    h("div", { class: "form-actions" }, submit),
    createError,
  );
  const form = h("form", { class: "tc-form", id: "tc-form", novalidate: true }, fieldset);
  // Who may create: said in one slot whose room is there from the first paint.
  const note = h("p", { class: "tc-note", id: "tc-note", "data-known": "false", text: "Checking whether you may create one…" });
  const createPanel = h("section", { class: "panel t-create", "aria-labelledby": "tc-h" }, h("h2", { id: "tc-h", text: "Create a tournament" }), note, form);

  const HELP: Record<TournamentFormat, string> = {
    arena: "Live games for a set time: whoever is free is paired at once. Win 2, draw 1; after two wins in a row each win counts double.",
    round_robin: "Everyone plays everyone, a two-game match each (sides swapped), all of a round at once. Up to about 12 players.",
    swiss: "A set number of rounds; each round pairs players with the same score, never the same two twice. For more players.",
  };

  function selectedFormat(): TournamentFormat {
    return (new FormData(form).get("format") as TournamentFormat | null) ?? "arena";
  }

  let lastFormat: TournamentFormat | null = null;
  function renderForm(): void {
    const f = selectedFormat();
    formatHelp.textContent = HELP[f];
    liveTimes.hidden = f !== "arena";
    longTimes.hidden = f === "arena";
    durationField.hidden = f !== "arena";
    roundsField.hidden = f !== "swiss";
    if (f !== lastFormat) {
      // An arena starts soon; a correspondence event gives people a day to sign up.
      if (lastFormat !== null && starts.value !== "0") starts.value = f === "arena" ? "5" : "1440";
      lastFormat = f;
    }
    startAt.hidden = starts.value !== "0";
    // Only an arena starts at once: a round robin or Swiss needs its players first.
    const now = starts.querySelector<HTMLOptionElement>('option[value="-1"]');
    if (now) now.disabled = now.hidden = f !== "arena";
    if (f !== "arena" && starts.value === "-1") starts.value = "1440";
  }
  form.addEventListener("change", renderForm);

  function markField(field: string | null): void {
    for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
    createError.dataset.field = field ?? "";
    const target = { name, ruleset, starts_at: starts.value === "0" ? startAt : starts, rounds }[field ?? ""] as HTMLElement | undefined;
    target?.setAttribute("aria-invalid", "true");
  }

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = selectedFormat();
    const data = new FormData(form);
    const now = serverNow(ctx);
    const mins = Number(starts.value);
    // A chosen local time is the browser's clock; "in N minutes" counts on the server's.
    const startsAt = mins < 0 ? now : mins > 0 ? now + mins * 60_000 : startAt.value ? new Date(startAt.value).getTime() - Date.now() + now : NaN;
    const checked = checkCreate(
      {
        name: name.value,
        format: f,
        ruleset: ruleset.value,
        move_time: Number(data.get(f === "arena" ? "move_time" : "move_time_long")),
        starts_at: startsAt,
        duration_min: Number(data.get("duration")),
        rounds: Number(rounds.value),
      },
      now,
    );
    if (!checked.ok) {
      createError.textContent = checked.message;
      markField(checked.field);
      return;
    }
    markField(null);
    createError.textContent = "";
    submit.disabled = true;
    submit.textContent = "Creating…";
    try {
      const made = await tournamentApi.create(checked.body);
      if (!gone) ctx.navigate(`/t/${encodeURIComponent(made.id)}`);
    } catch (err) {
      if (gone) return;
      createError.textContent = tournamentErrorText(err);
      markField(err instanceof Error ? fieldOf(err.message) : null);
      submit.disabled = false;
      submit.textContent = "Create the tournament";
    }
  });

  fieldset.disabled = true;
  void ctx.me.then((me) => {
    if (gone) return;
    note.dataset.known = "true";
    clear(note);
    if (me?.account) {
      note.dataset.can = "true";
      note.append("Anyone with an account may join it. You play in it only if you join it too.");
      fieldset.disabled = false;
      return;
    }
    note.dataset.can = "false";
    note.classList.add("needs-account");
    if (isNewcomer(me)) {
      note.append(confirmFirst(me.pending));
      return;
    }
    note.append(
      "Creating one needs an account: ",
      h("a", { href: "/signup?next=/tournaments", id: "tc-signup", text: "sign up" }),
      " (free, a moment) or ",
      h("a", { href: "/login?next=/tournaments", id: "tc-login", text: "log in" }),
      ". You can follow any event without one.",
    );
  });

  root.append(
    h(
      "div",
      { class: "page page-tournaments" },
      h("h1", { text: "Tournaments" }),
      h("p", { class: "lead muted", text: "Arenas for an evening of live games; round robins and Swiss events played by correspondence, an hour to a week per move. Every pairing is derived from the event's own seed, so anyone can check it afterwards." }),
      // On a phone the form is under the lists: one tap down to it.
      h("p", { class: "t-create-jump" }, h("a", { href: "#tc-h", class: "btn", id: "tc-jump", text: "Create a tournament ↓" })),
      listError,
      h("div", { class: "t-grid" }, h("div", { class: "t-col" }, ...sections.map((s) => s.section)), h("div", { class: "t-col" }, createPanel)),
    ),
  );
  renderForm();
  renderLists();
  void load();
  const refresh = setInterval(() => void load(), LIST_REFRESH_MS);
  const tick = setInterval(() => {
    const now = serverNow(ctx);
    for (const [el, t] of whens) el.textContent = whenLine(t, now);
  }, 1000);
  return () => {
    gone = true;
    clearInterval(refresh);
    clearInterval(tick);
  };
}
