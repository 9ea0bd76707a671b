// The home page's live part, below the three ways to play: the player's games ("Your
// move"), the tournaments running and upcoming, and games to watch, in the order a returning
// player needs them. What each shows is logic/home.ts's choice; this draws it.
//
// No layout shift: the part keeps room from the first paint down to the screen's bottom
// (so what follows it starts below the fold), and draws its sections all at once, when the
// player's games and the tournaments have answered, and the games in progress too or WAIT_MS
// has passed, so that no section arriving late pushes one already drawn.

import type { AppContext } from "../context";
import { clear, h } from "../dom";
import type { MyGame } from "../frame/mygames";
import { homeGames, homeTournaments, homeWatch, joinable, leftText, tournamentWhen, turnText } from "../logic/home";
import { rulesetName, timeControlShort } from "../logic/lobby";
import { formatName, termsLine, tournamentApi, type TournamentLists, type TournamentSummary } from "../logic/tournament";
import { formatRemaining } from "../network/clock";
import { lobbyFeed } from "../network/lobbyfeed";
import { type Followed, socialApi } from "../network/social";
import { gameCard } from "../pages/watch";
import { followingPanel } from "./social";
import "../tournaments.css";

/** How long the part waits for the games to watch (the socket's) before drawing without them,
 *  and at most for anything. */
export const WAIT_MS = 3000;
export const MAX_WAIT_MS = 10_000;
/** The tournaments are fetched again this often while the page is open. */
export const TOURNAMENTS_REFRESH_MS = 60_000;
/** The most room kept for the part before it is drawn (a tall screen's fold is far down). */
const MAX_RESERVED_PX = 560;

export interface HomeSections {
  el: HTMLElement;
  /** Keep room down to the fold; call once the part is in the document. */
  reserve(): void;
  stop(): void;
}

function moreLink(href: string, text: string, id: string): HTMLElement {
  return h("p", { class: "more-link", id }, h("a", { href, text }));
}

/** The live part of the home page; `playBot` starts a game against the bot (the empty
 *  watch list offers one). */
