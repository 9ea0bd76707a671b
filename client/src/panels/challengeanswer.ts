// A challenge's answer, wherever it is given (the header's panel, the game page): Accept,
// Decline and the reason the challenger reads, with its error line in words.

import { h } from "../dom";
import { DECLINE_REASONS, challengeErrorText } from "../logic/challenges";
import { challengeApi } from "../network/challenges";

export interface AnswerControls {
  accept: HTMLButtonElement;
  decline: HTMLButtonElement;
  reason: HTMLSelectElement;
  error: HTMLElement;
}

export interface AnswerOptions {
  /** The elements' attributes (ids or classes) where they differ by place. */
  attrs: { accept: Record<string, string>; decline: Record<string, string>; reason: Record<string, string>; error: Record<string, string> };
  /** After the accept was taken: the game's url. */
  accepted(url: string): void;
  /** After the decline was taken. */
  declined?(): void;
  /** After either was refused (its words are shown already). */
  refused?(): void;
}

/** The controls answering challenge `game`. */
export function challengeAnswer(game: string, opts: AnswerOptions): AnswerControls {
  const { attrs } = opts;
  const error = h("p", { role: "alert", ...attrs.error });
  const accept = h("button", { type: "button", text: "Accept", ...attrs.accept });
  const decline = h("button", { type: "button", text: "Decline", ...attrs.decline });
  const reason = h(
    "select",
    { "aria-label": "Why you decline (the challenger reads it)", ...attrs.reason },
    ...DECLINE_REASONS.map((r) => h("option", { value: r.id, text: r.label })),
  );
  const busy = (on: boolean) => {
    accept.disabled = on;
    decline.disabled = on;
    reason.disabled = on;
  };
  const answer = async (act: () => Promise<void>) => {
    busy(true);
    error.textContent = "";
    try {
      await act();
    } catch (err) {
      error.textContent = challengeErrorText(err);
      busy(false);
      opts.refused?.();
    }
  };
  accept.addEventListener("click", () => void answer(async () => opts.accepted((await challengeApi.accept(game)).url || `/g/${game}`)));
  decline.addEventListener("click", () =>
    void answer(async () => {
      await challengeApi.decline(game, reason.value);
      opts.declined?.();
    }),
  );
  return { accept, decline, reason, error };
}
