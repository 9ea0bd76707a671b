// Move deadlines on the page: the server's clock as seen from this browser, and the
// countdown in words. Pure: the caller passes the local time.
//
// A deadline (`state.deadline`) is an absolute time by the server's clock. This browser's
// clock may be off by seconds or minutes, so the page counts down against an estimate of
// the server's clock: `hello.now` and every `ping.now` (each 2.5 s) give a sample.

import { durationText } from "../logic/status";

/** The most recent samples kept; the estimate is their largest offset. */
const SAMPLES = 8;

/**
 * The offset between the server's clock and this browser's.
 *
 * A sample `server now − local time at receipt` is low by the frame's travel time (the
 * server read its clock before sending), never high, so the largest of the last few samples
 * is the closest. Only recent ones count: if the local clock is changed, the estimate
 * follows within a few pings.
 */
export class ServerClock {
  private samples: number[] = [];

  /** A frame carrying the server's `now` arrived at local time `localNow`. */
  observe(serverNow: number, localNow: number): void {
    if (!Number.isFinite(serverNow) || serverNow <= 0) return;
    this.samples.push(serverNow - localNow);
    if (this.samples.length > SAMPLES) this.samples.shift();
  }

  /** Server clock minus local clock, ms; 0 until the first sample. */
  get offset(): number {
    return this.samples.length ? Math.max(...this.samples) : 0;
  }

  get known(): boolean {
    return this.samples.length > 0;
  }

  /** The server's time now, ms since the epoch. */
  now(localNow: number): number {
    return localNow + this.offset;
  }

  /** How long is left until a server-clock deadline, ms (negative once passed). */
  remaining(deadline: number, localNow: number): number {
    return deadline - this.now(localNow);
  }
}

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;

/** Under this much time left the clock turns red and says "under a minute". */
export const URGENT_MS = 60_000;

/** When a clock turns urgent: under a minute, or under a quarter of a short move time (a
 *  one-minute game is not urgent from its first second). */
export function urgentLimitMs(moveTime: number): number {
  return Math.min(URGENT_MS, Math.floor(moveTime / 4) * 1000);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * Time left, short: "2 d 3 h", "5 h 12 min", "9:05", "0:42", "0:00".
 * Seconds round up, so "0:01" shows until the very end.
 */
export function formatRemaining(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  // As a person writes it: "2 d 3 h", but "1 d" and "1 h" rather than "1 d 0 h", "1 h 0 min".
  if (s >= DAY) return joinUnits(Math.floor(s / DAY), "d", Math.floor((s % DAY) / HOUR), "h");
  if (s >= HOUR) return joinUnits(Math.floor(s / HOUR), "h", Math.floor((s % HOUR) / MINUTE), "min");
  return `${Math.floor(s / MINUTE)}:${String(s % MINUTE).padStart(2, "0")}`;
}

function joinUnits(big: number, bigUnit: string, small: number, smallUnit: string): string {
  return small ? `${big} ${bigUnit} ${small} ${smallUnit}` : `${big} ${bigUnit}`;
}

/** Time left in words, for screen readers: "2 days 3 hours", "9 minutes 5 seconds". */
export function spokenRemaining(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s >= DAY) return spokenUnits(Math.floor(s / DAY), "day", Math.floor((s % DAY) / HOUR), "hour");
  if (s >= HOUR) return spokenUnits(Math.floor(s / HOUR), "hour", Math.floor((s % HOUR) / MINUTE), "minute");
  if (s >= MINUTE) return `${plural(Math.floor(s / MINUTE), "minute")} ${plural(s % MINUTE, "second")}`;
  return plural(s, "second");
}

function spokenUnits(big: number, bigUnit: string, small: number, smallUnit: string): string {
  return small ? `${plural(big, bigUnit)} ${plural(small, smallUnit)}` : plural(big, bigUnit);
}

/** The time for one move, short: "1:00", "10:00", "1 h", "3 d". */
export function formatAllowance(seconds: number): string {
  if (seconds >= DAY && seconds % DAY === 0) return `${seconds / DAY} d`;
  if (seconds >= HOUR && seconds % HOUR === 0) return `${seconds / HOUR} h`;
  return formatRemaining(seconds * 1000);
}

export type ClockTone = "idle" | "running" | "urgent" | "expired";

export interface ClockView {
  side: "attackers" | "defenders";
  tone: ClockTone;
  /** the big figure: "9:05", "2 d 3 h", or the time per move while waiting */
  time: string;
  /** the small words beside it: "left", "under a minute!", "per move", "time is up" */
  caption: string;
  /** the whole clock in words, for its aria-label */
  label: string;
}

export interface ClockInput {
  status: "waiting" | "active" | "ended";
  turn: "attackers" | "defenders" | null;
  deadline: number | null;
  move_time: number;
}

/**
 * Both sides' clocks, or null when no clock runs (the game is waiting or over).
 * The side to move counts down to the deadline; the other shows its time per move.
 */
export function clockViews(state: ClockInput, remainingMs: number | null): ClockView[] | null {
  if (state.status !== "active") return null;
  return (["attackers", "defenders"] as const).map((side) => {
    const name = side === "attackers" ? "Attackers" : "Defenders";
    if (side !== state.turn || state.deadline === null || remainingMs === null) {
      const time = formatAllowance(state.move_time);
      return {
        side,
        tone: "idle",
        time,
        caption: "per move",
        label: `${name}: not their move; ${durationText(state.move_time)} per move`,
      };
    }
    if (remainingMs <= 0) {
      return { side, tone: "expired", time: "0:00", caption: "time is up", label: `${name}: time is up` };
    }
    // By the seconds shown, so that "1:00" is never "under a minute" and "0:59" always is.
    const limit = urgentLimitMs(state.move_time);
    const urgent = Math.ceil(remainingMs / 1000) * 1000 < limit;
    const hurry = limit === URGENT_MS ? "under a minute" : `under ${limit / 1000} seconds`;
    const spoken = spokenRemaining(remainingMs);
    return {
      side,
      tone: urgent ? "urgent" : "running",
      time: formatRemaining(remainingMs),
      caption: urgent ? `${hurry}!` : "left",
      label: `${name} to move: ${spoken} left${urgent ? `, ${hurry}` : ""}`,
    };
  });
}

