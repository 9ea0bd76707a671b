// Tournaments' pure parts (docs/protocol.md, docs/tournaments.md): the shapes the hub sends,
// the settings and countdown in words, the standings as rows to draw, each player's games,
// the create form's checks and the refusals in words. No DOM here (tested in tournament.test.ts).

import { ApiError, request } from "../network/api";
import { formatRemaining, spokenRemaining } from "../network/clock";
import { rulesetName, timeControlText } from "./lobby";
import type { PlayerInfo } from "../network/protocol";

export type TournamentFormat = "arena" | "round_robin" | "swiss";
export type TournamentStatus = "upcoming" | "running" | "finished";
export type TGameResult = "attackers" | "defenders" | "draw" | "aborted" | null;

/** One event in the lists (`GET /api/tournaments`). */
export interface TournamentSummary {
  id: string;
  name: string;
  format: TournamentFormat;
  ruleset: string;
  move_time: number;
  /** ms by the server's clock */
  starts_at: number;
  ends_at: number | null;
  rounds: number | null;
  players: number;
  status: TournamentStatus;
  creator: PlayerInfo;
  max_players?: number | null;
}

/** The lists: a page of the upcoming and of the running (by start), each with the cursor
 *  of its next page in `next` (null: no more), and the latest finished. */
export interface TournamentLists {
  upcoming: TournamentSummary[];
  running: TournamentSummary[];
  finished: TournamentSummary[];
  next?: Partial<Record<PagedSection, string | null>>;
}

/** The sections that come a page at a time. */
export type PagedSection = "upcoming" | "running";

export interface Standing {
  rank: number;
  player: PlayerInfo;
  points: number;
  games: number;
  wins: number;
  draws: number;
  losses: number;
  /** arena: on a streak (two wins in a row: the next win counts double), or the wins in a row */
  streak?: number | boolean;
  tiebreaks?: { buchholz: number; sonneborn_berger: number };
  withdrawn: boolean;
  paused: boolean;
}

/** A side's player: the hub may send the player or only their id. */
export type SidePlayer = PlayerInfo | string | null;

export interface TGame {
  id: string;
  /** the sides and the result, where the hub says them (a round's games may carry only the id) */
  attackers?: SidePlayer;
  defenders?: SidePlayer;
  result?: TGameResult;
}

export interface TPairing {
  a: PlayerInfo | null;
  /** null: a bye */
  b: PlayerInfo | null;
  games: TGame[];
  /** the match's points once it is over (a pair, or per player id) */
  points?: [number, number] | Record<string, number> | null;
  /** whether the match is over */
  done?: boolean;
  forfeit?: unknown;
}

export interface TRound {
  round: number;
  pairings: TPairing[];
  /** a round robin's players sitting this round out (one a round when their count is odd) */
  rests?: PlayerInfo[];
}

export interface TournamentMe {
  joined: boolean;
  paused: boolean;
  game: string | null;
}

/** One event in full (`GET /api/tournaments/{id}`, and each `tournament` frame). */
export interface Tournament extends TournamentSummary {
  seed_commitment: string;
  seed: string | null;
  /** the server's clock when this was written, ms */
  now?: number;
  standings: Standing[];
  /** round robin and Swiss: the rounds paired so far (the contract's `rounds` list) */
  round_list?: TRound[];
  /** the round being played (round robin, Swiss); 0 before the first */
  round?: number;
  /** how many rounds in all, when the hub says it beside a `rounds` list */
  total_rounds?: number | null;
  duration_min?: number | null;
  games?: TGame[];
  /** an arena's `tournament` frame: `games` holds each player's last `recent_games` only,
   *  and this counts each player's games in all (absent from the HTTP view: every game) */
  game_counts?: Record<string, number>;
  recent_games?: number;
  me?: TournamentMe | null;
}

// -- HTTP -----------------------------------------------------------------------------------

export interface CreateTournament {
  name: string;
  format: TournamentFormat;
  ruleset: string;
  move_time: number;
  starts_at: number;
  duration_min?: number;
  rounds?: number;
  max_players?: number;
}

const T = "/api/tournaments";
const tid = (id: string) => `${T}/${encodeURIComponent(id)}`;

/** The hub's JSON in one shape: its `rounds` is a count in the lists and, for round robin
 *  and Swiss, the paired rounds in the full view (kept apart here as `round_list`). */
