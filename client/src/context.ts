// What every page shares: the live connection, the session and navigation.

import type { RulesetInfo, Viewer } from "./network/api";
import type { LiveClient } from "./network/live";
import type { MyGames } from "./frame/mygames";

export interface AppContext {
  live: LiveClient;
  /** the visitor (GET /api/me; `id` null before a session is made); null when the server
   * could not be reached */
  readonly me: Promise<Viewer | null>;
  /** Ask the server again who the visitor is (a login without a reload: the confirmed
   *  mailed link), tell `onSession`'s listeners, and reconnect the socket as that visitor. */
  refreshSession: () => Promise<Viewer | null>;
  /** Called with the visitor each time `refreshSession` learns it; returns the unsubscribe. */
  onSession: (fn: (me: Viewer | null) => void) => () => void;
  rulesets: () => Promise<RulesetInfo[]>;
  navigate: (path: string, replace?: boolean) => void;
  setTitle: (title: string) => void;
  /** the player's own games: the header's count, the games page */
  myGames: MyGames;
}

/** A mounted page: call to unmount. */
export type Unmount = () => void;

const INVITE_KEY = "brandubh.invite.";

/** Remember the invite link of a game this browser created (to show it while waiting). */
export function rememberInvite(game: string, invite: string): void {
  try {
    localStorage.setItem(INVITE_KEY + game, invite);
  } catch {
    /* storage may be unavailable: the link is still on screen */
  }
}

export function recallInvite(game: string): string | null {
  try {
    return localStorage.getItem(INVITE_KEY + game);
  } catch {
    return null;
  }
}

const RETURN_KEY = "brandubh.after-signup";

/** Where to come back to once the sign-up's link is opened (an invitation, say). */
export function rememberReturn(path: string): void {
  try {
    localStorage.setItem(RETURN_KEY, path);
  } catch {
    /* storage may be unavailable: the invite link still works */
  }
}

/** The remembered place (a same-site path), once; null if none. */
export function takeReturn(): string | null {
  try {
    const path = localStorage.getItem(RETURN_KEY);
    localStorage.removeItem(RETURN_KEY);
    return path && path.startsWith("/join/") ? path : null;
  } catch {
    return null;
  }
}

export function inviteUrl(invite: string): string {
  return new URL(invite, window.location.origin).toString();
}
