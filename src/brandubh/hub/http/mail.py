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
    Accounts,
    Resets,
    Sessions,
    Verification,
    confirming_logs_in,
    not_logged_in,
)
from brandubh.hub.config import Settings
from brandubh.hub.errors import Refusal
from brandubh.hub.http.base import (
    account_session,
    address,
    read_json,
    session_of,
    set_session_cookie,
)
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
    static: Path  # the built client, whose page each mailed link opens


def mail_services(request: Request) -> Services:
    """The mail routes' services, which the composition root put in the app's state."""
    found: Services = request.app.state.mail
    return found


async def mail_settings(request: Request) -> Response:
    web = mail_services(request)
    session = await account_session(request, web.sessions)
    account = await web.accounts.get(session.player.id)
    if account is None:
        raise not_logged_in()
    return JSONResponse(
        {
            "email": account.email,
            "verified": await web.accounts.is_verified(account.id),
            "reminders": await web.accounts.reminders_on(account.id),
        },
        headers={"Cache-Control": "no-store"},
    )


async def resend(request: Request) -> Response:
    web = mail_services(request)
    await read_json(request, web.settings, set())
    session = await account_session(request, web.sessions)
    await web.verification.resend(session.player.id, address(request))
    return JSONResponse({"sent": True}, status_code=202)


async def verify_check(request: Request) -> Response:
    web = mail_services(request)
    # What the page shows before the reader decides: the address, its account, and
    # whether confirming logs this browser in to it.
    holder = await web.verification.check(request.path_params["token"])
    account = await web.accounts.get(holder.account)
    current = await session_of(request, web.sessions)
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
    web = mail_services(request)
    # The page's button, pressed by a reader shown the account: the address is
    # confirmed, and a browser without another player's session is logged in to it.
    body = await read_json(request, web.settings, {"password"})  # set by confirming
    current = await session_of(request, web.sessions)
    token, password = request.path_params["token"], body.get("password")
    holder = await web.verification.confirm(token, password, current)
    account = await web.accounts.get(holder.account)
    if account is None:
        raise not_logged_in()
    new = await web.accounts.confirmed(holder.account, current)
    answer = {
        "verified": True,
        "email": holder.email,
        "id": account.id,
        "name": account.name,
        "account": True,
        "logged_in": new is not None,
    }
    if new is None:
        return JSONResponse(answer)
    return set_session_cookie(JSONResponse(answer), new[0], request)


async def forgot(request: Request) -> Response:
    web = mail_services(request)
    body = await read_json(request, web.settings, {"email"})
    await web.resets.forgot(body.get("email"), address(request))
    return JSONResponse({"sent": True, "message": FORGOT_ANSWER}, status_code=202)


async def reset_check(request: Request) -> Response:
    web = mail_services(request)
    holder = await web.resets.check(request.path_params["token"])
    return JSONResponse({"email": holder.email}, headers={"Cache-Control": "no-store"})


async def reset(request: Request) -> Response:
    web = mail_services(request)
    body = await read_json(request, web.settings, {"token", "password"})
    ended = await web.resets.reset(body.get("token"), body.get("password"))
    return JSONResponse({"ended": ended})


async def set_reminders(request: Request) -> Response:
    web = mail_services(request)
    body = await read_json(request, web.settings, {"on"})
    session = await account_session(request, web.sessions)
    on = body.get("on")
    if not isinstance(on, bool):
        raise Refusal("bad_field", "on must be true or false")
    await web.accounts.set_reminders(session.player.id, on)
    return JSONResponse({"reminders": on})


async def unsubscribe(request: Request) -> Response:
    web = mail_services(request)
    # One-click (RFC 8058): no cookie, no Origin; the body, if any, is not needed.
    if len(await request.body()) > MAX_ONE_CLICK_BODY:
        raise Refusal("bad_request", f"request body over {MAX_ONE_CLICK_BODY} bytes")
    holder = await web.reminders.unsubscribe(request.path_params["token"])
    return JSONResponse({"reminders": False, "email": holder.email})


async def page(request: Request) -> Response:
    web = mail_services(request)
    index = web.static / "index.html"
    if not index.is_file():
        return PlainTextResponse("the client is not built: run npm run build", 503)
    return FileResponse(index, headers={"Referrer-Policy": "no-referrer"})


ROUTES: Final = (
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
)
