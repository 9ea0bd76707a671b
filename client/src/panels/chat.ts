// A game's chat panel (docs/protocol.md §3.7): the room this socket sees, preset lines one
// tap away ("Rematch?" once the game is over), reporting a line, muting one person for good
// (this browser hides their lines in every game), and turning chat off (remembered with the
// account). Every line is shown with textContent, never as HTML: markup, links and control
// characters stay text. On a phone the panel is folded under the page, so nothing above it
// moves; a button by the status line counts the lines not yet seen and opens the chat as a
// sheet over the page's foot, the board still in view above it.

import "./chat.css";
import { ApiError, request } from "../network/api";
import { h, clear } from "../dom";
import type { ChatFrame, ChatLine, ChatLinesFrame } from "../network/protocol";

export const PRESETS = ["Hello", "Good luck", "Good game", "Thank you", "Rematch?"] as const;
export const MAX_CHAT = 140;
/** Where this browser keeps the people whose lines it hides: [{id, name}, …]. */
export const MUTED_KEY = "bd-chat-muted";
const PHONE = "(max-width: 899px)";

export interface MutedPerson { id: string; name: string }

/** The people muted in this browser (bad or missing storage: nobody). */
export function loadMuted(storage: Pick<Storage, "getItem"> | null): MutedPerson[] {
  try {
    const raw: unknown = JSON.parse(storage?.getItem(MUTED_KEY) ?? "[]");
    if (!Array.isArray(raw)) return [];
    return raw.filter((p): p is MutedPerson => typeof p?.id === "string" && typeof p?.name === "string");
  } catch {
    return [];
  }
}

/** The presets to offer: "Rematch?" only once the game is over. */
export function presetsFor(ended: boolean): string[] {
  return PRESETS.filter((text) => ended || text !== "Rematch?");
}

/** Lines worth a count: another person's, not muted. */
export function countsAsUnread(line: ChatLine, me: string | null, muted: ReadonlySet<string>): boolean {
  return line.from.id !== me && !muted.has(line.from.id);
}

export type { ChatLine };

/** What the panel needs of the live connection (LiveClient; tests pass a fake). */
export interface ChatTransport {
  readonly isOpen: boolean;
  sendExtra(frame: { t: string }): boolean;
  onFrame(fn: (frame: { t: string }) => boolean | void): () => void;
}

type LinesFrame = ChatLinesFrame;
interface Reply { t: "ack" | "error"; id?: string; code?: string; message?: string }

/** Merge lines by their number, oldest first (a line held already is kept once). */
export function mergeLines(held: readonly ChatLine[], more: readonly ChatLine[]): ChatLine[] {
  const byN = new Map<number, ChatLine>();
  for (const line of [...held, ...more]) byN.set(line.n, line);
  return [...byN.values()].sort((a, b) => a.n - b.n);
}

let nextId = 0;

export class ChatPanel {
  readonly root: HTMLElement;
  /** the room this socket sees; null until known, or in a game with no chat */
  room: string | null = null;
  lines: ChatLine[] = [];
  private meId: string | null = null;
  private account = false;
  private newcomer = false;
  private off = false;
  private ended = false;
  private unread = 0;
  private sheet = false;
  private muted: MutedPerson[] = loadMuted(safeStorage());
  private readonly reported = new Set<number>(); // this room's lines reported from here
  /** The button by the status line (phone): the unread count; opens the chat as a sheet. */
  readonly jump: HTMLButtonElement;
  private readonly details: HTMLDetailsElement;
  private readonly closeSheet: HTMLButtonElement;
  private readonly mutedNote: HTMLElement;
  private readonly sent = new Map<string, string>(); // message id -> what it was
  private readonly list: HTMLOListElement;
  private readonly input: HTMLInputElement;
  private readonly form: HTMLFormElement;
  private readonly presets: HTMLElement;
  private readonly note: HTMLElement;
  private readonly offToggle: HTMLButtonElement;
  private readonly title: HTMLElement;
  private readonly unhook: () => void;

