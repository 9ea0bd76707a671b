"""HTTP routes: the session, creating and joining games, the client's pages, health."""

from __future__ import annotations

import json
import re
import secrets
from typing import Final, TypedDict

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from brandubh import fairplay
from brandubh.analysis import GameAnalysis, record_with_analysis
from brandubh.engine import (
    OTN_RULES,
    RULESETS,
    EngineError,
    Record,
    format_otn_record,
    format_record,
    parse_record,
)
from brandubh.hub.accounts import COOKIE, Session, reachable
from brandubh.hub.errors import RateLimited, Refusal, no_game, verification_required
from brandubh.hub.http.base import (
    Services,
    address,
    check_cross_site,
    read_body,
    read_json,
    refusal_body,
    services,
    session_of,
    set_session_cookie,
)
from brandubh.hub.live import Player
from brandubh.hub.messages import GAME_ID_RE, PLAYER_ID_RE
from brandubh.tournaments import is_tournament_export, verify_tournament

MAX_RECORD: Final = 64 * 1024
MAX_EXPORT: Final = 1024 * 1024  # a tournament's export: every pairing and result of an event
CREATE_FIELDS = {"ruleset", "move_time", "opponent", "bot_level", "rated", "match", "invitee"}


class Stored(TypedDict):
    """Whether a record verified is the game this service played under its id."""

    found: bool
    same: bool | None
    differences: list[str]


async def new_guest(web: Services, request: Request) -> tuple[Player, str] | None:
    """A new guest session with a short life, or None when the visitor's address made
    enough of them lately (docs/accounts.md)."""
    if not await web.accounts.limits.guest(address(request)):
        return None
    token, player = await web.sessions.create_guest(web.settings.guest_unused_ttl_s)
    return player, token


async def player_for(web: Services, request: Request) -> tuple[Player, str | None, str | None]:
    """The request's player, creating a short-lived guest session when it has none (only
    requests that act call this): the player, the new session's token if one was made,
    and the token of a guest session to ``keep`` once the act succeeds."""
    cookie = request.cookies.get(COOKIE)
    session = await web.sessions.get_session(cookie)
    if session is not None:
        return session.player, None, None if session.account else cookie
    made = await new_guest(web, request)
    if made is None:
        raise RateLimited("too many new sessions from your address: try again later", 60)
    player, token = made
    return player, token, token


def with_cookie(response: Response, token: str | None, request: Request) -> Response:
    if token is None:
        return response
    return set_session_cookie(response, token, request)


async def me(request: Request) -> Response:
    web = services(request)
    session = await session_of(request, web.sessions)
    if session is not None and session.account:
        try:
            account = await web.accounts.get(session.player.id)
        except Refusal:  # PostgreSQL unreachable: the session still says who
            account = None
        return JSONResponse(
            {
                "id": session.player.id,
                "name": session.player.name,
                "account": True,
                "email": account.email if account else None,
            }
        )
    if session is not None:
        player = session.player
        body: dict[str, object] = {
            "id": player.id,
            "name": player.name,
            "account": False,
            "email": None,
        }
        if session.pending:  # a newcomer seated from an invitation: the address it gave
            body |= {"pending": session.pending, "invited": session.invited}
        return JSONResponse(body)
    # No session: a guest view, and nothing written (a session is made by the first
    # request that needs one, such as starting a game against the bot).
    return JSONResponse({"id": None, "name": None, "account": False, "email": None})


async def require_account(web: Services, session: Session | None) -> Session:
    """Games against people need a confirmed account's session (the bot needs none), not a
    bot account's (``bot_account``). A newcomer seated from an invitation is told to
    confirm, whether or not its sign-up made an account (docs/accounts.md)."""
    if session is not None and session.pending:
        raise verification_required()
    if session is None or not session.account:
        raise Refusal("account_required")
    await web.accounts.require_person(session.player.id)
    return session


