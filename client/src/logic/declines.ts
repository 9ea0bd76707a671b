// The reasons a challenge may be declined with (docs/protocol.md, "Challenges"), in the
// order the decline offers them: the short label of the choice, and what the challenger
// reads after "Ann declined".

export interface DeclineReason {
  id: string;
  label: string;
  /** after the challenged player's name: "declined: too fast, …" */
  told: string;
}

export const DECLINE_REASONS: readonly DeclineReason[] = [
  { id: "generic", label: "No reason given", told: "declined your challenge" },
  { id: "later", label: "Not now", told: "declined: not now, ask again later" },
  { id: "tooFast", label: "Too fast", told: "declined: too fast, ask with more time per move" },
  { id: "tooSlow", label: "Too slow", told: "declined: too slow, ask with less time per move" },
  { id: "timeControl", label: "Another time per move", told: "declined: wants another time per move" },
  { id: "rated", label: "Rated games only", told: "declined: not rated, send a rated challenge instead" },
  { id: "casual", label: "Casual games only", told: "declined: not casual, send a casual challenge instead" },
  { id: "ruleset", label: "Another rule set", told: "declined: wants another rule set" },
  { id: "noBot", label: "I do not play bots", told: "declined: does not play bots" },
  { id: "onlyBot", label: "I play only bots", told: "declined: plays only bots" },
];

/** "Ann declined: too fast, ask with more time per move." (an unknown reason: the generic one) */
export function declinedText(name: string, reason: string | null | undefined): string {
  const r = DECLINE_REASONS.find((x) => x.id === (reason ?? "generic")) ?? DECLINE_REASONS[0];
  return `${name} ${r.told}.`;
}