export function normalise(raw: unknown): Tournament {
  const t = { ...(raw as Record<string, unknown>) } as unknown as Tournament & { rounds: unknown; total_rounds?: number | null };
  if (Array.isArray(t.rounds)) {
    t.round_list = t.rounds as TRound[];
    t.rounds = typeof t.total_rounds === "number" ? t.total_rounds : null;
  }
  t.standings ??= [];
  return t as Tournament;
}

export const tournamentApi = {
  list: () => request<TournamentLists>("GET", T),
  /** A section's next page, from the cursor its last page gave. */
  more: (section: PagedSection, after: string) =>
    request<Partial<TournamentLists>>("GET", `${T}?section=${section}&after=${encodeURIComponent(after)}`),
  get: async (id: string) => normalise(await request<unknown>("GET", tid(id))),
  create: (body: CreateTournament) => request<{ id: string }>("POST", T, body),
  act: async (id: string, action: "join" | "withdraw" | "pause" | "resume") =>
    normalise(await request<unknown>("POST", `${tid(id)}/${action}`, {})),
  exportUrl: (id: string) => `${tid(id)}/export`,
};

// -- words ----------------------------------------------------------------------------------

const FORMAT_NAMES: Record<TournamentFormat, string> = {
  arena: "Arena",
  round_robin: "Round robin",
  swiss: "Swiss",
};

export function formatName(format: string): string {
  return FORMAT_NAMES[format as TournamentFormat] ?? format;
}

/** "Arena, 60 minutes" / "Swiss, 5 rounds" / "Round robin". */
export function formatLine(t: Pick<TournamentSummary, "format" | "starts_at" | "ends_at" | "rounds">): string {
  if (t.format === "arena" && t.ends_at) return `Arena, ${Math.round((t.ends_at - t.starts_at) / 60_000)} minutes`;
  if (t.format === "swiss" && t.rounds) return `Swiss, ${t.rounds} rounds`;
  return formatName(t.format);
}

/** "Nielsen · 1 minute per move". */
export function termsLine(t: Pick<TournamentSummary, "ruleset" | "move_time">): string {
  return `${rulesetName(t.ruleset)} · ${timeControlText(t.move_time)}`;
}

export function playersText(n: number): string {
  return n === 1 ? "1 player" : `${n} players`;
}

