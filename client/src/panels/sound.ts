// Sounds of the game page, generated with Web Audio (no files): a move, a capture, your
// turn, low time and the end. Muting is remembered in this browser.

export type SoundKind = "move" | "capture" | "turn" | "low" | "end";

const MUTE_KEY = "brandubh.mute";

/** Each sound as tones: [frequency Hz, start s, length s, wave]. */
export const TONES: Record<SoundKind, [number, number, number, OscillatorType][]> = {
  move: [[520, 0, 0.07, "triangle"]],
  capture: [
    [330, 0, 0.08, "square"],
    [220, 0.06, 0.12, "square"],
  ],
  turn: [
    [660, 0, 0.08, "sine"],
    [880, 0.09, 0.1, "sine"],
  ],
  low: [
    [990, 0, 0.06, "sine"],
    [990, 0.12, 0.06, "sine"],
  ],
  end: [
    [523, 0, 0.14, "triangle"],
    [659, 0.14, 0.14, "triangle"],
    [784, 0.28, 0.26, "triangle"],
  ],
};

export function isMuted(): boolean {
  try {
    return localStorage.getItem(MUTE_KEY) === "1";
  } catch {
    return false;
  }
}

export function setMuted(muted: boolean): void {
  try {
    localStorage.setItem(MUTE_KEY, muted ? "1" : "0");
  } catch {
    /* not remembered, still muted for this page */
  }
  mutedNow = muted;
}

let mutedNow = isMuted();
let ctx: AudioContext | null = null;
/** The sounds played, newest last (for tests and the console). */
export const played: SoundKind[] = [];

export function play(kind: SoundKind): void {
  if (mutedNow) return;
  played.push(kind);
  try {
    ctx ??= new AudioContext();
    if (ctx.state === "suspended") void ctx.resume();
    const t0 = ctx.currentTime + 0.01;
    for (const [freq, start, length, wave] of TONES[kind]) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = wave;
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t0 + start);
      gain.gain.exponentialRampToValueAtTime(0.18, t0 + start + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + start + length);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t0 + start);
      osc.stop(t0 + start + length + 0.02);
    }
  } catch {
    /* no audio here: the game goes on silently */
  }
}
