// `/g/<id>`: the board, the players (ratings, connected or not, captures, clocks), the
// status line, the moves (stepped through by click or arrow keys), the draw offers and the
// end of the game — for players and spectators alike (spectators get no control that acts).
//
// The layout keeps the board still: it is sized to the viewport once, and everything that
// comes and goes (notices, offers, the connection, controls, the game-over panel) lives in
// slots of fixed size beside or under it (style.css, "game page").
//
// The page is a composition of panel controllers (panels/): each makes its own part of the
// page and draws it from a state; `render` here routes each state to them, in one pass.

import type { AppContext, Unmount } from "../context";
import { clear, h } from "../dom";
import { controlsFor, rematchDestination } from "../logic/lifecycle";
import { errorText, isCreator, isMyTurn, sideOf, statusLine } from "../logic/status";
import type { ActionKind, Change } from "../network/live";
import { isNewcomer } from "../network/account";
import { GameActions, refusedText } from "../panels/actions";
import { BoardPlay } from "../panels/boardplay";
import { ChatPanel } from "../panels/chat";
import { flipControl } from "../board/flip";
import { ClaimBanner, claimOffer } from "../panels/claim";
import { ClockBar } from "../panels/clockbar";
import { ConditionalPanel } from "../panels/conditional";
import { GameInfo } from "../panels/gameinfo";
import { GameMessages } from "../panels/gamemessages";
import { GameOverPanel } from "../panels/gameover";
import type { GameView } from "../panels/gameview";
import { InviteSlot } from "../panels/inviteslot";
import { accountApi } from "../network/account";
import { challengeFeed } from "../network/challenges";
import { MatchBox } from "../panels/matchbox";
import { MoveList } from "../panels/movelist";
import { PlayerBars } from "../panels/playerbars";
import { RatingChange } from "../panels/ratingchange";
import { play as playSound } from "../panels/sound";
import { tournamentOfGame } from "../logic/tournament";

