"""HTTP routes of accounts, profiles, the leaderboards and the archive (docs/protocol.md §2).

Every request other than GET passes the same cross-site check as the game routes
(base.read_json). A refusal is answered by the app's handler (base.refusal_response).
"""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from brandubh.engine import RULESETS, EngineError, Game
from brandubh.hub.accounts import Accounts, Session, check_signup, reachable, unsaved_guest
from brandubh.hub.errors import RateLimited, Refusal, no_game
from brandubh.hub.http.base import (
    Services,
    account_session,
    address,
    clear_session_cookie,
    read_json,
    services,
    session_of,
    set_session_cookie,
)
from brandubh.hub.live import unpack_snapshot
from brandubh.hub.messages import GAME_ID_RE, PLAYER_ID_RE
from brandubh.store import Account

GAMES_PAGE: Final = 20
MAX_GAMES_PAGE: Final = 100
# What POST /api/settings may set, each a bool: any of them, at least one.
SETTINGS: Final = ("bot_challenges", "leaderboard")


async def public_account(accounts: Accounts, pid: str) -> Account | None:
    """The account of a player id, if it shows: an unconfirmed sign-up does not, or a
    guest's id adopted by a sign-up would tell that the sign-up made an account."""
    account = await accounts.get(pid) if PLAYER_ID_RE.match(pid) else None
    if account is None or not await accounts.is_verified(account.id):
        return None
    return account


async def signed_in(
    accounts: Accounts, session: Session, token: str, request: Request, status: int
) -> Response:
    try:
        account = await accounts.get(session.player.id)
    except Refusal:  # signed in, and PostgreSQL gone since: the email can wait
        account = None
    body = {
        "id": session.player.id,
        "name": session.player.name,
        "account": True,
        "email": account.email if account else None,
    }
    return set_session_cookie(JSONResponse(body, status_code=status), token, request)


async def signup(request: Request) -> Response:
    # One answer whether or not the address has an account, and no session either way
    # (docs/accounts.md, "Signing up says nothing"), unless it comes from an invitation.
    web = services(request)
    fields = {"email", "password", "name", "game", "invite"}
    body = await read_json(request, web.settings, fields)
    current = await session_of(request, web.sessions)
    game = await invitation_of(web, body, current)
    if game is not None:
        return await signup_to_play(web, request, body, game)
    email = await web.accounts.signup(
        body.get("email"), body.get("password"), body.get("name"), current, address(request)
    )
    return JSONResponse(
        {"sent": True, "email": email, "message": signup_answer(email)},
        status_code=202,
        headers={"Cache-Control": "no-store"},
    )


async def invitation_of(
    web: Services, body: dict[str, object], current: Session | None
) -> str | None:
    """The game a sign-up comes from, if it names one; its invitation is checked first,
    so that a bad one costs no hash and says nothing about the address."""
    game, invite = body.get("game"), body.get("invite")
    if game is None and invite is None:
        return None
    if not isinstance(game, str) or not isinstance(invite, str) or not GAME_ID_RE.match(game):
        raise Refusal("bad_field", "game and invite must be the two parts of the invite link")
    if current is not None and current.account:
        raise Refusal(
            "bad_field", "this browser is logged in: join from the invitation, no sign-up"
        )
    await web.games.check_invite(game, invite, "")  # the seat goes to a new session
    return game


async def signup_to_play(
    web: Services, request: Request, body: dict[str, object], game: str
) -> Response:
    """A newcomer's sign-up on an invitation's card: the same sign-up (and the same
    answer whether or not the address has an account), and a new guest session for the
    browser that may join that one game at once (docs/accounts.md)."""
    _, _, name = check_signup(body.get("email"), body.get("password"), body.get("name"))
    # The fields are good: a session is worth making now. Always a new one, whose id
    # the sign-up adopts if it makes an account: adopting a session's id that an earlier
    # sign-up may have taken would tell whether that one made an account.
    if not await web.accounts.limits.guest(address(request)):
        raise RateLimited("too many new sessions from your address: try again later", 60)
    token, fresh = unsaved_guest()
    email = await web.accounts.signup(
        body.get("email"), body.get("password"), name, fresh, address(request)
    )
    await web.sessions.seat_newcomer(fresh, name or fresh.player.name, email, game)
    response = JSONResponse(
        {"sent": True, "email": email, "message": newcomer_answer(email), "game": game},
        status_code=202,
        headers={"Cache-Control": "no-store"},
    )
    return set_session_cookie(response, token, request)


async def login(request: Request) -> Response:
    web = services(request)
    body = await read_json(request, web.settings, {"email", "password"})
    current = await session_of(request, web.sessions)
    token, session = await web.accounts.login(
        body.get("email"), body.get("password"), address(request), current
    )
    return await signed_in(web.accounts, session, token, request, 200)


async def logout(request: Request) -> Response:
    web = services(request)
    body = await read_json(request, web.settings, {"everywhere"})
    everywhere = body.get("everywhere", False)
    if not isinstance(everywhere, bool):
        raise Refusal("bad_field", "everywhere must be true or false")
    session = await session_of(request, web.sessions)
    ended = await web.accounts.logout(session, everywhere) if session else 0
    return clear_session_cookie(JSONResponse({"ended": ended}), request)


