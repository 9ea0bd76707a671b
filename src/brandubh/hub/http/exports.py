"""The route that exports a player's finished games (hub/exports/; docs/protocol.md §2,
"Exporting games")."""

from __future__ import annotations

from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from brandubh.hub.accounts import reachable
from brandubh.hub.errors import Refusal
from brandubh.hub.exports import content_type, parse_query
from brandubh.hub.http.accounts import public_account
from brandubh.hub.http.base import address, services


async def export_games(request: Request) -> Response:
    web = services(request)
    pid = request.path_params["player_id"]
    query = parse_query(request.query_params)
    if web.exports is None or await public_account(web.accounts, pid) is None:
        raise Refusal("not_found", f"there is no player {pid}")
    # With a token (any scope: the archive is public), the token's own window limits it;
    # without, the address's hour.
    authorization = request.headers.get("authorization")
    if authorization is not None:
        holder = await web.tokens.bearer(authorization)
        requester, hourly = f"token:{holder.token_id}", False
    else:
        requester, hourly = f"ip:{address(request)}", True
    await web.exports.admit(requester, hourly)
    body = web.exports.stream(requester, pid, query)
    # The first game read before the answer starts: an archive out of reach is then a
    # 503 with its reason, not a 200 cut short.
    async with reachable():
        first = await anext(body, b"")

    async def rest() -> AsyncIterator[bytes]:
        try:
            if first:
                yield first
                async for chunk in body:
                    yield chunk
        finally:
            await body.aclose()

    filename = f"brandubh-{pid}.{'ndjson' if query.format == 'ndjson' else 'txt'}"
    return StreamingResponse(
        rest(),
        media_type=content_type(query.format),
        headers={
            "Cache-Control": "no-store",
            "Content-Disposition": f'inline; filename="{filename}"',
        },
    )


ROUTES = [Route("/api/games/export/{player_id}", export_games)]
