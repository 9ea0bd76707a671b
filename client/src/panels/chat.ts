// A game's chat panel (docs/protocol.md §3.7): the room this socket sees, preset lines one
// tap away, reporting a line, and turning chat off (remembered with the account). Every
// line is shown with textContent, never as HTML: markup, links and control characters
// stay text. On a phone the panel is folded under the page, so nothing above it moves.

import "./chat.css";
import { ApiError, request } from "../network/api";
import { h, clear } from "../dom";
import type { ChatFrame, ChatLine, ChatLinesFrame } from "../network/protocol";

export const PRESETS = ["Hello", "Good luck", "Good game", "Thank you", "Rematch?"] as const;
export const MAX_CHAT = 140;

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
        const b = h("button", { type: "button", class: "btn btn-small chat-preset", text });
        b.addEventListener("click", () => this.say(text));
        return b;
      }));
    this.note = h("p", { class: "chat-note", id: "chat-note", role: "status" });
    this.offToggle = h("button", { type: "button", class: "btn btn-small chat-off", id: "chat-off", hidden: true });
    this.title = h("summary", { class: "chat-title", id: "chat-title", text: "Chat" });
    const body = h("div", { class: "chat-body" }, this.list, this.presets, this.form, h("div", { class: "chat-foot" }, this.note, this.offToggle));
    const details = h("details", { class: "chat-box", id: "chat-box" }, this.title, body);
    details.open = !folded;
    this.root = h("section", { class: "g-chat panel", id: "chat", "aria-label": "Chat", hidden: true }, details);

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

  private handle(frame: { t: string }): boolean {
    if (frame.t === "chat") {
      const f = frame as ChatFrame;
      if (f.game !== this.game) return false;
      this.lines = mergeLines(this.lines, [{ n: f.n, from: f.from, text: f.text, at: f.at }]);
      this.render();
      return true;
    }
    if (frame.t === "chat_lines") {
      const f = frame as LinesFrame;
      if (f.game !== this.game) return false;
      if (f.room !== this.room) this.lines = [];
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
    if (this.room === null) return;
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
    this.title.textContent = `${roomName}${this.lines.length ? ` (${this.lines.length})` : ""}`;
    const guestNote = this.newcomer ? "Confirm your email to chat." : "Log in to chat.";
    if (!this.account && !this.note.textContent) this.note.textContent = guestNote;
    else if (this.account && this.note.textContent === guestNote) this.note.textContent = "";
    clear(this.list);
    for (const line of this.lines) {
      const li = h("li", { class: "chat-line", "data-n": line.n },
        h("span", { class: "chat-author", text: line.from.name }), ": ",
        h("span", { class: "chat-text", text: line.text }));
      if (this.account && line.from.id !== this.meId) {
        const flag = h("button", { type: "button", class: "chat-report", title: "Report this line", "aria-label": `Report this line of ${line.from.name}`, text: "⚑" });
        flag.addEventListener("click", () => this.report(line, flag));
        li.append(flag);
      }
      this.list.append(li);
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
        list.append(h("li", { class: "chat-line", "data-n": line.n }, h("span", { class: "chat-author", text: line.from.name }), ": ", h("span", { class: "chat-text", text: line.text })));
      }
      box.hidden = r.lines.length === 0;
    })
    .catch(() => undefined);
  return box;
}
