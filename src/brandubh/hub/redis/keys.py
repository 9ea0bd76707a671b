"""Every Redis key and channel name the service uses, in one place.

A game's keys share one hash tag, ``{p<bucket>}``, with ``bucket = crc32(game_id) % BUCKETS``,
so that a game, its event list, its acks and its bucket's job indexes live in one slot and
one Lua script may touch them all, on a single Redis or in a Redis Cluster (docs/architecture.md).

Redis holds only what is live (docs/storage.md); what lasts is in PostgreSQL
(brandubh.store.tables). Every key's docstring says how long it lives. "The grace" is
BRANDUBH_LIVE_GRACE_S (default 10 minutes): how long an ended game stays in Redis after
its archive transaction committed.
"""

from __future__ import annotations

import zlib
from typing import Final

# 64, not 16: over a cluster's masters the buckets (and so the games) spread only as evenly
# as their slots fall. On three masters with the default slot split, 16 buckets fall 4/5/7
# (the busiest master holds 44% of the games), 64 fall 20/20/24 (38%; docs/scaling.md).
# Changing this moves every live game's keys: change it only on an empty Redis.
BUCKETS: Final = 64
PREFIX: Final = "bd"  # so the service can share a Redis with others


def bucket(game_id: str) -> int:
    """The bucket of a game: a stable function of its id."""
    return zlib.crc32(game_id.encode()) % BUCKETS


def tag(n: int) -> str:
    return f"{{p{n}}}"


def game(game_id: str) -> str:
    """Hash: the game's public and private fields (live/state.py). Lives: 7 days while
    waiting for a friend to join (games.WAITING_TTL_S), for ever while played, then the
    grace once archived (rater.py); reads after that come from PostgreSQL."""
    return f"{PREFIX}:{tag(bucket(game_id))}:g:{game_id}"


def events(game_id: str) -> str:
    """List: event n (1-based) at index n-1, each the msgpack frame sent to clients.
    Lives: as long as the game is played, then the grace once archived."""
    return f"{PREFIX}:{tag(bucket(game_id))}:ev:{game_id}"


def moves(game_id: str) -> str:
    """String: the game's moves, each followed by a space, appended by commit.lua (a commit
    carries only the new move, so its size does not grow with the game). Lives: like the
    events."""
    return f"{PREFIX}:{tag(bucket(game_id))}:mv:{game_id}"


def repetitions(game_id: str) -> str:
    """Hash: Zobrist hash of a position (decimal) -> how often it occurred since the piece
    count last changed (only those positions can come round again: the engine's repetition
    rule). Written at creation (lua/create.lua); commit.lua counts each move's position and
    empties it after a capture. Lives: like the game's hash."""
    return f"{PREFIX}:{tag(bucket(game_id))}:rep:{game_id}"


def acks(game_id: str) -> str:
    """Hash: ``<player>:<client message id>`` -> the event number it produced. Lives: as
    long as the game is played, then the grace once archived."""
    return f"{PREFIX}:{tag(bucket(game_id))}:ack:{game_id}"


def seed(game_id: str) -> str:
    """String: the game's secret seed; read by nothing that reaches a client before the end.
    Lives: like the game's hash (7 days unjoined; the grace once archived, when PostgreSQL
    keeps it with the game)."""
    return f"{PREFIX}:{tag(bucket(game_id))}:seed:{game_id}"


def watchers(game_id: str) -> str:
    """Sorted set: spectator connection id -> expiry (ms, Redis clock). Lives: the watcher
    lifetime (watchers.WATCHER_TTL_MS) from the latest spectator's join or refresh
    (watchers.lua), each of which sets it anew, even once the game is archived (the
    archive's grace, longer, does not shorten it): it goes that long after the last one."""
    return f"{PREFIX}:{tag(bucket(game_id))}:w:{game_id}"


def presence(game_id: str) -> str:
    """Sorted set: "<connection id>|<player id>" of each player's socket following the game
    -> expiry (ms, Redis clock); see wire/presence.py."""
    return f"{PREFIX}:{tag(bucket(game_id))}:on:{game_id}"


def gone(game_id: str) -> str:
    """Hash: player id -> when their last socket following the game went (ms, Redis clock),
    written by lua/presence.lua, cleared when one comes back; commit.lua reads it to judge
    a claim (changes.claim). Field ``#v``: the version of the game's presence (presence.lua).
    Lives: ``GONE_TTL_MS`` (wire/presence.py) after the last write while the game is
    played; deleted by its final change (commit.lua); after the end, a presence change
    keeps it ``PRESENCE_TTL_MS`` only."""
    return f"{PREFIX}:{tag(bucket(game_id))}:gone:{game_id}"


