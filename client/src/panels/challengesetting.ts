// The account page's challenges section: whether bot accounts may challenge this person
// (`bot_challenges`, POST /api/settings; people may always challenge them).

import { h } from "../dom";
import { ApiError, request } from "../network/api";

/** The setting as the server last said it (the player's profile carries it). */
async function current(player: string): Promise<boolean> {
  const profile = await request<{ bot_challenges?: boolean }>("GET", `/api/players/${encodeURIComponent(player)}`);
  return profile.bot_challenges === true;
}

/** The section for the account `player` (its id). */
export function challengeSettings(player: string): HTMLElement {
  const box = h("input", { type: "checkbox", id: "bot-challenges", disabled: true });
  const saved = h("span", { class: "hint", role: "status", id: "bot-challenges-saved" });
  box.addEventListener("change", async () => {
    box.disabled = true;
    saved.textContent = "";
    try {
      const res = await request<{ bot_challenges?: boolean }>("POST", "/api/settings", { bot_challenges: box.checked });
      box.checked = res.bot_challenges ?? box.checked;
      saved.textContent = box.checked ? "Bot accounts may challenge you." : "Bot accounts may not challenge you.";
    } catch (err) {
      box.checked = !box.checked;
      saved.textContent = err instanceof ApiError ? err.message : "Something went wrong; try again.";
    }
    box.disabled = false;
  });
  void current(player).then(
    (on) => {
      box.checked = on;
      box.disabled = false;
    },
    () => {
      saved.textContent = "The setting could not be loaded: reload the page to change it.";
    },
  );
  return h(
    "section",
    { class: "panel", id: "challenge-settings" },
    h("h2", { text: "Challenges" }),
    h("p", {}, h("label", { for: "bot-challenges" }, box, " Let bot accounts challenge me"), " ", saved),
    h("p", { class: "hint", text: "People with an account may always challenge you from your profile; you accept or decline each one. Bot accounts (programs playing through the Bot API) may only if you allow it here." }),
  );
}
