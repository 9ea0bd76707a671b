"""HTTP routes of the mail flows: confirming addresses, resetting passwords, reminders
(docs/protocol.md §2.2), and the client pages their links open.

Every non-GET route passes the cross-site check but one: ``POST /api/unsubscribe/<token>``,
which mail programs send on their own (RFC 8058 one-click); its token is its authority.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from brandubh.hub.accounts import (
    COOKIE,
    Accounts,
    Resets,
    Session,
    Sessions,
    Verification,
    confirming_logs_in,
    not_logged_in,
)
from brandubh.hub.config import Settings
from brandubh.hub.errors import Refusal
from brandubh.hub.http.base import address, read_json, set_session_cookie
from brandubh.hub.mail import Reminders

MAX_ONE_CLICK_BODY: Final = 1024
FORGOT_ANSWER: Final = (
    "if an account has this address, a link to set a new password is on its way: check "
    "your inbox (and spam folder); it works once, for 30 minutes"
)


@dataclass(frozen=True)
class Services:
    """Exactly what the mail routes use, given by the composition root (app.py)."""

    settings: Settings
    sessions: Sessions
    accounts: Accounts
    verification: Verification
    resets: Resets
    reminders: Reminders


def routes(web: Services, static: Path) -> list[Route]:
    settings, accounts = web.settings, web.accounts

    async def account_session(request: Request) -> Session:
        session = await web.sessions.get_session(request.cookies.get(COOKIE))
        if session is None or not session.account:
            raise not_logged_in()
        return session

    async def mail_settings(request: Request) -> Response:
        session = await account_session(request)
        account = await accounts.get(session.player.id)
        if account is None:
            raise not_logged_in()
        return JSONResponse(
            {
                "email": account.email,
                "verified": await accounts.is_verified(account.id),
                "reminders": await accounts.reminders_on(account.id),
            },
            headers={"Cache-Control": "no-store"},
        )

    async def resend(request: Request) -> Response:
        await read_json(request, settings, set())
        session = await account_session(request)
        await web.verification.resend(session.player.id, address(request))
        return JSONResponse({"sent": True}, status_code=202)

    async def verify_check(request: Request) -> Response:
        # What the page shows before the reader decides: the address, its account, and
        # whether confirming logs this browser in to it.
        holder = await web.verification.check(request.path_params["token"])
        account = await accounts.get(holder.account)
        current = await web.sessions.get_session(request.cookies.get(COOKIE))
        return JSONResponse(
            {
                "email": holder.email,
                "name": account.name if account else None,
                "logs_in": confirming_logs_in(holder.account, current),
                "asks_password": web.verification.asks_password(holder, current),
            },
            headers={"Cache-Control": "no-store"},
        )

    async def verify_confirm(request: Request) -> Response:
        # The page's button, pressed by a reader shown the account: the address is
        # confirmed, and a browser without another player's session is logged in to it.
        body = await read_json(request, settings, {"password"})  # set by confirming
        current = await web.sessions.get_session(request.cookies.get(COOKIE))
        token, password = request.path_params["token"], body.get("password")
        holder = await web.verification.confirm(token, password, current)
        account = await accounts.get(holder.account)
        if account is None:
            raise not_logged_in()
        new = await accounts.confirmed(holder.account, current)
        body = {
            "verified": True,
            "email": holder.email,
            "id": account.id,
            "name": account.name,
            "account": True,
            "logged_in": new is not None,
        }
        if new is None:
            return JSONResponse(body)
        return set_session_cookie(JSONResponse(body), new[0], request)

    async def forgot(request: Request) -> Response:
        body = await read_json(request, settings, {"email"})
        await web.resets.forgot(body.get("email"), address(request))
        return JSONResponse({"sent": True, "message": FORGOT_ANSWER}, status_code=202)

    async def reset_check(request: Request) -> Response:
        holder = await web.resets.check(request.path_params["token"])
        return JSONResponse({"email": holder.email}, headers={"Cache-Control": "no-store"})

    async def reset(request: Request) -> Response:
        body = await read_json(request, settings, {"token", "password"})
        ended = await web.resets.reset(body.get("token"), body.get("password"))
        return JSONResponse({"ended": ended})

    async def set_reminders(request: Request) -> Response:
        body = await read_json(request, settings, {"on"})
        session = await account_session(request)
        on = body.get("on")
        if not isinstance(on, bool):
            raise Refusal("bad_field", "on must be true or false")
        await accounts.set_reminders(session.player.id, on)
        return JSONResponse({"reminders": on})

    async def unsubscribe(request: Request) -> Response:
        # One-click (RFC 8058): no cookie, no Origin; the body, if any, is not needed.
        if len(await request.body()) > MAX_ONE_CLICK_BODY:
            raise Refusal("bad_request", f"request body over {MAX_ONE_CLICK_BODY} bytes")
        holder = await web.reminders.unsubscribe(request.path_params["token"])
        return JSONResponse({"reminders": False, "email": holder.email})

    async def page(request: Request) -> Response:
        index = static / "index.html"
        if not index.is_file():
            return PlainTextResponse("the client is not built: run npm run build", 503)
        return FileResponse(index, headers={"Referrer-Policy": "no-referrer"})

    return [
        Route("/api/mail", mail_settings),
        Route("/api/verify-email/resend", resend, methods=["POST"]),
        Route("/api/verify-email/{token}", verify_check, methods=["GET"]),
        Route("/api/verify-email/{token}", verify_confirm, methods=["POST"]),
        Route("/api/password/forgot", forgot, methods=["POST"]),
        Route("/api/password/reset/{token}", reset_check, methods=["GET"]),
        Route("/api/password/reset", reset, methods=["POST"]),
        Route("/api/reminders", set_reminders, methods=["POST"]),
        Route("/api/unsubscribe/{token}", unsubscribe, methods=["POST"]),
        Route("/verify-email/{token}", page),
        Route("/forgot-password", page),
        Route("/reset-password/{token}", page),
        Route("/unsubscribe/{token}", page),
    ]