CHAT_ROOMS: Final = ("players", "spectators")  # a game's chat rooms, each a key of its own


def chat(game_id: str, room: str) -> str:
    """List: the latest lines of one chat room of a game ("players" or "spectators"; at
    most chat/service.py's KEEP), each a msgpack map (lua/chat.lua). Lives: like the events
    (as long as the game is played, then the grace once archived: rater.py, and chat.lua
    gives a line said in the grace the game's remaining time)."""
    return f"{PREFIX}:{tag(bucket(game_id))}:chat:{room}:{game_id}"


def chat_numbers(game_id: str) -> str:
    """Hash: chat room -> the number of its last line (each room numbers its own lines,
    apart from the game's events). Lives: like the chat's lists."""
    return f"{PREFIX}:{tag(bucket(game_id))}:chn:{game_id}"


def live_keys(game_id: str) -> tuple[str, ...]:
    """The keys of a game that live for ever while it is played and until it is archived,
    then the grace (rater.py's let_go): the hash, events, acks, seed, moves, repetition
    counts and chat (the watcher set has a lifetime of its own)."""
    return (
        game(game_id),
        events(game_id),
        acks(game_id),
        seed(game_id),
        moves(game_id),
        repetitions(game_id),
        chat_numbers(game_id),
        *(chat(game_id, room) for room in CHAT_ROOMS),
    )


def games_pattern() -> str:
    """The SCAN pattern of every game's hash (braces are no wildcard in a pattern)."""
    return f"{PREFIX}:{{p*}}:g:*"


def game_of_key(key: str) -> str:
    """The game id of a game hash's key (``game``)."""
    return key.rpartition(":g:")[2]


def chat_window(game_id: str, who: str) -> str:
    """String: lines said in the game's current rate window by one account (its id) or in
    one room ("room:<room>"): chat.lua's limits. Lives: one window (chat/service.py's WINDOW_MS)
    from its first line."""
    return f"{PREFIX}:{tag(bucket(game_id))}:chw:{game_id}:{who}"


def social_window(account_id: str) -> str:
    """Sorted set: an account's follows, unfollows, blocks and unblocks in the current
    window (lua/windows.lua; hub/social/). Lives: one window from its latest action."""
    return f"{ACCT}:sw:{account_id}"


def lesson_window(player_id: str) -> str:
    """Sorted set: a player's lesson moves in the current minute (lua/windows.lua;
    hub/lessons/). Lives: one window from its latest move."""
    return f"{PREFIX}:lw:{player_id}"


def lesson_stars(player_id: str) -> str:
    """Set: a guest's lesson stars, each "<rule set>/<stage>" (hub/lessons/). Lives: 30 days
    from the latest star (sessions.TTL_S); moved to PostgreSQL once a sign-up adopted the id."""
    return f"{PREFIX}:ls:{player_id}"


def puzzle_window(player_id: str) -> str:
    """Sorted set: a player's puzzle requests (a new puzzle, a move) in the current window
    (lua/windows.lua; hub/puzzles/). Lives: one window from its latest request."""
    return f"{ACCT}:pzw:{player_id}"


def puzzle_attempt(player_id: str) -> str:
    """String (JSON, hub/puzzles/records.py): a player's puzzle attempt under way, or the
    last one finished (its moves refused then). Lives: PUZZLE_ATTEMPT_S from its latest move."""
    return f"{ACCT}:pza:{player_id}"


def puzzle_guest(player_id: str) -> str:
    """Hash: a guest's puzzle rating (rating, rd, volatility, attempts) and best streak;
    an account's are in PostgreSQL. Lives: a session's life (sessions.TTL_S) from its
    latest rated attempt."""
    return f"{ACCT}:pzg:{player_id}"


PUZZLE_ATTEMPT_S: Final = 3600  # an attempt left alone this long is gone


def player_active(player_id: str) -> str:
    """Sorted set: a player's games in progress -> when they started (ms); kept by the hub
    that commits the start and the end (live/listings.py)."""
    return f"{ACCT}:pa:{player_id}"


