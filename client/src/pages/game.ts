// `/g/<id>`: the board, the players (ratings, connected or not, captures, clocks), the
// status line, the moves (stepped through by click or arrow keys), the draw offers and the
// end of the game — for players and spectators alike (spectators get no control that acts).
//
// The layout keeps the board still: it is sized to the viewport once, and everything that
// comes and goes (notices, offers, the connection, controls, the game-over panel) lives in
// slots of fixed size beside or under it (style.css, "game page").

import { type Profile, accountApi, deltaText, isGuestId, isNewcomer, ratingText } from "../network/account";
import { GameActions } from "../panels/actions";
import { Board } from "../board/board";
import { boardUrl } from "../board/boardurl";
import { ClaimBanner, claimOffer } from "../panels/claim";
import { ChatPanel } from "../panels/chat";
import { ClockBar } from "../panels/clockbar";
import { ConditionalPanel } from "../panels/conditional";
import { type AppContext, type Unmount, recallInvite } from "../context";
import { clear, h } from "../dom";
import { GameOverPanel } from "../panels/gameover";
import { tournamentOfGame } from "../logic/tournament";
import { cancelInviteRow, invitePanel } from "../panels/invite";
import { controlsFor, notePlace, rematchDestination } from "../logic/lifecycle";
import type { ActionKind, Change } from "../network/live";
import { askNotifications, notificationState } from "../frame/mygames";
import {
  type Position,
  type Side,
  applyMoveLocally,
  capturedCounts,
  capturesOf,
  describeMove,
  findLegal,
  moveRows,
  movesText,
  parseMove,
  parsePosition,
  positionsOf,
} from "../board/notation";
import type { Settlement } from "../network/pending";
import { cornerSvg, pieceSvg, throneSvg } from "../board/pieces";
import { type Premove, droppedText, makePremove, premoveAllowed, premoveMoves, queuedText, resolvePremove } from "../board/premove";
import type { State } from "../network/protocol";
import { RULES } from "../board/rules";
import { isMuted, play as playSound, setMuted } from "../panels/sound";
import {
  durationText,
  errorText,
  isCreator,
  isMyTurn,
  otherSide,
  repetitionWarning,
  sideOf,
  statusLine,
  originLabel,
  watchersText,
  withdrawnText,
} from "../logic/status";
import { TYPING, listenStepKeys } from "../board/stepkeys";

interface Bar {
  root: HTMLElement;
  dot: HTMLElement;
  name: HTMLElement;
  rating: HTMLElement;
  captured: HTMLElement;
  icon: HTMLElement;
  clockSlot: HTMLElement;
}

