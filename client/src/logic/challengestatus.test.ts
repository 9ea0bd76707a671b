import { describe, expect, it } from "vitest";
import type { EventFrame, State } from "../network/protocol";
import { eventNote } from "./lifecycle";
import { makeState } from "../testing";
import { challengeEndText, isChallenge, statusLine } from "./status";

// A challenge from Ann to Ben: a game waiting for Ben alone.
function challenge(extra: Partial<State> = {}): State {
  return makeState(0, {
    status: "waiting",
    players: { attackers: null, defenders: null },
    creator: { id: "ann", name: "Ann" },
    invitee: "ben",
    origin: "challenge",
    ...extra,
  });
}

describe("a challenge's lines on the game page", () => {
  it("tells the challenger whom they wait for, the player challenged to answer", () => {
    expect(isChallenge(challenge())).toBe(true);
    expect(statusLine(challenge(), "ann", "Ben")).toBe("Waiting for Ben to accept your challenge");
    expect(statusLine(challenge(), "ann")).toBe("Waiting for your opponent to accept your challenge");
    expect(statusLine(challenge(), "ben", "Ben")).toBe("Ann challenges you — accept or decline");
    expect(statusLine(challenge(), "carl", "Ben")).toBe("You are watching — waiting for Ben to accept the challenge");
  });

  it("says who declined and why, or who cancelled", () => {
    const declined = challenge({ status: "ended", withdrawn: true, declined: "tooFast" });
    expect(statusLine(declined, "ann", "Ben")).toBe("Ben declined: too fast, ask with more time per move");
    expect(challengeEndText(declined, "ben", "Ben")).toBe("You declined this challenge");
    expect(challengeEndText(challenge({ status: "ended", declined: "generic" }), "ann", null)).toBe("Your opponent declined your challenge");
    const cancelled = challenge({ status: "ended", withdrawn: true });
    expect(statusLine(cancelled, "ann", "Ben")).toBe("You cancelled this challenge");
    expect(statusLine(cancelled, "ben", "Ben")).toBe("This challenge was cancelled by Ann");
  });

  it("leaves a friend's invitation as it was", () => {
    const invite = challenge({ invitee: null, origin: "invite" });
    expect(statusLine(invite, "ann")).toBe("Waiting for your friend to join — send them the invite link");
  });
});

describe("a challenge's end in the game's notes", () => {
  const withdraw = (state: State, declined?: string) =>
    ({ t: "event", game: "g", n: 1, kind: "withdraw", by: null, state, ...(declined ? { declined } : {}) }) as unknown as EventFrame;

  it("says declined, cancelled or withdrawn", () => {
    expect(eventNote(withdraw(challenge({ status: "ended" }), "tooFast"))).toBe("The challenge was declined before the game started.");
    expect(eventNote(withdraw(challenge({ status: "ended" })))).toBe("The challenge was cancelled before the game started.");
    expect(eventNote(withdraw(challenge({ status: "ended", invitee: null })))).toBe("The invitation was withdrawn before anyone joined.");
  });
});