def watchers_published(game_id: str) -> str:
    """String: set for a moment after a watcher count of the game was published (PX)."""
    return f"{PREFIX}:{tag(bucket(game_id))}:wp:{game_id}"


def bot_jobs(n: int) -> str:
    """Sorted set per bucket: game id -> when a bot worker may claim its turn (ms).
    Lives: for ever (BUCKETS keys); an entry from the bot's turn until its move commits."""
    return f"{PREFIX}:{tag(n)}:bot"


def conditional(game_id: str, player_id: str) -> str:
    """String: a player's conditional moves in a correspondence game, JSON
    ``{"player", "ply", "lines", "due"}`` (live/conditional.py). Read by nothing that reaches
    anyone but that player. Lives: from the player's store until the tree runs out, a move
    off it discards it, or the game ends (commit.lua deletes it with the final change)."""
    return f"{PREFIX}:{tag(bucket(game_id))}:cond:{game_id}:{player_id}"


def conditional_jobs(n: int) -> str:
    """Sorted set per bucket: game id -> when a hub may claim its conditional reply (ms).
    Lives: for ever (BUCKETS keys); an entry from the move a stored line answers until the
    reply commits (commit.lua) or is found moot (lua/conditional.lua)."""
    return f"{PREFIX}:{tag(n)}:cnd"


def deadlines(n: int) -> str:
    """Sorted set per bucket: game id -> its move deadline (ms, Redis clock). Lives: for
    ever (BUCKETS keys); an entry while its game has a deadline (removed at the end)."""
    return f"{PREFIX}:{tag(n)}:dl"


# The schedulers' heartbeat and outage list share the tag {sched}: one script writes both.


def alive() -> str:
    """String: when a scheduler last ran (ms, Redis clock); see lua/heartbeat.lua. Lives:
    for ever, one small string."""
    return f"{PREFIX}:{{sched}}:alive"


def outages() -> str:
    """List: outages of the whole service as "start:end" (ms, Redis clock). Lives: for
    ever, trimmed to the latest few by heartbeat.lua."""
    return f"{PREFIX}:{{sched}}:outages"


def game_channel_stem(game_id: str) -> str:
    """The stem of a game's sharded pub/sub channels (SPUBLISH), one per hub that follows
    the game: the stem and the hub's id (``game_channel``). Lua scripts publish to the
    channel of each hub in ``game_hubs`` by appending its id to this stem."""
    return f"{PREFIX}:{tag(bucket(game_id))}:gch:{game_id}:"


def game_channel(game_id: str, hub_id: str) -> str:
    """Sharded pub/sub channel of one game for one hub, under the game's own hash tag:
    each event as "<n> <frame>", each notice as "0 <frame>", each chat line as
    "c <room> <author> <muted> <frame>" (lua/chat.lua). Only that hub subscribes to
    it, while it holds a socket that follows the game (fanout.py)."""
    return game_channel_stem(game_id) + hub_id


def game_hubs(game_id: str) -> str:
    """Sorted set: the id of each hub that follows the game (fanout.py) -> until when its
    entry holds (ms, Redis clock; renewed while it follows the game: lua/member.lua). What
    concerns the game is published on the channel of each member whose entry holds
    (``game_channel``); a commit skips the committing hub, which delivers to its own
    sockets. Lives: fanout.MEMBER_TTL_MS past its latest entry's renewal, so the entry of
    a hub that died runs out, and a set no hub renews goes."""
    return f"{PREFIX}:{tag(bucket(game_id))}:hubs:{game_id}"


def game_of_channel(channel: bytes) -> str:
    """The game id a game channel is named for."""
    return channel.rsplit(b":", 2)[1].decode()


def hub_marks() -> str:
    """Hash: hub id -> "watermark:written:client id" (ms, Redis clock; clock.py). A hub
    removes its own on a clean stop; a scheduler removes those of closed connections."""
    return f"{PREFIX}:marks"


def session(session_id: str) -> str:
    """Hash: a browser session (player id, display name, kind, account), by its id: the
    SHA-256 of the cookie's token, so that Redis never holds a usable token. Lives: 30 days
    (sessions.TTL_S); a guest's an hour (BRANDUBH_GUEST_UNUSED_TTL_S) until they create or
    join a game (Sessions.keep)."""
    return f"{PREFIX}:s:{session_id}"


# -- the lobby ----------------------------------------------------------------------------
# Every lobby key shares the hash tag {lobby}, so each pairing is one script in one slot:
# nobody can be paired twice, on one Redis or in a cluster.

