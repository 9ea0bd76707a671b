import { describe, expect, it } from "vitest";
import { claimOffer, goneText } from "./claim";
import { makeState } from "../testing";

const live = (ply: number, extra = {}) => makeState(ply, { move_time: 180, ...extra });

describe("an opponent who left", () => {
  it("counts the time since they left by the server's clock, and offers the claim after the grace", () => {
    const early = claimOffer(live(4), "attackers", ["p1"], { p2: 10_000 }, 22_000);
    expect(early).toEqual({ name: "Two", gone: 12_000, due: false, wait: 18_000 });
    const due = claimOffer(live(4), "attackers", ["p1"], { p2: 10_000 }, 40_000);
    expect(due?.due).toBe(true);
    expect(claimOffer(live(4), "attackers", ["p1"], { p2: 10_000 }, 12_000, 2_000)?.due).toBe(true);
  });

  it("offers nothing once they are back, in correspondence, against the bot, to spectators", () => {
    expect(claimOffer(live(4), "attackers", ["p1", "p2"], { p2: 10_000 }, 90_000)).toBeNull();
    expect(claimOffer(live(4), "attackers", ["p1"], {}, 90_000)).toBeNull();
    expect(claimOffer(makeState(4), "attackers", ["p1"], { p2: 1 }, 90_000)).toBeNull();
    expect(claimOffer(live(4, { opponent: "bot" }), "attackers", [], { p2: 1 }, 90_000)).toBeNull();
    expect(claimOffer(live(4), null, [], { p2: 1 }, 90_000)).toBeNull();
    expect(claimOffer(live(4, { status: "ended" }), "attackers", [], { p2: 1 }, 90_000)).toBeNull();
  });

  it("is never due before both sides have moved (abort instead)", () => {
    const offer = claimOffer(live(1), "defenders", ["p2"], { p1: 0 }, 90_000);
    expect(offer?.due).toBe(false);
    expect(offer?.name).toBe("One");
  });

  it("says the time as minutes and seconds", () => {
    expect(goneText(7_900)).toBe("0:07");
    expect(goneText(90_000)).toBe("1:30");
  });
});
