"""HTTP routes of puzzles (docs/protocol.md §2.13): the day's puzzle and a puzzle by its id
for anyone; a player's rating; starting a puzzle and playing it take the site's session
(a guest's is made by the first start) and pass the cross-site check. (The /puzzles pages
are the client's, served with the others by games.py.)"""

from __future__ import annotations

import re
from typing import Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from brandubh.hub.errors import Refusal
from brandubh.hub.http.base import read_json, services, session_of
from brandubh.hub.http.games import player_for, with_cookie
from brandubh.hub.puzzles import Puzzles

NO_STORE: Final = {"Cache-Control": "no-store"}
PUZZLE_ID_RE: Final = re.compile(r"^[0-9a-f]{10}\Z")


def _puzzles(request: Request) -> Puzzles:
    found = services(request).puzzles
    if found is None:
        raise Refusal("not_found", "this hub serves no puzzles")
    return found


def _puzzle_id(request: Request) -> str:
    pid: str = request.path_params["puzzle_id"]
    if not PUZZLE_ID_RE.match(pid):
        raise Refusal("not_found", f"there is no puzzle {pid}: a puzzle's id is 10 hex digits")
    return pid


def _optional(body: dict[str, object], name: str) -> str | None:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise Refusal("bad_field", f"{name} is a string when given")
    return value


async def daily(request: Request) -> Response:
    day, found = await _puzzles(request).daily()
    if found is None:
        raise Refusal("no_puzzles", "there are no puzzles here yet")
    return JSONResponse(
        {"date": day, **_puzzles(request).view(found)}, headers={"Cache-Control": "max-age=60"}
    )


async def one(request: Request) -> Response:
    pid = _puzzle_id(request)
    puzzles = _puzzles(request)
    return JSONResponse(puzzles.view(await puzzles.public(pid)), headers=NO_STORE)


async def mine(request: Request) -> Response:
    session = await session_of(request, services(request).sessions)
    standing = await _puzzles(request).standing(
        session.player.id if session else None, bool(session and session.account)
    )
    return JSONResponse(standing, headers=NO_STORE)


async def next_puzzle(request: Request) -> Response:
    web = services(request)
    puzzles = _puzzles(request)
    body = await read_json(request, web.settings, {"mode", "theme", "ruleset"})
    mode = body.get("mode", "rated")
    if mode not in ("rated", "streak"):
        raise Refusal("bad_field", "mode is rated or streak")
    session = await session_of(request, web.sessions)
    player, token, keep = await player_for(web, request)
    account = bool(session and session.account)
    started = await puzzles.next(
        player.id,
        account,
        mode="streak" if mode == "streak" else "rated",
        theme=_optional(body, "theme"),
        ruleset=_optional(body, "ruleset"),
    )
    if keep is not None:
        await web.sessions.keep(keep)
    return with_cookie(JSONResponse(started, headers=NO_STORE), token, request)


async def start(request: Request) -> Response:
    web = services(request)
    puzzles = _puzzles(request)
    pid = _puzzle_id(request)
    await read_json(request, web.settings, set())
    session = await session_of(request, web.sessions)
    player, token, keep = await player_for(web, request)
    started = await puzzles.start(player.id, bool(session and session.account), pid)
    if keep is not None:
        await web.sessions.keep(keep)
    return with_cookie(JSONResponse(started, headers=NO_STORE), token, request)


async def move(request: Request) -> Response:
    web = services(request)
    puzzles = _puzzles(request)
    pid = _puzzle_id(request)
    body = await read_json(request, web.settings, {"ply", "move"})
    ply, text = body.get("ply"), body.get("move")
    if not isinstance(ply, int) or isinstance(ply, bool) or ply < 0:
        raise Refusal("bad_field", "ply is the move's index in the line, a whole number")
    if not isinstance(text, str):
        raise Refusal("bad_field", "move is the move's text, such as d4-d6")
    session = await session_of(request, web.sessions)
    if session is None:
        raise Refusal("puzzle_not_started", "start a puzzle first: this request has no session")
    answer = await puzzles.move(session.player.id, session.account, pid, ply, text)
    return JSONResponse(answer, headers=NO_STORE)


ROUTES: Final = (
    Route("/api/puzzles/daily", daily),
    Route("/api/puzzles/me", mine),
    Route("/api/puzzles/next", next_puzzle, methods=["POST"]),
    Route("/api/puzzles/{puzzle_id}", one),
    Route("/api/puzzles/{puzzle_id}/start", start, methods=["POST"]),
    Route("/api/puzzles/{puzzle_id}/move", move, methods=["POST"]),
)
