"""Accounts over real HTTP and websockets: sign up, log in, log out, change the password,
every error path, the login rate limits, and games against people needing an account."""

from __future__ import annotations

import statistics
import time
from typing import Any

import httpx
import pytest
import redis

import wsclient
from brandubh.hub.accounts.passwords import check_password
from brandubh.hub.accounts.sessions import session_id
from brandubh.hub.errors import Refusal
from brandubh.hub.redis import keys
from brandubh.store import Store
from services import HubProcess, sync_client
from waiting import wait_for
from wsclient import PASSWORD, Msg, Player, Socket


async def fresh_account(base: str, **kw: Any) -> Player:
    return await Player(base).signup(**kw)


def error_of(r: httpx.Response) -> str:
    return str(r.json()["error"])


# -- signing up ----------------------------------------------------------------------------


@pytest.mark.cluster
async def test_a_guest_signs_up_and_keeps_their_id_under_a_new_token(hub: HubProcess) -> None:
    guest = await Player(hub.url).start()
    await guest.create_game(opponent="bot")  # the first act makes the guest session
    assert guest.me["account"] is False and guest.me["email"] is None
    guest_id, guest_token = guest.id, guest.cookie
    await guest.signup(email=f"  Mixed.Case{guest_id[-5:]}@Example.ORG ", verify=False)
    assert guest.cookie == guest_token  # signing up logs nobody in
    assert (await guest.http.get("/api/me")).json()["account"] is False
    await guest.verify()  # following the mailed link does
    assert guest.id == guest_id  # the account adopted the guest's player id
    assert guest.cookie != guest_token  # the token rotated
    me = (await guest.http.get("/api/me")).json()
    assert me == {
        "id": guest_id,
        "name": guest.me["name"],
        "account": True,
        "email": f"mixed.case{guest_id[-5:].lower()}@example.org",
    }
    # The guest token is gone: it is no session any more.
    async with httpx.AsyncClient(base_url=hub.url, cookies={"bd_session": guest_token}) as old:
        assert (await old.get("/api/me")).json()["id"] is None
    # The cookie is HttpOnly and SameSite=Lax.
    other = await Player(hub.url).signup(verify=False)
    mail = await wsclient.MAILBOX.wait(other.email, wsclient.CONFIRM)
    token = mail.link("/verify-email/").rsplit("/", 1)[1]
    r = await other.http.post(f"/api/verify-email/{token}", json={"password": other.password})
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie and "path=/" in cookie
    await guest.close()
    await other.close()


async def test_sign_up_without_a_session_and_with_a_chosen_name(hub: HubProcess) -> None:
    p = await fresh_account(hub.url, name="  Ann   of  Tara ")
    assert p.id.startswith("u_") and p.me["name"] == "Ann of Tara"
    profile = (await p.http.get(f"/api/players/{p.id}")).json()
    assert profile["name"] == "Ann of Tara" and profile["me"] is True
    assert profile["ratings"] == {} and profile["leaderboard"] is False
    assert "email" not in profile  # never shown to others
    await p.close()


@pytest.mark.parametrize(
    "email",
    [
        "",
        "plainaddress",
        "two@@example.org",
        "no spaces@example.org",
        "a@nodot",
        "a@.org",
        "a@example..org",
        "x" * 65 + "@example.org",
        42,
    ],
)
async def test_malformed_emails_are_refused(hub: HubProcess, email: object) -> None:
    p = Player(hub.url)
    r = await p.http.post("/api/signup", json={"email": email, "password": PASSWORD})
    assert r.status_code == 400 and error_of(r) == "bad_email", r.text
    assert "ann@example.org" in r.json()["message"]
    r = await p.http.post("/api/login", json={"email": email, "password": PASSWORD})
    assert r.status_code == 400 and error_of(r) == "bad_email"
    await p.close()


@pytest.mark.parametrize(
    ("password", "why"),
    [
        ("short1", "too short"),
        ("", "too short"),
        ("Password123", "most common"),
        ("QWERTYUIOP", "most common"),
        ("abababababab", "too few"),
        ("x" * 300, "too long"),
        ("weakling99@example.org", "email"),
        ("weakling99", "email"),
        (12345678901, "text"),
    ],
)
async def test_weak_passwords_are_refused_saying_why(
    hub: HubProcess, password: object, why: str
) -> None:
    p = Player(hub.url)
    r = await p.http.post(
        "/api/signup", json={"email": "weakling99@example.org", "password": password}
    )
    assert r.status_code == 400 and error_of(r) == "weak_password", r.text
    assert why in r.json()["message"], r.json()["message"]
    await p.close()