async def create_game(request: Request) -> Response:
    web = services(request)
    body = await read_json(request, web.settings, CREATE_FIELDS)
    ruleset = body.get("ruleset", "nielsen")
    move_time = body.get("move_time", 3600)
    opponent = body.get("opponent", "bot")
    bot_level = body.get("bot_level", 1)
    if not isinstance(ruleset, str) or not isinstance(opponent, str):
        raise Refusal("bad_field", "ruleset and opponent must be strings")
    if type(move_time) is not int or type(bot_level) is not int:
        raise Refusal("bad_field", "move_time and bot_level must be whole numbers")
    rated, match, invitee = (
        body.get("rated"),
        body.get("match", False),
        body.get("invitee", ""),
    )
    if rated is not None and not isinstance(rated, bool):
        raise Refusal("bad_field", "rated must be true or false")
    if not isinstance(match, bool):
        raise Refusal("bad_field", "match must be true or false")
    if not isinstance(invitee, str) or (invitee and not PLAYER_ID_RE.match(invitee)):
        raise Refusal("bad_field", "invitee must be a player id (from their profile), or absent")
    if (match or invitee) and opponent != "friend":
        raise Refusal("bad_field", "match and invitee are for games against a person")
    session = await session_of(request, web.sessions)
    if opponent == "friend":
        await require_account(web, session)
    elif session is not None and session.account:  # a bot account plays no game from here
        await web.accounts.require_person(session.player.id, verified=False)
    player, token, guest = await player_for(web, request)
    match_id = "m" + secrets.token_urlsafe(8) if match else ""
    state, invite = await web.games.create(
        player,
        ruleset,
        move_time,
        opponent,
        bot_level,
        rated=rated,
        invitee=invitee,
        match=match_id,
        match_no=1 if match else 0,
        address=address(request),
    )
    if guest:  # it played: its guest session gets an account's life
        await web.sessions.keep(guest)
    if match:
        await web.matches.open_challenge(state)
    body_out: dict[str, str] = {"id": state.id, "url": f"/g/{state.id}"}
    if match_id:
        body_out["match"] = match_id
    if invite:
        body_out["invite"] = f"/join/{state.id}/{invite}"
    return with_cookie(JSONResponse(body_out, status_code=201), token, request)


async def join_game(request: Request) -> Response:
    web = services(request)
    game_id = request.path_params["game_id"]
    body = await read_json(request, web.settings, {"invite"})
    invite = body.get("invite")
    if not isinstance(invite, str):
        raise Refusal("bad_field", "invite must be the token from the invite link")
    session = await session_of(request, web.sessions)
    if session is not None and session.pending and session.invited == game_id:
        player = session.player  # a newcomer seated by its invitation's sign-up
    else:
        player = (await require_account(web, session)).player
    state = await web.games.join(player, game_id, invite)
    await web.matches.joined(state)
    return JSONResponse({"id": state.id, "url": f"/g/{state.id}"})


async def withdraw_game(request: Request) -> Response:
    """The creator withdraws an invitation nobody has accepted yet."""
    web = services(request)
    game_id = request.path_params["game_id"]
    await read_json(request, web.settings, set())
    if not GAME_ID_RE.match(game_id):
        raise no_game(game_id)
    session = await session_of(request, web.sessions)
    # Without a session nobody is the creator: the withdrawal is refused (not_yours).
    state = await web.games.withdraw(session.player.id if session else "", game_id)
    return JSONResponse({"id": state.id, "withdrawn": True})


async def game_state(request: Request) -> Response:
    web = services(request)
    game_id = request.path_params["game_id"]
    if not GAME_ID_RE.match(game_id):
        raise no_game(game_id)
    state = await web.games.load(game_id)
    seed = await web.games.revealed_seed(state)
    return JSONResponse(
        {"n": state.seq, "state": state.public(seed=seed), "moves": list(state.moves)}
    )


async def game_record(request: Request) -> Response:
    web = services(request)
    game_id = request.path_params["game_id"]
    if not GAME_ID_RE.match(game_id):
        raise no_game(game_id)
    state = await web.games.load(game_id)
    record = await web.games.record(state)
    fmt = request.query_params.get("format", "record")
    if fmt not in ("record", "otn"):
        raise Refusal("bad_field", f"format must be record or otn, not {fmt!r}")
    if fmt == "otn":
        if state.ruleset not in OTN_RULES:
            raise Refusal("no_otn")
        return PlainTextResponse(
            format_otn_record(record),
            headers={"Content-Disposition": f'attachment; filename="brandubh-{game_id}.otn"'},
        )
    if request.query_params.get("analysis") == "1":
        # The record with the bot's analysis as comments (docs/record-format.md).
        async with reachable():
            analysis = await web.analyses.stored(game_id)
        if analysis is None:
            raise Refusal("not_found", f"game {game_id} has no analysis yet")
        text = record_with_analysis(record, GameAnalysis.from_dict(analysis))
    else:
        text = format_record(record)
    return PlainTextResponse(
        text, headers={"Content-Disposition": f'attachment; filename="brandubh-{game_id}.txt"'}
    )


