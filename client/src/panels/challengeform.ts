// The profile's "Challenge" button and its small form: rule set, time per move, side and
// rated. Sending it (POST /api/challenge/<player>) opens the waiting game's page, where the
// challenger waits for the answer; a refusal is said in the form.

import type { AppContext } from "../context";
import { h } from "../dom";
import { RULES, RULESET_ORDER } from "../board/rules";
import { type ChallengeSide, challengeErrorText, ratedHint } from "../logic/challenges";
import { durationText } from "../logic/status";
import { challengeApi } from "../network/challenges";
import { DEFAULT_MOVE_TIME, DEFAULT_RULESET, MOVE_TIMES } from "../pages/home";

const SIDES: readonly { id: ChallengeSide; label: string }[] = [
  { id: "random", label: "Drawn at random" },
  { id: "attackers", label: "Attackers" },
  { id: "defenders", label: "Defenders" },
];

function radio(name: string, value: string, checked: boolean, id: string): HTMLInputElement {
  const input = h("input", { type: "radio", name, value, id });
  input.checked = checked;
  return input;
}

/** The challenge box of another player's profile, for a visitor with an account. */
export function challengeBox(ctx: AppContext, target: { id: string; name: string; bot: boolean }): HTMLElement {
  const open = h("button", { type: "button", class: "btn btn-primary", id: "challenge-open", "aria-expanded": "false", "aria-controls": "challenge-form", text: "Challenge" });
  const ruleset = h(
    "select",
    { id: "challenge-ruleset", name: "ruleset" },
    ...RULESET_ORDER.map((id) => h("option", { value: id, text: RULES[id]?.title ?? id })),
  );
  ruleset.value = DEFAULT_RULESET;
  const times = h(
    "div",
    { class: "chips", role: "radiogroup", "aria-label": "Time for each move" },
    ...MOVE_TIMES.map((s) =>
      h("label", { class: "chip" }, radio("ch_move_time", String(s), s === DEFAULT_MOVE_TIME, `challenge-time-${s}`), h("span", { text: durationText(s) })),
    ),
  );
  const sides = h(
    "div",
    { class: "chips", role: "radiogroup", "aria-label": "Your side" },
    ...SIDES.map((s) => h("label", { class: "chip" }, radio("ch_side", s.id, s.id === "random", `challenge-side-${s.id}`), h("span", { text: s.label }))),
  );
  const rated = h("input", { type: "checkbox", id: "challenge-rated", name: "rated" });
  rated.checked = true;
  const error = h("p", { class: "error", role: "alert", id: "challenge-error" });
  const send = h("button", { type: "submit", class: "btn btn-primary", id: "challenge-send", text: "Send the challenge" });
  const cancel = h("button", { type: "button", class: "btn", id: "challenge-close", text: "Cancel" });
  const form = h(
    "form",
    { class: "challenge-form", id: "challenge-form", novalidate: true, hidden: true },
    h("label", { class: "field", for: "challenge-ruleset" }, h("strong", { text: "Rule set " }), ruleset),
    h("fieldset", {}, h("legend", { text: "Time per move" }), times),
    h("fieldset", {}, h("legend", { text: "You play" }), sides),
    h("div", {}, h("label", { class: "inline", for: "challenge-rated" }, rated, " Rated"), h("p", { class: "hint", id: "challenge-rated-hint", text: ratedHint(target.bot) })),
    error,
    h("div", { class: "form-buttons" }, send, cancel),
  );
  const show = (on: boolean) => {
    form.hidden = !on;
    open.hidden = on;
    open.setAttribute("aria-expanded", String(on));
    if (on) ruleset.focus();
    else open.focus();
  };
  open.addEventListener("click", () => show(true));
  cancel.addEventListener("click", () => show(false));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    send.disabled = true;
    const checked = (name: string) => form.querySelector<HTMLInputElement>(`input[name="${name}"]:checked`)?.value ?? "";
    try {
      const res = await challengeApi.create(target.id, {
        ruleset: ruleset.value,
        move_time: Number(checked("ch_move_time")) || DEFAULT_MOVE_TIME,
        rated: rated.checked,
        side: (checked("ch_side") || "random") as ChallengeSide,
      });
      ctx.navigate(res.challenge.url || `/g/${res.challenge.id}`);
    } catch (err) {
      error.textContent = challengeErrorText(err);
      send.disabled = false;
    }
  });
  return h(
    "section",
    { class: "panel challenge-box", id: "challenge-box", "aria-label": `Challenge ${target.name}` },
    h("p", { class: "hint", text: target.bot ? `Play ${target.name}, a bot, at the terms you choose: its program accepts or declines.` : `Ask ${target.name} for a game at the terms you choose: they accept or decline.` }),
    open,
    form,
  );
}

/** What a visitor without an account sees instead. */
export function challengeLogin(target: { id: string; name: string }): HTMLElement {
  return h(
    "p",
    { class: "hint", id: "challenge-login" },
    h("a", { href: `/login?next=${encodeURIComponent(`/u/${target.id}`)}`, text: "Log in" }),
    ` to challenge ${target.name}.`,
  );
}
