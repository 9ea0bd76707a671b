// What the game page's panels share (pages/game.ts makes it): the game, its tracker, who
// is looking, and the page's two answers to anything — draw it all again, or say an error.

import type { GameTracker } from "../network/gamestate";
import type { LiveClient } from "../network/live";

export interface GameView {
  readonly live: LiveClient;
  readonly game: string;
  readonly tracker: GameTracker;
  /** the viewer's player id, once known (the socket's hello, or GET /api/me) */
  me(): string | null;
  /** draw the page again from the tracker's state */
  render(): void;
  /** an error beside the board, until the game moves on */
  showError(text: string): void;
}
