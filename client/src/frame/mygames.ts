// The player's own games (GET /api/me/games): the header's "your move" count, the games
// page, the title prefix and the browser notification when it becomes your move in a game
// the page is not showing. Pure helpers are exported for the unit tests.

import type { GameSummary as FinishedGame } from "../network/account";
import { request } from "../network/api";
import type { LiveClient } from "../network/live";
import type { State, TurnFrame } from "../network/protocol";

export interface MyGame {
  id: string;
  ruleset: string;
  side: "attackers" | "defenders";
  opponent: { id: string; name: string };
  bot: boolean;
  /** where the game came from (State's `origin`) */
  origin?: string;
  your_move: boolean;
  deadline: number | null;
  ply: number;
  move_time: number;
  rated: boolean;
  last: string | null;
}

export interface MyGamesList {
  playing: MyGame[];
  finished: FinishedGame[];
  your_move: number;
}

export const EMPTY: MyGamesList = { playing: [], finished: [], your_move: 0 };
/** A safety net: turn notices are pub/sub, so the list is fetched again now and then. */
export const REFRESH_MS = 30_000;

/** The document title with the count of games waiting for your move in front: "(2) …". */
export function titleWith(count: number, title: string): string {
  return count > 0 ? `(${count}) ${title}` : title;
}

/** The words of a turn notice. */
export function turnNoticeText(frame: Pick<TurnFrame, "opponent" | "last">): string {
  const who = frame.opponent ?? "Your opponent";
  return frame.last ? `${who} played ${frame.last}: your move.` : `Your move against ${who}.`;
}

/**
 * The turn notice a followed game's new state amounts to, or null. The server sends no
 * `turn` frame to a socket that follows the game (its event says the same), so the page
 * tells from the state: the game moved on from `seenPly` (null: first sight, a snapshot)
 * and it is now `me`'s move.
 */
export function turnFromState(
  state: Pick<State, "status" | "ply" | "turn" | "players" | "last">,
  seenPly: number | null,
  me: string,
): Pick<TurnFrame, "opponent" | "last"> | null {
  if (seenPly === null || state.ply <= seenPly || state.status !== "active" || !state.turn) return null;
  if (state.players[state.turn]?.id !== me) return null;
  const other = state.turn === "attackers" ? state.players.defenders : state.players.attackers;
  return { opponent: other?.name ?? null, last: state.last };
}

/** Yours to move first, by soonest deadline; then the rest by soonest deadline. */
export function orderGames(games: readonly MyGame[]): MyGame[] {
  return [...games].sort(
    (a, b) =>
      Number(b.your_move) - Number(a.your_move) ||
      (a.deadline ?? Number.MAX_SAFE_INTEGER) - (b.deadline ?? Number.MAX_SAFE_INTEGER) ||
      a.id.localeCompare(b.id),
  );
}

export class MyGames {
  list: MyGamesList = EMPTY;
  private listeners = new Set<() => void>();
  private inflight: Promise<void> | null = null;
  private again = false;
  /** the last ply seen of each followed game of mine (for turns told by the event) */
  private seenPly = new Map<string, number>();

  constructor(
    live: LiveClient,
    /** the game the page shows now, if any: no notification for it */
    private readonly shown: () => string | null,
  ) {
    live.subscribe((c) => {
      if (c.type === "turn") this.onTurn(c.frame);
      else if (c.type === "hello") void this.refresh();
      else if (c.type === "game") {
        const st = live.games.get(c.game)?.state;
        // A game of mine changed: my move, or not any more.
        const me = live.player?.id;
        if (st && me && [st.players.attackers?.id, st.players.defenders?.id].includes(me)) {
          void this.refresh();
          const turn = turnFromState(st, this.seenPly.get(c.game) ?? null, me);
          this.seenPly.set(c.game, st.ply);
          if (turn) this.tell(c.game, turn);
        }
      }
    });
    setInterval(() => void this.refresh(), REFRESH_MS);
    window.addEventListener("focus", () => void this.refresh());
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  get count(): number {
    return this.list.your_move;
  }

  /** Fetch the list again (one request at a time; a call during one asks for one more). */
  refresh(): Promise<void> {
    if (this.inflight) {
      this.again = true;
      return this.inflight;
    }
    this.inflight = request<MyGamesList>("GET", "/api/me/games")
      .then((list) => {
        this.list = { ...list, playing: orderGames(list.playing) };
        for (const fn of [...this.listeners]) fn();
      })
      .catch(() => undefined)
      .finally(() => {
        this.inflight = null;
        if (this.again) {
          this.again = false;
          void this.refresh();
        }
      });
    return this.inflight;
  }

  private onTurn(frame: TurnFrame): void {
    void this.refresh();
    this.tell(frame.game, frame);
  }

  /** A browser notification of my move in a game, unless the page shows it in sight. */
  private tell(game: string, turn: Pick<TurnFrame, "opponent" | "last">): void {
    const looking = this.shown() === game && document.visibilityState === "visible";
    if (looking) return;
    notify(turnNoticeText(turn), `/g/${game}`, game);
  }
}

/** Ask for permission to notify (only from a click: browsers ignore it otherwise). */
export async function askNotifications(): Promise<NotificationPermission | "unsupported"> {
  if (typeof Notification === "undefined") return "unsupported";
  if (Notification.permission !== "default") return Notification.permission;
  try {
    return await Notification.requestPermission();
  } catch {
    return Notification.permission;
  }
}

export function notificationState(): NotificationPermission | "unsupported" {
  return typeof Notification === "undefined" ? "unsupported" : Notification.permission;
}

/** The notifications shown, newest last (for tests and the console). */
export const shownNotifications: { title: string; body: string; game: string }[] = [];

function notify(body: string, url: string, game: string): void {
  if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
  shownNotifications.push({ title: "Brandubh Live: your move", body, game });
  try {
    const n = new Notification("Brandubh Live: your move", { body, tag: `turn-${game}` });
    n.onclick = () => {
      window.focus();
      window.__brandubh?.navigate(url);
      n.close();
    };
  } catch {
    /* some browsers allow notifications only from a service worker */
  }
}