LOBBY: Final = f"{PREFIX}:{{lobby}}"


def seeks() -> str:
    """Sorted set: open seek id -> creation time (ms). Lives: for ever (one key); an entry
    until its seek is taken, withdrawn or found expired."""
    return f"{LOBBY}:seeks"


# A pairing must take both players' seeks in one script, and a script may touch only the
# keys it declares (a Redis Cluster routes a script by them): so the seeks of everyone
# live in these few keys, not a key per seek.


def seek_data() -> str:
    """Hash: seek id -> its fields (a msgpack map). Lives: for ever (one key); an entry
    until its seek is taken, withdrawn, or found expired (``seek_expiry``)."""
    return f"{LOBBY}:seekdata"


def seek_expiry() -> str:
    """Sorted set: live seek id -> when it expires unless its owner's socket refreshes it
    (ms, Redis clock); correspondence seeks are not here and stay until taken. Lives: for
    ever (one key); an entry with its seek."""
    return f"{LOBBY}:seekexp"


def owned() -> str:
    """Hash: player id -> the ids of the seeks they have open, space-separated. Lives: for
    ever (one key); an entry until the player's last seek is taken or withdrawn."""
    return f"{LOBBY}:owned"


def pool(ruleset: str, move_time: int) -> str:
    """Sorted set: players waiting for quick pairing in one rule set and time -> rating.
    Lives: while someone waits (emptied by pairing, leaving, or a closed socket)."""
    return f"{LOBBY}:pool:{ruleset}:{move_time}"


def pools() -> str:
    """Hash: player id -> "ruleset|move_time|rating|joined ms|connection": who waits where.
    Lives: while someone waits (each entry removed when they are paired or leave)."""
    return f"{LOBBY}:pools"


def names() -> str:
    """Hash: player id -> display name, for players waiting in quick pairing. Lives: 6 hours
    from the last player to join (lobby.NAMES_TTL_S), so left-over names go."""
    return f"{LOBBY}:names"


def avoid() -> str:
    """Hash: a player waiting in quick pairing -> " id id ... " of the accounts they block
    or are blocked by (hub/lobby/, lua/quick.lua: never paired). Written when they join;
    lives like the names hash, 6 hours after the last write."""
    return f"{LOBBY}:avoid"


def lobby_channel() -> str:
    """Pub/sub channel: seeks appearing and vanishing, and pairings (holds nothing)."""
    return f"{LOBBY}:chan"


def live_games() -> str:
    """Sorted set: games in progress -> when last changed (ms), for the watch list. Lives:
    for ever (one key); an entry while its game is played."""
    return f"{LOBBY}:live"


def finished(n: int) -> str:
    """Sorted set per bucket: ended games not yet archived (and rated) -> when they may be
    claimed (ms); commit.lua adds a game when it ends, the rater removes it once the game
    is in PostgreSQL (rater.py). Lives: for ever (BUCKETS keys); an entry until archived."""
    return f"{PREFIX}:{tag(n)}:fin"


def reconcile() -> str:
    """Sorted set of one entry: the archive's reconciliation pass -> when it is next due
    (ms), claimed under a lease (lua/claim.lua) so that one hub runs it at a time
    (live/reconcile.py). Lives: for ever (one key, one entry)."""
    return f"{PREFIX}:{{rec}}:archive"


def hub_channel() -> str:
    """Pub/sub channel every hub listens on for notices that are not about one game's
    events: sessions that ended (their sockets are closed with 4004), turn notices, account
    notices (challenges, games started and finished: hub/challenges/), and the analysis
    workers' progress, completions and cached evaluations. Holds nothing."""
    return f"{PREFIX}:hubs"


# -- sessions of accounts -----------------------------------------------------------------
# Accounts themselves, ratings, histories and the archive are in PostgreSQL
# (brandubh.store); Redis keeps only the sessions that are logged in to an account.

ACCT: Final = f"{PREFIX}:{{acct}}"


def account_sessions(account_id: str) -> str:
    """Set: the session ids (see ``session``) logged in to an account. Lives: 30 days from
    the account's latest login (sessions.TTL_S)."""
    return f"{ACCT}:as:{account_id}"


# The permanent record an earlier version kept under {acct} (accounts, ratings, histories,
# the archive) is spelled in brandubh/run/migrate_redis.py, which alone reads it now.


