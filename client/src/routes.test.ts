import { describe, expect, it } from "vitest";
import { ROUTES, matchRoute } from "./routes";

describe("routes", () => {
  it("matches every example to its own route", () => {
    for (const r of ROUTES) expect(matchRoute(r.example)?.route.name).toBe(r.name);
  });
  it("captures parameters, decoded", () => {
    expect(matchRoute("/join/abcdef123/to%2Fken")?.params).toEqual(["abcdef123", "to/ken"]);
    expect(matchRoute("/leaderboard")?.params).toEqual([""]);
    expect(matchRoute("/g/abc")).toBeNull(); // ids are 6 to 32 characters
    expect(matchRoute("/nowhere")).toBeNull();
  });
});
