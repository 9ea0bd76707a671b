"""Browser attacks, in Chromium, from a second origin on another port of 127.0.0.1: the
same site as the hub, another origin (issue 15). Login CSRF, framing, the open redirect
after login, and the security policy the client must run under.

The attacker's pages come from a tiny static server each test starts on a free port.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import pytest

import wsclient

Page = Any  # playwright.sync_api.Page
HubProcess = Any  # services.HubProcess
PASSWORD = "the attacker's own passphrase"


def sign_up_confirmed(base: str, email: str) -> None:
    """An account with a confirmed address (a new one cannot log in before), by the API
    and the mailed link."""
    r = httpx.post(
        base + "/api/signup", json={"email": email, "password": PASSWORD}, headers={"Origin": base}
    )
    assert r.status_code == 202, r.text
    link = wsclient.MAILBOX.wait_blocking(email, wsclient.CONFIRM).link("/verify-email/")
    r = httpx.post(
        base + "/api/verify-email/" + link.rsplit("/", 1)[1],
        json={"password": PASSWORD},  # no session: confirming sets the password
        headers={"Origin": base},
    )
    assert r.status_code == 200, r.text


class Attacker:
    """A static server of pages (path -> HTML) on a free port of 127.0.0.1."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        pages = self.pages

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = pages.get(self.path.split("?")[0], "<title>owned</title>owned").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def attacker() -> Iterator[Attacker]:
    site = Attacker()
    yield site
    site.server.shutdown()
    site.server.server_close()


def me(page: Page, base: str) -> dict[str, Any]:
    answer: dict[str, Any] = page.evaluate(
        "async (u) => (await fetch(u + '/api/me', {credentials: 'include'})).json()", base
    )
    return answer


def test_a_neighbours_page_cannot_log_the_visitor_in_or_open_a_socket(
    new_page: Any, web_hub: HubProcess, attacker: Attacker
) -> None:
    base = web_hub.url
    email = f"mallory{secrets.token_hex(4)}@example.org"
    sign_up_confirmed(base, email)
    attacker.pages["/csrf.html"] = f"""<!doctype html><title>loading</title><script>
      const hub = {json.dumps(base)};
      const body = JSON.stringify({{email: {json.dumps(email)}, password: {json.dumps(PASSWORD)}}});
      const sent = [
        fetch(hub + "/api/login", {{method: "POST", mode: "no-cors", credentials: "include",
          headers: {{"Content-Type": "text/plain"}}, body}}),
        fetch(hub + "/api/games", {{method: "POST", mode: "no-cors", credentials: "include",
          headers: {{"Content-Type": "text/plain"}}, body: '{{"opponent": "bot"}}'}}),
      ];
      const socket = new Promise((done) => {{
        const ws = new WebSocket(hub.replace("http", "ws") + "/ws");
        ws.onopen = () => done("open");
        ws.onerror = ws.onclose = () => done("refused");
      }});
      Promise.allSettled(sent).then(() => socket).then((s) => {{ document.title = "done " + s; }});
    </script>"""
    victim = new_page()
    victim.goto(base + "/")
    before = me(victim, base)
    assert before["account"] is False
    victim.goto(attacker.url + "/csrf.html")
    victim.wait_for_function("document.title.startsWith('done')")
    assert victim.title() == "done refused"  # no socket with the visitor's cookie
    victim.goto(base + "/")
    after = me(victim, base)
    assert after["account"] is False and after["id"] == before["id"], after  # not logged in


def test_no_page_of_the_hub_can_be_framed(
    new_page: Any, web_hub: HubProcess, attacker: Attacker
) -> None:
    base = web_hub.url
    attacker.pages["/frame.html"] = (
        f'<!doctype html><title>frame</title><iframe id="f" src="{base}/account"></iframe>'
    )
    page = new_page()
    page.goto(base + "/")  # the visitor has a session the frame would carry
    page.goto(attacker.url + "/frame.html")
    page.wait_for_load_state("load")
    page.wait_for_timeout(500)
    framed = [f for f in page.frames if f != page.main_frame]
    assert framed, "the frame element is missing"
    for frame in framed:
        assert not frame.url.startswith(base), f"the hub's page loaded in a frame: {frame.url}"


@pytest.mark.parametrize(
    "target",
    ["/\\{host}/owned", "/\t/{host}/owned", "//{host}/owned", "http://{host}/owned", "/.//{host}/"],
)
def test_after_logging_in_next_never_leaves_the_site(
    new_page: Any, web_hub: HubProcess, attacker: Attacker, target: str
) -> None:
    base = web_hub.url
    page = new_page()
    page.goto(base + "/")
    email = f"ann{secrets.token_hex(4)}@example.org"
    sign_up_confirmed(base, email)
    evil = target.format(host=urlsplit(attacker.url).netloc)
    page.goto(base + "/login?next=" + quote(evil, safe=""))
    page.fill("#login-email", email)
    page.fill("#login-password", PASSWORD)
    page.click("#login-submit")
    page.wait_for_load_state("load")
    page.wait_for_timeout(700)
    assert urlsplit(page.url).netloc == urlsplit(base).netloc, f"{evil!r} led to {page.url}"


def test_the_client_runs_under_its_security_policy(new_page: Any, web_hub: HubProcess) -> None:
    page = new_page()
    violations: list[str] = []
    page.on(
        "console",
        lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None,
    )
    for path in ("/", "/lobby", "/watch", "/login", "/signup", "/rules/nielsen", "/leaderboard"):
        r = page.goto(web_hub.url + path)
        assert r is not None and "frame-ancestors 'none'" in r.headers["content-security-policy"]
        page.wait_for_selector("#app > *")
        page.wait_for_timeout(200)
    guest_game = page.evaluate(
        "async () => (await fetch('/api/games', {method: 'POST', body: '{\"opponent\": \"bot\"}',"
        " headers: {'Content-Type': 'application/json'}})).json()"
    )
    page.goto(web_hub.url + guest_game["url"])
    page.wait_for_selector(".board, #board, [data-square]")
    assert not violations, violations