def login_limits() -> str:
    """Key prefix of the rate limits (sorted sets of attempts, one slot: {login}): logins
    (``:all``, ``:ip:``, ``:ipf:``, ``:pair:``, ``:acct:``), sign-ups (``:signup:``) and new
    guest sessions (``:guest:``); each expires with its window (limits.py)."""
    return f"{PREFIX}:{{login}}"


def challenges_out(account_id: str) -> str:
    """Sorted set: an account's open outgoing challenges (hub/challenges/: each a waiting
    game with an invitee) -> created (ms). An entry leaves when its challenge is answered
    or cancelled, or is found gone when listed; the key expires 7 days (the waiting game's
    life, games.WAITING_TTL_S) after its latest entry was added."""
    return f"{ACCT}:cho:{account_id}"


def challenges_in(account_id: str) -> str:
    """Sorted set: the open challenges sent to an account -> created (ms); kept and
    expiring as ``challenges_out``."""
    return f"{ACCT}:chi:{account_id}"


def challenge(game_id: str) -> str:
    """String: a challenge's own terms beside its game's (msgpack: the challenged player's
    name, who is a bot account, the side asked for; hub/challenges/records.py). Lives: 7
    days from its creation (the waiting game's life), answered or not: its status is read
    from the game."""
    return f"{PREFIX}:{tag(bucket(game_id))}:ch:{game_id}"


def challenge_limits(account_id: str) -> str:
    """Sorted set: the challenges an account created in the current window (lua/windows.lua,
    hub/challenges/service.py). Lives: one window from its latest entry."""
    return f"{ACCT}:chl:{account_id}"


def bot_games(player_id: str) -> str:
    """Sorted set: a player's games against the bot that may still be live -> created (ms);
    pruned of finished ones when the player starts another (games.py). Expires in 30 days.
    With "@" and a client source (games.client_source) for ``player_id``: the same of one
    client address, for the per-address cap."""
    return f"{PREFIX}:{tag(zlib.crc32(player_id.encode()) % BUCKETS)}:botg:{player_id}"


def match(match_id: str) -> str:
    """Hash: a two-game match (live/matches.py). Lives: 7 days while its challenge waits,
    for ever while played, then the grace once it is kept in PostgreSQL."""
    return f"{PREFIX}:{tag(zlib.crc32(match_id.encode()) % BUCKETS)}:match:{match_id}"


# -- analysis by the bot -------------------------------------------------------------------
# The queue of analyses and board evaluations, their jobs and the evaluations kept by
# position share the hash tag {ana}: each step of a job is one script in one slot, on one
# Redis or a cluster (analysis/analyses.py asks, analysis/worker.py works; docs/analysis.md).

ANALYSIS: Final = f"{PREFIX}:{{ana}}"
POSITION_CACHE_S: Final = 7 * 24 * 3600  # how long a board evaluation is kept by position
TRIED_CACHE_S: Final = 7 * 24 * 3600  # how long a move tried in an exercise keeps its verdict


def analysis_queue() -> str:
    """Sorted set: game id -> when a worker may claim its analysis (ms, Redis clock): its
    request while it waits, the end of its lease while a worker holds it (lua/analysis.lua).
    Lives: for ever (one key); an entry from the request until the analysis is in PostgreSQL."""
    return f"{ANALYSIS}:q"


def evaluation_queue() -> str:
    """Sorted set: position digest -> when a worker may claim its evaluation (ms), as
    ``analysis_queue``; workers take these first (each is a fraction of a second). Lives: for
    ever (one key); an entry from the first request until the evaluation is cached."""
    return f"{ANALYSIS}:pq"


def exercise_queue() -> str:
    """Sorted set: a tried move's digest -> when a worker may claim its search (ms), as
    ``analysis_queue``; workers take these after the board evaluations and before the games
    (each is one ply's search). Lives: for ever (one key); an entry from the first try of
    that move until its verdict is cached."""
    return f"{ANALYSIS}:xq"


def analysis_wake() -> str:
    """List: one token per job queued, which wakes one idle worker blocked on it (BLPOP)
    at once instead of its polling (lua/analysis.lua). Lives: for ever (one key), at most
    ``ANALYSIS_WAKE_MAX`` tokens (a token with no job behind it only costs a claim)."""
    return f"{ANALYSIS}:wake"


ANALYSIS_WAKE_MAX: Final = 64


