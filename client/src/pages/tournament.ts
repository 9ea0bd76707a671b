// `/t/<id>`: one tournament. Its settings, a countdown (to the start, to an arena's end, or
// round N of M), the standings as the server pushes them (`tournament` frames over the
// socket, never polled), each player's games, and join / withdraw / pause / resume.

import type { AppContext, Unmount } from "../context";
import { clear, h } from "../dom";
import { durationWords, rulesetName } from "../logic/lobby";
import {
  actionsFor,
  countdown,
  formatLine,
  formatName,
  latestGames,
  myPart,
  playersText,
  rememberTournamentGame,
  gameIds,
  standingRows,
  tournamentApi,
  tournamentErrorText,
  totalRounds,
  whenText,
  type PlayerGame,
  type TAction,
  type Tournament,
} from "../logic/tournament";
import { tournamentFeed } from "../network/tournamentfeed";
import "../tournaments.css";

const ACTION_WORDS: Record<TAction, [string, string]> = {
  join: ["Join the tournament", "Joining…"],
  withdraw: ["Withdraw", "Withdrawing…"],
  pause: ["Pause", "Pausing…"],
  resume: ["Resume", "Resuming…"],
};

const OUTCOME_MARK: Record<PlayerGame["outcome"], string> = { won: "1", lost: "0", draw: "½", aborted: "–", playing: "…", over: "✓" };
const OUTCOME_WORDS: Record<PlayerGame["outcome"], string> = { won: "won", lost: "lost", draw: "drawn", aborted: "aborted", playing: "in progress", over: "over" };

/** "Game 3: attackers against Ann, won" / "Round 2, game 1 against Ann, in progress". */
function gameWords(g: PlayerGame, i: number): string {
  const which = g.round === null ? `Game ${i + 1}` : `Round ${g.round}, game ${i + 1}`;
  return `${which}: ${g.side ? `${g.side} ` : ""}against ${g.opponent}, ${OUTCOME_WORDS[g.outcome]}`;
}

/** A player's games as small links, oldest first: "1", "0", "½", "…" (in progress); an
 *  arena's latest only, after "+n" for the earlier ones (the frame carries no more). */
function gameChips(t: Tournament, player: string): HTMLElement {
  const { games, earlier } = latestGames(t, player);
  return h(
    "span",
    { class: "t-games", "data-earlier": earlier },
    earlier > 0 ? h("span", { class: "t-g-more", title: `${earlier} earlier games`, text: `+${earlier}` }) : null,
    ...games.map((g, n) =>
      h("a", {
        href: `/g/${encodeURIComponent(g.id)}`,
        class: `t-g t-g-${g.outcome} t-g-${g.side ?? "unknown"}`,
        "data-game": g.id,
        "data-outcome": g.outcome,
        title: gameWords(g, earlier + n),
        "aria-label": gameWords(g, earlier + n),
        text: OUTCOME_MARK[g.outcome],
      }),
    ),
  );
}

function standingsTable(t: Tournament, me: string | null): HTMLElement {
  const rows = standingRows(t, me);
  const arena = t.format === "arena";
  const table = h(
    "table",
    { class: "table t-standings", id: "t-standings", "data-count": rows.length, "data-format": t.format },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { class: "t-rank", scope: "col", text: "#" }),
        h("th", { scope: "col", text: "Player" }),
        h("th", { class: "t-num", scope: "col", text: "Points" }),
        h("th", { class: "t-wdl", scope: "col", title: "wins / draws / losses", text: "W / D / L" }),
        arena ? null : h("th", { class: "t-tb", scope: "col", title: "Buchholz · Sonneborn–Berger", text: "Tie-breaks" }),
        h("th", { class: "t-gcol", scope: "col", text: "Games" }),
      ),
    ),
  );
  const body = h("tbody", {});
  for (const r of rows) {
    body.appendChild(
      h(
        "tr",
        { "data-player": r.id, "data-me": r.me ? "true" : null, "data-state": r.state || null, class: r.me ? "t-me" : null },
        h("td", { class: "t-rank", text: String(r.rank) }),
        h(
          "td",
          { class: "t-player" },
          h("a", { href: `/u/${encodeURIComponent(r.id)}`, class: "t-pname", text: r.name }),
          r.onFire ? h("span", { class: "tag t-fire", title: "Two wins in a row: the next win counts double", "aria-label": "on a streak: the next win counts double", text: "×2" }) : null,
          r.me ? h("span", { class: "tag tag-mine", text: "you" }) : null,
          r.state ? h("span", { class: `tag t-state t-state-${r.state}`, text: r.state }) : null,
        ),
        h("td", { class: "t-num t-points", text: r.points }),
        h("td", { class: "t-wdl", text: r.record }),
        arena ? null : h("td", { class: "t-tb", text: r.tiebreaks }),
        h("td", { class: "t-gcol" }, gameChips(t, r.id)),
      ),
    );
  }
  table.appendChild(body);
  return table;
}

