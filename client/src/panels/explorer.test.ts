import { describe, expect, it } from "vitest";
import { explorerPath, gamesText, LABEL_MIN_PCT, percentages, ratingText, segments, shareText } from "./explorer";

describe("the explorer's result bar", () => {
  it("gives whole percentages that add up to 100", () => {
    expect(percentages({ attackers: 1, draws: 1, defenders: 1 })).toEqual([34, 33, 33]);
    expect(percentages({ attackers: 2, draws: 0, defenders: 1 })).toEqual([67, 0, 33]);
    expect(percentages({ attackers: 0, draws: 0, defenders: 5 })).toEqual([0, 0, 100]);
    for (const [a, d, f] of [[7, 3, 11], [1, 998, 1], [123, 45, 6789], [1, 1, 4]]) {
      const p = percentages({ attackers: a, draws: d, defenders: f });
      expect(p[0] + p[1] + p[2]).toBe(100);
    }
  });

  it("is empty without games", () => {
    expect(percentages({ attackers: 0, draws: 0, defenders: 0 })).toEqual([0, 0, 0]);
  });

  it("labels only the segments wide enough, and says every count in the title", () => {
    const s = segments({ attackers: 90, draws: 2, defenders: 8 });
    expect(s.map((x) => x.side)).toEqual(["attackers", "draws", "defenders"]);
    expect(s.map((x) => x.pct)).toEqual([90, 2, 8]);
    expect(s.map((x) => x.label)).toEqual(["90%", "", ""]);
    expect(s[1].title).toBe("2 drawn (2%)");
    expect(s[2].title).toBe("8 defenders won (8%)");
    const edge = segments({ attackers: LABEL_MIN_PCT, draws: 0, defenders: 100 - LABEL_MIN_PCT });
    expect(edge[0].label).toBe(`${LABEL_MIN_PCT}%`);
  });
});

describe("the explorer's numbers in words", () => {
  it("groups thousands", () => {
    expect(gamesText(0)).toBe("0");
    expect(gamesText(999)).toBe("999");
    expect(gamesText(1000)).toBe("1,000");
    expect(gamesText(1234567)).toBe("1,234,567");
  });

  it("gives a move's share of the position's games", () => {
    expect(shareText(50, 100)).toBe("50%");
    expect(shareText(7, 200)).toBe("3.5%");
    expect(shareText(0, 10)).toBe("0%");
    expect(shareText(3, 0)).toBe("0%");
  });

  it("shows a dash for a move whose games were never rated", () => {
    expect(ratingText(null)).toBe("–");
    expect(ratingText(1523.6)).toBe("1524");
  });

  it("asks for the position in the URL's query, escaped", () => {
    expect(explorerPath("nielsen", "3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a")).toBe(
      "/api/explorer?ruleset=nielsen&position=3A3%2F3A3%2F3D3%2FAADKDAA%2F3D3%2F3A3%2F3A3%20a",
    );
  });
});
