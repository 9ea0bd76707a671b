import { describe, expect, it } from "vitest";
import {
  QUICK_TIMES,
  SEEK_TIMES,
  SeekBook,
  durationWords,
  isLobbyFrame,
  isMine,
  kindOfMoveTime,
  lobbyErrorText,
  moveNumberText,
  needsAccount,
  orderGames,
  orderSeeks,
  quickWindow,
  ratingText,
  seekKind,
  seekLabel,
  seekTermsText,
  spectatorsText,
  splitMine,
  timeControlShort,
  timeControlText,
  waitingText,
  type GameSummary,
  type Seek,
} from "./lobby";

function seek(id: string, extra: Partial<Seek> = {}): Seek {
  const moveTime = extra.move_time ?? 180;
  return {
    id,
    player: { id: `p-${id}`, name: `Player ${id}` },
    rating: 1500,
    provisional: true,
    ruleset: "nielsen",
    move_time: moveTime,
    rated: true,
    match: false,
    kind: moveTime < 3600 ? "live" : "correspondence",
    ...extra,
  };
}

const ids = (book: SeekBook) => book.list().map((s) => s.id);

describe("SeekBook", () => {
  it("takes the snapshot, then adds and removes", () => {
    const book = new SeekBook();
    book.awaitSnapshot();
    book.snapshot([seek("a"), seek("b")]);
    expect(book.synced).toBe(true);
    expect(ids(book)).toEqual(["a", "b"]);
    expect(book.add(seek("c"))).toBe(true);
    expect(ids(book)).toEqual(["a", "b", "c"]);
    expect(book.remove("b")).toBe(true);
    expect(ids(book)).toEqual(["a", "c"]);
  });

  it("never lists an id twice: a repeated seek_added replaces it in place", () => {
    const book = new SeekBook();
    book.snapshot([seek("a"), seek("b")]);
    book.add(seek("a", { rating: 1720, provisional: false }));
    expect(ids(book)).toEqual(["a", "b"]);
    expect(book.get("a")?.rating).toBe(1720);
    expect(book.size).toBe(2);
  });

  it("ignores the removal of a seek it does not know", () => {
    const book = new SeekBook();
    book.snapshot([seek("a")]);
    expect(book.remove("zzz")).toBe(false);
    expect(ids(book)).toEqual(["a"]);
  });

  it("a new snapshot replaces the whole list", () => {
    const book = new SeekBook();
    book.snapshot([seek("a"), seek("b")]);
    book.awaitSnapshot();
    expect(book.synced).toBe(false);
    book.snapshot([seek("c")]);
    expect(ids(book)).toEqual(["c"]);
  });

  it("replays on the snapshot the changes that arrived before it", () => {
    const book = new SeekBook();
    book.awaitSnapshot();
    book.add(seek("late")); // opened after the server read the list for the snapshot
    book.remove("gone"); // taken after the read: the snapshot still has it
    book.add(seek("brief"));
    book.remove("brief"); // opened and taken before the snapshot: stays away
    book.snapshot([seek("gone"), seek("old")]);
    expect(ids(book)).toEqual(["old", "late"]);
    // after the snapshot, changes apply once and are no longer remembered
    book.add(seek("new"));
    book.awaitSnapshot();
    book.snapshot([seek("x")]);
    expect(ids(book)).toEqual(["x"]);
  });

  it("shows live seeks before correspondence ones, each oldest first", () => {
    const book = new SeekBook();
    book.snapshot([seek("c1", { move_time: 86_400 }), seek("l1", { move_time: 60 }), seek("c2", { move_time: 3600 })]);
    book.add(seek("l2", { move_time: 600 }));
    expect(ids(book)).toEqual(["l1", "l2", "c1", "c2"]);
  });
});

describe("orderSeeks and kinds", () => {
  it("keeps the given order within a kind", () => {
    const list = [seek("b", { move_time: 604_800 }), seek("a"), seek("c", { move_time: 60 })];
    expect(orderSeeks(list).map((s) => s.id)).toEqual(["a", "c", "b"]);
  });

  it("live is under one hour per move", () => {
    expect(kindOfMoveTime(60)).toBe("live");
    expect(kindOfMoveTime(3540)).toBe("live");
    expect(kindOfMoveTime(3600)).toBe("correspondence");
    expect(kindOfMoveTime(604_800)).toBe("correspondence");
    // the server's word wins; without it, the move time decides
    expect(seekKind({ move_time: 60, kind: "correspondence" })).toBe("correspondence");
    expect(seekKind({ move_time: 7200 })).toBe("correspondence");
  });

  it("offers the presets 1, 3, 10 minutes, 1 hour, 1, 3, 7 days; quick pairing only the live ones", () => {
    expect(SEEK_TIMES.map(durationWords)).toEqual([
      "1 minute",
      "3 minutes",
      "10 minutes",
      "1 hour",
      "1 day",
      "3 days",
      "7 days",
    ]);
    expect(QUICK_TIMES).toEqual([60, 180, 600]);
  });
});