/** A moment in the viewer's own words: "Thu 3 Dec, 18:30". */
export function whenText(ms: number, locale?: string): string {
  return new Date(ms).toLocaleString(locale, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
}

/** Points: "5", "4½". */
export function pointsText(points: number): string {
  const whole = Math.floor(points);
  return points - whole >= 0.5 ? `${whole === 0 ? "" : whole}½` : String(whole);
}

// -- the countdown --------------------------------------------------------------------------

export interface Countdown {
  /** what is counted: "Starts in", "Ends in", "Round 2 of 5", "Finished" */
  label: string;
  /** the time left, short ("4:12", "1 h 5 min"), or "" when nothing is counted */
  time: string;
  /** the whole line for screen readers */
  spoken: string;
}

/** The rounds a round robin of n players takes (a bye each round when n is odd). */
export function roundRobinRounds(players: number): number {
  return players < 2 ? 0 : players % 2 === 0 ? players - 1 : players;
}

/** How many rounds the event has, if known. */
export function totalRounds(t: Pick<Tournament, "format" | "rounds" | "players">): number | null {
  if (t.format === "arena") return null;
  if (t.rounds) return t.rounds;
  return t.format === "round_robin" ? roundRobinRounds(t.players) : null;
}

/** What the countdown says at server time `now`. */
export function countdown(t: Pick<Tournament, "status" | "format" | "starts_at" | "ends_at" | "rounds" | "players" | "round_list" | "round">, now: number): Countdown {
  if (t.status === "finished") return { label: "Finished", time: "", spoken: "The tournament has finished." };
  // The status has the last word: a running event shows no start ahead, even if this
  // browser's estimate of the server's clock lags by a moment.
  if (t.status === "upcoming") {
    const left = t.starts_at - now;
    if (left <= 0) return { label: "Starting…", time: "", spoken: "The tournament is starting." };
    return { label: "Starts in", time: formatRemaining(left), spoken: `Starts in ${spokenRemaining(left)}` };
  }
  if (t.format === "arena") {
    const left = (t.ends_at ?? now) - now;
    if (left <= 0) return { label: "Last games finishing", time: "", spoken: "Time is up: the last games are finishing." };
    return { label: "Ends in", time: formatRemaining(left), spoken: `Ends in ${spokenRemaining(left)}` };
  }
  const round = t.round ?? t.round_list?.length ?? 0;
  const total = totalRounds(t);
  const label = round === 0 ? "Pairing round 1" : total ? `Round ${round} of ${total}` : `Round ${round}`;
  return { label, time: "", spoken: label };
}

// -- standings and games ----------------------------------------------------------------------

export interface StandingRow {
  rank: number;
  id: string;
  name: string;
  points: string;
  /** "3 / 1 / 0" wins, draws, losses */
  record: string;
  games: number;
  /** arena: "🔥" when the next win counts double (two wins in a row) */
  onFire: boolean;
  tiebreaks: string;
  state: "playing" | "paused" | "withdrawn" | "";
  me: boolean;
}

function sideId(p: SidePlayer | undefined): string | null {
  return p === null || p === undefined ? null : typeof p === "string" ? p : p.id;
}

/** A game of the event with who plays it and whether it is over. */
export interface GameEntry {
  game: TGame;
  /** the round (round robin, Swiss), null in an arena */
  round: number | null;
  /** the two players' ids */
  players: string[];
  over: boolean;
}

/** Every game of the event, oldest first: an arena's list, or each round's matches' games. */
export function entries(t: Pick<Tournament, "round_list" | "games">): GameEntry[] {
  if (t.games?.length) {
    return t.games.map((g) => ({
      game: g,
      round: null,
      players: [sideId(g.attackers), sideId(g.defenders)].filter((p): p is string => p !== null),
      over: g.result !== null && g.result !== undefined,
    }));
  }
  return (t.round_list ?? []).flatMap((r) =>
    r.pairings.flatMap((p) =>
      p.games.map((g) => ({
        game: g,
        round: r.round,
        players: [p.a?.id ?? sideId(g.attackers), p.b?.id ?? sideId(g.defenders)].filter((x): x is string => !!x),
        // A match over is every game of it over, whatever each game says.
        over: (g.result !== null && g.result !== undefined) || p.done === true || (p.points !== null && p.points !== undefined) || !p.b,
      })),
    ),
  );
}

/** The id -> name of everyone named in an event (standings, pairings, games). */
export function names(t: Pick<Tournament, "standings" | "round_list" | "games">): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of t.standings) out.set(s.player.id, s.player.name);
  const add = (p: SidePlayer | undefined) => {
    if (p && typeof p !== "string") out.set(p.id, p.name);
  };
  for (const g of t.games ?? []) (add(g.attackers), add(g.defenders));
  for (const r of t.round_list ?? []) for (const p of r.pairings) (add(p.a), add(p.b));
  return out;
}

/** The ids of every game of the event. */
export function gameIds(t: Pick<Tournament, "round_list" | "games">): string[] {
  return entries(t).map((e) => e.game.id);
}

/** Who is playing now (players of games not over). */
export function busyPlayers(list: readonly GameEntry[]): Set<string> {
  const out = new Set<string>();
  for (const e of list) if (!e.over) for (const p of e.players) out.add(p);
  return out;
}

/** The standings as rows to draw, in rank order; `me` marks the viewer's row. */
export function standingRows(t: Pick<Tournament, "format" | "standings" | "round_list" | "games">, me: string | null): StandingRow[] {
  const busy = busyPlayers(entries(t));
  return [...t.standings]
    .sort((a, b) => a.rank - b.rank || b.points - a.points)
    .map((s) => ({
      rank: s.rank,
      id: s.player.id,
      name: s.player.name,
      points: pointsText(s.points),
      record: `${s.wins} / ${s.draws} / ${s.losses}`,
      games: s.games,
      onFire: t.format === "arena" && (s.streak === true || (typeof s.streak === "number" && s.streak >= 2)),
      tiebreaks: t.format !== "arena" && s.tiebreaks ? `${pointsText(s.tiebreaks.buchholz)} · ${pointsText(s.tiebreaks.sonneborn_berger)}` : "",
      state: s.withdrawn ? "withdrawn" : s.paused ? "paused" : busy.has(s.player.id) ? "playing" : "",
      me: s.player.id === me,
    }));
}