def test_the_password_rule_accepts_ordinary_passphrases() -> None:
    for ok in ("correct horse battery", "tafl at dawn 7", "Ünïcødé-pässwörd"):
        assert check_password(ok, "ann@example.org") == ok
    with pytest.raises(Refusal):
        check_password("1234567890")


async def test_an_email_is_taken_once_whatever_its_case(hub: HubProcess) -> None:
    first = await fresh_account(hub.url)
    again = Player(hub.url)
    r = await again.http.post(
        "/api/signup", json={"email": first.email.upper(), "password": "another fine one"}
    )
    assert r.status_code == 202  # answered as any sign-up (test_mail: what is mailed)
    assert (await again.login(first.email, "another fine one")).status_code == 401
    assert (await again.login(first.email, PASSWORD)).status_code == 200
    for p in (first, again):
        await p.close()


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"email": "n1@example.org", "password": PASSWORD, "name": "x"}, "bad_name"),
        ({"email": "n2@example.org", "password": PASSWORD, "name": "<script>"}, "bad_name"),
        ({"email": "n3@example.org", "password": PASSWORD, "name": "Bot (level 5)"}, "bad_name"),
        ({"email": "n4@example.org", "password": PASSWORD, "admin": True}, "bad_field"),
        ([1, 2], "bad_request"),
    ],
)
async def test_other_sign_up_errors(hub: HubProcess, body: object, code: str) -> None:
    p = Player(hub.url)
    r = await p.http.post("/api/signup", json=body)
    assert r.status_code == 400 and error_of(r) == code, r.text
    await p.close()


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/signup", {"email": "csrf@example.org", "password": PASSWORD}),
        ("/api/login", {"email": "csrf@example.org", "password": PASSWORD}),
        ("/api/logout", {}),
        ("/api/password", {"current": PASSWORD, "new": "a new passphrase"}),
        ("/api/settings", {"leaderboard": True}),
    ],
)
async def test_cross_site_posts_to_account_routes_are_refused(
    hub: HubProcess, path: str, body: Msg
) -> None:
    p = await fresh_account(hub.url)
    for headers in ({"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
        r = await p.http.post(path, json=body, headers=headers)
        assert r.status_code == 403 and error_of(r) == "forbidden", (path, r.text)
    async with httpx.AsyncClient(base_url=hub.url, cookies={"bd_session": p.cookie}) as bare:
        r = await bare.post(path, json=body)  # no Origin, no Sec-Fetch-Site: refused
        assert r.status_code == 403
    assert (await p.http.get("/api/me")).json()["account"] is True  # still logged in
    await p.close()


# -- logging in ----------------------------------------------------------------------------


async def test_login_rotates_the_token_and_replaces_the_session(hub: HubProcess) -> None:
    p = await fresh_account(hub.url)
    other = await Player(hub.url).start()  # a guest, then logs in to p's account
    guest_token = other.cookie
    r = await other.login(p.email.upper(), PASSWORD)
    assert r.status_code == 200, r.text
    assert r.json() == {"id": p.id, "name": p.me["name"], "account": True, "email": p.email}
    assert other.cookie not in (guest_token, p.cookie)
    assert other.id == p.id
    # Both sessions stand on their own; the replaced guest session is gone.
    assert (await p.http.get("/api/me")).json()["id"] == p.id
    async with httpx.AsyncClient(base_url=hub.url, cookies={"bd_session": guest_token}) as old:
        assert (await old.get("/api/me")).json()["account"] is False
    for q in (p, other):
        await q.close()


async def test_unknown_email_and_wrong_password_get_the_same_answer_in_the_same_time(
    hub: HubProcess,
) -> None:
    p = await fresh_account(hub.url)
    q = Player(hub.url)
    timings: dict[str, list[float]] = {"wrong": [], "unknown": []}
    bodies = set()
    for i in range(5):
        for kind, email in (("wrong", p.email), ("unknown", f"nobody{i}{p.id}@example.org")):
            start = time.perf_counter()
            r = await q.login(email, "not the password at all")
            timings[kind].append(time.perf_counter() - start)
            assert r.status_code == 401
            bodies.add(r.text)
    assert len(bodies) == 1
    assert error_of(r) == "bad_credentials"
    wrong, unknown = (statistics.median(timings[k]) for k in ("wrong", "unknown"))
    # Both check an argon2id hash (~30 ms); no short cut for the unknown email.
    assert unknown > 0.6 * wrong and wrong > 0.6 * unknown, timings
    assert min(timings["unknown"]) > 0.01, timings
    r = await q.login(p.email, PASSWORD)
    assert r.status_code == 200
    for x in (p, q):
        await x.close()


async def test_the_stored_session_and_password_hold_nothing_usable(
    hub: HubProcess, redis_sync: redis.Redis, database_url: str
) -> None:
    p = await fresh_account(hub.url)
    assert not redis_sync.exists(keys.session(p.cookie))  # keyed by the token's hash
    assert redis_sync.hget(keys.session(session_id(p.cookie)), "id") == p.id.encode()
    store = Store.from_url(database_url)
    stored = await store.password_hash(p.id)
    await store.close()
    assert stored is not None
    assert stored.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    assert PASSWORD not in stored
    assert not redis_sync.keys("bd:{acct}:a:*")  # accounts live in PostgreSQL only
    await p.close()


# -- logging out -----------------------------------------------------------------------------


@pytest.mark.cluster
async def test_logout_ends_the_session_and_closes_its_sockets_on_every_hub(
    hub: HubProcess, hub2: HubProcess
) -> None:
    p = await fresh_account(hub.url)
    here = await p.connect()
    there = await p.connect(hub2.url)
    assert here.hello["player"]["id"] == p.id and there.hello["player"]["id"] == p.id
    elsewhere = Player(hub.url)
    assert (await elsewhere.login(p.email, PASSWORD)).status_code == 200
    other_sock = await elsewhere.connect(hub2.url)

    r = await p.http.post("/api/logout", json={})
    assert r.status_code == 200 and r.json() == {"ended": 1}
    assert (
        'bd_session=""' in r.headers["set-cookie"] or "max-age=0" in r.headers["set-cookie"].lower()
    )
    assert await here.close_code(5) == 4004
    assert await there.close_code(5) == 4004
    # The other session of the account is untouched.
    await other_sock.send({"t": "ping", "n": 7})
    assert (await other_sock.recv())["t"] == "pong"
    assert (await elsewhere.http.get("/api/me")).json()["id"] == p.id
    # Logging out without an account session changes nothing.
    r = await Player(hub.url).http.post("/api/logout", json={})
    assert r.status_code == 200 and r.json() == {"ended": 0}
    await other_sock.close()
    for x in (p, elsewhere):
        await x.close()


async def test_logout_everywhere_ends_every_session_of_the_account(
    hub: HubProcess, hub2: HubProcess
) -> None:
    p = await fresh_account(hub.url)
    others = [Player(hub.url), Player(hub2.url)]
    for o in others:
        assert (await o.login(p.email, PASSWORD)).status_code == 200
    sockets = [await p.connect(), await others[0].connect(), await others[1].connect()]
    r = await others[1].http.post("/api/logout", json={"everywhere": True})
    assert r.status_code == 200 and r.json() == {"ended": 3}
    for sock in sockets:
        assert await sock.close_code(5) == 4004
    r = await p.http.post("/api/logout", json={"everywhere": "yes"})
    assert r.status_code == 400 and error_of(r) == "bad_field"
    for x in (p, *others):
        me = (await x.http.get("/api/me")).json()
        assert me["account"] is False and me["id"] != p.id
        await x.close()


async def test_a_socket_of_an_ended_session_is_closed_even_without_the_notice(
    hub: HubProcess, redis_sync: redis.Redis
) -> None:
    """A notice lost (pub/sub is at most once) is made good by the hub's re-check."""
    p = await fresh_account(hub.url)
    sock = await p.connect()
    redis_sync.delete(keys.session(session_id(p.cookie)))  # ended, and nobody told
    assert await sock.close_code(20) == 4004
    await p.close()


# -- changing the password -----------------------------------------------------------------


@pytest.mark.cluster
async def test_change_password(hub: HubProcess, hub2: HubProcess) -> None:
    p = await fresh_account(hub.url)
    other = Player(hub2.url)
    assert (await other.login(p.email, PASSWORD)).status_code == 200
    mine, theirs = await p.connect(), await other.connect()

    r = await p.http.post("/api/password", json={"current": "wrong one!!", "new": "brand new one"})
    assert r.status_code == 401 and error_of(r) == "bad_credentials"
    r = await p.http.post("/api/password", json={"current": PASSWORD, "new": "short"})
    assert r.status_code == 400 and error_of(r) == "weak_password"
    r = await p.http.post("/api/password", json={"current": PASSWORD, "new": p.email})
    assert r.status_code == 400 and error_of(r) == "weak_password"
    r = await p.http.post("/api/password", json={"current": PASSWORD})
    assert r.status_code == 400 and error_of(r) == "weak_password"
    guest = await Player(hub.url).start()
    r = await guest.http.post("/api/password", json={"current": "x", "new": "brand new one"})
    assert r.status_code == 401 and error_of(r) == "not_logged_in"

    r = await p.http.post("/api/password", json={"current": PASSWORD, "new": "brand new one"})
    assert r.status_code == 200 and r.json() == {"ended": 1}
    assert await theirs.close_code(5) == 4004  # every other session ends
    await mine.send({"t": "ping", "n": 1})
    assert (await mine.recv())["t"] == "pong"  # this one stays
    assert (await p.http.get("/api/me")).json()["account"] is True
    assert (await other.login(p.email, PASSWORD)).status_code == 401
    assert (await other.login(p.email, "brand new one")).status_code == 200
    await mine.close()
    for x in (p, other, guest):
        await x.close()


# -- rate limits -----------------------------------------------------------------------------


async def attempts(
    base: str, n: int, email: str | None = None, password: str = "wrong pass!"
) -> list[int]:
    p = Player(base)
    codes = []
    for i in range(n):
        r = await p.login(email or f"nobody{i}@example.org", password)
        codes.append(r.status_code)
        if r.status_code == 429:
            assert int(r.headers["retry-after"]) >= 1
    await p.close()
    return codes


async def attempts_from(p: Player, n: int, email: str, password: str = "wrong pass!") -> list[int]:
    return [(await p.login(email, password)).status_code for _ in range(n)]


@pytest.mark.cluster
async def test_login_limit_per_account(start_hub: Any, fresh_redis_url: str) -> None:
    h = start_hub({"BRANDUBH_LOGIN_PER_ACCOUNT": "3"}, redis=fresh_redis_url)
    p = await fresh_account(h.url)
    stranger = Player(h.url)
    assert await attempts_from(stranger, 3, p.email) == [401, 401, 401]
    r = await stranger.login(p.email, PASSWORD)  # even the right password waits now...
    assert r.status_code == 429 and error_of(r) == "rate_limited"
    assert "this account" in r.json()["message"] and "try again in" in r.json()["message"]
    assert 590 <= int(r.headers["retry-after"]) <= 600
    # ...from the stranger's address. The owner, from an address that has not failed, gets
    # in: a stranger who knows the email cannot lock its owner out (nor change the password).
    assert (await p.login()).status_code == 200
    r = await p.http.post("/api/password", json={"current": PASSWORD, "new": "a new passphrase"})
    assert r.status_code == 200, r.text
    # While the account has had its failures, each further address gets one try only.
    crowd = Player(h.url)
    assert await attempts_from(crowd, 2, p.email) == [401, 429]
    # An unknown email is limited just the same (no way to tell which exist).
    assert await attempts(h.url, 4, "ghost@example.org") == [401, 401, 401, 429]
    # Other accounts are not held up.
    q = await fresh_account(h.url)
    assert (await q.login()).status_code == 200
    for x in (p, q, stranger, crowd):
        await x.close()


async def test_login_limit_per_address(start_hub: Any, fresh_redis_url: str) -> None:
    h = start_hub({"BRANDUBH_LOGIN_PER_ADDRESS": "5"}, redis=fresh_redis_url)
    codes = await attempts(h.url, 6)
    assert codes == [401] * 5 + [429]
    here = Player(h.url)
    assert await attempts_from(here, 5, "someone@example.org", "whatever you like") == [401] * 5
    r = await Player(h.url, address=here.address).login("someone.else@example.org", "whatever")
    assert r.status_code == 429 and "your address" in r.json()["message"]
    assert (await Player(h.url).login("someone@example.org", "whatever")).status_code == 401
    await here.close()


async def test_login_limit_overall_and_the_window_slides(
    start_hub: Any, fresh_redis_url: str
) -> None:
    h = start_hub(
        {"BRANDUBH_LOGIN_OVERALL": "4", "BRANDUBH_LOGIN_WINDOW_S": "2"}, redis=fresh_redis_url
    )
    assert await attempts(h.url, 5) == [401, 401, 401, 401, 429]
    late = Player(h.url)
    await late.login("early@example.org", "whatever you like")  # one failure of its own
    r = await late.login("late@example.org", "whatever you like")
    assert r.status_code == 429 and "the service" in r.json()["message"]
    assert int(r.headers["retry-after"]) <= 2
    # The overall limit is no off switch: an address that has not failed still gets in.
    owner = await fresh_account(h.url)
    assert (await owner.login()).status_code == 200
    r = sync_client(fresh_redis_url)
    overall = f"{keys.login_limits()}:all"  # expires with its window (limits.py)
    await wait_for(lambda: not r.exists(overall), "the window to slide past the attempts", 10)
    r.close()
    assert await attempts_from(late, 1, "late@example.org") == [401]
    await late.close()
    await owner.close()


# -- games against people need an account --------------------------------------------------


@pytest.mark.cluster
async def test_friend_games_need_accounts_and_are_rated_by_default(hub: HubProcess) -> None:
    guest = await Player(hub.url).start()
    r = await guest.http.post("/api/games", json={"opponent": "friend"})
    assert r.status_code == 403 and error_of(r) == "account_required"
    assert "sign up or log in" in r.json()["message"]
    bot = await guest.create_game(opponent="bot")  # the bot needs none
    assert (await guest.game(bot["id"]))["state"]["rated"] is False
    r = await guest.http.post("/api/games", json={"opponent": "bot", "rated": True})
    assert r.status_code == 400 and "never rated" in r.json()["message"]

    alice = await fresh_account(hub.url)
    rated = await alice.create_game(opponent="friend")
    casual = await alice.create_game(opponent="friend", rated=False)
    assert (await alice.game(rated["id"]))["state"]["rated"] is True
    assert (await alice.game(casual["id"]))["state"]["rated"] is False
    r = await alice.http.post("/api/games", json={"opponent": "friend", "rated": "yes"})
    assert r.status_code == 400 and error_of(r) == "bad_field"

    token = rated["invite"].split("/")[-1]
    r = await guest.http.post(f"/api/games/{rated['id']}/join", json={"invite": token})
    assert r.status_code == 403 and error_of(r) == "account_required"
    bob = await fresh_account(hub.url)
    await bob.join(rated["invite"])
    assert (await bob.game(rated["id"]))["state"]["status"] == "active"
    for p in (guest, alice, bob):
        await p.close()


async def resign(sock: Socket, game: str) -> None:
    await sock.send({"t": "resign", "game": game, "id": f"r-{game}"})
    reply = await sock.recv_until(
        lambda m: m["t"] in ("ack", "error") and m.get("id") == f"r-{game}"
    )
    assert reply["t"] == "ack", reply


async def test_a_guest_who_signs_up_keeps_their_bot_games(hub: HubProcess) -> None:
    guest = await Player(hub.url).start()
    created = await guest.create_game(opponent="bot", ruleset="walker")
    sock = await guest.connect()
    await sock.watch(created["id"])
    await resign(sock, created["id"])
    await sock.close()
    await guest.signup()
    assert guest.id == guest.me["id"]

    async def archived() -> Any:
        listed = (await guest.http.get(f"/api/players/{guest.id}/games")).json()
        return listed if listed["games"] else None

    listed = await wait_for(archived, "the bot game in the archive", 10, 0.1)
    [game] = listed["games"]
    assert game["id"] == created["id"] and game["opponent"] == "bot"
    assert game["rated"] is False and game["result"]["reason"] == "resignation"
    assert listed["next"] is None
    # Not rated: the profile has no rating, and the guest's list no longer expires.
    profile = (await guest.http.get(f"/api/players/{guest.id}")).json()
    assert profile["ratings"] == {}
    await guest.close()


async def test_profiles_and_game_lists_of_nobody(hub: HubProcess) -> None:
    p = Player(hub.url)
    for path in ("/api/players/u_nobody", "/api/players/u_nobody/games", "/api/players/a%20b"):
        r = await p.http.get(path)
        assert r.status_code == 404 and error_of(r) == "not_found"
    guest = await Player(hub.url).start()
    r = await p.http.get(f"/api/players/{guest.id}")  # guests have no profile
    assert r.status_code == 404
    me = await fresh_account(hub.url)
    r = await p.http.get(f"/api/players/{me.id}/games?limit=0")
    assert r.status_code == 400 and error_of(r) == "bad_field"
    r = await p.http.get(f"/api/players/{me.id}/games?offset=-1")
    assert r.status_code == 400
    for x in (p, guest, me):
        await x.close()
