// Every page of the client, in one table: the router (main.ts) mounts from it, the header
// marks its section from it, and tests/client/test_drift.py checks that the hub serves each.

export type RouteName =
  | "home"
  | "game"
  | "join"
  | "rules"
  | "lobby"
  | "watch"
  | "games"
  | "verify"
  | "signup"
  | "login"
  | "account"
  | "profile"
  | "leaderboard"
  | "replay"
  | "analysis"
  | "tournaments"
  | "tournament"
  | "learn"
  | "lesson"
  | "puzzles"
  | "puzzleDaily"
  | "puzzleStreak"
  | "puzzle";

export interface RouteDef {
  name: RouteName;
  /** the path, with one capture group per parameter */
  pattern: RegExp;
  /** a path that matches (the drift test asks the hub for it) */
  example: string;
  /** the header link this page belongs under (`data-nav`), if any */
  section?: string;
}

const ID = "([A-Za-z0-9_-]{6,32})";

export const ROUTES: readonly RouteDef[] = [
  { name: "home", pattern: /^\/(?:index\.html)?$/, example: "/", section: "/" },
  { name: "game", pattern: new RegExp(`^/g/${ID}/?$`), example: "/g/abcdef123" },
  { name: "join", pattern: new RegExp(`^/join/${ID}/([^/]+)/?$`), example: "/join/abcdef123/token1" },
  { name: "rules", pattern: /^\/rules\/([^/]+)\/?$/, example: "/rules/nielsen", section: "/" },
  { name: "lobby", pattern: /^\/lobby\/?$/, example: "/lobby", section: "/lobby" },
  { name: "watch", pattern: /^\/watch\/?$/, example: "/watch", section: "/watch" },
  { name: "games", pattern: /^\/games\/?$/, example: "/games", section: "/games" },
  { name: "verify", pattern: /^\/verify\/?$/, example: "/verify" },
  { name: "signup", pattern: /^\/signup\/?$/, example: "/signup" },
  { name: "login", pattern: /^\/login\/?$/, example: "/login" },
  { name: "account", pattern: /^\/account\/?$/, example: "/account" },
  { name: "profile", pattern: /^\/u\/([A-Za-z0-9_-]{1,40})\/?$/, example: "/u/p_abc" },
  { name: "leaderboard", pattern: /^\/leaderboard(?:\/([a-z]+))?\/?$/, example: "/leaderboard/nielsen", section: "/leaderboard" },
  { name: "replay", pattern: new RegExp(`^/replay/${ID}/?$`), example: "/replay/abcdef123" },
  { name: "analysis", pattern: /^\/analysis\/?$/, example: "/analysis", section: "/analysis" },
  { name: "tournaments", pattern: /^\/tournaments\/?$/, example: "/tournaments", section: "/tournaments" },
  { name: "puzzles", pattern: /^\/puzzles\/?$/, example: "/puzzles", section: "/puzzles" },
  { name: "puzzleDaily", pattern: /^\/puzzles\/daily\/?$/, example: "/puzzles/daily", section: "/puzzles" },
  { name: "puzzleStreak", pattern: /^\/puzzles\/streak\/?$/, example: "/puzzles/streak", section: "/puzzles" },
  { name: "puzzle", pattern: /^\/puzzles\/([0-9a-f]{10})\/?$/, example: "/puzzles/0123456789", section: "/puzzles" },
  { name: "tournament", pattern: /^\/t\/([A-Za-z0-9_-]{4,40})\/?$/, example: "/t/t_abc123", section: "/tournaments" },
  { name: "learn", pattern: /^\/learn(?:\/([a-z]+))?\/?$/, example: "/learn/nielsen", section: "/learn" },
  { name: "lesson", pattern: /^\/learn\/([a-z]+)\/([a-z0-9-]{1,40})\/?$/, example: "/learn/nielsen/moving", section: "/learn" },
];

export interface Matched {
  route: RouteDef;
  /** the captured parameters, URI-decoded ("" for an optional one that is absent) */
  params: string[];
}

/** The route of a path, or null (the not-found page). */
export function matchRoute(path: string): Matched | null {
  for (const route of ROUTES) {
    const m = route.pattern.exec(path);
    if (m) return { route, params: m.slice(1).map((p) => (p === undefined ? "" : decodeURIComponent(p))) };
  }
  return null;
}
