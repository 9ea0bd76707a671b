import { describe, expect, it } from "vitest";
import { ApiError } from "./api";
import { SCOPES, formProblem, lastUsedText, tokenErrorText } from "./tokens";

describe("API tokens", () => {
  it("lists the server's three scopes, each with a sentence", () => {
    expect(SCOPES.map((s) => s.id)).toEqual(["bot:play", "challenge:write", "games:read"]);
    for (const s of SCOPES) expect(s.text).toMatch(/^[A-Z].*\.$/);
  });

  it("says when a token was last used", () => {
    const now = Date.UTC(2026, 11, 6, 12);
    expect(lastUsedText(null, now)).toBe("never");
    expect(lastUsedText(now - 30_000, now)).toBe("just now");
    expect(lastUsedText(now - 5 * 60_000, now)).toBe("5 minutes ago");
    expect(lastUsedText(now - 3600_000, now)).toBe("an hour ago");
    expect(lastUsedText(now - 5 * 3600_000, now)).toBe("5 hours ago");
    expect(lastUsedText(now - 30 * 3600_000, now)).toBe("yesterday");
    expect(lastUsedText(now - 5 * 86400_000, now)).toBe("5 days ago");
    expect(lastUsedText(Date.UTC(2026, 0, 2), now)).toBe("2 Jan 2026");
  });

  it("checks the form before asking", () => {
    expect(formProblem("  ", ["games:read"])).toMatch(/name/);
    expect(formProblem("x".repeat(41), ["games:read"])).toMatch(/40/);
    expect(formProblem("engine", [])).toMatch(/scope/);
    expect(formProblem(" engine ", ["bot:play"])).toBeNull();
  });

  it("puts refusals into words", () => {
    expect(tokenErrorText(new ApiError("too_many_tokens", "x", 409))).toMatch(/Revoke one/);
    expect(tokenErrorText(new ApiError("unknown_scope", "unknown scope 'x'", 400))).toBe("Unknown scope 'x'.");
    expect(tokenErrorText(new Error("boom"))).toMatch(/went wrong/);
  });
});
