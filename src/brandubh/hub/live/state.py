"""A live game's fields as stored in its Redis hash, and what is shown of it.

Pure: no I/O. The hash holds bytes; ``GameState.from_hash`` reads them with the game's
moves and repetition counts, which live in keys of their own so that a commit carries only
what changed (keys.moves, keys.repetitions); ``public()`` makes the map every client sees
(never the seed before the end, never the invite token), and ``record()`` the game's record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from dataclasses import fields as dataclass_fields
from datetime import UTC, datetime
from typing import Final, Literal, cast

import msgpack

from brandubh.engine import Game, Record, Result, Side, Snapshot

BOT_ID: Final = "bot"

# Where a game came from (its ``origin``), chosen by the path that created it: a game
# against the bot, a friend's invitation link, a private challenge (an invitation for one
# player), a lobby seek taken, quick pairing, a rematch, or a match's later game. Games
# created before the field existed have none: ``GameState.origin_or_guess`` stands in.
ORIGINS: Final = (
    "bot", "invite", "challenge", "seek", "quick", "rematch", "match", "tournament"
)  # fmt: skip

# A side, or "" for none (no open offer, nobody on turn).
MaybeSide = Side | Literal[""]

Hash = dict[bytes, bytes]


def pack_snapshot(snap: Snapshot) -> bytes:
    """The snapshot as the hash keeps it: of the recent positions only the current one (the
    counts of the others are in keys.repetitions), so its size does not grow with the game."""
    return cast(
        bytes,
        msgpack.packb(
            [
                snap.ruleset,
                snap.start_position,
                snap.position,
                snap.ply,
                list(snap.woods),
                list(snap.recent[-1:]),
            ],
            use_bin_type=True,
        ),
    )


def unpack_snapshot(data: bytes) -> Snapshot:
    """A stored snapshot; its ``recent`` is the current position alone (or, stored before
    keys.repetitions existed, every recent position)."""
    ruleset, start, position, ply, woods, recent = msgpack.unpackb(data, raw=False)
    a1, a7, g1, g7 = woods
    return Snapshot(ruleset, start, position, ply, (a1, a7, g1, g7), tuple(recent))


@dataclass(frozen=True)
class Player:
    id: str
    name: str


@dataclass(frozen=True)
class GameState:
    """The fields of a game's hash (see keys.game)."""

    id: str
    ruleset: str
    status: str  # waiting | active | ended
    seq: int  # number of the last event
    ply: int
    created: int  # ms, Redis clock
    move_time: int  # seconds per move (enforced by the scheduler)
    opponent: str  # bot | friend
    bot_level: int
    creator: Player
    joiner: Player | None
    attacker: str  # player id, "" until the game has both players
    defender: str
    turn: str  # id of the player on turn, "" unless active
    snap: bytes
    moves: tuple[str, ...]
    commitment: str
    invite: str
    result: Result | None
    deadline: int = 0  # ms, Redis clock: when the side to move loses on time; 0 for none
    deadline_set: int = 0  # ms, when that deadline was set
    draw_offer: MaybeSide = ""  # the side whose draw offer is open, if any
    draw_block: tuple[int, int] = (0, 0)  # (attackers, defenders): ply from which each may offer
    rematch_offer: MaybeSide = ""  # the side that offered a rematch after the end
    rematch: str = ""  # the id of the rematch game, once agreed
    rated: bool = False  # chosen at creation; only games between accounts are rated
    invitee: str = ""  # a private challenge: the only player who may join
    match: str = ""  # the two-game match this game belongs to, if any
    match_no: int = 0  # its number in the match: 1, 2, or 3 for a tie-break
    origin: str = ""  # one of ORIGINS; "" in games created before it was stored
    tournament: str = ""  # the tournament this game is of (every game of its matches too)
    rematch_declined: MaybeSide = ""  # the side that declined the other's rematch offer
    # The players that are bot accounts (docs/api.md), set once when the game is made by
    # the path that seats one (the Bot API's challenges): their player objects say
    # ``"bot": true``. Part of the terms, so no move pays for it.
    bots: tuple[str, ...] = ()
    # A challenge its invitee declined (hub/challenges/): the reason given, from the
    # declining change on; "" for every other game.
    declined: str = ""
    # A bot game: a digest of the client address that created it (games.client_source),
    # so that the bot's turns are shared fairly between addresses too (bot_turns.py).
    source: str = ""
    # The positions that can come round again (since the piece count last changed), as
    # Zobrist hashes, each as often as it occurred, the current one last: with ``snap``
    # what the engine needs to resume the game (``snapshot``).
    recent: tuple[int, ...] = ()
    # Read from a hash of before keys.moves and keys.repetitions: the next commit moves
    # its moves and recent positions there (commit.arguments).
    legacy: bool = False
    # ``_public_terms``, once built: a cache, not part of the state (never compared).
    terms: dict[str, object] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_hash(
        cls, game_id: str, h: Hash, moves: bytes | None = None, counts: Hash | None = None
    ) -> GameState:
        """A state from its hash, its ``moves`` key and its ``counts`` (keys.repetitions);
        an ended game's final hash (the archive's) holds its moves itself."""

        def s(key: str, default: str = "") -> str:
            v = h.get(key.encode())
            return v.decode() if v is not None else default

        legacy = b"moves" in h
        if moves is not None and not legacy:
            move_list = tuple(moves.decode().split())
        else:
            move_list = tuple(s("moves").split())

        joiner = Player(s("p2"), s("p2name")) if s("p2") else None
        reason = s("reason")
        winner = s("winner")
        return cls(
            id=game_id,
            ruleset=s("ruleset"),
            status=s("status"),
            seq=int(s("seq", "0")),
            ply=int(s("ply", "0")),
            created=int(s("created", "0")),
            move_time=int(s("move_time", "0")),
            opponent=s("opponent"),
            bot_level=int(s("bot_level", "0")),
            creator=Player(s("p1"), s("p1name")),
            joiner=joiner,
            attacker=s("attacker"),
            defender=s("defender"),
            turn=s("turn"),
            snap=h.get(b"snap", b""),
            moves=move_list,
            commitment=s("commitment"),
            invite=s("invite"),
            result=Result(winner or None, reason) if reason else None,  # type: ignore[arg-type]
            deadline=int(s("deadline", "0")),
            deadline_set=int(s("deadline_set", "0")),
            draw_offer=_side(s("draw_offer")),
            draw_block=(int(s("draw_block_a", "0")), int(s("draw_block_d", "0"))),
            rematch_offer=_side(s("rematch_offer")),
            rematch=s("rematch"),
            rated=s("rated") == "1",
            invitee=s("invitee"),
            match=s("match"),
            match_no=int(s("match_no", "0")),
            origin=s("origin"),
            tournament=s("tournament"),
            rematch_declined=_side(s("rematch_declined")),
            bots=tuple(s("bots").split()),
            declined=s("declined"),
            source=s("source"),
            recent=_recent(h.get(b"snap", b""), counts),
            legacy=legacy and counts is not None,
        )

    def fields(self, only: tuple[str, ...] | None = None) -> dict[str, str | bytes]:
        """Every field the hub writes (``created`` and ``seq`` are the scripts' own), or
        ``only`` those named."""
        return {name: _FIELD[name](self) for name in (_FIELD if only is None else only)}

    def origin_or_guess(self) -> str:
        """Where the game came from; for a game older than the field, the best guess from
        what it holds: the bot, a match's later game, a private challenge, else "person"
        (a game against a person whose path was not recorded)."""
        if self.origin:
            return self.origin
        if self.opponent == "bot":
            return "bot"
        if self.match_no >= 2:
            return "match"
        return "challenge" if self.invitee else "person"

    def withdrawn(self) -> bool:
        """Whether this is an invitation its creator withdrew: it ended without starting."""
        return self.status == "ended" and not self.attacker

    def snapshot(self) -> Snapshot:
        """The engine's snapshot of this state: position, ply and repetition history."""
        snap = unpack_snapshot(self.snap)
        return replace(snap, recent=self.recent) if self.recent else snap

    def game(self) -> Game:
        """The engine's game at this state."""
        return Game.from_snapshot(self.snapshot())

    def evolve(self, **changes: object) -> GameState:
        """A copy with some fields changed: ``dataclasses.replace`` without its cost (it
        calls the frozen ``__init__``, about 15 µs; this is about 2), for the move path."""
        if not changes.keys() <= _NAMES:
            unknown = ", ".join(sorted(changes.keys() - _NAMES))
            raise TypeError(f"GameState has no field {unknown}")
        if self.terms is not None and not _STATIC.isdisjoint(changes):
            changes["terms"] = None
        new = object.__new__(GameState)
        fields = new.__dict__
        fields.update(self.__dict__)
        fields.update(changes)
        return new

    def next(self) -> GameState:
        """The same state as the next event will number it."""
        return self.evolve(seq=self.seq + 1)

    def player_of(self, side: Side) -> str:
        """The id of the player who has a side."""
        return self.attacker if side == "attackers" else self.defender

    def side_of(self, player_id: str) -> Side | None:
        """ "attackers" or "defenders" for a player of this game, None for anyone else."""
        if player_id and player_id == self.attacker:
            return "attackers"
        if player_id and player_id == self.defender:
            return "defenders"
        return None

    def is_player(self, player_id: str) -> bool:
        return bool(player_id) and player_id in (self.creator.id, getattr(self.joiner, "id", ""))

    def player(self, player_id: str) -> Player | None:
        for p in (self.creator, self.joiner):
            if p is not None and p.id == player_id:
                return p
        return None

    def record(self, seed: str | None) -> Record:
        """The game's record (docs/record-format.md); ``seed`` only once it has ended."""
        started = datetime.fromtimestamp(self.created / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        creator = self.side_of(self.creator.id)
        attacker, defender = self.player(self.attacker), self.player(self.defender)
        return Record(
            ruleset=self.ruleset,
            moves=self.moves,
            result=self.result,
            game_id=self.id,
            attackers=attacker.name if attacker else None,
            defenders=defender.name if defender else None,
            start=started,
            commitment=self.commitment,
            seed=seed,
            extra=(
                *((("Creator", creator),) if creator else ()),
                *((("Match", f"{self.match} game {self.match_no}"),) if self.match else ()),
            ),
        )

    def public(
        self, game: Game | None = None, seed: str | None = None, deadline: int | None = None
    ) -> dict[str, object]:
        """The state every client may see; ``game`` saves rebuilding it when at hand,
        ``deadline`` overrides the stored one (commit.lua fills in a new one)."""
        if game is None:
            game = self.game()
        if deadline is None:
            deadline = self.deadline

        active = self.status == "active"
        view: dict[str, object] = {
            **self._public_terms(),
            "status": self.status,
            "ply": self.ply,
            "position": game.position,
            "turn": game.side_to_move if active else None,
            "legal": game.legal_texts() if active else [],
            "repetitions": game.repetitions,
            "last": self.moves[-1] if self.moves else None,
            "result": (
                {"winner": self.result.winner, "reason": self.result.reason}
                if self.result
                else None
            ),
            "seed": seed,
            "deadline": deadline or None,
            "draw_offer": self.draw_offer or None,
            "draw_block": {"attackers": self.draw_block[0], "defenders": self.draw_block[1]},
            "rematch": {
                "offer": self.rematch_offer or None,
                "game": self.rematch or None,
                "declined": self.rematch_declined or None,
            },
            "withdrawn": self.withdrawn(),
        }
        if self.declined:  # only then: every other game's frames stay as they were
            view["declined"] = self.declined
        return view

    def _public_terms(self) -> dict[str, object]:
        """The part of ``public()`` that no move changes (who plays, the terms): built once
        and carried by ``evolve`` to later states until one of its fields changes."""
        terms = self.terms
        if terms is None:

            def who(pid: str) -> dict[str, object] | None:
                p = self.player(pid)
                if p is None:
                    return None
                return (
                    {"id": p.id, "name": p.name, "bot": True}
                    if p.id in self.bots
                    else {
                        "id": p.id,
                        "name": p.name,
                    }
                )

            terms = {
                "id": self.id,
                "ruleset": self.ruleset,
                "players": {"attackers": who(self.attacker), "defenders": who(self.defender)},
                "creator": who(self.creator.id),
                "commitment": self.commitment,
                "move_time": self.move_time,
                "opponent": self.opponent,
                "bot_level": self.bot_level if self.opponent == "bot" else None,
                "created": self.created,
                "rated": self.rated,
                "invitee": self.invitee or None,
                "match": {"id": self.match, "number": self.match_no} if self.match else None,
                "origin": self.origin_or_guess(),
            }
            if self.tournament:  # only then: every other game's frames stay as they were
                terms["tournament"] = self.tournament
            object.__setattr__(self, "terms", terms)  # a cache: frozen for everything else
        return terms


_NAMES: Final = frozenset(f.name for f in dataclass_fields(GameState))
# The fields ``_public_terms`` are made of.
_STATIC: Final = frozenset(
    {
        "id",
        "ruleset",
        "creator",
        "joiner",
        "attacker",
        "defender",
        "commitment",
        "move_time",
        "opponent",
        "bot_level",
        "created",
        "rated",
        "invitee",
        "match",
        "match_no",
        "origin",
        "tournament",
        "bots",
    }
)


def _recent(snap: bytes, counts: Hash | None) -> tuple[int, ...]:
    """The repetition history from the stored snapshot and counts, the current position
    last (Game.from_snapshot takes it so); a snapshot of before the counts holds it whole."""
    if not snap:
        return ()
    stored = unpack_snapshot(snap).recent
    if not counts or len(stored) != 1:
        return stored
    current = stored[0]
    out: list[int] = []
    for raw, n in counts.items():
        h = int(raw)
        if h != current:
            out.extend([h] * int(n))
    out.extend([current] * max(1, int(counts.get(str(current).encode(), b"1"))))
    return tuple(out)


def counts_of(recent: tuple[int, ...]) -> list[str]:
    """The repetition history as keys.repetitions holds it: hash, count, ... (decimal)."""
    counted: dict[int, int] = {}
    for h in recent:
        counted[h] = counted.get(h, 0) + 1
    return [x for h, n in counted.items() for x in (str(h), str(n))]


def _side(text: str) -> MaybeSide:
    """A side as stored; anything else reads as none."""
    if text == "attackers":
        return "attackers"
    if text == "defenders":
        return "defenders"
    return ""


# How each field of ``GameState.fields`` is written, for changes that write a few.
_FIELD: Final[dict[str, Callable[[GameState], str | bytes]]] = {
    "ruleset": lambda s: s.ruleset,
    "status": lambda s: s.status,
    "ply": lambda s: str(s.ply),
    "move_time": lambda s: str(s.move_time),
    "opponent": lambda s: s.opponent,
    "bot_level": lambda s: str(s.bot_level),
    "p1": lambda s: s.creator.id,
    "p1name": lambda s: s.creator.name,
    "p2": lambda s: s.joiner.id if s.joiner else "",
    "p2name": lambda s: s.joiner.name if s.joiner else "",
    "attacker": lambda s: s.attacker,
    "defender": lambda s: s.defender,
    "turn": lambda s: s.turn,
    "snap": lambda s: s.snap,
    "commitment": lambda s: s.commitment,
    "invite": lambda s: s.invite,
    "winner": lambda s: (s.result.winner or "") if s.result else "",
    "reason": lambda s: s.result.reason if s.result else "",
    "draw_offer": lambda s: s.draw_offer,
    "draw_block_a": lambda s: str(s.draw_block[0]),
    "draw_block_d": lambda s: str(s.draw_block[1]),
    "rated": lambda s: "1" if s.rated else "0",
    "invitee": lambda s: s.invitee,
    "match": lambda s: s.match,
    "match_no": lambda s: str(s.match_no),
    "origin": lambda s: s.origin,
    "tournament": lambda s: s.tournament,
    "source": lambda s: s.source,
    "bots": lambda s: " ".join(s.bots),
    "declined": lambda s: s.declined,
}
