// The small "BOT" tag beside a bot account's name, wherever a name is shown (docs/api.md,
// Becoming a bot): the profile, the leaderboard, the game page's player bars.

import { h } from "../dom";

export const BOT_TAG_TITLE = "A bot account: a program that plays through the Bot API";

/** The tag itself: read out as "bot account", drawn as "BOT". */
export function botTag(): HTMLElement {
  return h("span", { class: "bot-tag", title: BOT_TAG_TITLE, "aria-label": "bot account", text: "BOT" });
}