export function homeSections(ctx: AppContext, playBot: () => void): HomeSections {
  // -- "Your move": the session's games, yours to move first --------------------------------
  const mineTitle = h("h2", { id: "home-mine-h", text: "Your move" });
  const mineList = h("ul", { class: "home-list", id: "home-mine-list" });
  const mine = h(
    "section",
    { class: "panel home-section home-mine", id: "home-mine", "aria-labelledby": "home-mine-h", hidden: true },
    mineTitle,
    mineList,
    moreLink("/games", "All your games →", "home-mine-more"),
  );

  // -- tournaments ----------------------------------------------------------------------------
  const tBody = h("div", { class: "home-t-body" });
  const tournaments = h(
    "section",
    { class: "panel home-section home-tournaments", id: "home-tournaments", "aria-labelledby": "home-tournaments-h" },
    h("h2", { id: "home-tournaments-h", text: "Tournaments" }),
    tBody,
    moreLink("/tournaments", "All tournaments →", "home-tournaments-more"),
  );

  // -- games to watch -------------------------------------------------------------------------
  const watchList = h("ul", { class: "watch-list home-watch-list", id: "home-watch-list" });
  const botLink = h("button", { type: "button", class: "link-button", id: "home-watch-bot", text: "start one against the bot" });
  botLink.addEventListener("click", playBot);
  const watchEmpty = h("p", { class: "muted empty", id: "home-watch-empty" }, "No game is being played right now: ", botLink, ".");
  const watchWait = h("p", { class: "muted empty", id: "home-watch-wait", text: "Finding the games in progress…", hidden: true });
  const watch = h(
    "section",
    { class: "panel home-section home-watch", id: "home-watch", "aria-labelledby": "home-watch-h" },
    h("h2", { id: "home-watch-h", text: "Watch" }),
    watchList,
    watchEmpty,
    watchWait,
    moreLink("/watch", "More games →", "home-watch-more"),
  );

  // The order a returning player needs: their own games, the players they follow who are
  // online or playing (panels/social.ts's panel, put in at the drawing when there are any),
  // then the tournaments, then games to watch.
  const el = h(
    "div",
    { class: "home-live", id: "home-live", "data-ready": "false", "data-mine": "false", "data-following": "false" },
    mine,
    tournaments,
    watch,
  );
  let followed: Followed[] = [];
  const fetchFollowed = () =>
    ctx.me
      .then((me) => (me && (me as { account?: boolean }).account ? socialApi.following() : null))
      .then(
        (got) => {
          followed = got ? got.following : [];
        },
        () => undefined,
      );

  // The texts that count down, updated in place each second.
  const ticking = new Map<HTMLElement, () => string>();
  const serverNow = () => ctx.live.clock.now(Date.now());

  // Each row has its state in a column of one width, its text from the column's start: a
  // clock that loses a digit moves nothing (no layout shift).
  function gameRow(g: MyGame): HTMLElement {
    const left = h("span", { class: "home-game-left" });
    const leftNow = () => leftText(g.deadline !== null ? formatRemaining(ctx.live.clock.remaining(g.deadline, Date.now())) : null);
    left.textContent = leftNow();
    ticking.set(left, leftNow);
    return h(
      "li",
      { class: `home-game${g.your_move ? " my-turn" : ""}`, "data-game": g.id, "data-your-move": String(g.your_move) },
      h(
        "a",
        { href: `/g/${g.id}`, class: "home-game-link" },
        h("span", { class: "home-game-who", text: `vs ${g.opponent.name}` }),
        h("span", { class: "home-game-state", text: turnText(g) }),
        h("span", { class: "home-game-terms", text: `${rulesetName(g.ruleset)} · ${timeControlShort(g.move_time)} a move` }),
        left,
      ),
    );
  }

  function renderMine(): void {
    for (const span of mineList.querySelectorAll("span")) ticking.delete(span);
    const { shown } = homeGames(ctx.myGames.list.playing);
    clear(mineList);
    for (const g of shown) mineList.appendChild(gameRow(g));
    mineList.dataset.count = String(ctx.myGames.list.playing.length);
    mineTitle.textContent = shown.some((g) => g.your_move) ? "Your move" : "Your games";
    mine.hidden = shown.length === 0;
    el.dataset.mine = String(!mine.hidden);
  }

  function tItem(t: TournamentSummary): HTMLElement {
    const when = h("span", { class: "home-t-when" });
    const whenNow = () => tournamentWhen(t, serverNow());
    when.textContent = whenNow();
    if (t.status !== "finished") ticking.set(when, whenNow);
    const join = joinable(t);
    return h(
      "li",
      { class: "home-t-item", "data-tournament": t.id, "data-status": t.status },
      h(
        "a",
        { href: `/t/${encodeURIComponent(t.id)}`, class: "home-t-link", "aria-label": `${join ? "Join" : "View"} ${t.name}: ${formatName(t.format)}, ${termsLine(t)}` },
        h("span", { class: "home-t-name" }, h("span", { class: `tag tag-format tag-${t.format}`, text: formatName(t.format) }), t.name),
        h("span", { class: "home-go", text: join ? "Join →" : "View →" }),
        h("span", { class: "home-t-terms", text: termsLine(t) }),
        when,
      ),
    );
  }

  let drawn = ""; // what the tournaments' lines show: a refresh that changes none redraws nothing
  function renderTournaments(lists: TournamentLists | null): void {
    const chosen = lists ? homeTournaments(lists) : null;
    const key = JSON.stringify(chosen && [...chosen.running.shown, ...chosen.upcoming.shown].map((t) => [t.id, t.status, t.name, t.starts_at, t.ends_at]));
    if (key === drawn) return;
    drawn = key;
    for (const span of tBody.querySelectorAll("span")) ticking.delete(span);
    clear(tBody);
    if (!chosen) {
      tBody.append(h("p", { class: "muted empty", id: "home-t-error", text: "The tournaments could not be fetched just now." }));
      return;
    }
    const group = (key: "running" | "upcoming", title: string) => {
      const items = chosen[key].shown;
      if (items.length === 0) return null;
      return h(
        "div",
        { class: "home-t-group" },
        h("h3", { class: "home-sub", text: title }),
        h("ul", { class: "home-list", id: `home-t-${key}`, "data-count": String(items.length) }, ...items.map(tItem)),
      );
    };
    const none = chosen.running.shown.length === 0;
    tBody.append(
      group("running", "Running now") ?? "",
      none
        ? h(
            "p",
            { class: "muted empty", id: "home-t-none" },
            "No tournament is running: ",
            h("a", { href: "/tournaments", text: "create one" }),
            chosen.upcoming.shown.length ? ", or join one of those starting soon." : ".",
          )
        : "",
      group("upcoming", "Starting soon") ?? "",
    );
  }

  const feed = lobbyFeed(ctx.live);
  function renderWatch(): void {
    const { shown } = homeWatch(feed.games);
    clear(watchList);
    for (const g of shown) watchList.appendChild(gameCard(g));
    watchList.dataset.count = String(feed.games.length);
    const waiting = !feed.gamesSynced && feed.games.length === 0;
    watchWait.hidden = !waiting;
    watchEmpty.hidden = waiting || feed.games.length > 0;
  }

  // -- drawing all at once ----------------------------------------------------------------------
  let ready = false;
  let stopped = false;
  let lists: TournamentLists | null = null;
  const fetchTournaments = () =>
    tournamentApi.list().then(
      (got) => {
        lists = got;
      },
      () => undefined,
    );
  let offLobby = () => {};
  const lobbyAnswered = new Promise<void>((resolve) => {
    if (feed.gamesSynced) resolve();
    offLobby = feed.subscribe((c) => {
      if (c.type === "games") {
        offLobby();
        resolve();
      }
    });
  });
  const unfollow = feed.follow();
  const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  // The player's games, the players followed and the tournaments come first on the page:
  // wait for them (HTTP, quick, each settled on failure too); the games to watch, last, not
  // beyond WAIT_MS.
  const answered = Promise.all([
    ctx.myGames.refresh(),
    fetchTournaments(),
    fetchFollowed(),
    Promise.race([lobbyAnswered, after(WAIT_MS)]),
  ]);
  void Promise.race([answered, after(MAX_WAIT_MS)]).then(() => {
    if (stopped) return;
    ready = true;
    const following = followingPanel(followed);
    if (following) {
      following.classList.add("home-section");
      el.insertBefore(following, tournaments);
      el.dataset.following = "true";
    }
    renderMine();
    renderTournaments(lists);
    renderWatch();
    el.dataset.ready = "true";
    performance.mark("home-live-ready"); // for measuring how soon the part is drawn
  });
  // What comes after the first drawing is kept up to date in place.
  const offMine = ctx.myGames.subscribe(() => ready && renderMine());
  // Only a new list redraws it: a dropped connection leaves the games shown as they were.
  const offWatch = feed.subscribe((c) => {
    if (ready && c.type === "games") renderWatch();
  });
  const refresh = setInterval(() => {
    void fetchTournaments().then(() => ready && !stopped && lists && renderTournaments(lists));
  }, TOURNAMENTS_REFRESH_MS);
  const tick = setInterval(() => {
    for (const [span, text] of ticking) span.textContent = text();
  }, 1000);

  return {
    el,
    reserve() {
      const top = el.getBoundingClientRect().top + window.scrollY;
      const room = Math.min(MAX_RESERVED_PX, Math.max(0, window.innerHeight - top + 16));
      el.style.minHeight = `${Math.round(room)}px`;
    },
    stop() {
      stopped = true;
      offLobby();
      offMine();
      offWatch();
      unfollow();
      clearInterval(refresh);
      clearInterval(tick);
    },
  };
}