async def verify_record(request: Request) -> Response:
    """A record's verdict: 200 whether or not it holds; what does not hold is a refusal's
    code and message beside ``"ok": false`` (docs/protocol.md §2)."""
    web = services(request)
    check_cross_site(request, web.settings)
    body = await read_body(request, MAX_EXPORT)
    if body.lstrip().startswith(b"{"):
        verdict = tournament_verdict(body)
        if verdict["ok"]:
            verdict = await stored_tournament(web, verdict, json.loads(body))
        return JSONResponse(verdict)
    if len(body) > MAX_RECORD:
        raise Refusal("payload_too_large", f"the request body is over {MAX_RECORD} bytes")
    try:
        record = parse_record(body.decode("utf-8"))
        game = fairplay.verify(record, await earlier_games(web, record))
    except UnicodeDecodeError:
        return JSONResponse(fails(Refusal("record_invalid", "the record is not UTF-8 text")))
    except (EngineError, fairplay.VerificationFailed) as exc:
        return JSONResponse(fails(Refusal("record_invalid", str(exc))))
    assert game.result is not None
    stored = await stored_comparison(web, record)
    if stored["found"] and not stored["same"]:
        # Consistent, but not the game played here under its id (say, a resigned game's
        # last move swapped for another legal one): it does not verify as that game.
        why = (
            f"the record holds together, but it is not the game this service played as "
            f"{record.game_id}: {'; '.join(stored['differences'])}"
        )
        return JSONResponse(fails(Refusal("record_not_played", why)) | {"stored": stored})
    return JSONResponse(
        {
            "ok": True,
            "game": record.game_id,
            "ruleset": record.ruleset,
            "moves": len(record.moves),
            "result": str(game.result),
            "winner": game.result.winner,
            "reason": game.result.reason,
            "stored": stored,
        }
    )


def fails(refusal: Refusal) -> dict[str, object]:
    """/api/verify's verdict that something does not hold: the refusal's code and message."""
    return {"ok": False, **refusal_body(refusal)}


async def earlier_games(web: Services, record: Record) -> list[Record]:
    """A match's later game is checked against the match's earlier games, as stored."""
    match = fairplay.match_of(record)
    if match is None or match.number < 2:
        return []
    try:
        ids = (await web.matches.summary(match.match_id))["games"][: match.number - 1]
        return [await web.games.record(await web.games.load(i)) for i in ids]
    except Refusal:
        return []  # not stored here: verify says what it needed


async def stored_comparison(web: Services, record: Record) -> Stored:
    """Whether a consistent record is also the game this service played under its id."""
    if not record.game_id or not GAME_ID_RE.match(record.game_id):
        return {"found": False, "same": None, "differences": []}
    try:
        state = await web.games.load(record.game_id)
    except Refusal:
        return {"found": False, "same": None, "differences": []}
    ours = state.record(await web.games.revealed_seed(state))
    differences = compare_records(record, ours)
    return {"found": True, "same": not differences, "differences": differences}


async def stored_tournament(
    web: Services, verdict: dict[str, object], export: dict[str, object]
) -> dict[str, object]:
    """A consistent export compared with the tournament this service ran under its id
    (as a record with its stored game): one that differs does not verify."""
    tid = export.get("id")
    stored: Stored = {"found": False, "same": None, "differences": []}
    if web.tournaments is not None and isinstance(tid, str) and TOURNAMENT_ID_RE.match(tid):
        try:
            ours = json.loads(json.dumps(await web.tournaments.export(tid)))
        except Refusal as exc:
            if exc.code != "not_found":
                raise
        else:
            differences = compare_exports(export, ours)
            stored = {"found": True, "same": not differences, "differences": differences}
    if stored["found"] and not stored["same"]:
        why = (
            f"the export holds together, but it is not the tournament this service ran as "
            f"{tid}: {'; '.join(stored['differences'])}"
        )
        return fails(Refusal("export_not_run", why)) | {"tournament": tid, "stored": stored}
    return {**verdict, "stored": stored}


async def match_summary(request: Request) -> Response:
    summary = await services(request).matches.summary(request.path_params["match_id"][:40])
    return JSONResponse(summary)


async def rulesets(request: Request) -> Response:
    return JSONResponse(
        [{"id": rs.name, "title": rs.title, "summary": rs.summary} for rs in RULESETS.values()]
    )


async def health(request: Request) -> Response:
    """200 while the hub reaches Redis and PostgreSQL. PostgreSQL unanswering for less than
    ``database_down_after_s`` (a restart, a brief outage: games go on, accounts answer 503)
    still answers 200 and says so; for longer, 503."""
    web = services(request)
    await web.redis.ping()
    down = await web.database.down_for()
    if down >= web.settings.database_down_after_s:
        return PlainTextResponse(
            f"database unreachable for {down:.0f} s: accounts, mail and the archive wait",
            status_code=503,
            headers={"Retry-After": "5"},
        )
    if down > 0:
        return PlainTextResponse(f"ok; the database has not answered for {down:.0f} s")
    return PlainTextResponse("ok")


