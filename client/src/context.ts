// What every page shares: the live connection, the session and navigation.

import type { RulesetInfo } from "./api";
import type { LiveClient } from "./live";
import type { MyGames } from "./mygames";
import type { PlayerInfo } from "./protocol";

export interface AppContext {
  live: LiveClient;
  /** the session (GET /api/me); null when the server could not be reached */
  me: Promise<PlayerInfo | null>;
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

export function inviteUrl(invite: string): string {
  return new URL(invite, window.location.origin).toString();
}
