"""The client's files over HTTP: hashed assets cached for a year, the app's own not-found
page, and the "your games" API the client's header and games page read."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from brandubh.hub.accounts import COOKIE
from brandubh.hub.http.base import Services
from brandubh.hub.live import mygames

# Vite names every asset by its content's hash, so an asset never changes under its name.
ASSET_CACHE: Final = "public, max-age=31536000, immutable"
GZIP_MIN_BYTES: Final = 500


class Assets(StaticFiles):
    """``client/dist/assets``: content-hashed files, cached by browsers for a year."""

    def file_response(
        self, full_path: Any, stat_result: Any, scope: Scope, status_code: int = 200
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = ASSET_CACHE
        return response


def not_found_handler(static: Path) -> Any:
    """404s: JSON under ``/api/``, else the client's page (it shows "Page not found")."""

    async def handler(request: Request, exc: HTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse(
                {"error": "not_found", "message": f"there is no API at {request.url.path}"},
                status_code=404,
            )
        index = static / "index.html"
        if request.method in ("GET", "HEAD") and index.is_file():
            return FileResponse(index, status_code=404, headers={"Cache-Control": "no-cache"})
        return PlainTextResponse("Not found", status_code=404)

    return handler


def routes(web: Services) -> list[Route]:
    """``GET /api/me/games``: the session's games in progress and recent finished games."""

    async def my_games(request: Request) -> Response:
        player = await web.sessions.get(request.cookies.get(COOKIE))
        if player is None:
            return JSONResponse({"playing": [], "finished": [], "your_move": 0})
        playing = await mygames.playing(web.redis, web.games.load, player.id)
        finished, _ = await web.rater.player_games(player.id, 0, mygames.RECENT)
        return JSONResponse(
            {
                "playing": playing,
                "finished": finished,
                "your_move": sum(1 for c in playing if c["your_move"]),
            },
            headers={"Cache-Control": "no-store"},
        )

    return [Route("/api/me/games", my_games)]