/** Round robin and Swiss: each round's pairings with their games. */
function roundsList(t: Tournament): HTMLElement | null {
  const rounds = t.round_list ?? [];
  if (t.format === "arena" || rounds.length === 0) return null;
  return h(
    "section",
    { class: "panel t-rounds", id: "t-rounds", "aria-labelledby": "t-rounds-h" },
    h("h2", { id: "t-rounds-h", text: "Rounds" }),
    ...[...rounds].reverse().map((r) =>
      h(
        "div",
        { class: "t-round", "data-round": r.round },
        h("h3", { text: `Round ${r.round}` }),
        h(
          "ul",
          { class: "t-pairings" },
          ...r.pairings.map((p) =>
            h(
              "li",
              { class: "t-pairing" },
              h("span", { class: "t-pair-names", text: `${p.a?.name ?? "bye"} – ${p.b?.name ?? "bye"}` }),
              h(
                "span",
                { class: "t-pair-games" },
                ...p.games.map((g, i) =>
                  h("a", {
                    href: `/g/${encodeURIComponent(g.id)}`,
                    class: "btn btn-small",
                    "data-game": g.id,
                    text: `Game ${i + 1}${g.result === undefined ? "" : g.result === null ? ": playing" : g.result === "draw" || g.result === "aborted" ? `: ${g.result}` : `: ${g.result} won`}`,
                  }),
                ),
              ),
            ),
          ),
          // A round robin of an odd number: whoever sits this round out, said in the round.
          ...(r.rests ?? []).map((p) =>
            h("li", { class: "t-rest", "data-player": p.id }, h("span", { class: "t-pair-names", text: p.name }), h("span", { class: "t-rest-note", text: "rests this round" })),
          ),
        ),
      ),
    ),
  );
}

function settingsList(t: Tournament): HTMLElement {
  const rows: [string, Node | string][] = [
    ["Format", formatName(t.format)],
    ["Rule set", h("a", { href: `/rules/${encodeURIComponent(t.ruleset)}`, text: rulesetName(t.ruleset) })],
    ["Time per move", durationWords(t.move_time)],
    ["Starts", whenText(t.starts_at)],
  ];
  if (t.format === "arena" && t.ends_at) rows.push(["Ends", `${whenText(t.ends_at)} (${Math.round((t.ends_at - t.starts_at) / 60_000)} minutes)`]);
  const total = totalRounds(t);
  if (t.format !== "arena" && total) rows.push(["Rounds", String(total)]);
  // An arena's limit is there for the server's sake (1000): worth saying only when set lower.
  if (t.max_players && (t.format !== "arena" || t.max_players < 1000)) rows.push(["At most", playersText(t.max_players)]);
  rows.push(["Created by", h("a", { href: `/u/${encodeURIComponent(t.creator.id)}`, text: t.creator.name })]);
  rows.push(["Seed commitment", h("code", { class: "hash hash-small", id: "t-commitment", text: t.seed_commitment || "—" })]);
  if (t.seed) rows.push(["Seed", h("code", { class: "hash hash-small", id: "t-seed", text: t.seed })]);
  return h("dl", { class: "t-settings", id: "t-settings" }, ...rows.flatMap(([k, v]) => [h("dt", { text: k }), h("dd", {}, v)]));
}