async def page(request: Request) -> Response:
    index = services(request).static / "index.html"
    if not index.is_file():
        return PlainTextResponse(
            "The client is not built: run `brandubh serve`, which builds it, "
            "or `npm ci && npm run build` in client/.",
            status_code=503,
        )
    return FileResponse(index)  # a read: no session is made (see ``me``)


async def ruleset_page(request: Request) -> Response:
    """A page of one rule set (its rules, its leaderboard): 404 for one we do not have,
    whose page the client shows as not found."""
    if request.path_params["ruleset"] not in RULESETS:
        raise HTTPException(404)
    return await page(request)


# The HTTP routes of games, pages and health (accounts.py and mail.py have the rest).
ROUTES: Final = (
    Route("/api/me", me),
    Route("/api/rulesets", rulesets),
    Route("/api/games", create_game, methods=["POST"]),
    Route("/api/games/{game_id}", game_state),
    Route("/api/games/{game_id}/join", join_game, methods=["POST"]),
    Route("/api/games/{game_id}/withdraw", withdraw_game, methods=["POST"]),
    Route("/api/games/{game_id}/record", game_record),
    Route("/api/verify", verify_record, methods=["POST"]),
    Route("/api/matches/{match_id}", match_summary),
    Route("/verify", page),
    Route("/healthz", health),
    Route("/", page),
    Route("/g/{game_id}", page),
    Route("/join/{game_id}/{invite}", page),
    Route("/rules/{ruleset}", ruleset_page),
    Route("/lobby", page),
    Route("/watch", page),
    Route("/signup", page),
    Route("/login", page),
    Route("/account", page),
    Route("/u/{player_id}", page),
    Route("/leaderboard", page),
    Route("/leaderboard/{ruleset}", ruleset_page),
    Route("/replay/{game_id}", page),
    Route("/analysis", page),
    Route("/learn", page),
    Route("/learn/{ruleset}", page),
    Route("/learn/{ruleset}/{stage}", page),
    Route("/games", page),
    Route("/tournaments", page),
    Route("/t/{tournament_id}", page),
    Route("/puzzles", page),
    Route("/puzzles/daily", page),
    Route("/puzzles/streak", page),
    Route("/puzzles/{puzzle_id}", page),
)


def tournament_verdict(body: bytes) -> dict[str, object]:
    """What POST /api/verify says of a tournament export (JSON): verified, with what was
    checked, or its problems (brandubh.tournaments.verify_tournament, as `brandubh verify`)."""
    try:
        data = json.loads(body)
    except ValueError as exc:
        return fails(Refusal("export_invalid", f"not a record, nor a tournament export: {exc}"))
    if not is_tournament_export(data):
        return fails(Refusal("export_invalid", "a JSON document, but not a tournament export"))
    problems = verify_tournament(data)
    if problems:
        return fails(Refusal("export_invalid", problems[0])) | {
            "problems": problems,
            "tournament": data.get("id"),
        }
    return {
        "ok": True,
        "kind": "tournament",
        "tournament": data.get("id"),
        "name": data["settings"].get("name"),
        "format": data["settings"]["format"],
        "players": len(data["standings"]),
    }


TOURNAMENT_ID_RE: Final = re.compile(r"^t[A-Za-z0-9_-]{8}\Z")


def compare_exports(theirs: dict[str, object], ours: dict[str, object]) -> list[str]:
    """What differs between a tournament export someone holds and the service's own."""
    return [
        f"the {what} differ from the tournament this service ran"
        for key, what in (
            ("settings", "settings"),
            ("seed", "seed"),
            ("seed_commitment", "seed commitment"),
            ("players", "players"),
            ("events", "events"),
            ("standings", "standings"),
            ("ends_at", "end"),
        )
        if theirs.get(key) != ours.get(key)
    ]


def compare_records(theirs: Record, ours: Record) -> list[str]:
    """What differs between a record someone holds and the one the service keeps."""
    out = []
    for what, a, b in (
        ("rule set", theirs.ruleset, ours.ruleset),
        ("moves", theirs.moves, ours.moves),
        ("result", theirs.result, ours.result),
        ("commitment", theirs.commitment, ours.commitment),
        ("seed", theirs.seed, ours.seed),
        ("attackers", theirs.attackers, ours.attackers),
        ("defenders", theirs.defenders, ours.defenders),
    ):
        if a != b:
            out.append(f"the {what} differ from the game this service played")
    return out
