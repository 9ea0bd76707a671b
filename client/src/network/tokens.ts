// Personal API tokens (docs/api.md, docs/protocol.md §2.6): the account page's calls, which
// take the session cookie, and pure helpers that put a token into words.

import { ApiError, request as call } from "./api";

/** The scopes a token may have, in the server's order (hub/tokens/scopes.py), each with
 *  the sentence the account page shows beside its box. */
export const SCOPES: readonly { id: string; text: string }[] = [
  { id: "bot:play", text: "Play as a bot: the program plays this account's games, over HTTP or over the bot socket (the Bot API)." },
  { id: "challenge:write", text: "Send challenges, and accept or decline the challenges sent to you." },
  { id: "games:read", text: "Read your games, including those in progress." },
];

export const MAX_TOKENS = 20;
export const NAME_MAX = 40;

/** A live token as the list shows it: never its text. */
export interface ApiToken {
  id: string;
  name: string;
  scopes: string[];
  created: number;
  /** ms, or null: never used; noted at most once a minute */
  last_used: number | null;
}

/** A new token: its text is in this answer only. */
export interface CreatedToken {
  id: string;
  name: string;
  scopes: string[];
  created: number;
  token: string;
}

export const tokensApi = {
  list: () => call<{ tokens: ApiToken[] }>("GET", "/api/account/tokens"),
  create: (name: string, scopes: string[]) => call<CreatedToken>("POST", "/api/account/tokens", { name, scopes }),
  revoke: (id: string) => call<{ id: string; revoked: true }>("DELETE", `/api/account/tokens/${encodeURIComponent(id)}`),
};

/** "3 minutes ago", "yesterday", "12 Nov 2026"; "never" for a token not used yet. */
export function lastUsedText(ms: number | null, now: number = Date.now()): string {
  if (ms === null) return "never";
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 90) return "just now";
  const m = Math.round(s / 60);
  if (m < 60) return `${m} minutes ago`;
  const hours = Math.round(m / 60);
  if (hours < 24) return hours === 1 ? "an hour ago" : `${hours} hours ago`;
  const days = Math.round(hours / 24);
  if (days < 2) return "yesterday";
  if (days < 30) return `${days} days ago`;
  return new Date(ms).toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric" });
}

/** What a form may send: a trimmed name of 1 to 40 characters and at least one scope; the
 *  sentence to show when it may not. */
export function formProblem(name: string, scopes: string[]): string | null {
  const trimmed = name.trim();
  if (!trimmed) return "Give the token a name: what will use it.";
  if (trimmed.length > NAME_MAX) return `A token's name is at most ${NAME_MAX} characters.`;
  if (scopes.length === 0) return "Tick at least one scope.";
  return null;
}

/** Words for a refusal of the token routes. */
export function tokenErrorText(err: unknown): string {
  if (!(err instanceof ApiError)) return "Something went wrong. Please try again.";
  switch (err.code) {
    case "too_many_tokens":
      return `You have ${MAX_TOKENS} tokens, the most you may. Revoke one you no longer use first.`;
    case "verification_required":
      return "Confirm your email address first: API tokens are for accounts with a confirmed address.";
    case "not_logged_in":
      return "You are not logged in any more. Log in again.";
    default:
      return err.message.charAt(0).toUpperCase() + err.message.slice(1) + (err.message.endsWith(".") ? "" : ".");
  }
}