describe("which seeks are mine", () => {
  const mine = seek("m", { player: { id: "me", name: "Me" } });
  const theirs = seek("t");

  it("compares the seek's player with my player id", () => {
    expect(isMine(mine, "me")).toBe(true);
    expect(isMine(theirs, "me")).toBe(false);
    expect(isMine(mine, null)).toBe(false);
    expect(isMine(mine, undefined)).toBe(false);
    expect(isMine(mine, "")).toBe(false);
  });

  it("splits a list into mine and others, keeping the order", () => {
    const split = splitMine([theirs, mine, seek("u")], "me");
    expect(split.mine.map((s) => s.id)).toEqual(["m"]);
    expect(split.others.map((s) => s.id)).toEqual(["t", "u"]);
  });

  it("labels my seek as mine", () => {
    expect(seekLabel(mine, "me")).toBe("Your seek: Nielsen, 3 minutes per move, rated, one game, live");
    expect(seekLabel(seek("t", { match: true, rated: false, move_time: 259_200, ruleset: "walker", rating: 1612, provisional: false }), "me")).toBe(
      "Player t (1612): Walker, 3 days per move, casual, two-game match, correspondence",
    );
  });
});

describe("words", () => {
  it("formats time controls", () => {
    expect(timeControlText(60)).toBe("1 minute per move");
    expect(timeControlText(600)).toBe("10 minutes per move");
    expect(timeControlText(3600)).toBe("1 hour per move");
    expect(timeControlText(5400)).toBe("90 minutes per move");
    expect(timeControlText(7200)).toBe("2 hours per move");
    expect(timeControlText(86_400)).toBe("1 day per move");
    expect(timeControlText(604_800)).toBe("7 days per move");
    expect(durationWords(45)).toBe("45 seconds");
    expect(timeControlShort(180)).toBe("3 min");
    expect(timeControlShort(3600)).toBe("1 h");
    expect(timeControlShort(259_200)).toBe("3 d");
  });

  it("marks provisional ratings with a question mark", () => {
    expect(ratingText(1500, true)).toBe("1500?");
    expect(ratingText(1623.4, false)).toBe("1623");
  });

  it("names the terms", () => {
    expect(seekTermsText({ rated: true, match: false })).toBe("Rated · one game");
    expect(seekTermsText({ rated: false, match: true })).toBe("Casual · two-game match");
  });

  it("counts the quick pairing wait and its widening rating window", () => {
    expect(waitingText(0)).toBe("waiting… (0 s)");
    expect(waitingText(12.7)).toBe("waiting… (12 s)");
    expect(quickWindow(0)).toBe(100);
    expect(quickWindow(4)).toBe(200);
    expect(quickWindow(36)).toBe(1000);
    expect(quickWindow(500)).toBe(1000);
  });

  it("describes games in progress", () => {
    expect(moveNumberText({ move: 12, ply: 22 })).toBe("Move 12");
    expect(spectatorsText(0)).toBe("no spectators");
    expect(spectatorsText(1)).toBe("1 spectator");
    expect(spectatorsText(5)).toBe("5 spectators");
  });

  it("lists people's games before games against the bot", () => {
    const g = (id: string, opponent: "bot" | "friend"): GameSummary => ({
      id,
      ruleset: "nielsen",
      ply: 0,
      move: 1,
      opponent,
      watchers: 0,
      players: {
        attackers: { id: "a", name: "A", rating: 1500, provisional: true },
        defenders: { id: "b", name: "B", rating: 1500, provisional: true },
      },
    });
    expect(orderGames([g("1", "bot"), g("2", "friend"), g("3", "bot"), g("4", "friend")]).map((x) => x.id)).toEqual([
      "2",
      "4",
      "1",
      "3",
    ]);
  });

  it("explains lobby errors, and knows which ones need an account", () => {
    expect(lobbyErrorText("seek_gone", "x")).toMatch(/no longer open/);
    expect(lobbyErrorText("too_many_seeks", "x")).toMatch(/5 open seeks/);
    expect(lobbyErrorText("own_seek", "x")).toMatch(/your own seek/);
    expect(lobbyErrorText("already_waiting", "x")).toMatch(/already waiting/);
    expect(lobbyErrorText("bad_field", "seek: field 'move_time' must be …")).toBe("Seek: field 'move_time' must be ….");
    expect(needsAccount("account_required")).toBe(true);
    expect(needsAccount("seek_gone")).toBe(false);
    expect(lobbyErrorText("account_required", "games against people need an account")).toBe(
      "Games against people need an account.",
    );
  });

  it("tells lobby frames from the others", () => {
    for (const t of ["lobby", "seek_added", "seek_removed", "games", "paired"]) {
      expect(isLobbyFrame({ t })).toBe(true);
    }
    expect(isLobbyFrame({ t: "ack", of: "quick" })).toBe(true);
    expect(isLobbyFrame({ t: "ack", of: "move" })).toBe(false);
    expect(isLobbyFrame({ t: "event" })).toBe(false);
    expect(isLobbyFrame({ t: "error" })).toBe(false);
  });
});
