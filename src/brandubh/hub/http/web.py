"""The client's files over HTTP: hashed assets cached for a year, the app's own not-found
page, and the "your games" API the client's header and games page read."""

from __future__ import annotations

import os
from typing import Final

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.staticfiles import PathLike, StaticFiles
from starlette.types import Scope

from brandubh.hub.accounts import COOKIE
from brandubh.hub.errors import Refusal
from brandubh.hub.http.base import Services, refusal_json, services
from brandubh.hub.live import mygames

# Vite names every asset by its content's hash, so an asset never changes under its name.
ASSET_CACHE: Final = "public, max-age=31536000, immutable"
GZIP_MIN_BYTES: Final = 500


class Assets(StaticFiles):
    """``client/dist/assets``: content-hashed files, cached by browsers for a year."""

    def file_response(
        self,
        full_path: PathLike,
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = ASSET_CACHE
        return response


async def not_found(request: Request, exc: Exception) -> Response:
    """404s: JSON under ``/api/``, else the client's page (it shows "Page not found")."""
    if request.url.path.startswith("/api/"):
        return refusal_json(Refusal("not_found", f"there is no API at {request.url.path}"))
    index = services(request).static / "index.html"
    if request.method in ("GET", "HEAD") and index.is_file():
        return FileResponse(index, status_code=404, headers={"Cache-Control": "no-cache"})
    return PlainTextResponse("Not found", status_code=404)


async def my_games(request: Request) -> Response:
    """``GET /api/me/games``: the session's games in progress and recent finished games."""
    web = services(request)
    player = await web.sessions.get(request.cookies.get(COOKIE))
    if player is None:
        return JSONResponse({"playing": [], "finished": [], "your_move": 0})
    return await games_of(web, player.id)


async def games_of(web: Services, player_id: str) -> Response:
    """A player's games in progress and recent finished games (also ``GET
    /api/account/games``, a token's)."""
    playing = await mygames.playing(web.redis, web.games.load, player_id)
    finished, _ = await web.rater.player_games(player_id, 0, mygames.RECENT)
    return JSONResponse(
        {
            "playing": playing,
            "finished": finished,
            "your_move": sum(1 for c in playing if c["your_move"]),
        },
        headers={"Cache-Control": "no-store"},
    )


ROUTES: Final = (Route("/api/me/games", my_games),)
