"""Every SQL table the service uses, in one place, with what each row holds.

PostgreSQL keeps what must last (docs/storage.md): accounts, ratings and their history,
every finished game and two-game match, the player chats and chat reports, the bot's
analyses, the opening explorer's counts. Nothing here expires. Times are milliseconds
since the epoch (the hub's and Redis's unit), as BIGINT. The migrations in
``migrations/versions`` create exactly these tables; a test checks that they agree.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Identity,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB

metadata = MetaData()

# One row per account: its sign-in and its settings. ``id`` is the player id the account
# took at sign-up (a guest's, when a guest signed up, so their earlier games stay theirs).
accounts = Table(
    "accounts",
    metadata,
    Column("id", Text, primary_key=True),
    Column("email", Text, nullable=False, unique=True),  # normalised (passwords.py)
    Column("name", Text, nullable=False),
    Column("password_hash", Text, nullable=False),  # argon2id, PHC string
    Column("created", BigInteger, nullable=False),
    Column("leaderboard", Boolean, nullable=False, server_default="false"),
    # NULL: made before addresses were confirmed (counts as confirmed); false until the
    # mailed link is followed (hub/accounts/verification.py).
    Column("verified", Boolean, nullable=True),
    Column("reminders", Boolean, nullable=False, server_default="true"),  # move reminders
    Column("chat_off", Boolean, nullable=False, server_default="false"),  # hides game chats
    # Set by a moderator (``brandubh moderation mute``): the account's chat lines are shown
    # to itself only (hub/chat/service.py).
    Column("muted", Boolean, nullable=False, server_default="false"),
    # A bot account (POST /api/bot/account/upgrade): it plays through the Bot API only, kept
    # apart from people's pairing, tournaments and leaderboards. Set once, never unset.
    Column("bot", Boolean, nullable=False, server_default="false"),
    # A person's setting: bot accounts may challenge them (hub/challenges/); off unless set.
    Column("bot_challenges", Boolean, nullable=False, server_default="false"),
)

# A player's Glicko-2 rating in one rule set, once they have played a rated game in it.
# ``games`` counts the rated games: it is also the row's version.
ratings = Table(
    "ratings",
    metadata,
    Column("player_id", Text, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("ruleset", Text, nullable=False),
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("last", BigInteger, nullable=False),  # when the last rated game ended
    PrimaryKeyConstraint("player_id", "ruleset"),
    Index("ratings_board", "ruleset", "rating"),  # leaderboards: best first in a rule set
)

# One row per rated game per player: the rating after it.
rating_history = Table(
    "rating_history",
    metadata,
    Column("player_id", Text, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("ruleset", Text, nullable=False),
    Column("game_id", Text, ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("t", BigInteger, nullable=False),  # when the game ended
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    PrimaryKeyConstraint("player_id", "game_id"),
    Index("rating_history_by_player", "player_id", "ruleset", "t"),
)

# Every finished game, written once (its id is the guard against archiving it twice).
# ``summary`` is the JSON the archive lists show; ``final`` the game's last live fields
# (msgpack of its Redis hash), from which every read of an ended game is answered once
# Redis has let the game go: state, record, positions, replay, verification.
games = Table(
    "games",
    metadata,
    Column("id", Text, primary_key=True),
    Column("ruleset", Text, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("opponent", Text, nullable=False),  # friend | bot
    Column("bot_level", Integer),
    Column("attacker_id", Text),
    Column("attacker_name", Text),
    Column("defender_id", Text),
    Column("defender_name", Text),
    Column("winner", Text),  # attackers | defenders | NULL for a draw or an abort
    Column("reason", Text, nullable=False),
    Column("plies", Integer, nullable=False),
    Column("move_time", Integer, nullable=False),
    Column("created", BigInteger, nullable=False),
    Column("ended", BigInteger, nullable=False),
    Column("moves", Text, nullable=False),  # the move list, space separated
    Column("seed", Text, nullable=False),  # hex, revealed at the end
    Column("commitment", Text, nullable=False),  # SHA-256 of the seed, published at creation
    Column("record", Text, nullable=False),  # the record text (docs/record-format.md)
    Column("match_id", Text),
    Column("match_no", Integer),
    Column("summary", JSONB, nullable=False),
    Column("final", LargeBinary, nullable=False),
    Column("final_seq", Integer, nullable=False),  # the number of its last event
)

# Who played each finished game (humans only: the bot has no list), for their archive.
game_players = Table(
    "game_players",
    metadata,
    Column("player_id", Text, nullable=False),
    Column("game_id", Text, ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("ended", BigInteger, nullable=False),
    PrimaryKeyConstraint("player_id", "game_id"),
    Index("game_players_by_end", "player_id", "ended"),  # a player's games, newest first
)

# Every finished two-game match (hub/live/matches.py): its players, games and score.
matches = Table(
    "matches",
    metadata,
    Column("id", Text, primary_key=True),
    Column("ruleset", Text, nullable=False),
    Column("player_a", Text, nullable=False),
    Column("player_b", Text, nullable=False),
    Column("points_a", Float, nullable=False),
    Column("points_b", Float, nullable=False),
    Column("winner", Text),  # a player id, NULL for a drawn match
    Column("games", Text, nullable=False),  # game ids in order, space separated
    Column("ended", BigInteger, nullable=False),
    Column("summary", JSONB, nullable=False),  # the shape GET /api/matches/<id> answers
)

# The player chat of each finished game between people (hub/chat/service.py), archived with
# it: shown on the replay to its two players only. A muted author's lines are kept, marked.
chat_lines = Table(
    "chat_lines",
    metadata,
    Column("game_id", Text, ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("n", Integer, nullable=False),  # the line's number in the player room
    Column("author_id", Text, nullable=False),
    Column("author_name", Text, nullable=False),
    Column("text", Text, nullable=False),
    Column("at", BigInteger, nullable=False),
    Column("muted", Boolean, nullable=False),
    PrimaryKeyConstraint("game_id", "n"),
)

# A chat line someone reported (hub/chat/service.py), with the line as it was said; open
# until a moderator clears it or mutes its author (``brandubh moderation``).
chat_reports = Table(
    "chat_reports",
    metadata,
    Column("id", BigInteger, Identity(), primary_key=True),
    Column("game_id", Text, nullable=False),
    Column("room", Text, nullable=False),  # players | spectators
    Column("n", Integer, nullable=False),  # the line's number in its room
    Column("author_id", Text, nullable=False),
    Column("author_name", Text, nullable=False),
    Column("text", Text, nullable=False),
    Column("reporter_id", Text, nullable=False),
    Column("created", BigInteger, nullable=False),
    Column("status", Text, nullable=False, server_default="open"),  # open | cleared | muted
    UniqueConstraint("game_id", "room", "n", "reporter_id"),  # one report per reporter
    Index("chat_reports_open", "status", "id"),
)

# The bot's analysis of a finished game (docs/analysis.md), written once by a worker
# (brandubh.analysis_worker); a new ``ANALYSIS_VERSION`` makes new rows, never changes old
# ones. No foreign key to ``games``: a worker may finish before the game is archived.
analyses = Table(
    "analyses",
    metadata,
    Column("game_id", Text, nullable=False),
    Column("version", Integer, nullable=False),  # brandubh.analysis.ANALYSIS_VERSION
    Column("ruleset", Text, nullable=False),
    Column("nodes", Integer, nullable=False),  # the search's budget per ply
    Column("analysis", JSONB, nullable=False),  # GameAnalysis.to_dict() (docs/analysis.md)
    Column("created", BigInteger, nullable=False),
    PrimaryKeyConstraint("game_id", "version"),
)

# The opening explorer (store/explorer.py, docs/analysis.md): for each rule set, position
# and move, the archived games between people that played that move from that position
# within their first ``EXPLORER_PLIES`` plies, and how they ended. Kept by the transaction
# that archives each game; ``brandubh db explorer-rebuild`` makes it again from ``games``.
explorer_moves = Table(
    "explorer_moves",
    metadata,
    Column("ruleset", Text, nullable=False),
    Column("position", LargeBinary, nullable=False),  # explorer.position_key: 15 bytes
    Column("move", Text, nullable=False),  # canonical move text, e.g. "d1-c1"
    Column("games", Integer, nullable=False),
    Column("attackers", Integer, nullable=False),  # games the attackers won
    Column("defenders", Integer, nullable=False),
    Column("draws", Integer, nullable=False),
    Column("rated", Integer, nullable=False),  # rated games among them: both ratings known
    Column("rating_sum", BigInteger, nullable=False),  # both players' ratings before each
    PrimaryKeyConstraint("ruleset", "position", "move"),
)

# Every finished tournament (hub/tournaments/): its summary (the list's row), its page's
# view (standings, pairings, games) and its export (settings, seed, players and the log
# from which anyone recomputes the pairings: docs/tournaments.md).
tournaments = Table(
    "tournaments",
    metadata,
    Column("id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("format", Text, nullable=False),  # arena | round_robin | swiss
    Column("creator_id", Text, nullable=False),
    Column("starts_at", BigInteger, nullable=False),
    Column("ended", BigInteger, nullable=False),
    Column("summary", JSONB, nullable=False),
    Column("view", JSONB, nullable=False),
    Column("export", JSONB, nullable=False),
    Index("tournaments_by_end", "ended"),
)

# Each player's place in each finished tournament: a player's tournaments, best first.
tournament_players = Table(
    "tournament_players",
    metadata,
    Column(
        "tournament_id",
        Text,
        ForeignKey("tournaments.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("player_id", Text, nullable=False),
    Column("rank", Integer, nullable=False),
    Column("points", Float, nullable=False),
    PrimaryKeyConstraint("tournament_id", "player_id"),
    Index("tournament_players_by_player", "player_id"),
)

# Personal API tokens (hub/tokens/, docs/api.md): what a program presents as
# ``Authorization: Bearer <token>``. Only the SHA-256 of a token's text is kept (its text
# is shown once, at creation); a revoked token keeps its row, with when it was revoked.
api_tokens = Table(
    "api_tokens",
    metadata,
    Column("id", Text, primary_key=True),
    Column("account_id", Text, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("name", Text, nullable=False),
    Column("scopes", Text, nullable=False),  # space separated, e.g. "bot:play games:read"
    Column("hash", LargeBinary, nullable=False, unique=True),  # SHA-256 of the token's text
    Column("created", BigInteger, nullable=False),
    Column("last_used", BigInteger),  # NULL: never used; written at most once a minute
    Column("revoked", BigInteger),  # NULL: live; else when it was revoked
    Index("api_tokens_by_account", "account_id", "created"),
)

# Who follows whom (hub/social/): a follower sees the players they follow online, and
# their games, on the home page. Both are accounts; the row goes with either account.
follows = Table(
    "follows",
    metadata,
    Column("follower", Text, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("followed", Text, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("created", BigInteger, nullable=False),
    PrimaryKeyConstraint("follower", "followed"),
    Index("follows_by_followed", "followed"),
)

# Who blocks whom (hub/social/): no challenges and no pairing between the two, and the
# blocker sees none of the blocked one's chat lines. Kept until unblocked.
blocks = Table(
    "blocks",
    metadata,
    Column("blocker", Text, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("blocked", Text, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("created", BigInteger, nullable=False),
    PrimaryKeyConstraint("blocker", "blocked"),
    Index("blocks_by_blocked", "blocked"),
)

# The lessons an account finished (hub/lessons/, docs/learn.md): a star per stage of a
# rule set's course. A guest's stars live in Redis with their session until a sign-up
# adopts the guest's id; then they move here.
lesson_stars = Table(
    "lesson_stars",
    metadata,
    Column("account_id", Text, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("ruleset", Text, nullable=False),
    Column("stage", Text, nullable=False),
    Column("created", BigInteger, nullable=False),
    PrimaryKeyConstraint("account_id", "ruleset", "stage"),
)

# The puzzles the service serves (hub/puzzles/, docs/puzzles.md): the record's fields, the
# solution as its move texts in order, and the puzzle's Glicko-2 rating, moved by every
# first attempt of a player. Loaded from the shipped set at start and by
# ``brandubh puzzles load``; a row is never changed but for its rating and plays.
puzzles = Table(
    "puzzles",
    metadata,
    Column("id", Text, primary_key=True),
    Column("ruleset", Text, nullable=False),
    Column("position", Text, nullable=False),
    Column("solution", Text, nullable=False),  # the move texts, space separated
    Column("theme", Text, nullable=False),  # escape | capture | defend
    Column("depth", Integer, nullable=False),
    Column("source", Text, nullable=False),
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("plays", Integer, nullable=False),  # rated attempts
    Column("added", BigInteger, nullable=False),
    Index("puzzles_by_rating", "rating"),
)

# An account's puzzle rating (Glicko-2, apart from its games' ratings) and its best streak.
# A guest's lives with its session in Redis (keys.puzzle_guest).
puzzle_ratings = Table(
    "puzzle_ratings",
    metadata,
    Column("player_id", Text, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("attempts", Integer, nullable=False),  # rated attempts
    Column("best_streak", Integer, nullable=False),
)

# A player's first attempt at a puzzle (guests' too: ``player_id`` is any player id): won or
# failed, when, and the player's rating before and after (equal when unrated, as a streak's
# attempts are). The first answer counts: a second attempt at a puzzle adds no row, so it is
# not rated again; and a player is not served a puzzle they have a row for while others are
# left.
puzzle_attempts = Table(
    "puzzle_attempts",
    metadata,
    Column("player_id", Text, nullable=False),
    Column("puzzle_id", Text, ForeignKey("puzzles.id", ondelete="CASCADE"), nullable=False),
    Column("won", Boolean, nullable=False),
    Column("at", BigInteger, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("rating_before", Float, nullable=False),
    Column("rating_after", Float, nullable=False),
    PrimaryKeyConstraint("player_id", "puzzle_id"),
    Index("puzzle_attempts_by_time", "player_id", "at"),
)