def analysis_job(kind: str, job_id: str) -> str:
    """Hash: one job of the queues (``kind`` "g", a game id; "p", a position digest; "x", a
    tried move's digest, with the exercise and the move tried): what to analyse (rule set,
    start, moves, nodes, version), the worker holding it, its tries,
    the ply reached. Lives: from the request until done (the finishing script deletes it),
    or until dropped after too many tries."""
    return f"{ANALYSIS}:{kind}:{job_id}"


def evaluation(digest: str) -> str:
    """String: a board evaluation's JSON, by the digest of (version, rule set, position,
    nodes). Lives: ``POSITION_CACHE_S`` from when a worker computed it."""
    return f"{ANALYSIS}:e:{digest}"


def tried(digest: str) -> str:
    """String: the verdict on a move tried in an exercise (JSON, analysis/exercise.py), by the
    digest of (version, game, ply, move, nodes). Lives: ``TRIED_CACHE_S`` from when a worker
    computed it."""
    return f"{ANALYSIS}:t:{digest}"


def analysis_limits() -> str:
    """Key prefix of the analysis request limits (sorted sets, lua/windows.lua, one slot:
    {analimit}): per account and per address per day, board evaluations per address per
    hour, the analysis board's walks per address per minute (``:walk:ip:``), the moves tried
    in exercises per session and per address per hour (``:try:s:``, ``:try:ip:``); each
    expires with its window."""
    return f"{PREFIX}:{{analimit}}"


def export_limits() -> str:
    """Key prefix of the game exports' limit (a sorted set per address, ``:ip:<address>``,
    lua/windows.lua, one slot: {exportlimit}); each expires with its hour."""
    return f"{PREFIX}:{{exportlimit}}"


def api_requests(token_id: str) -> str:
    """Sorted set: a personal API token's requests in its rate window (lua/windows.lua,
    hub/tokens/service.py); one slot, {apilimit}. Expires with its window."""
    return f"{PREFIX}:{{apilimit}}:r:{token_id}"


def api_used(token_id: str) -> str:
    """String: set while a token's last use is noted in PostgreSQL, so it is written at
    most once a minute (hub/tokens/service.py). Lives one minute."""
    return f"{PREFIX}:{{apilimit}}:u:{token_id}"


def api_revoked(token_id: str) -> str:
    """String: a personal API token was revoked, so that a hub which cached its holder
    refuses its next request (lua/api_request.lua, hub/tokens/service.py); {apilimit}.
    Lives longer than a cached holder (``tokens.service.MARK_MS``)."""
    return f"{PREFIX}:{{apilimit}}:x:{token_id}"


def api_bot(account_id: str) -> str:
    """String: an account became a bot account, so that its tokens' holders cached by a
    hub are seen as a bot's at once (lua/api_request.lua); {apilimit}. Lives longer than a
    cached holder (``tokens.service.MARK_MS``)."""
    return f"{PREFIX}:{{apilimit}}:b:{account_id}"


# -- tournaments --------------------------------------------------------------------------
# A tournament's keys share its own hash tag, {t:<id>}, so one script a change
# (lua/tournament_<change>.lua: hub/tournaments/changes.py) changes its settings, players,
# games and log at once; its games keep their own buckets.
# The indexes of every tournament share {tourn}. Each key of a tournament lives for ever
# while it is upcoming or running, then the grace once it is kept in PostgreSQL
# (hub/tournaments/runner.py).

TOURN: Final = f"{PREFIX}:{{tourn}}"


def _ttag(tournament_id: str) -> str:
    return f"{PREFIX}:{{t:{tournament_id}}}"


def tournament(tournament_id: str) -> str:
    """Hash: a tournament's settings, status, counters and secret seed (tournaments/state.py);
    ``version``, the count of its frames published (bumped by lua/tournament_snapshot.lua
    with each, so it lives and expires with the hash: a ``tournament_delta`` names it)."""
    return f"{_ttag(tournament_id)}:t"


def tournament_players(tournament_id: str) -> str:
    """Hash: player id -> msgpack of the player in the tournament (name, rating, state
    joined | paused | withdrawn, the game they play now, when they were last free:
    tournaments/records.py; JSON if the previous version wrote it)."""
    return f"{_ttag(tournament_id)}:p"