export function mountTournament(root: HTMLElement, ctx: AppContext, id: string): Unmount {
  ctx.setTitle("Tournament");
  const feed = tournamentFeed(ctx.live);
  let gone = false;
  let t: Tournament | null = null;
  let account = false;
  /** the viewer's id from GET /api/me, until the socket's hello says it */
  let viewer: string | null = null;
  let busy: TAction | null = null;
  /** how many pushed frames this page has shown (tests read `data-updates`) */
  let updates = 0;
  /** server clock minus local clock, from the JSON's `now` when the socket has not said */
  let offset = 0;

  const title = h("h1", { class: "t-title", id: "t-title", text: "Tournament" });
  const subtitle = h("p", { class: "lead muted t-subtitle", id: "t-subtitle", text: "Loading…" });
  const cdLabel = h("span", { class: "t-cd-label", id: "t-countdown-label" });
  const cdTime = h("span", { class: "t-cd-time", id: "t-countdown-time" });
  const cd = h("div", { class: "t-countdown", id: "t-countdown", role: "timer", "aria-live": "off" }, cdLabel, cdTime);
  const myState = h("p", { class: "t-mystate", id: "t-my-state", "aria-live": "polite" });
  const buttons = h("div", { class: "t-buttons", id: "t-actions" });
  const actionError = h("p", { class: "error", role: "alert", id: "t-action-error" });
  const liveNote = h("p", { class: "hint t-live", id: "t-live", "data-state": "connecting", "data-updates": "0", text: "Connecting to get the standings live…" });
  const standingsBox = h("div", { class: "t-standings-box", id: "t-standings-box" }, h("p", { class: "muted", text: "Loading the standings…" }));
  const roundsBox = h("div", { id: "t-rounds-box" });
  const settingsBox = h("div", { class: "t-settings-box" });
  const exportLine = h("p", { class: "t-export", id: "t-export", hidden: true });
  const missing = h("p", { class: "error", role: "alert", id: "t-missing" });

  const page = h(
    "div",
    { class: "page page-tournament", "data-status": "loading" },
    h("p", { class: "t-back" }, h("a", { href: "/tournaments", text: "← All tournaments" })),
    title,
    subtitle,
    missing,
    h(
      "div",
      { class: "t-layout" },
      h(
        "div",
        { class: "t-main" },
        h("section", { class: "panel t-status", "aria-label": "Where the tournament stands" }, cd, myState, buttons, actionError),
        h("section", { class: "panel t-table", "aria-labelledby": "t-standings-h" }, h("h2", { id: "t-standings-h", text: "Standings" }), liveNote, standingsBox),
        roundsBox,
      ),
      h("aside", { class: "t-side" }, h("section", { class: "panel", "aria-labelledby": "t-settings-h" }, h("h2", { id: "t-settings-h", text: "Settings" }), settingsBox, exportLine)),
    ),
  );
  root.append(page);

  const myId = () => ctx.live.player?.id ?? viewer;
  const serverNow = () => (ctx.live.clock.known ? ctx.live.clock.now(Date.now()) : Date.now() + offset);

  function renderCountdown(): void {
    if (!t) return;
    const c = countdown(t, serverNow());
    cdLabel.textContent = c.label;
    cdTime.textContent = c.time;
    cd.setAttribute("aria-label", c.spoken);
    cd.dataset.status = t.status;
  }

  function renderActions(): void {
    if (!t) return;
    const me = myId();
    const mine = myPart(t, me);
    const acts = actionsFor(t, me, account);
    clear(buttons);
    for (const a of acts) {
      const [idle, doing] = ACTION_WORDS[a];
      const b = h("button", { type: "button", class: `btn ${a === "join" || a === "resume" ? "btn-primary" : a === "withdraw" ? "btn-danger-quiet" : ""}`, id: `t-${a}`, text: busy === a ? doing : idle });
      b.disabled = busy !== null;
      b.addEventListener("click", () => void act(a));
      buttons.appendChild(b);
    }
    clear(myState);
    myState.dataset.joined = String(mine.joined);
    myState.dataset.paused = String(mine.paused);
    if (t.status === "finished") {
      myState.append(mine.joined ? "The tournament has finished: your place is in the standings." : "The tournament has finished.");
    } else if (!account && !mine.joined) {
      myState.append(
        "Joining needs an account: ",
        h("a", { href: `/signup?next=${encodeURIComponent(location.pathname)}`, id: "t-signup", text: "sign up" }),
        " or ",
        h("a", { href: `/login?next=${encodeURIComponent(location.pathname)}`, id: "t-login", text: "log in" }),
        ". You can follow the standings without one.",
      );
    } else if (!mine.joined) {
      myState.append(t.status === "running" && t.format !== "arena" ? "Registration has closed: the rounds have started." : t.status === "running" ? "The arena is on: join and you are paired as soon as someone is free." : "Join now: you are paired when it starts.");
    } else if (mine.game) {
      myState.append("You are playing: ", h("a", { href: `/g/${encodeURIComponent(mine.game)}`, id: "t-my-game", class: "btn btn-small btn-primary", text: "Open your game" }));
    } else if (mine.paused) {
      myState.append("You are paused: you are not paired until you resume.");
    } else if (t.status === "upcoming") {
      myState.append("You are in. Stay on the site when it starts: your games open by themselves.");
    } else if (t.format === "arena") {
      myState.append(h("span", { class: "spinner", "aria-hidden": "true" }), "Waiting for an opponent: your next game opens by itself.");
    } else if (t.round_list?.find((r) => r.round === t!.round)?.rests?.some((p) => p.id === me)) {
      myState.append("You rest this round: your games come with the next one.");
    } else {
      myState.append("You are in. Your games of each round appear here and in Your games.");
    }
  }

  function render(): void {
    if (!t) return;
    ctx.setTitle(t.name);
    page.dataset.status = t.status;
    page.dataset.format = t.format;
    title.textContent = t.name;
    subtitle.textContent = `${formatLine(t)} · ${rulesetName(t.ruleset)} · ${durationWords(t.move_time)} per move · ${playersText(t.players)}`;
    const me = myId();
    for (const g of gameIds(t)) rememberTournamentGame(g, t.id);
    clear(standingsBox);
    if (t.standings.length === 0) {
      const empty = t.status === "upcoming" || t.players === 0 ? "Nobody has joined yet." : "The standings appear with the first results.";
      standingsBox.append(h("p", { class: "muted empty", id: "t-standings-empty", text: empty }));
    }
    else standingsBox.append(standingsTable(t, me));
    clear(roundsBox);
    const rounds = roundsList(t);
    if (rounds) roundsBox.append(rounds);
    clear(settingsBox);
    settingsBox.append(settingsList(t));
    exportLine.hidden = t.status !== "finished";
    clear(exportLine);
    exportLine.append(
      h("a", { href: tournamentApi.exportUrl(t.id), download: `brandubh-tournament-${t.id}.json`, class: "btn btn-small", id: "t-export-link", text: "Download the export" }),
      " ",
      h("a", { href: `/verify?tournament=${encodeURIComponent(t.id)}`, class: "btn btn-small", id: "t-verify-link", text: "Verify" }),
    );
    renderCountdown();
    renderActions();
  }

  function show(next: Tournament): void {
    // Frames are the same for everyone (no "me"): the viewer's part from the last HTTP
    // answer stands where the standings do not say it.
    if (next.me === undefined && t?.me) next.me = t.me;
    t = next;
    if (typeof next.now === "number") offset = next.now - Date.now();
    render();
  }

  function renderLive(): void {
    const open = feed.isOpen;
    liveNote.dataset.state = open ? "live" : "offline";
    liveNote.textContent = open ? "Updated live as games end." : "Offline: the standings are brought up to date when the connection is back.";
  }

  async function act(a: TAction): Promise<void> {
    if (!t || busy) return;
    busy = a;
    actionError.textContent = "";
    renderActions();
    try {
      const next = await tournamentApi.act(t.id, a);
      if (gone) return;
      busy = null;
      show(next);
    } catch (err) {
      if (gone) return;
      busy = null;
      actionError.textContent = tournamentErrorText(err);
      renderActions();
    }
  }

  const stopFollow = feed.follow(id);
  const stopFeed = feed.subscribe((c) => {
    if (c.type === "tournament" && c.tournament.id === id) {
      updates += 1;
      liveNote.dataset.updates = String(updates);
      show(c.tournament);
    } else if (c.type === "connection") {
      renderLive();
      if (t) renderActions(); // the socket's hello says who "me" is
    }
  });
  renderLive();

  void ctx.me.then((me) => {
    account = !!me?.account;
    viewer = me?.id ?? null;
    if (!gone) render();
  });
  tournamentApi
    .get(id)
    .then((got) => {
      // A pushed frame may have come first; it is at least as new.
      if (!gone && (t === null || updates === 0)) show(got);
    })
    .catch((err) => {
      if (gone) return;
      page.dataset.status = "missing";
      subtitle.textContent = "";
      title.textContent = "Tournament not found";
      ctx.setTitle("Tournament not found");
      missing.textContent = tournamentErrorText(err);
      standingsBox.replaceChildren();
    });

  const ticker = setInterval(renderCountdown, 500);
  return () => {
    gone = true;
    clearInterval(ticker);
    stopFeed();
    stopFollow();
  };
}