  constructor(
    private readonly transport: ChatTransport,
    private readonly game: string,
    folded: boolean,
  ) {
    this.list = h("ol", { class: "chat-lines", id: "chat-lines", "aria-live": "polite", "aria-label": "Chat lines" });
    this.input = h("input", {
      id: "chat-input", type: "text", maxlength: MAX_CHAT, autocomplete: "off",
      "aria-label": "Say something", placeholder: "Say something…",
    });
    this.form = h("form", { class: "chat-form", id: "chat-form" }, this.input,
      h("button", { type: "submit", class: "btn btn-small", id: "chat-send", text: "Send" }));
    this.presets = h("div", { class: "chat-presets", id: "chat-presets" },
      ...PRESETS.map((text) => {
        const b = h("button", { type: "button", class: "btn btn-small chat-preset", text, "data-preset": text });
        b.addEventListener("click", () => this.say(text));
        return b;
      }));
    this.mutedNote = h("p", { class: "chat-muted", id: "chat-muted", hidden: true });
    this.closeSheet = h("button", { type: "button", class: "btn btn-small chat-close", id: "chat-close", text: "Close", "aria-label": "Close the chat" });
    this.closeSheet.addEventListener("click", () => this.setSheet(false));
    this.jump = h("button", { type: "button", class: "btn btn-small chat-jump", id: "chat-jump", hidden: true });
    this.jump.addEventListener("click", () => this.setSheet(!this.sheet));
    this.note = h("p", { class: "chat-note", id: "chat-note", role: "status" });
    this.offToggle = h("button", { type: "button", class: "btn btn-small chat-off", id: "chat-off", hidden: true });
    this.title = h("summary", { class: "chat-title", id: "chat-title", text: "Chat" });
    const body = h("div", { class: "chat-body" }, this.list, this.mutedNote, this.presets, this.form, h("div", { class: "chat-foot" }, this.note, this.offToggle, this.closeSheet));
    this.details = h("details", { class: "chat-box", id: "chat-box" }, this.title, body);
    this.details.open = !folded;
    this.details.addEventListener("toggle", () => {
      if (!this.details.open && this.sheet) this.setSheet(false);
      this.markSeen();
    });
    this.root = h("section", { class: "g-chat panel", id: "chat", "aria-label": "Chat", hidden: true }, this.details);

    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      const text = this.input.value.trim();
      if (text) this.say(text);
    });
    this.offToggle.addEventListener("click", () => void this.setOff(!this.off));
    this.unhook = transport.onFrame((frame) => this.handle(frame));
  }

  /** Who reads: an account may write (if confirmed) and turn chat off; a newcomer seated
   *  from an invitation writes once their address is confirmed. */
  setViewer(id: string | null, account: boolean, newcomer = false): void {
    this.meId = id;
    this.account = account;
    this.newcomer = newcomer;
    this.offToggle.hidden = !account;
    if (account) {
      request<{ chat_off: boolean }>("GET", "/api/me/chat")
        .then((r) => { this.off = r.chat_off; this.render(); })
        .catch(() => undefined);
    }
    this.render();
  }

  destroy(): void {
    this.unhook();
  }

  /** Whether the game is over: "Rematch?" is offered only then. */
  setEnded(ended: boolean): void {
    if (ended === this.ended) return;
    this.ended = ended;
    this.render();
  }

  /** Open (or close) the chat as a sheet over the page's foot (a phone's way to read it
   *  without scrolling away from the board). */
  setSheet(on: boolean): void {
    this.sheet = on;
    this.root.classList.toggle("chat-sheet", on);
    if (on) this.details.open = true;
    this.markSeen();
    this.renderJump();
    if (on) this.list.scrollTop = this.list.scrollHeight;
  }

  /** Whether this reader can see the lines now: the chat unfolded and, on a phone, opened as
   *  the sheet or scrolled into view. */
  private seeing(): boolean {
    if (!this.details.open || this.off) return false;
    if (this.sheet || !window.matchMedia(PHONE).matches) return true;
    const box = this.root.getBoundingClientRect();
    return box.top < window.innerHeight && box.bottom > 0;
  }

  private markSeen(): void {
    if (this.seeing()) this.unread = 0;
    this.renderJump();
  }

  private renderJump(): void {
    const shown = this.room !== null;
    this.jump.hidden = !shown;
    this.jump.dataset.unread = String(this.unread);
    this.jump.setAttribute("aria-expanded", this.sheet ? "true" : "false");
    this.jump.textContent = this.sheet ? "Board" : this.unread ? `Chat · ${this.unread} new` : "Chat";
    this.jump.setAttribute("aria-label", this.sheet ? "Close the chat" : this.unread ? `Open the chat: ${this.unread} new lines` : "Open the chat");
  }

  private mute(person: MutedPerson): void {
    if (!this.muted.some((p) => p.id === person.id)) this.muted = [...this.muted, person];
    this.saveMuted();
  }

  private unmute(id: string): void {
    this.muted = this.muted.filter((p) => p.id !== id);
    this.saveMuted();
  }

  private saveMuted(): void {
    try {
      safeStorage()?.setItem(MUTED_KEY, JSON.stringify(this.muted));
    } catch {
      // (private browsing, storage full: muted for this page only)
    }
    this.render();
  }

  private handle(frame: { t: string }): boolean {
    if (frame.t === "chat") {
      const f = frame as ChatFrame;
      if (f.game !== this.game) return false;
      const line = { n: f.n, from: f.from, text: f.text, at: f.at };
      const fresh = !this.lines.some((l) => l.n === f.n);
      this.lines = mergeLines(this.lines, [line]);
      const muted = new Set(this.muted.map((p) => p.id));
      if (fresh && !this.seeing() && countsAsUnread(line, this.meId, muted)) this.unread += 1;
      this.render();
      return true;
    }
    if (frame.t === "chat_lines") {
      const f = frame as LinesFrame;
      if (f.game !== this.game) return false;
      if (f.room !== this.room) {
        this.lines = [];
        this.reported.clear();
      }
      this.room = f.room;
      this.lines = mergeLines(this.lines, f.lines);
      this.render();
      return true;
    }
    if (frame.t === "ack" || frame.t === "error") {
      const f = frame as Reply;
      if (f.id === undefined || !this.sent.has(f.id)) return false;
      this.sent.delete(f.id);
      if (f.t === "error") this.sayFailed(f.code ?? "", f.message ?? "");
      return true;
    }
    return false;
  }

  private say(text: string): void {
    if (!this.room) return;
    const id = `chat-${++nextId}`;
    if (!this.transport.sendExtra({ t: "chat", game: this.game, room: this.room, text, id } as { t: string })) {
      this.note.textContent = "Offline: the line was not sent.";
      return;
    }
    this.sent.set(id, text);
    this.input.value = "";
    this.note.textContent = "";
  }

  private sayFailed(code: string, message: string): void {
    const why: Record<string, string> = {
      account_required: "Log in to chat.",
      verification_required: "Confirm your email address to chat.",
    };
    this.note.textContent = why[code] ?? message;
  }

  private report(line: ChatLine, button: HTMLButtonElement): void {
    if (!this.room) return;
    const id = `chat-${++nextId}`;
    if (this.transport.sendExtra({ t: "report", game: this.game, room: this.room, line: line.n, id } as { t: string })) {
      this.sent.set(id, "");
      this.reported.add(line.n); // kept over a re-render (chat turned off and on)
      button.disabled = true;
      button.textContent = "Reported";
    }
  }

  private async setOff(off: boolean): Promise<void> {
    try {
      const r = await request<{ chat_off: boolean }>("PUT", "/api/me/chat", { chat_off: off });
      this.off = r.chat_off;
    } catch (e) {
      this.note.textContent = e instanceof ApiError ? e.message : "Could not save the setting.";
    }
    this.render();
  }

  private render(): void {
    this.root.hidden = this.room === null;
    this.renderJump();
    if (this.room === null) return;
    // A preset not offered yet keeps its place (invisible): offering it at the end moves
    // nothing under it.
    for (const b of this.presets.querySelectorAll<HTMLButtonElement>(".chat-preset")) {
      const offered = presetsFor(this.ended).includes(b.dataset.preset ?? "");
      b.classList.toggle("chat-preset-later", !offered);
      b.disabled = !offered;
    }
    const roomName = this.room === "players" ? "Chat with your opponent" : "Spectators' chat";
    this.offToggle.textContent = this.off ? "Turn chat on" : "Turn chat off";
    this.root.dataset.off = this.off ? "1" : "";
    this.list.hidden = this.off;
    this.presets.hidden = this.off || !this.account;
    this.form.hidden = this.off || !this.account;
    if (this.off) {
      this.title.textContent = `${roomName} (off)`;
      this.note.textContent = "Chat is off for you.";
      return;
    }
    if (this.note.textContent === "Chat is off for you.") this.note.textContent = "";
    const mutedIds = new Set(this.muted.map((p) => p.id));
    const shown = this.lines.filter((l) => !mutedIds.has(l.from.id)).length;
    this.title.textContent = `${roomName}${shown ? ` (${shown})` : ""}`;
    const guestNote = this.newcomer ? "Confirm your email to chat." : "Log in to chat.";
    if (!this.account && !this.note.textContent) this.note.textContent = guestNote;
    else if (this.account && this.note.textContent === guestNote) this.note.textContent = "";
    clear(this.list);
    for (const line of this.lines) {
      if (mutedIds.has(line.from.id)) continue;
      const li = h("li", { class: "chat-line", "data-n": line.n },
        h("a", { class: "chat-author", href: `/u/${line.from.id}`, text: line.from.name }), ": ",
        h("span", { class: "chat-text", text: line.text }));
      if (line.from.id !== this.meId) {
        const person = { id: line.from.id, name: line.from.name };
        const hush = h("button", { type: "button", class: "chat-mute", title: `Hide ${person.name}'s lines`, "aria-label": `Mute ${person.name}: hide their lines in every game`, text: "Mute" });
        hush.addEventListener("click", () => this.mute(person));
        li.append(hush);
      }
      if (this.account && line.from.id !== this.meId) {
        const done = this.reported.has(line.n);
        const flag = h("button", { type: "button", class: "chat-report", title: "Report this line", "aria-label": `Report this line of ${line.from.name}`, text: done ? "Reported" : "⚑", disabled: done });
        flag.addEventListener("click", () => this.report(line, flag));
        li.append(flag);
      }
      this.list.append(li);
    }
    // Only the muted people who speak here: each with their hidden lines and a way back.
    clear(this.mutedNote);
    const here = this.muted.filter((p) => this.lines.some((l) => l.from.id === p.id));
    this.mutedNote.hidden = this.off || here.length === 0;
    for (const person of here) {
      const count = this.lines.filter((l) => l.from.id === person.id).length;
      const undo = h("button", { type: "button", class: "chat-unmute", text: `Unmute ${person.name}`, "data-id": person.id });
      undo.addEventListener("click", () => this.unmute(person.id));
      this.mutedNote.append(h("span", { class: "chat-muted-one" }, `${person.name} is muted: ${count} line${count > 1 ? "s" : ""} hidden. `, undo));
    }
    this.list.scrollTop = this.list.scrollHeight;
  }
}

/** The player chat on a replay, for the game's two players only (the server refuses the
 *  others, and the section stays hidden); every line as text. */
export function replayChat(game: string): HTMLElement {
  const list = h("ol", { class: "chat-lines", id: "replay-chat-lines", "aria-label": "Chat between the players" });
  const box = h("section", { class: "replay-chat", id: "replay-chat", hidden: true }, h("h2", { text: "Chat between the players" }), list);
  request<{ lines: ChatLine[] }>("GET", `/api/games/${game}/chat`)
    .then((r) => {
      for (const line of r.lines) {
        list.append(h("li", { class: "chat-line", "data-n": line.n }, h("a", { class: "chat-author", href: `/u/${line.from.id}`, text: line.from.name }), ": ", h("span", { class: "chat-text", text: line.text })));
      }
      box.hidden = r.lines.length === 0;
    })
    .catch(() => undefined);
  return box;
}

function safeStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}