export interface PlayerGame {
  id: string;
  /** null where the hub does not say (a round's game carrying only its id) */
  side: "attackers" | "defenders" | null;
  opponent: string;
  round: number | null;
  /** "over": finished, its result not in the event's JSON (the game page has it) */
  outcome: "won" | "lost" | "draw" | "aborted" | "playing" | "over";
}

/** A player's games, oldest first, from their own side. */
export function gamesOf(t: Pick<Tournament, "standings" | "round_list" | "games">, player: string): PlayerGame[] {
  const who = names(t);
  const out: PlayerGame[] = [];
  for (const e of entries(t)) {
    if (!e.players.includes(player)) continue;
    const g = e.game;
    const a = sideId(g.attackers);
    const d = sideId(g.defenders);
    const side = a === player ? "attackers" : d === player ? "defenders" : null;
    const other = e.players.find((p) => p !== player) ?? null;
    const outcome =
      g.result === "draw" || g.result === "aborted"
        ? g.result
        : g.result && side
          ? g.result === side
            ? "won"
            : "lost"
          : e.over
            ? "over"
            : "playing";
    out.push({ id: g.id, side, opponent: other ? (who.get(other) ?? other) : "bye", round: e.round, outcome });
  }
  return out;
}

/** How many of an arena player's latest games their row shows (the frame's `recent_games`). */
export const RECENT_GAMES = 10;

/** The games a player's row shows: an arena's latest (as many as a `tournament` frame
 *  carries), and how many came before them (`game_counts` of a frame, else the list's). */
export function latestGames(t: Pick<Tournament, "format" | "standings" | "round_list" | "games" | "game_counts" | "recent_games">, player: string): { games: PlayerGame[]; earlier: number } {
  const all = gamesOf(t, player);
  const games = t.format === "arena" ? all.slice(-(t.recent_games ?? RECENT_GAMES)) : all;
  return { games, earlier: Math.max(0, (t.game_counts?.[player] ?? all.length) - games.length) };
}

/** Where the viewer stands: from the standings (frames are the same for everyone), else `me`. */
export function myPart(t: Pick<Tournament, "standings" | "round_list" | "games" | "me">, me: string | null): TournamentMe {
  const row = me ? t.standings.find((s) => s.player.id === me) : undefined;
  if (!row) return { joined: false, paused: false, game: null, ...(t.me && me ? t.me : {}) };
  const live = entries(t).find((e) => !e.over && e.players.includes(me ?? ""));
  return { joined: !row.withdrawn, paused: row.paused, game: live?.game.id ?? t.me?.game ?? null };
}

export type TAction = "join" | "withdraw" | "pause" | "resume";

/** The buttons the viewer has, in order: none for a guest or a finished event. */
export function actionsFor(t: Pick<Tournament, "status" | "format" | "standings" | "round_list" | "games" | "me">, me: string | null, account: boolean): TAction[] {
  if (t.status === "finished") return [];
  const mine = myPart(t, me);
  const row = me ? t.standings.find((s) => s.player.id === me) : undefined;
  if (!mine.joined) {
    // A withdrawn player of a round robin or Swiss has forfeited the rest; an arena takes them back.
    if (row?.withdrawn && t.format !== "arena" && t.status === "running") return [];
    if (t.status === "running" && t.format !== "arena") return [];
    return account ? ["join"] : [];
  }
  if (t.format === "arena" && t.status === "running") return [mine.paused ? "resume" : "pause", "withdraw"];
  return ["withdraw"];
}

// -- the create form ----------------------------------------------------------------------------

/** Arena durations offered (minutes) and Swiss round counts. */
export const ARENA_DURATIONS = [30, 45, 60, 90, 120];
export const ARENA_MOVE_TIMES = [60, 180, 600];
export const LONG_MOVE_TIMES = [3600, 86_400, 259_200, 604_800];
export const NAME_MAX = 60;
export const MIN_ROUNDS = 1;
export const MAX_ROUNDS = 20;
/** An arena's length in minutes (formats.py: DURATION_MIN). */
export const ARENA_MINUTES = [1, 720] as const;

export interface CreateInput {
  name: string;
  format: TournamentFormat;
  ruleset: string;
  move_time: number;
  /** ms by the server's clock */
  starts_at: number;
  duration_min?: number;
  rounds?: number;
}

export type Checked = { ok: true; body: CreateTournament } | { ok: false; field: string; message: string };

