import { describe, expect, it } from "vitest";
import { ServerClock, clockViews, formatAllowance, formatRemaining, spokenRemaining , urgentLimitMs } from "./clock";

const SEC = 1000;
const MIN = 60 * SEC;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe("the server's clock", () => {
  it("is the local clock until the first sample", () => {
    const clock = new ServerClock();
    expect(clock.known).toBe(false);
    expect(clock.offset).toBe(0);
    expect(clock.now(1_000)).toBe(1_000);
  });

  it("takes the offset from hello/ping `now`, keeping the least delayed sample", () => {
    const clock = new ServerClock();
    // The server is 5 s ahead; frames take 40 ms, 10 ms, 200 ms to arrive.
    clock.observe(100_000, 95_040);
    clock.observe(102_500, 97_510);
    clock.observe(105_000, 100_200);
    expect(clock.known).toBe(true);
    expect(clock.offset).toBe(4_990);
    expect(clock.now(200_000)).toBe(204_990);
    // A deadline 30 s ahead by the server's clock, seen from the local clock.
    expect(clock.remaining(204_990 + 30_000, 200_000)).toBe(30_000);
  });

  it("follows a changed local clock within a few samples, and ignores nonsense", () => {
    const clock = new ServerClock();
    clock.observe(100_000, 40_000); // 60 s behind
    clock.observe(0, 1); // not a time
    clock.observe(Number.NaN, 1);
    expect(clock.offset).toBe(60_000);
    for (let i = 1; i <= 8; i++) clock.observe(100_000 + i * 2_500, 100_000 + i * 2_500 + 20);
    expect(clock.offset).toBe(-20);
  });
});

describe("countdown text", () => {
  it("shows minutes and seconds under an hour, rounding seconds up", () => {
    expect(formatRemaining(9 * MIN + 5 * SEC)).toBe("9:05");
    expect(formatRemaining(42 * SEC)).toBe("0:42");
    expect(formatRemaining(41_001)).toBe("0:42");
    expect(formatRemaining(1)).toBe("0:01");
    expect(formatRemaining(0)).toBe("0:00");
    expect(formatRemaining(-5_000)).toBe("0:00");
    expect(formatRemaining(HOUR - 1)).toBe("1 h"); // 3599.999 s rounds up to the hour
    expect(formatRemaining(HOUR - SEC)).toBe("59:59");
  });

  it("shows hours and minutes, then days and hours, for long deadlines", () => {
    expect(formatRemaining(5 * HOUR + 12 * MIN + 30 * SEC)).toBe("5 h 12 min");
    expect(formatRemaining(HOUR)).toBe("1 h"); // as a person writes it, not "1 h 0 min"
    expect(formatRemaining(2 * DAY + 3 * HOUR + 59 * MIN)).toBe("2 d 3 h");
    expect(formatRemaining(7 * DAY)).toBe("7 d");
    expect(formatRemaining(DAY + 30 * MIN)).toBe("1 d");
    expect(spokenRemaining(DAY)).toBe("1 day");
    expect(formatRemaining(DAY - SEC)).toBe("23 h 59 min");
  });

  it("says it in words for screen readers", () => {
    expect(spokenRemaining(2 * DAY + 3 * HOUR)).toBe("2 days 3 hours");
    expect(spokenRemaining(HOUR + MIN)).toBe("1 hour 1 minute");
    expect(spokenRemaining(9 * MIN + 5 * SEC)).toBe("9 minutes 5 seconds");
    expect(spokenRemaining(SEC)).toBe("1 second");
  });

  it("shows the time per move", () => {
    expect([60, 180, 600, 3600, 86_400, 259_200, 604_800].map(formatAllowance)).toEqual([
      "1:00", "3:00", "10:00", "1 h", "1 d", "3 d", "7 d",
    ]);
  });
});

describe("both sides' clocks", () => {
  const running = { status: "active" as const, turn: "defenders" as const, deadline: 1_000_000, move_time: 600 };

  it("count down for the side to move and show the time per move for the other", () => {
    const views = clockViews(running, 9 * MIN + 5 * SEC)!;
    expect(views.map((v) => [v.side, v.tone, v.time, v.caption])).toEqual([
      ["attackers", "idle", "10:00", "per move"],
      ["defenders", "running", "9:05", "left"],
    ]);
    expect(views[1].label).toBe("Defenders to move: 9 minutes 5 seconds left");
    expect(views[0].label).toBe("Attackers: not their move; 10 minutes per move");
  });

  it("say so clearly under a minute, and when time is up", () => {
    const urgent = clockViews(running, 42_300)![1];
    expect(urgent).toMatchObject({ tone: "urgent", time: "0:43", caption: "under a minute!" });
    expect(urgent.label).toBe("Defenders to move: 43 seconds left, under a minute");
    // The tone follows the figure shown: "1:00" is not under a minute, "0:59" is.
    expect(clockViews(running, 59_500)![1]).toMatchObject({ tone: "running", time: "1:00" });
    expect(clockViews(running, 59_000)![1]).toMatchObject({ tone: "urgent", time: "0:59" });
    expect(clockViews(running, 0)![1]).toMatchObject({ tone: "expired", time: "0:00", caption: "time is up" });
  });

  it("show days and hours for long deadlines", () => {
    const week = { ...running, move_time: 604_800 };
    expect(clockViews(week, 2 * DAY + 3 * HOUR)![1]).toMatchObject({ time: "2 d 3 h", caption: "left" });
    expect(clockViews(week, 2 * DAY)![0]).toMatchObject({ time: "7 d", caption: "per move" });
  });

  it("are not shown unless the game is running", () => {
    expect(clockViews({ ...running, status: "waiting", turn: null, deadline: null }, null)).toBeNull();
    expect(clockViews({ ...running, status: "ended", turn: null, deadline: null }, null)).toBeNull();
  });
});

describe("urgency of short move times", () => {
  it("turns a one-minute clock urgent only in its last quarter", () => {
    const oneMinute = { status: "active" as const, turn: "attackers" as const, deadline: 1, move_time: 60 };
    expect(clockViews(oneMinute, 59_000)![0]).toMatchObject({ tone: "running", caption: "left" });
    expect(clockViews(oneMinute, 14_000)![0]).toMatchObject({ tone: "urgent", caption: "under 15 seconds!" });
    expect(urgentLimitMs(600)).toBe(60_000);
  });
});