export function mountGame(root: HTMLElement, ctx: AppContext, game: string): Unmount {
  const live = ctx.live;
  const tracker = live.watch(game);
  let meId: string | null = live.player?.id ?? null;
  let errorMessage = "";
  let errorPly = -1;
  let infoMessage = "";
  // Whether this page saw the game over with no rematch agreed yet: only then does an
  // agreed rematch take the players to the new game by itself.
  let sawUnagreed = false;
  let leaving = false;
  /** the ply the board shows while stepping through the moves; null: the live position */
  let viewPly: number | null = null;
  let shownMoves = -1; // how many moves the board showed last (for sounds and motion)
  let shownStatus = "";
  let justPlayed: string | null = null; // my own move, already drawn where it goes
  let premove: Premove | null = null; // queued during the opponent's turn (premove.ts)
  const profiles = new Map<string, Profile | null>();
  let ratingAsked = false;

  const status = h("p", { class: "status-line", id: "status-line", "aria-live": "polite" });
  const connBanner = h("div", { class: "slot-msg conn-banner", id: "conn-banner", role: "status", hidden: true });
  const alert = h("div", { class: "slot-msg alert", id: "game-error", role: "alert" });
  const notice = h("p", { class: "slot-msg notice", id: "game-notice", "aria-live": "polite" });
  const repetition = h("p", { class: "slot-msg notice notice-warn", id: "repetition-warning", role: "status", hidden: true });
  const board = new Board((move, how) => play(move, how === "drag" ? "dragged" : "board"));
  const clocks = new ClockBar(live.clock);
  clocks.onLow = () => playSound("low");
  const actions = new GameActions((kind, accept) => act(kind, accept));
  actions.drawBanner.classList.add("slot-msg");
  const claimBanner = new ClaimBanner((kind) => act(kind));
  const gameOver = new GameOverPanel(
    game,
    () => act("rematch"),
    () => act("decline_rematch"),
    () => ctx.navigate(`/replay/${game}`),
  );
  const matchBox = h("div", { class: "match-box", id: "match-box", hidden: true });
  const input = h("input", {
    id: "move-input",
    type: "text",
    autocomplete: "off",
    autocapitalize: "off",
    spellcheck: "false",
    placeholder: "e.g. d1-c1",
    "aria-describedby": "move-help",
  });
  const moveForm = h(
    "form",
    { class: "move-form", id: "move-form" },
    h("label", { for: "move-input", text: "Type a move" }),
    h("div", { class: "move-row" }, input, h("button", { type: "submit", class: "btn", id: "move-submit", text: "Play" })),
    h("p", { class: "hint visually-hidden", id: "move-help", text: "Two squares joined by a dash: d1-c1. Captures are added for you." }),
  );

  function makeBar(where: "top" | "bottom"): Bar {
    const dot = h("span", { class: "online-dot", "data-online": "unknown", "aria-hidden": "true" });
    const name = h("span", { class: "pbar-name" });
    const rating = h("span", { class: "pbar-rating" });
    const captured = h("span", { class: "pbar-captured", title: "Pieces captured" });
    const icon = h("span", { class: "pbar-icon", "aria-hidden": "true" });
    const clockSlot = h("div", { class: "pbar-clock" });
    const rootEl = h(
      "div",
      { class: "pbar", id: `bar-${where}` },
      icon,
      h("span", { class: "pbar-who" }, dot, name, rating),
      captured,
      clockSlot,
    );
    return { root: rootEl, dot, name, rating, captured, icon, clockSlot };
  }
  const topBar = makeBar("top");
  const bottomBar = makeBar("bottom");
  const barSides: { top: Side | null; bottom: Side | null } = { top: null, bottom: null };

  const watchers = h("p", { class: "watchers", id: "watchers" });
  const info = h("p", { class: "info", id: "game-info" });
  const moves = h("ol", { class: "moves", id: "moves", "aria-label": "Moves: click one, or use the arrow keys, to see the board after it" });
  const movesTitle = h("h2", { id: "moves-title", text: "Moves" });
  const viewing = h("p", { class: "viewing", id: "viewing", "aria-live": "polite" });
  const stepButtons = {
    first: h("button", { type: "button", class: "btn btn-small", id: "step-first", "aria-label": "Start position", text: "|◀" }),
    prev: h("button", { type: "button", class: "btn btn-small", id: "step-prev", "aria-label": "Previous move", text: "◀" }),
    next: h("button", { type: "button", class: "btn btn-small", id: "step-next", "aria-label": "Next move", text: "▶" }),
    live: h("button", { type: "button", class: "btn btn-small", id: "step-live", "aria-label": "The live position", text: "▶|" }),
  };
  const notes = h("ul", { class: "notes", id: "game-notes", "aria-label": "Draw offers and other events" });
  const invite = h("div", { class: "invite-slot" });
  const soundToggle = h("button", { type: "button", class: "btn btn-small sound-toggle", id: "sound-toggle" });
  // The analysis board at the position shown: for spectators and after the end, never for
  // a player of a game in progress (the server refuses them anyway).
  const boardLink = h("a", { class: "btn btn-small", id: "game-board-link", text: "Analysis board", hidden: true });
  let boardOffered: boolean | null = null; // decided at the first state shown
  const notifyGame = h("button", { type: "button", class: "btn btn-small", id: "notify-ask-game", text: "Notify me of my moves", hidden: true });
  const conditional = new ConditionalPanel(live, game); // correspondence games only (conditional.ts)
  const legend = h(
    "ul",
    { class: "legend", "aria-label": "Legend" },
    h("li", {}, pieceSvg("A"), "Attacker (dark diamond)"),
    h("li", {}, pieceSvg("D"), "Defender (light disc)"),
    h("li", {}, pieceSvg("K"), "King (disc with a crown)"),
    h("li", {}, throneSvg(), "Throne, d4"),
    h("li", {}, cornerSvg(), "Corner"),
    h("li", {}, h("span", { class: "swatch swatch-selected", "aria-hidden": "true" }), "The piece you picked"),
    h("li", {}, h("span", { class: "swatch swatch-dest", "aria-hidden": "true" }), "Where it can go"),
    h("li", {}, h("span", { class: "swatch swatch-last", "aria-hidden": "true" }), "Last move"),
    h("li", {}, h("span", { class: "swatch swatch-captured", "aria-hidden": "true" }), "Captured by the last move"),
    h("li", {}, h("span", { class: "swatch swatch-premove", "aria-hidden": "true" }), "Your premove, queued"),
  );
  const howTo = h("p", {
    class: "hint",
    text: "Pick one of your pieces to see where it can go, then pick a square — or drag the piece. With the keyboard: arrow keys, then Enter. In a game under an hour a move, doing so during the opponent's turn queues a premove, played the moment your turn comes if it is still legal; click anywhere or press Escape to cancel it.",
  });

  const chat = new ChatPanel(live, game, window.matchMedia("(max-width: 899px)").matches);
  void ctx.me.then((me) => chat.setViewer(me?.id ?? null, me?.account === true, isNewcomer(me)));
  // Followed already (the home page waited for a friend here): ask again for the chat's lines.
  if (tracker.synced) live.sendExtra({ t: "watch", game, since: tracker.n } as { t: string });
  const playArea = h(
    "section",
    { class: "play", id: "players", "aria-label": "Players and board" },
    topBar.root,
    h("div", { class: "board-wrap" }, board.root),
    bottomBar.root,
  );
  const page = h(
    "div",
    { class: "page page-game", "data-game": game },
    h("div", { class: "g-status" }, status),
    playArea,
    h("div", { class: "g-msg", id: "game-messages" }, connBanner, alert, claimBanner.root, actions.drawBanner, repetition, notice),
    h("div", { class: "g-actions", id: "game-actions" }, actions.bar, gameOver.root, matchBox, invite),
    h(
      "section",
      { class: "g-moves panel", "aria-label": "Moves" },
      h(
        "div",
        { class: "moves-head" },
        movesTitle,
        h("div", { class: "step-buttons" }, stepButtons.first, stepButtons.prev, stepButtons.next, stepButtons.live),
      ),
      viewing,
      moves,
      notes,
    ),
    h("div", { class: "g-form" }, moveForm),
    h(
      "section",
      { class: "g-info panel", "aria-label": "About this game" },
      info,
      h("div", { class: "g-tools" }, watchers, soundToggle, notifyGame, boardLink),
      h("details", { class: "legend-box" }, h("summary", { text: "Legend and how to move" }), legend, howTo),
    ),
    chat.root,
    clocks.root,
  );
  root.appendChild(page);
  conditional.place(page.querySelector<HTMLElement>("#game-actions")!, info.parentElement!, info.nextSibling);
  topBar.clockSlot.append(clocks.el("attackers"));
  bottomBar.clockSlot.append(clocks.el("defenders"));

  function renderSound(): void {
    const muted = isMuted();
    soundToggle.textContent = muted ? "Sound off" : "Sound on";
    soundToggle.setAttribute("aria-pressed", String(!muted));
    soundToggle.dataset.muted = String(muted);
  }
  soundToggle.addEventListener("click", () => {
    setMuted(!isMuted());
    renderSound();
  });
  renderSound();
  notifyGame.addEventListener("click", () => void askNotifications().then(() => render()));

  function showError(text: string): void {
    errorMessage = text;
    errorPly = tracker.state?.ply ?? -1;
    board.reset();
    render();
  }

  function play(text: string, from: "board" | "dragged" | "typed"): void {
    const state = tracker.state;
    infoMessage = "";
    if (!state) return;
    const side = sideOf(state, meId);
    if (!side) return showError("You are watching this game: only its players can move.");
    if (state.status !== "active") return showError(state.status === "waiting" ? "The game has not started yet." : "The game is over: no more moves.");
    if (live.pending.forGame(game)) return showError("Wait until your last move has been confirmed.");
    if (from !== "typed" && premoveAllowed(state, side)) {
      premove = makePremove(text, state.ply);
      errorMessage = "";
      return render();
    }
    if (state.turn !== side) return showError(`It is not your move: wait for the ${otherSide(side)}.`);
    errorMessage = "";
    viewPly = null;
    live.move(game, state.ply, text);
    if (from === "typed") input.value = "";
    justPlayed = text;
    playSound(capturesOf(findLegal(state.legal, parseMove(text)?.from ?? "", parseMove(text)?.to ?? "") ?? text).length ? "capture" : "move");
    render();
    board.animate(text, from !== "dragged"); // a dragged piece is there already
  }

  /** Resign, abort, offer or answer a draw, ask for a rematch: the server's answer comes back as a change. */
  function act(kind: ActionKind, accept?: boolean): void {
    if (!tracker.state || live.actionsFor(game).some((a) => a.kind === kind)) return;
    infoMessage = "";
    errorMessage = "";
    live.act(game, kind, accept);
    render();
  }

  /** An action the server refused: why, beside the board. */
  function onRefused(kind: ActionKind, code: string, message: string): void {
    const what: Record<ActionKind, string> = {
      resign: "You have not resigned",
      abort: "The game was not aborted",
      offer_draw: "No draw was offered",
      answer_draw: "The draw offer was not answered",
      claim_victory: "The game was not claimed",
      claim_draw: "The game was not drawn",
      rematch: "No rematch was arranged",
      decline_rematch: "The rematch was not declined",
    };
    showError(`${what[kind]}. ${errorText(code, message)}`);
  }

  moveForm.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    const parsed = parseMove(text);
    if (!parsed) {
      showError(`“${text}” is not a move: write two squares joined by a dash, like d1-c1.`);
      return;
    }
    // Typed without captures: send the canonical text when it is legal; otherwise as typed,
    // and the server says why it is refused.
    const state = tracker.state;
    const canonical = state ? findLegal(state.legal, parsed.from, parsed.to) : null;
    play(canonical && parsed.captures.length === 0 ? canonical : text, "typed");
  });

  // -- stepping through the moves ------------------------------------------------------

  function stepTo(ply: number | null): void {
    const last = tracker.moves.length;
    viewPly = ply === null || ply >= last ? null : Math.max(0, ply);
    render();
    const current = moves.querySelector<HTMLElement>(".ply.current");
    current?.scrollIntoView({ block: "nearest" });
  }
  stepButtons.first.addEventListener("click", () => stepTo(0));
  stepButtons.prev.addEventListener("click", () => stepTo((viewPly ?? tracker.moves.length) - 1));
  stepButtons.next.addEventListener("click", () => stepTo((viewPly ?? tracker.moves.length) + 1));
  stepButtons.live.addEventListener("click", () => stepTo(null));
  moves.addEventListener("click", (e) => {
    const b = (e.target as HTMLElement).closest<HTMLElement>("[data-ply]");
    if (b) stepTo(Number(b.dataset.ply));
  });
  // The board keeps its arrow keys (moving the keyboard's cursor).
  const stopKeys = listenStepKeys(
    document,
    () => ({ ply: viewPly ?? tracker.moves.length, last: tracker.moves.length }),
    stepTo,
    { ignore: `${TYPING}, .board, [contenteditable]`, skipModified: true },
  );

  function onSettled(s: Settlement): void {
    if (s.kind === "refused") {
      justPlayed = null;
      showError(`Your move ${s.move.move} was not played. ${errorText(s.code, s.message)}`);
    } else if (s.kind === "overtaken") {
      const played = tracker.moves[s.move.ply];
      const mine = parseMove(s.move.move);
      const got = played ? parseMove(played) : null;
      if (!mine || !got || mine.from !== got.from || mine.to !== got.to) {
        showError(`Your move ${s.move.move} was not played: the game had moved on while it was on its way.`);
      }
    } else if (s.duplicate) {
      infoMessage = `Your move ${s.move.move} had already arrived before the connection dropped; it was played once.`;
    }
  }

  /** A queued premove once the turn is ours: played at once if still legal, else dropped. */
  function firePremove(): void {
    const state = tracker.state;
    if (!premove || !state || live.pending.forGame(game)) return;
    const side = sideOf(state, meId);
    const r = side ? resolvePremove(premove, state, side) : ({ kind: "drop", why: "ended" } as const);
    if (r.kind === "wait") return;
    const queued = premove;
    premove = null;
    if (r.kind === "play") {
      render(); // the opponent's move first: its sound and slide, then ours
      play(r.move, "board");
    } else if (r.why === "illegal") {
      infoMessage = droppedText(queued, state.last);
    }
  }
  // Any click or tap cancels a queued premove (one on a piece may start the next), as Escape does.
  const cancelPremove = (e: Event) => {
    if (!premove || (e instanceof KeyboardEvent && e.key !== "Escape")) return;
    premove = null;
    render();
  };
  document.addEventListener("pointerdown", cancelPremove, true);
  document.addEventListener("keydown", cancelPremove);

  let matchChoice = "";
  const unsubscribe = live.subscribe((c: Change) => {
    if (c.type === "hello") meId = live.player?.id ?? meId;
    if (c.type === "sides") {
      if (c.ok && c.game) ctx.navigate(`/g/${c.game}`);
      else if (!c.ok) showError(`The sides were not chosen. ${errorText(c.code ?? "", c.message ?? "")}`);
      matchChoice = "";
      return;
    }
    if (c.type === "turn") return;
    if ("game" in c && c.game !== null && c.game !== game) return;
    if (c.type === "settled") onSettled(c.settlement);
    if (c.type === "action" && !c.ok) {
      onRefused(c.action.kind, c.code, c.message);
      return;
    }
    if (c.type === "error") {
      if (c.code === "not_found" && !tracker.synced) {
        renderMissing(c.message);
        return;
      }
      showError(errorText(c.code, c.message));
      return;
    }
    firePremove();
    render();
  });
  void ctx.me.then((me) => {
    if (!meId && me) {
      meId = me.id;
      render();
    }
  });

  let missing = false;
  function renderMissing(message: string): void {
    missing = true;
    clear(page);
    page.classList.add("page-missing-game");
    page.appendChild(
      h(
        "div",
        { class: "panel" },
        h("h1", { text: "No such game" }),
        h("p", { class: "error", role: "alert", text: `${message.charAt(0).toUpperCase()}${message.slice(1)}.` }),
        h("p", {}, h("a", { href: "/", class: "btn btn-primary", text: "Start a game" })),
      ),
    );
  }

  // -- the players ---------------------------------------------------------------------

  function profileOf(id: string | undefined): Profile | null | undefined {
    if (!id || id === "bot" || isGuestId(id)) return null; // a guest has no profile
    if (!profiles.has(id)) {
      profiles.set(id, null);
      accountApi
        .profile(id)
        .then((p) => {
          profiles.set(id, p);
          render();
        })
        .catch(() => undefined); // a guest has no profile: no rating shown
      return undefined;
    }
    return profiles.get(id);
  }

  function renderBar(bar: Bar, side: Side, state: State, pos: Position): void {
    const p = state.players[side];
    const mine = p !== null && p.id === meId;
    bar.root.dataset.side = side;
    bar.root.classList.toggle("to-move", state.status === "active" && state.turn === side);
    bar.root.classList.toggle("mine", mine);
    const icon = side === "attackers" ? "A" : "K";
    if (bar.icon.dataset.piece !== icon) {
      bar.icon.dataset.piece = icon;
      bar.icon.replaceChildren(pieceSvg(icon));
    }
    const name = p ? `${p.name}${mine ? " (you)" : ""}` : state.withdrawn ? "no player" : "waiting for a player";
    // "(you)" is its own part: a phone says it to screen readers only, to keep the room
    // for the name (the status line says which side is yours).
    bar.name.replaceChildren(p ? p.name : name, p && mine ? h("span", { class: "pbar-you", text: " (you)" }) : "");
    bar.name.title = `${side === "attackers" ? "Attackers" : "Defenders"}: ${name}`;
    const profile = profileOf(p?.id);
    const r = profile?.ratings?.[state.ruleset];
    bar.rating.textContent = p?.id === "bot" ? "" : profile ? (r ? ratingText(r.rating, r.provisional) : "1500?") : "";
    // The bot has no rating: its bar keeps no room for one (from its first paint: no shift).
    bar.rating.hidden = p?.id === "bot";
    const online = p ? tracker.isOnline(p.id) : null;
    bar.dot.dataset.online = online === null ? "unknown" : String(online);
    bar.root.dataset.online = online === null ? "unknown" : String(online);
    bar.dot.title = online === null ? "" : online ? "connected" : "not connected";
    bar.dot.setAttribute("aria-label", online === null ? "" : online ? "connected" : "not connected");
    bar.dot.removeAttribute("aria-hidden");
    const n = capturedCounts(pos)[side];
    bar.captured.textContent = `×${n}`;
    bar.captured.dataset.count = String(n);
    bar.captured.setAttribute("aria-label", `${n} ${side === "attackers" ? "defender" : "attacker"}${n === 1 ? "" : "s"} captured`);
  }

  function renderMoves(list: readonly string[]): void {
    const shown = viewPly ?? list.length;
    clear(moves);
    for (const row of moveRows(list)) {
      const li = h("li", { "data-number": row.number }, h("span", { class: "mv-n", text: `${row.number}.` }));
      [row.attackers, row.defenders].forEach((m, i) => {
        if (m === null) return;
        const ply = (row.number - 1) * 2 + i + 1;
        li.append(" ", h("button", { type: "button", class: `ply${ply === shown ? " current" : ""}`, "data-ply": String(ply), title: describeMove(m), text: m }));
      });
      moves.appendChild(li);
    }
    if (list.length === 0) moves.appendChild(h("li", { class: "muted empty", text: "No moves yet." }));
    if (viewPly === null) moves.scrollTop = moves.scrollHeight;
    viewing.textContent =
      viewPly === null ? "" : viewPly === 0 ? "Showing the start position — ▶| for the live game" : `Showing the board after move ${Math.ceil(viewPly / 2)}${viewPly % 2 ? "" : "…"} ${list[viewPly - 1]} — ▶| for the live game`;
    viewing.dataset.ply = viewPly === null ? "" : String(viewPly);
    stepButtons.first.disabled = stepButtons.prev.disabled = shown === 0;
    stepButtons.next.disabled = stepButtons.live.disabled = viewPly === null;

    // Draw offers, answers, resignations…: seen while this page was open.
    clear(notes);
    for (const note of tracker.notes) {
      notes.appendChild(
        h(
          "li",
          { "data-kind": note.kind, "data-n": note.n },
          h("span", { class: "note-place", text: `${notePlace(note.ply, list)}: ` }),
          note.text,
        ),
      );
    }
    // Its space is kept (style.css): a first note moves nothing.
    notes.hidden = false;
    notes.dataset.count = String(tracker.notes.length);
    notes.scrollTop = notes.scrollHeight;
  }

  function renderInfo(state: State): void {
    const rs = RULES[state.ruleset];
    const kind = state.opponent === "bot" ? `against the bot, level ${state.bot_level ?? 1}` : state.rated ? "rated" : "casual";
    const origin = state.origin ?? (state.opponent === "bot" ? "bot" : "person");
    clear(info);
    info.append(
      state.opponent === "bot" ? "" : h("span", { id: "origin-label", "data-origin": origin, text: originLabel(origin, state.opponent) }),
      state.opponent === "bot" ? "" : " · ",
      h("a", { href: `/rules/${state.ruleset}`, text: rs ? rs.title : state.ruleset }),
      ` · ${durationText(state.move_time)} a move · `,
      h("span", { id: "rated-mark", "data-rated": String(state.rated), text: kind }),
      state.match ? ` · match game ${state.match.number}` : "",
    );
    movesTitle.textContent = state.ply === 0 ? "Moves" : `Moves · ${movesText(state.ply)}`;
  }

  function renderConnection(): boolean {
    const down = live.connection !== "open";
    connBanner.hidden = !down;
    if (down) {
      const secs = live.retryAt ? Math.max(0, Math.ceil((live.retryAt - Date.now()) / 1000)) : 0;
      connBanner.textContent = live.browserOffline
        ? "You are offline — the game goes on when your network is back. Moves you make now are sent then."
        : live.connection === "connecting"
          ? "Connecting to the server…"
          : `Connection lost — reconnecting${secs > 0 ? ` in ${secs} s` : "…"}. Moves you make now are sent when it is back.`;
    }
    return down;
  }

  /** One message at a time in the fixed slot beside the board: the most urgent. */
  function chooseMessage(): void {
    // A move waiting for the connection says both (the move, and that the connection is down).
    const waitingMove = notice.dataset.pending !== "" && notice.dataset.wants === "1";
    const order = waitingMove
      ? [notice, connBanner, alert, claimBanner.root, actions.drawBanner, repetition]
      : [connBanner, alert, claimBanner.root, actions.drawBanner, repetition, notice];
    let shown = false;
    for (const el of order) {
      const wants = el.dataset.wants === "1";
      el.classList.toggle("slot-hidden", shown || !wants);
      if (wants && !shown) shown = true;
    }
  }

  function renderMatch(state: State): void {
    const m = tracker.match;
    matchBox.hidden = !(m && state.status === "ended");
    if (!m || state.status !== "ended") return;
    const key = JSON.stringify(m) + meId;
    if (matchBox.dataset.key === key) return;
    matchBox.dataset.key = key;
    clear(matchBox);
    const name = (id: string) => m.players.find((p) => p.id === id)?.name ?? id;
    const score = m.players.map((p) => `${p.name} ${m.score[p.id] ?? 0}`).join(" – ");
    matchBox.append(h("p", { class: "match-score", id: "match-score", text: `Match: ${score}` }));
    const idx = m.games.indexOf(game);
    const next = idx >= 0 ? m.games[idx + 1] : undefined;
    if (next) {
      matchBox.append(h("p", {}, h("a", { href: `/g/${next}`, class: "btn btn-primary", id: "match-next", text: `Game ${idx + 2} of the match` })));
    } else if (m.status === "choosing") {
      if (m.chooser === meId) {
        const pick = (side: Side) => {
          const b = h("button", { type: "button", class: "btn btn-primary", id: `choose-${side}`, text: side === "attackers" ? "Attack" : "Defend" });
          b.addEventListener("click", () => {
            if (matchChoice) return;
            matchChoice = side;
            if (!live.chooseSides(m.id, side)) {
              matchChoice = "";
              showError("Not connected: choose again when the connection is back.");
            }
          });
          return b;
        };
        matchBox.append(
          h("p", { text: "One game each: a third game decides the match, and you choose your side." }),
          h("p", { class: "control-buttons" }, pick("attackers"), pick("defenders")),
        );
      } else {
        matchBox.append(h("p", { class: "muted", text: `${m.chooser ? name(m.chooser) : "The winner"} chooses sides for the deciding game.` }));
      }
    } else if (m.status === "finished") {
      matchBox.append(h("p", { text: m.winner ? `${name(m.winner)} wins the match.` : "The match is drawn." }));
    }
  }

  /** After a rated game: the rating change, once the server has rated it. */
  function askRatingChange(state: State): void {
    if (ratingAsked || !state.rated || state.status !== "ended" || state.result?.reason === "aborted") return;
    ratingAsked = true;
    const who = sideOf(state, meId) ?? "attackers";
    const pid = state.players[who]?.id;
    if (!pid) return;
    let tries = 0;
    const look = () => {
      if (leaving || missing) return;
      accountApi
        .games(pid)
        .then((res) => {
          const g = res.games.find((x) => x.id === game);
          if (!g?.ratings) {
            if (++tries < 8) setTimeout(look, 1500);
            return;
          }
          const parts: string[] = [];
          const order: Side[] = who === "attackers" ? ["attackers", "defenders"] : ["defenders", "attackers"];
          for (const s of order) {
            const p = state.players[s];
            const r = p ? g.ratings[p.id] : undefined;
            if (!p || !r) continue;
            const label = p.id === meId ? "Your rating" : p.name;
            parts.push(`${label}: ${Math.round(r.before)} → ${Math.round(r.after)} (${deltaText(r.before, r.after)})`);
          }
          gameOver.setRatingChange(parts.join(" · "));
        })
        .catch(() => undefined);
    };
    look();
  }

  function sounds(state: State, side: Side | null): void {
    const n = tracker.moves.length;
    if (shownMoves >= 0 && n === shownMoves + 1 && viewPly === null) {
      const last = tracker.moves[n - 1];
      const mineJust = justPlayed !== null && parseMove(justPlayed)?.to === parseMove(last)?.to && parseMove(justPlayed)?.from === parseMove(last)?.from;
      if (!mineJust) {
        board.animate(last);
        if (state.status === "active" && side !== null && state.turn === side) playSound("turn");
        else playSound(capturesOf(last).length ? "capture" : "move");
      }
      justPlayed = null;
    }
    if (shownStatus === "active" && state.status === "ended") playSound("end");
    shownMoves = n;
    shownStatus = state.status;
  }

  /** "X left the game — 0:12", then the claim's buttons (claim.ts): re-drawn every tick. */
  function renderClaim(): void {
    const state = tracker.state;
    const offer =
      state && live.clock.known
        ? claimOffer(state, sideOf(state, meId), tracker.online, tracker.gone, live.clock.now(Date.now()), live.claimGraceMs)
        : null;
    const busy = live.actionsFor(game).some((a) => a.kind === "claim_victory" || a.kind === "claim_draw");
    const was = claimBanner.root.dataset.wants;
    claimBanner.update(offer, busy);
    if (claimBanner.root.dataset.wants !== was) chooseMessage();
  }

  function render(): void {
    if (missing || leaving) return;
    const down = renderConnection();
    connBanner.dataset.wants = down ? "1" : "";
    const state = tracker.state;
    const pending = live.pending.forGame(game);
    status.textContent = statusLine(state, meId);
    status.title = status.textContent;
    ctx.setTitle(state ? statusLine(state, meId).replace(/ — /, ": ") : "Game");
    if (!state) {
      chooseMessage();
      return;
    }
    page.dataset.status = state.status;
    // Clocks under an hour read "9:05": a narrower slot, so the names have the room.
    page.dataset.clock = state.move_time < 3600 ? "short" : "long";
    const side = sideOf(state, meId);
    page.dataset.side = side ?? "spectator";
    status.dataset.turn = state.turn ?? "";
    status.classList.toggle("my-turn", isMyTurn(state, meId));
    // While a friend game waits nobody has a side yet: the creator is known by the state.
    const waitingForFriend = state.status === "waiting" && isCreator(state, meId);

    if (state.status === "ended") {
      const next = rematchDestination(tracker.rematch, side, sawUnagreed);
      if (next) {
        leaving = true;
        ctx.navigate(`/g/${next}`);
        return;
      }
      if (!tracker.rematch.next) sawUnagreed = true;
    }

    if (errorMessage && state.ply !== errorPly) errorMessage = ""; // the game moved on
    alert.textContent = errorMessage;
    alert.hidden = false;
    alert.dataset.wants = errorMessage ? "1" : "";

    const warn = repetitionWarning(state);
    repetition.textContent = warn ?? "";
    repetition.hidden = warn === null;
    repetition.dataset.wants = warn ? "1" : "";

    // The latest event in words when it is news about a draw offer's answer (or an outage);
    // offers themselves have their banner.
    const latest = tracker.notes.at(-1);
    const news =
      latest && latest.n === tracker.n && state.status === "active" && latest.kind !== "draw_offer" ? latest.text : "";
    let noticeText = premove ? queuedText(premove) : infoMessage || news;
    if (pending) {
      noticeText = pending.sent
        ? `Sending your move ${pending.move}…`
        : `Your move ${pending.move} is waiting for the connection; it is sent as soon as it is back.`;
    }
    notice.textContent = noticeText;
    notice.dataset.pending = pending ? pending.move : "";
    notice.dataset.premove = premove?.text ?? "";
    notice.hidden = !noticeText;
    notice.dataset.wants = noticeText ? "1" : "";

    renderInvite(state.withdrawn ? "withdrawn" : waitingForFriend ? "waiting" : "", state);

    // The board: the live position (with my move on its way), or a step of the move list.
    let position: Position;
    let last = state.last;
    let showPending: string | null = null;
    if (viewPly !== null) {
      const all = positionsOf(tracker.moves);
      position = all[viewPly] ?? parsePosition(state.position);
      last = viewPly > 0 ? tracker.moves[viewPly - 1] : null;
    } else {
      position = parsePosition(state.position);
      showPending = pending && pending.ply === state.ply ? pending.move : null;
      if (showPending) position = applyMoveLocally(position, showPending);
    }
    const interactive = viewPly === null && isMyTurn(state, meId) && !pending;
    const premoving = viewPly === null && !pending && side !== null && premoveAllowed(state, side);
    board.update({
      position,
      legal: interactive ? state.legal : premoving && side ? premoveMoves(position, side, state.ruleset) : [],
      interactive,
      premove: premoving,
      queued: premove,
      last,
      pending: showPending,
      ply: viewPly ?? state.ply,
      status: state.status,
      turn: state.turn,
    });
    board.root.dataset.lastMove = state.last ?? "";
    board.root.dataset.viewing = viewPly === null ? "live" : String(viewPly);
    board.root.setAttribute(
      "aria-description",
      last ? `Last move: ${describeMove(last)}` : "No move played yet",
    );

    // The viewer at the bottom; a spectator sees the attackers on top.
    barSides.bottom = side ?? "defenders";
    barSides.top = otherSide(barSides.bottom);
    renderBar(topBar, barSides.top, state, position);
    renderBar(bottomBar, barSides.bottom, state, position);
    if (topBar.clockSlot.firstChild !== clocks.el(barSides.top)) {
      topBar.clockSlot.replaceChildren(clocks.el(barSides.top));
      bottomBar.clockSlot.replaceChildren(clocks.el(barSides.bottom));
    }

    clocks.update(state, side);
    const controls = controlsFor(state, side, tracker.rematch);
    const busy = new Set(live.actionsFor(game).map((a) => a.kind));
    actions.update(state, side, controls, busy);
    // The slot shows one message at a time (chooseMessage), not the banner's own hidden.
    actions.drawBanner.dataset.wants = actions.drawBanner.dataset.by ? "1" : "";
    actions.drawBanner.hidden = false;
    gameOver.update(state, side, controls.rematch, tracker.rematch, busy.has("rematch") || busy.has("decline_rematch"));
    // A tournament's game: the way back to its page, for anyone (the state names it; a hub
    // of before the field leaves what this tab saw of the tournament).
    gameOver.setTournament(state.tournament ?? tournamentOfGame(game));
    if (tracker.abortTimeout && state.result?.reason === "aborted") {
      const detail = page.querySelector("#result-text");
      const text = `The ${tracker.abortTimeout}' clock ran out before their first move, so the game was aborted: no result.`;
      if (detail && detail.textContent !== text) detail.textContent = text;
    }
    askRatingChange(state);
    renderMatch(state);
    renderClaim();
    chooseMessage();

    moveForm.classList.toggle("slot-invisible", side === null || state.status === "ended");
    howTo.hidden = side === null;
    input.disabled = state.status !== "active";
    const canNotify = side !== null && state.move_time >= 3600 && state.status !== "ended" && notificationState() === "default";
    notifyGame.hidden = !canNotify;
    // Spectators are offered the board, and a player who opens a game already over; a
    // player whose game ends on this page finds it on the replay (the game-over panel's
    // link), so nothing appears here at the end to move the panels (no layout shift).
    // (A state arrives over the socket after its hello, which named a player's id.)
    boardOffered ??= side === null || state.status === "ended";
    const offerBoard = boardOffered === true && (side === null || state.status === "ended");
    boardLink.hidden = !offerBoard;
    if (offerBoard) {
      const moves = tracker.moves;
      boardLink.href = boardUrl({ ruleset: state.ruleset, position: null, moves: [...moves], ply: viewPly ?? moves.length });
    } else {
      boardLink.removeAttribute("href");
    }
    conditional.update(state, side);

    watchers.textContent = watchersText(tracker.watchers, side === null && !waitingForFriend);
    watchers.dataset.count = String(tracker.watchers);
    renderMoves(tracker.moves);
    renderInfo(state);
    sounds(state, side);
  }

  /**
   * While a friend game waits: its creator sees the invite link (when this browser kept it)
   * and may cancel the invitation. Once withdrawn: who withdrew it, for anyone who opens it.
   */
  function renderInvite(mode: "waiting" | "withdrawn" | "", state: State): void {
    if (invite.dataset.mode === mode) return;
    invite.dataset.mode = mode;
    clear(invite);
    if (mode === "withdrawn") {
      invite.appendChild(
        h(
          "section",
          { class: "panel invite", id: "invite-withdrawn", role: "status" },
          h("h2", { text: `${withdrawnText(state, meId)}.` }),
          h("p", { text: isCreator(state, meId) ? "Nobody can join it now." : "Nobody can join it now: ask them for a new invitation if you still want to play." }),
          h("p", {}, h("a", { href: "/", class: "btn btn-primary", text: "Start a new game" })),
        ),
      );
      return;
    }
    if (mode !== "waiting") return;
    const link = recallInvite(game);
    const panel = link
      ? invitePanel(game, link)
      : h(
          "section",
          { class: "panel invite", id: "invite-missing" },
          h("h2", { text: "Waiting for your friend" }),
          h("p", {
            text: "Your friend has not joined yet. The invite link was shown when you created the game; this browser has not kept it, so send the copy you made. The game starts as soon as they open it.",
          }),
        );
    if (!link) panel.append(cancelInviteRow(game));
    invite.appendChild(panel);
  }

  const timer = setInterval(() => {
    if (live.connection !== "open" || !connBanner.classList.contains("slot-hidden")) render();
  }, 500);
  const clockTimer = setInterval(() => {
    clocks.tick();
    renderClaim();
  }, 250);
  render();

  return () => {
    clearInterval(timer);
    clearInterval(clockTimer);
    stopKeys();
    document.removeEventListener("pointerdown", cancelPremove, true);
    document.removeEventListener("keydown", cancelPremove);
    unsubscribe();
    conditional.destroy();
    chat.destroy();
    live.unwatch(game);
  };
}