async def change_password(request: Request) -> Response:
    web = services(request)
    body = await read_json(request, web.settings, {"current", "new"})
    session = await account_session(request, web.sessions)
    ended = await web.accounts.change_password(
        session, body.get("current"), body.get("new"), address(request)
    )
    return JSONResponse({"ended": ended})


async def change_settings(request: Request) -> Response:
    web = services(request)
    body = await read_json(request, web.settings, set(SETTINGS))
    session = await account_session(request, web.sessions)
    if not body:
        raise Refusal("bad_field", f"give at least one setting: {', '.join(SETTINGS)}")
    for name, value in body.items():
        if not isinstance(value, bool):
            raise Refusal("bad_field", f"{name} must be true or false")
    board, bots = body.get("leaderboard"), body.get("bot_challenges")
    # Checked first, both, so that a refused setting leaves the other as it was too.
    if isinstance(bots, bool):
        await web.accounts.require_person(session.player.id, verified=False)
    if board is True:
        await web.accounts.require_verified(session.player.id)
    if isinstance(bots, bool):
        await web.accounts.set_bot_challenges(session.player.id, bots)
    if isinstance(board, bool):
        await web.accounts.set_leaderboard(session.player.id, board)
    return JSONResponse(body)


async def profile(request: Request) -> Response:
    web = services(request)
    pid = request.path_params["player_id"]
    account = await public_account(web.accounts, pid)
    if account is None:
        raise Refusal("not_found", f"there is no player {pid}")
    async with reachable():
        ratings = await web.rater.ratings(account.id)
    session = await session_of(request, web.sessions)
    me = session is not None and session.player.id == account.id
    following = blocking = False
    if session is not None and session.account and not me:
        relation = await web.social.relation(session.player.id, account.id)
        following, blocking = relation.following, relation.blocking
    return JSONResponse(
        {
            "id": account.id,
            "name": account.name,
            "since": account.created,
            "leaderboard": account.leaderboard,
            "bot": account.bot,
            "bot_challenges": account.bot_challenges,
            "me": me,
            "following": following,
            "blocking": blocking,
            "ratings": ratings,
        }
    )


async def player_games(request: Request) -> Response:
    web = services(request)
    pid = request.path_params["player_id"]
    if await public_account(web.accounts, pid) is None:
        raise Refusal("not_found", f"there is no player {pid}")
    offset = _int_param(request, "offset", 0, 0, 1_000_000)
    limit = _int_param(request, "limit", GAMES_PAGE, 1, MAX_GAMES_PAGE)
    async with reachable():
        games, more = await web.rater.player_games(pid, offset, limit)
    return JSONResponse({"games": games, "next": more})


async def leaderboard(request: Request) -> Response:
    web = services(request)
    ruleset = request.path_params["ruleset"]
    if ruleset not in RULESETS:
        raise Refusal("not_found", f"there is no rule set {ruleset}")
    which = request.query_params.get("bots", "0")
    if which not in ("0", "1"):
        raise Refusal("bad_field", "bots must be 1 (the bot accounts' list) or 0 (people's)")
    bots = which == "1"
    async with reachable():
        players = await web.rater.leaderboard(ruleset, bots=bots)
    return JSONResponse(
        {"ruleset": ruleset, "bots": bots, "players": players},
        headers={"Cache-Control": "no-store"},
    )


async def positions(request: Request) -> Response:
    web = services(request)
    game_id = request.path_params["game_id"]
    try:
        if not GAME_ID_RE.match(game_id):
            raise no_game(game_id)
        state = await web.games.load(game_id)
        game = Game(state.ruleset, unpack_snapshot(state.snap).start_position)
        shown = [game.position]
        played = []
        for text in state.moves:
            played.append(str(game.play(text)))
            shown.append(game.position)
    except EngineError as exc:  # pragma: no cover - every stored move was legal
        raise Refusal("busy", f"the game does not replay: {exc}") from None
    return JSONResponse(
        {
            "id": state.id,
            "ruleset": state.ruleset,
            "status": state.status,
            "players": state.public(game)["players"],
            "moves": played,
            "positions": shown,
            "result": (
                {"winner": state.result.winner, "reason": state.result.reason}
                if state.result
                else None
            ),
        }
    )


ROUTES: Final = (
    Route("/api/signup", signup, methods=["POST"]),
    Route("/api/login", login, methods=["POST"]),
    Route("/api/logout", logout, methods=["POST"]),
    Route("/api/password", change_password, methods=["POST"]),
    Route("/api/settings", change_settings, methods=["POST"]),
    Route("/api/players/{player_id}", profile),
    Route("/api/players/{player_id}/games", player_games),
    Route("/api/leaderboard/{ruleset}", leaderboard),
    Route("/api/games/{game_id}/positions", positions),
)


def signup_answer(email: str) -> str:
    """What every sign-up is told, whether or not the address has an account."""
    return f"We sent a link to {email}. Open it to finish signing up."


def newcomer_answer(email: str) -> str:
    """What every sign-up from an invitation is told, whether or not the address has an
    account."""
    return (
        f"You can play now. We sent a link to {email}: open it within 7 days to keep "
        "your account (until then you can play this game only)."
    )


def _int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit()) or not low <= int(raw) <= high:
        raise Refusal("bad_field", f"{name} must be a whole number from {low} to {high}")
    return int(raw)
