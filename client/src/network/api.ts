// The HTTP half of docs/protocol.md: session, rule sets, creating and joining games,
// game records and their verification.

import type { State } from "./protocol";

export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(code: string, message: string, status: number) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

/** A JSON request to the hub; ApiError (with the server's code and words) on failure. */
/**
 * `GET /api/me`: who the visitor is. A first visit has no session: `id` and `name` are null
 * until the first request that needs one (starting a game) makes a guest session.
 */
export interface Viewer {
  id: string | null;
  name: string | null;
  account: boolean;
  email: string | null;
}

export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError("network", "The server could not be reached. Check your connection and try again.", 0);
  }
  let data: unknown = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    const err = (data ?? {}) as { error?: string; message?: string };
    throw new ApiError(
      err.error ?? "http_" + res.status,
      err.message ?? `The server answered ${res.status}.`,
      res.status,
    );
  }
  return data as T;
}

/** A request whose body and answer are text (records); errors are JSON as elsewhere. */
export async function requestText(method: string, path: string, body?: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? {} : { "Content-Type": "text/plain; charset=utf-8" },
      body,
    });
  } catch {
    throw new ApiError("network", "The server could not be reached. Check your connection and try again.", 0);
  }
  const text = await res.text();
  if (!res.ok) {
    let err: { error?: string; message?: string } = {};
    try {
      err = JSON.parse(text) as typeof err;
    } catch {
      /* not JSON: the status says enough */
    }
    throw new ApiError(err.error ?? "http_" + res.status, err.message ?? `The server answered ${res.status}.`, res.status);
  }
  return text;
}

/** `POST /api/verify`: what holds, or the first thing that does not (`error` its code,
 *  `message` the reason; every problem of a tournament export in `problems`). */
export type VerifyResult =
  | {
      ok: true;
      kind?: undefined;
      game: string | null;
      ruleset: string;
      moves: number;
      result: string;
      winner: "attackers" | "defenders" | null;
      reason: string;
    }
  | {
      ok: true;
      kind: "tournament";
      tournament: string | null;
      name: string | null;
      format: string;
      players: number;
      stored?: { found: boolean; same: boolean | null; differences: string[] };
    }
  | { ok: false; error: string; message: string; problems?: string[]; tournament?: string | null };

export interface RulesetInfo {
  id: string;
  title: string;
  summary: string;
}

export interface CreateGameRequest {
  ruleset: string;
  move_time: number;
  opponent: "bot" | "friend";
  bot_level?: number;
  /** games against people only: rated unless false */
  rated?: boolean;
}

export interface CreatedGame {
  id: string;
  url: string;
  invite?: string;
}

export const api = {
  me: () => request<Viewer>("GET", "/api/me"),
  rulesets: () => request<RulesetInfo[]>("GET", "/api/rulesets"),
  createGame: (body: CreateGameRequest) => request<CreatedGame>("POST", "/api/games", body),
  joinGame: (id: string, invite: string) =>
    request<{ id: string; url: string }>("POST", `/api/games/${encodeURIComponent(id)}/join`, {
      invite,
    }),
  /** The creator withdraws an invitation nobody has accepted yet. */
  withdrawGame: (id: string) =>
    request<{ id: string; withdrawn: boolean }>("POST", `/api/games/${encodeURIComponent(id)}/withdraw`, {}),
  game: (id: string) =>
    request<{ n: number; state: State; moves: string[] }>("GET", `/api/games/${encodeURIComponent(id)}`),
  /** The game's record as text (docs/record-format.md); the seed only once it has ended. */
  record: (id: string) => requestText("GET", `/api/games/${encodeURIComponent(id)}/record`),
  /** A tournament's export (JSON, as text: it is checked as it was received). */
  tournamentExport: (id: string) => requestText("GET", `/api/tournaments/${encodeURIComponent(id)}/export`),
  verify: async (record: string): Promise<VerifyResult> =>
    JSON.parse(await requestText("POST", "/api/verify", record)) as VerifyResult,
};

/** Words for an HTTP error code of the join and create requests. */
export function joinErrorText(err: ApiError): string {
  switch (err.code) {
    case "account_required":
      return "Playing a person needs an account. Sign up or log in, and you come straight back to this game.";
    case "bad_invite":
      return "This invite link is not valid for this game. Ask your friend to send it again.";
    case "invitation_withdrawn":
      return `${err.message.charAt(0).toUpperCase()}${err.message.slice(1)}.`;
    case "game_not_waiting":
      return "This game already has both its players, so you cannot join it. You can still watch it.";
    case "not_found":
      return "There is no such game. The link may be mistyped or the game may have been removed.";
    case "busy":
      return "The server is busy. Please try again in a moment.";
    default:
      return err.message;
  }
}
