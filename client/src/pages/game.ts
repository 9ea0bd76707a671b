// `/g/<id>`: the board, the clocks, the status line, the players, the moves, the draw
// offers and the end of the game — for players and spectators alike (spectators get no
// control that acts).

import { GameActions } from "../actions";
import { Board } from "../board";
import { ClockBar } from "../clockbar";
import { type AppContext, type Unmount, recallInvite } from "../context";
import { clear, h } from "../dom";
import { GameOverPanel } from "../gameover";
import { invitePanel } from "../invite";
import { controlsFor, notePlace, rematchDestination } from "../lifecycle";
import type { ActionKind, Change } from "../live";
import {
  applyMoveLocally,
  describeMove,
  findLegal,
  formatMoveRow,
  moveRows,
  parseMove,
  parsePosition,
} from "../notation";
import type { Settlement } from "../pending";
import { cornerSvg, pieceSvg, throneSvg } from "../pieces";
import type { State } from "../protocol";
import { RULES } from "../rules";
import {
  durationText,
  errorText,
  isCreator,
  isMyTurn,
  otherSide,
  playerLine,
  repetitionWarning,
  sideOf,
  statusLine,
  watchersText,
} from "../status";

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

  const status = h("p", { class: "status-line", id: "status-line", "aria-live": "polite" });
  const connBanner = h("div", { class: "conn-banner", id: "conn-banner", role: "status", hidden: true });
  const alert = h("div", { class: "alert", id: "game-error", role: "alert" });
  const notice = h("p", { class: "notice", id: "game-notice", "aria-live": "polite" });
  const repetition = h("p", { class: "notice notice-warn", id: "repetition-warning", role: "status", hidden: true });
  const board = new Board((move) => play(move, "board"));
  const clocks = new ClockBar(live.clock);
  const actions = new GameActions((kind, accept) => act(kind, accept));
  const gameOver = new GameOverPanel(game, () => act("rematch"));
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
    h("p", { class: "hint", id: "move-help", text: "Two squares joined by a dash: d1-c1. Captures are added for you." }),
  );
  const players = h("ul", { class: "players", id: "players" });
  const watchers = h("p", { class: "watchers", id: "watchers" });
  const info = h("dl", { class: "info", id: "game-info" });
  const moves = h("ol", { class: "moves", id: "moves", "aria-label": "Moves" });
  const notes = h("ul", { class: "notes", id: "game-notes", "aria-label": "Draw offers and other events", hidden: true });
  const invite = h("div", { class: "invite-slot" });
  const legend = h(
    "ul",
    { class: "legend", "aria-label": "Legend" },
    h("li", {}, pieceSvg("A"), "Attacker (dark diamond)"),
    h("li", {}, pieceSvg("D"), "Defender (light disc)"),
    h("li", {}, pieceSvg("K"), "King (disc with a crown)"),
    h("li", {}, throneSvg(), "Throne, d4"),
    h("li", {}, cornerSvg(), "Corner"),
    h("li", {}, h("span", { class: "swatch swatch-dest", "aria-hidden": "true" }), "Where the selected piece can go"),
    h("li", {}, h("span", { class: "swatch swatch-last", "aria-hidden": "true" }), "Last move"),
    h("li", {}, h("span", { class: "swatch swatch-captured", "aria-hidden": "true" }), "Captured by the last move"),
  );

  const howTo = h("p", {
    class: "hint",
    text: "Pick one of your pieces to see where it can go, then pick a square — or drag the piece. With the keyboard: arrow keys, then Enter.",
  });
  const page = h(
    "div",
    { class: "page page-game", "data-game": game },
    h(
      "section",
      { class: "play", "aria-label": "Game" },
      status,
      connBanner,
      alert,
      actions.drawBanner,
      repetition,
      notice,
      invite,
      clocks.root,
      h("div", { class: "board-wrap" }, board.root),
      actions.bar,
      moveForm,
    ),
    h(
      "aside",
      { class: "side" },
      gameOver.root,
      h("section", { class: "panel" }, h("h2", { text: "Players" }), players, watchers),
      h("section", { class: "panel" }, h("h2", { text: "Moves" }), moves, notes),
      h("section", { class: "panel" }, h("h2", { text: "Game" }), info),
      h("section", { class: "panel" }, h("h2", { text: "Legend" }), legend, howTo),
    ),
  );
  root.appendChild(page);

  function showError(text: string): void {
    errorMessage = text;
    errorPly = tracker.state?.ply ?? -1;
    board.reset();
    render();
  }

  function play(text: string, from: "board" | "typed"): void {
    const state = tracker.state;
    infoMessage = "";
    if (!state) return;
    const side = sideOf(state, meId);
    if (!side) return showError("You are watching this game: only its players can move.");
    if (state.status !== "active") return showError(state.status === "waiting" ? "The game has not started yet." : "The game is over: no more moves.");
    if (live.pending.forGame(game)) return showError("Wait until your last move has been confirmed.");
    if (state.turn !== side) return showError(`It is not your move: wait for the ${otherSide(side)}.`);
    errorMessage = "";
    live.move(game, state.ply, text);
    if (from === "typed") input.value = "";
    render();
  }

  /** Resign, abort, offer or answer a draw, ask for a rematch: the server's answer comes back as a change. */
  function act(kind: ActionKind, accept?: boolean): void {
    if (!tracker.state || live.actionsFor(game).some((a) => a.kind === kind)) return;
    infoMessage = "";
    errorMessage = "";
    live.act(game, kind, accept);
    render();
  }

  /** An action the server refused: why, above the board. */
  function onRefused(kind: ActionKind, code: string, message: string): void {
    const what: Record<ActionKind, string> = {
      resign: "You have not resigned",
      abort: "The game was not aborted",
      offer_draw: "No draw was offered",
      answer_draw: "The draw offer was not answered",
      rematch: "No rematch was arranged",
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

  function onSettled(s: Settlement): void {
    if (s.kind === "refused") {
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

  const unsubscribe = live.subscribe((c: Change) => {
    if (c.type === "hello") meId = live.player?.id ?? meId;
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

  function renderPlayers(state: State): void {
    clear(players);
    for (const side of ["attackers", "defenders"] as const) {
      const turn = state.status === "active" && state.turn === side;
      players.appendChild(
        h(
          "li",
          { class: `player${turn ? " to-move" : ""}`, "data-side": side },
          pieceSvg(side === "attackers" ? "A" : "K"),
          h("span", { text: playerLine(state, side, meId) }),
          turn ? h("span", { class: "badge", text: "to move" }) : null,
        ),
      );
    }
  }

  function renderMoves(list: readonly string[]): void {
    clear(moves);
    for (const row of moveRows(list)) {
      moves.appendChild(h("li", { "data-number": row.number, text: formatMoveRow(row) }));
    }
    if (list.length === 0) moves.appendChild(h("li", { class: "muted empty", text: "No moves yet." }));
    moves.scrollTop = moves.scrollHeight;

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
    notes.hidden = tracker.notes.length === 0;
  }

  function renderInfo(state: State): void {
    clear(info);
    const rs = RULES[state.ruleset];
    const add = (term: string, ...desc: (Node | string)[]) => info.append(h("dt", { text: term }), h("dd", {}, ...desc));
    add("Rule set", h("a", { href: `/rules/${state.ruleset}`, text: rs ? rs.title : state.ruleset }));
    add("Time per move", durationText(state.move_time));
    add("Opponent", state.opponent === "bot" ? `the bot, level ${state.bot_level ?? 1}` : "a friend");
    add("Ply", String(state.ply));
    add("Commitment", h("code", { class: "hash hash-small", text: state.commitment }));
  }

  function renderConnection(): void {
    const down = live.connection !== "open";
    connBanner.hidden = !down;
    if (down) {
      const secs = live.retryAt ? Math.max(0, Math.ceil((live.retryAt - Date.now()) / 1000)) : 0;
      connBanner.textContent =
        live.connection === "connecting"
          ? "Connecting to the server…"
          : `Connection lost — reconnecting${secs > 0 ? ` in ${secs} s` : "…"}. Moves you make now are sent when it is back.`;
    }
  }

  function render(): void {
    if (missing || leaving) return;
    renderConnection();
    const state = tracker.state;
    const pending = live.pending.forGame(game);
    status.textContent = statusLine(state, meId);
    ctx.setTitle(state ? statusLine(state, meId).replace(/ — /, ": ") : "Game");
    if (!state) return;
    page.dataset.status = state.status;
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
    alert.hidden = !errorMessage;

    const warn = repetitionWarning(state);
    repetition.textContent = warn ?? "";
    repetition.hidden = warn === null;

    // The latest event in words when it is news about a draw offer's answer (or an outage);
    // offers themselves have their banner.
    const latest = tracker.notes.at(-1);
    const news =
      latest && latest.n === tracker.n && state.status === "active" && latest.kind !== "draw_offer" ? latest.text : "";
    let noticeText = infoMessage || news;
    if (pending) {
      noticeText = pending.sent
        ? `Sending your move ${pending.move}…`
        : `Your move ${pending.move} is waiting for the connection; it is sent as soon as it is back.`;
    }
    notice.textContent = noticeText;
    notice.dataset.pending = pending ? pending.move : "";
    notice.hidden = !noticeText;

    renderInvite(waitingForFriend);

    let position = parsePosition(state.position);
    const showPending = pending && pending.ply === state.ply ? pending.move : null;
    if (showPending) position = applyMoveLocally(position, showPending);
    const interactive = isMyTurn(state, meId) && !pending;
    board.update({
      position,
      legal: interactive ? state.legal : [],
      interactive,
      last: state.last,
      pending: showPending,
      ply: state.ply,
      status: state.status,
      turn: state.turn,
    });
    board.root.dataset.lastMove = state.last ?? "";
    board.root.setAttribute(
      "aria-description",
      state.last ? `Last move: ${describeMove(state.last)}` : "No move played yet",
    );

    clocks.update(state, side);
    const controls = controlsFor(state, side, tracker.rematch);
    const busy = new Set(live.actionsFor(game).map((a) => a.kind));
    actions.update(state, side, controls, busy);
    gameOver.update(state, side, controls.rematch, tracker.rematch, busy.has("rematch"));

    moveForm.hidden = side === null || state.status === "ended";
    howTo.hidden = side === null;
    input.disabled = state.status !== "active";

    renderPlayers(state);
    watchers.textContent = watchersText(tracker.watchers, side === null && !waitingForFriend);
    watchers.dataset.count = String(tracker.watchers);
    renderMoves(tracker.moves);
    renderInfo(state);
  }

  /** While a friend game waits: its creator sees the invite link (when this browser kept it). */
  function renderInvite(show: boolean): void {
    if (!show) {
      if (invite.firstChild) clear(invite);
      return;
    }
    if (invite.firstChild) return;
    const link = recallInvite(game);
    invite.appendChild(
      link
        ? invitePanel(game, link)
        : h(
            "section",
            { class: "panel invite", id: "invite-missing" },
            h("h2", { text: "Waiting for your friend" }),
            h("p", {
              text: "Your friend has not joined yet. The invite link was shown when you created the game; this browser has not kept it, so send the copy you made. The game starts as soon as they open it.",
            }),
          ),
    );
  }

  const timer = setInterval(() => {
    if (live.connection !== "open") renderConnection();
  }, 500);
  const clockTimer = setInterval(() => clocks.tick(), 250);
  render();

  return () => {
    clearInterval(timer);
    clearInterval(clockTimer);
    unsubscribe();
    live.unwatch(game);
  };
}
