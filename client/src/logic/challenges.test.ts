import { describe, expect, it } from "vitest";
import { ApiError } from "../network/api";
import {
  type Challenge,
  NO_CHALLENGES,
  attentionCount,
  challengeErrorText,
  created,
  declinedText,
  dismissed,
  gone,
  loaded,
  ratedHint,
  sideText,
  termsText,
} from "./challenges";
import { DECLINE_REASONS } from "./declines";

const ANN = { id: "p_ann", name: "Ann", bot: false };
const BEN = { id: "p_ben", name: "Ben", bot: false };
const BOT = { id: "p_bot", name: "Knotwork", bot: true };

function challenge(id: string, from = ANN, to = BEN, extra: Partial<Challenge> = {}): Challenge {
  return { id, url: `/g/${id}`, status: "created", from, to, ruleset: "nielsen", move_time: 180, rated: true, side: "random", created: 1000, ...extra };
}

describe("the challenge list", () => {
  it("sorts a loaded list newest first and keeps only open ones", () => {
    const list = loaded(NO_CHALLENGES, {
      in: [challenge("a", BOT, ANN, { created: 1 }), challenge("b", BEN, ANN, { created: 5 }), challenge("x", BEN, ANN, { status: "accepted" })],
      out: [challenge("c", ANN, BEN)],
    });
    expect(list.incoming.map((c) => c.id)).toEqual(["b", "a"]);
    expect(list.outgoing.map((c) => c.id)).toEqual(["c"]);
  });

  it("files a new challenge by whether it is to me or from me, once", () => {
    let list = created(NO_CHALLENGES, challenge("a", BEN, ANN), ANN.id);
    list = created(list, challenge("a", BEN, ANN), ANN.id);
    list = created(list, challenge("b", ANN, BOT), ANN.id);
    list = created(list, challenge("z", BEN, BOT), ANN.id); // neither: not mine
    expect(list.incoming.map((c) => c.id)).toEqual(["a"]);
    expect(list.outgoing.map((c) => c.id)).toEqual(["b"]);
  });

  it("drops a challenge accepted, declined or cancelled; keeps my declined one to read", () => {
    let list = created(NO_CHALLENGES, challenge("in", BEN, ANN), ANN.id);
    list = created(list, challenge("out", ANN, BEN), ANN.id);
    list = gone(list, challenge("in", BEN, ANN, { status: "canceled" }), ANN.id);
    expect(list.incoming).toEqual([]);
    expect(attentionCount(list)).toBe(0);
    list = gone(list, challenge("out", ANN, BEN, { status: "declined", declineReason: "tooFast" }), ANN.id);
    expect(list.outgoing).toEqual([]);
    expect(list.declined.map((c) => c.id)).toEqual(["out"]);
    expect(attentionCount(list)).toBe(1);
    // the frame again (a reload's replay): still one
    list = gone(list, challenge("out", ANN, BEN, { status: "declined", declineReason: "tooFast" }), ANN.id);
    expect(list.declined.length).toBe(1);
    expect(dismissed(list, "out").declined).toEqual([]);
  });

  it("takes a frame of a gone challenge as a `challenge` frame too", () => {
    const list = created(created(NO_CHALLENGES, challenge("a", BEN, ANN), ANN.id), challenge("a", BEN, ANN, { status: "accepted" }), ANN.id);
    expect(list.incoming).toEqual([]);
  });

  it("keeps declines already read across a reload", () => {
    const list = gone(NO_CHALLENGES, challenge("d", ANN, BEN, { status: "declined" }), ANN.id);
    expect(loaded(list, { in: [], out: [] }).declined.map((c) => c.id)).toEqual(["d"]);
  });

  it("counts challenges to answer and declines to read", () => {
    const list = { incoming: [challenge("a", BEN, ANN), challenge("b", BOT, ANN)], outgoing: [challenge("c")], declined: [challenge("d")] };
    expect(attentionCount(list)).toBe(3);
  });
});

describe("the words of challenges", () => {
  it("says the terms and the sides as each player plays them", () => {
    expect(termsText({ ruleset: "nielsen", move_time: 180, rated: true })).toBe("Nielsen · 3 minutes a move · rated");
    expect(termsText({ ruleset: "newsome", move_time: 86_400, rated: false })).toMatch(/1 day a move · casual$/);
    const c = challenge("a", ANN, BEN, { side: "attackers" });
    expect(sideText(c, ANN.id)).toBe("you play the attackers");
    expect(sideText(c, BEN.id)).toBe("you play the defenders");
    expect(sideText({ ...c, side: "random" }, BEN.id)).toBe("sides drawn at random");
  });

  it("tells the challenger why, in words, for every reason", () => {
    expect(declinedText({ to: BEN, declineReason: "tooFast" })).toBe("Ben declined: too fast, ask with more time per move.");
    expect(declinedText({ to: BEN })).toBe("Ben declined your challenge.");
    expect(declinedText({ to: BEN, declineReason: "someNewReason" })).toBe("Ben declined your challenge.");
    const ids = DECLINE_REASONS.map((r) => r.id);
    expect(ids).toEqual(["generic", "later", "tooFast", "tooSlow", "timeControl", "rated", "casual", "ruleset", "noBot", "onlyBot"]);
    for (const r of DECLINE_REASONS) {
      expect(r.label).not.toBe("");
      expect(declinedText({ to: BEN, declineReason: r.id })).toMatch(/^Ben declined.+\.$/);
    }
    expect(DECLINE_REASONS.find((r) => r.id === "later")?.label).toBe("Not now");
  });

  it("says what a rated game against a bot counts for", () => {
    expect(ratedHint(true)).toContain("bots' own leaderboard");
    expect(ratedHint(false)).toContain("both ratings");
  });

  it("puts the refusals into words", () => {
    expect(challengeErrorText(new ApiError("challenges_closed", "Ann does not take challenges from bots", 403))).toBe("Ann does not take challenges from bots.");
    expect(challengeErrorText(new ApiError("too_many_challenges", "at most 10", 409))).toContain("cancel one");
    expect(challengeErrorText(new ApiError("rate_limited", "too many challenges: try again in 4 minutes", 429))).toBe(
      "Too many challenges in a short time: try again in 4 minutes.",
    );
    expect(challengeErrorText(new ApiError("verification_required", "x", 403))).toContain("Confirm your email");
    expect(challengeErrorText(new ApiError("bad_field", "you cannot challenge yourself", 400))).toBe("You cannot challenge yourself.");
    expect(challengeErrorText(new Error("boom"))).toContain("Something went wrong");
  });
});