/** The form's values checked before sending (the hub checks again and has the last word). */
export function checkCreate(input: CreateInput, now: number): Checked {
  const name = input.name.trim().replace(/\s+/g, " ");
  const bad = (field: string, message: string): Checked => ({ ok: false, field, message });
  if (!name) return bad("name", "Give the tournament a name.");
  if (name.length > NAME_MAX) return bad("name", `The name is too long: at most ${NAME_MAX} characters.`);
  if (!(input.format in FORMAT_NAMES)) return bad("format", "Choose a format: arena, round robin or Swiss.");
  if (!input.ruleset) return bad("ruleset", "Choose a rule set.");
  const arena = input.format === "arena";
  if (arena && !(input.move_time > 0 && input.move_time < 3600))
    return bad("move_time", "An arena is played live: choose under an hour per move.");
  if (!arena && input.move_time < 3600)
    return bad("move_time", "Round robins and Swiss events are played by correspondence: choose an hour or more per move.");
  if (!Number.isFinite(input.starts_at)) return bad("starts_at", "Choose when it starts.");
  if (input.starts_at < now - 30_000) return bad("starts_at", "The start time has passed: choose a later one.");
  const body: CreateTournament = { name, format: input.format, ruleset: input.ruleset, move_time: input.move_time, starts_at: Math.round(input.starts_at) };
  if (arena) {
    const d = input.duration_min ?? 0;
    if (!Number.isInteger(d) || d < ARENA_MINUTES[0] || d > ARENA_MINUTES[1]) return bad("duration_min", "An arena lasts from 1 minute to 12 hours.");
    body.duration_min = d;
  }
  if (input.format === "swiss") {
    const r = input.rounds ?? 0;
    if (!Number.isInteger(r) || r < MIN_ROUNDS || r > MAX_ROUNDS) return bad("rounds", `A Swiss event has ${MIN_ROUNDS} to ${MAX_ROUNDS} rounds.`);
    body.rounds = r;
  }
  return { ok: true, body };
}

/** The form field a refusal names (the hub's message starts with it: "move_time: …"). */
export function fieldOf(message: string): string | null {
  const m = /^\s*([a-z_]+):/.exec(message);
  return m && m[1] in FIELD_WORDS ? m[1] : null;
}

const FIELD_WORDS: Record<string, string> = {
  name: "the name",
  format: "the format",
  ruleset: "the rule set",
  move_time: "the time per move",
  starts_at: "the start time",
  duration_min: "the duration",
  rounds: "the number of rounds",
  max_players: "the number of players",
};

function capitalise(text: string): string {
  const t = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

/** Words for a refusal of a tournament request. */
export function tournamentErrorText(err: unknown): string {
  if (!(err instanceof ApiError)) return "Something went wrong. Try again.";
  switch (err.code) {
    case "invalid_tournament": {
      // The hub says "move_time: an arena is for live games: …"; the field in words.
      const m = /^([a-z_]+):\s*(.*)$/s.exec(err.message);
      if (m && FIELD_WORDS[m[1]]) return capitalise(`${FIELD_WORDS[m[1]]}: ${m[2]}`);
      return capitalise(err.message || "These settings are not accepted");
    }
    case "not_allowed":
      return "This needs an account with a confirmed email address.";
    case "too_many_tournaments":
      return "You already run as many tournaments as an account may at once. Wait until one has finished.";
    case "tournament_closed":
      return "This tournament no longer takes that: it has started or finished.";
    case "not_joined":
      return "You are not playing in this tournament.";
    case "not_found":
      return "There is no such tournament. The link may be mistyped.";
    case "account_required":
    case "not_logged_in":
      return "This needs an account: sign up or log in.";
    default:
      return err.message ? capitalise(err.message) : `The server refused (${err.code}).`;
  }
}

// -- which game belongs to which tournament -------------------------------------------------------

const GAME_KEY = "brandubh.tgame.";

/** Remember that a game is a tournament's (the game page's way back to it). */
export function rememberTournamentGame(game: string, tournament: string): void {
  try {
    sessionStorage.setItem(GAME_KEY + game, tournament);
  } catch {
    /* storage may be unavailable: the link back is then missing, nothing else */
  }
}

export function tournamentOfGame(game: string): string | null {
  try {
    return sessionStorage.getItem(GAME_KEY + game);
  } catch {
    return null;
  }
}