export function mountGame(root: HTMLElement, ctx: AppContext, game: string): Unmount {
  const live = ctx.live;
  const tracker = live.watch(game);
  let meId: string | null = live.player?.id ?? null;
  // Whether this page saw the game over with no rematch agreed yet: only then does an
  // agreed rematch take the players to the new game by itself.
  let sawUnagreed = false;
  let leaving = false;
  let missing = false;
  const view: GameView = { live, game, tracker, me: () => meId, render: () => render(), showError: (text) => showError(text) };

  const status = h("p", { class: "status-line", id: "status-line", "aria-live": "polite" });
  const clocks = new ClockBar(live.clock);
  clocks.onLow = () => playSound("low");
  const actions = new GameActions((kind, accept) => act(kind, accept));
  const claimBanner = new ClaimBanner((kind) => act(kind));
  const gameOver = new GameOverPanel(
    game,
    () => act("rematch"),
    () => act("decline_rematch"),
    () => ctx.navigate(`/replay/${game}`),
  );
  const messages = new GameMessages(claimBanner.root, actions.drawBanner, actions.takebackBanner);
  const moveList = new MoveList(view);
  const play = new BoardPlay(view, moveList, messages);
  const bars = new PlayerBars(view, clocks);
  const info = new GameInfo(view);
  const matchBox = new MatchBox(view);
  const invite = new InviteSlot(game, (path) => ctx.navigate(path));
  // A challenge names the player challenged by id only: their name, once (the page's own
  // challenges list knows it; else their profile).
  const challenges = challengeFeed(live);
  let inviteeName: string | null = null;
  let askedName = false;
  const nameInvitee = (invitee: string) => {
    const known = challenges.find(game);
    if (known) inviteeName = known.to.name;
    if (inviteeName || askedName) return;
    askedName = true;
    accountApi.profile(invitee).then(
      (p) => {
        inviteeName = p.name;
        if (!missing && !leaving) render();
      },
      () => undefined,
    );
  };
  const ratingChange = new RatingChange(view, (text) => gameOver.setRatingChange(text), () => !leaving && !missing);
  const conditional = new ConditionalPanel(live, game); // correspondence games only (conditional.ts)
  const chat = new ChatPanel(live, game, window.matchMedia("(max-width: 899px)").matches);
  const flip = flipControl(play.board, game, (flipped) => {
    bars.flipped = flipped;
    queueMicrotask(() => tracker.state && render()); // (after the page is put together)
  });
  bars.top.insertBefore(flip.button, bars.top.lastElementChild); // before the clock
  void ctx.me.then((me) => chat.setViewer(me?.id ?? null, me?.account === true, isNewcomer(me)));
  // Followed already (the home page waited for a friend here): ask again for the chat's lines.
  if (tracker.synced) live.sendExtra({ t: "watch", game, since: tracker.n } as { t: string });

  const gameActions = h("div", { class: "g-actions", id: "game-actions" }, actions.bar, gameOver.root, matchBox.root, invite.root);
  const page = h(
    "div",
    { class: "page page-game", "data-game": game },
    h("div", { class: "g-status" }, status, chat.jump),
    h("section", { class: "play", id: "players", "aria-label": "Players and board" }, bars.top, h("div", { class: "board-wrap" }, play.board.root), bars.bottom),
    messages.root,
    gameActions,
    moveList.root,
    h("div", { class: "g-form" }, play.form),
    info.root,
    chat.root,
    clocks.root,
  );
  root.appendChild(page);
  conditional.place(gameActions, info.root, info.info.nextSibling);

  function showError(text: string): void {
    messages.setError(text, tracker.state?.ply ?? -1);
    play.board.reset();
    render();
  }

  /** Resign, abort, offer or answer a draw, take back, ask for a rematch: the server's answer comes back as a change. */
  function act(kind: ActionKind, accept?: boolean): void {
    if (!tracker.state || live.actionsFor(game).some((a) => a.kind === kind)) return;
    messages.info = "";
    messages.clearError();
    live.act(game, kind, accept, tracker.state.ply);
    render();
  }
  // The ply last drawn: one smaller after a takeback, whose position a premove or a
  // selection made before it no longer fits.
  let seenPly = -1;

  const unsubscribe = live.subscribe((c: Change) => {
    if (c.type === "hello") meId = live.player?.id ?? meId;
    if (c.type === "sides") {
      matchBox.onSides(c.ok, c.game, c.code, c.message, (path) => ctx.navigate(path));
      return;
    }
    if (c.type === "turn") return;
    if ("game" in c && c.game !== null && c.game !== game) return;
    if (c.type === "settled") play.onSettled(c.settlement);
    if (c.type === "action" && !c.ok) {
      showError(refusedText(c.action.kind, c.code, c.message));
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
    const ply = tracker.state?.ply ?? -1;
    if (ply < seenPly) {
      play.premove = null;
      play.board.reset();
    }
    seenPly = ply;
    play.firePremove();
    render();
  });
  void ctx.me.then((me) => {
    if (!meId && me) {
      meId = me.id;
      render();
    }
  });

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
    if (claimBanner.root.dataset.wants !== was) messages.choose();
  }

  function render(): void {
    if (missing || leaving) return;
    messages.showConnection(live);
    const state = tracker.state;
    const pending = live.pending.forGame(game);
    if (state?.invitee) nameInvitee(state.invitee);
    status.textContent = statusLine(state, meId, inviteeName);
    status.title = status.textContent;
    ctx.setTitle(state ? status.textContent.replace(/ — /, ": ") : "Game");
    if (!state) {
      messages.choose();
      return;
    }
    page.dataset.status = state.status;
    chat.setEnded(state.status === "ended");
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

    messages.update(state, tracker, play.premove, pending);
    const challenged = state.status === "waiting" && !!meId && state.invitee === meId;
    const unanswered = state.withdrawn || (state.declined !== undefined && state.status !== "active");
    const mode = unanswered ? "withdrawn" : waitingForFriend ? "waiting" : challenged ? "challenged" : "";
    invite.update(mode, state, meId, inviteeName, challenges.find(game)?.side ?? null);
    const position = play.update(state, side, pending);
    bars.update(state, side, position);

    clocks.update(state, side);
    const controls = controlsFor(state, side, tracker.rematch);
    const busy = new Set(live.actionsFor(game).map((a) => a.kind));
    actions.update(state, side, controls, busy);
    // The slot shows one message at a time (messages.choose), not the banner's own hidden.
    actions.drawBanner.dataset.wants = actions.drawBanner.dataset.by ? "1" : "";
    actions.drawBanner.hidden = false;
    actions.takebackBanner.dataset.wants = actions.takebackBanner.dataset.by ? "1" : "";
    actions.takebackBanner.hidden = false;
    gameOver.update(state, side, controls.rematch, tracker.rematch, busy.has("rematch") || busy.has("decline_rematch"));
    // A tournament's game: the way back to its page, for anyone (the state names it; a hub
    // of before the field leaves what this tab saw of the tournament).
    gameOver.setTournament(state.tournament ?? tournamentOfGame(game));
    if (tracker.abortTimeout && state.result?.reason === "aborted") {
      const detail = page.querySelector("#result-text");
      const text = `The ${tracker.abortTimeout}' clock ran out before their first move, so the game was aborted: no result.`;
      if (detail && detail.textContent !== text) detail.textContent = text;
    }
    ratingChange.check(state);
    matchBox.update(state);
    renderClaim();
    messages.choose();

    info.update(state, side, moveList.viewPly, waitingForFriend);
    conditional.update(state, side);
    moveList.update(state);
    play.sounds(state, side);
  }

  const timer = setInterval(() => {
    if (live.connection !== "open" || messages.connectionShown) render();
  }, 500);
  const clockTimer = setInterval(() => {
    clocks.tick();
    renderClaim();
  }, 250);
  render();

  return () => {
    clearInterval(timer);
    clearInterval(clockTimer);
    moveList.destroy();
    play.destroy();
    unsubscribe();
    conditional.destroy();
    chat.destroy();
    flip.stop();
    live.unwatch(game);
  };
}