def tournament_games(tournament_id: str) -> str:
    """Hash: an arena game's id -> msgpack (wave, sides, result); a round robin's or
    Swiss match's id -> msgpack (round, players, games, results: tournaments/records.py)."""
    return f"{_ttag(tournament_id)}:g"


def tournament_log(tournament_id: str) -> str:
    """List: every change of the tournament in the order committed, each msgpack [when,
    the event the core built] (the export's log, from which anyone can recompute the
    pairings: docs/tournaments.md)."""
    return f"{_ttag(tournament_id)}:log"


def tournaments() -> str:
    """Sorted set: tournaments still in Redis -> when they start (ms), for the list. An
    entry until its tournament's keys expire (removed by the list when it finds them gone)."""
    return f"{TOURN}:all"


def tournament_events() -> str:
    """Sorted set: tournament id -> when its next event falls due (ms): the start, a
    pairing wave, a round, the end. Claimed under a lease with lua/claim.lua. An entry
    while the tournament is not finished and kept."""
    return f"{TOURN}:ev"


def tournaments_run(account_id: str) -> str:
    """Set: the tournaments an account created that are not finished (the creation
    limit). Entries removed when they finish; the key expires 30 days after the last."""
    return f"{TOURN}:run:{account_id}"


# -- mail ---------------------------------------------------------------------------------
# The outbox and its jobs share the hash tag {mail}, so claiming, handing over and
# finishing a mail are each one script in one slot (mail/outbox.py). Tokens are each their
# own key; reminder indexes live in their games' buckets (mail/reminders.py).

MAIL: Final = f"{PREFIX}:{{mail}}"

# Lifetimes of what mail hands out (docs/accounts.md, "Mail").
VERIFY_TOKEN_S: Final = 48 * 3600  # a verification link
RESET_TOKEN_S: Final = 30 * 60  # a password reset link
UNSUBSCRIBE_TOKEN_S: Final = 60 * 24 * 3600  # the unsubscribe link of a reminder
RELEASE_AFTER_S: Final = 7 * 24 * 3600  # an unconfirmed sign-up's address is released
PRESENCE_S: Final = 30  # a presence marker's TTL; each hub refreshes its players' every 10 s


def outbox() -> str:
    """Sorted set: mail id -> when it may be claimed (ms, Redis clock): due, or leased."""
    return f"{MAIL}:q"


def mail_job(mail_id: str) -> str:
    """Hash: one mail (its message bytes, link, recipient, state queued | handed | sent |
    unsure | dead, tries, owner of the lease). The message and link (a live token) live only
    while the mail may still be sent: once sent, unsure or dead they are dropped, and what
    is left is kept for dedup and the operator: 7 days once sent or unsure (so the same mail
    id is never queued twice), 30 days once dead (with its recipient)."""
    return f"{MAIL}:m:{mail_id}"


def mail_unsure() -> str:
    """List: mail ids whose hub died after handing them to the SMTP server and before its
    answer was recorded; not sent again (most likely delivered), kept for an operator."""
    return f"{MAIL}:unsure"


def mail_dead() -> str:
    """List: mail ids the SMTP server refused for good (5xx) or that failed for 2 days."""
    return f"{MAIL}:dead"


def mail_limits() -> str:
    """Key prefix of the mail rate limits (sorted sets of sends, one slot: {maillimit})."""
    return f"{PREFIX}:{{maillimit}}"


def token(kind: str, digest: str) -> str:
    """Hash: a mailed token by the SHA-256 of its text (account, email, expiry, state live
    | used); it expires a week after the token does, so "used" can be told from "expired"."""
    return f"{PREFIX}:t:{kind}:{digest}"


def account_tokens(kind: str, account_id: str) -> str:
    """Set: the digests of an account's live tokens of one kind, so that a password change,
    a reset or a confirmed address can end every outstanding link at once (mail/tokens.py);
    it lives as long as the newest of them."""
    return f"{PREFIX}:t:{kind}:of:{account_id}"


def unverified() -> str:
    """Sorted set: accounts whose address is not yet confirmed -> when it is released (ms)."""
    return f"{ACCT}:unverified"


def reminders(n: int) -> str:
    """Sorted set per bucket: "<game>|<ply>|<kind>" -> when that move reminder is due (ms)."""
    return f"{PREFIX}:{tag(n)}:rem"


def online(player_id: str) -> str:
    """String with a TTL: the player has a socket open on some hub (mail/reminders.py)."""
    return f"{PREFIX}:on:{player_id}"
