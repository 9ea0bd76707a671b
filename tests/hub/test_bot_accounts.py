"""Bot accounts on a real hub: the upgrade with a ``bot:play`` token (never a cookie), once
and only without rated games; a bot kept apart from what is meant for people (quick
pairing, seeks, tournaments, games from the site); the leaderboards split; the profile."""

from __future__ import annotations

import time

import httpx
from sqlalchemy import update

from brandubh.hub.live.state import GameState
from brandubh.store import Store
from brandubh.store.tables import accounts, ratings
from services import HubProcess
from states import A, D, running
from waiting import wait_for
from wsclient import Msg, Player, Socket, friend_game, seated

UPGRADE = "/api/bot/account/upgrade"


def refused(r: httpx.Response) -> tuple[int, str]:
    return r.status_code, str(r.json()["error"])


async def token_of(p: Player, scopes: list[str]) -> str:
    r = await p.http.post("/api/account/tokens", json={"name": "engine", "scopes": scopes})
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


def program(hub: HubProcess, token: str) -> httpx.AsyncClient:
    """A program's client: the token in its header, no cookie."""
    return httpx.AsyncClient(base_url=hub.url, headers={"Authorization": f"Bearer {token}"})


async def upgraded(hub: HubProcess, name: str = "Tafl Engine") -> Player:
    """A new confirmed account, made a bot account with its own token."""
    p = await Player(hub.url).signup(name=name)
    async with program(hub, await token_of(p, ["bot:play"])) as bot:
        r = await bot.post(UPGRADE)
    assert r.status_code == 200, r.text
    return p


async def lobby_reply(sock: Socket, msg: Msg) -> Msg:
    await sock.send(msg)
    return await sock.recv_until(lambda m: m["t"] in ("ack", "error") and m.get("id") == msg["id"])


async def test_a_bot_play_token_upgrades_its_account_once(hub: HubProcess) -> None:
    p = await Player(hub.url).signup(name="Tafl Engine")
    reader = await token_of(p, ["games:read"])
    player = await token_of(p, ["bot:play"])
    async with program(hub, reader) as wrong:
        r = await wrong.post(UPGRADE)
        assert refused(r) == (403, "token_scope") and "bot:play" in r.json()["message"]
    # A cookie opens no token route, with or without the site's Origin.
    assert refused(await p.http.post(UPGRADE)) == (401, "token_invalid")
    r = await p.http.post(UPGRADE, headers={"Origin": hub.url})
    assert refused(r) == (401, "token_invalid")
    assert (await p.http.get(f"/api/players/{p.id}")).json()["bot"] is False
    async with program(hub, player) as bot:
        r = await bot.post(UPGRADE)
        assert r.status_code == 200, r.text
        assert r.json() == {"id": p.id, "name": "Tafl Engine", "bot": True}
        assert r.headers["cache-control"] == "no-store"
        account = (await bot.get("/api/account")).json()
        assert account["bot"] is True and account["id"] == p.id
        # Irreversible: asked again, refused, and still a bot.
        assert refused(await bot.post(UPGRADE)) == (409, "already_bot")
    async with program(hub, reader) as still:
        assert (await still.get("/api/account")).json()["bot"] is True
    profile = (await p.http.get(f"/api/players/{p.id}")).json()
    assert profile["bot"] is True and profile["name"] == "Tafl Engine"
    # The site's session still manages the account's tokens.
    r = await p.http.get("/api/account/tokens")
    assert r.status_code == 200 and len(r.json()["tokens"]) == 2
    await p.close()


async def test_a_bot_account_plays_nothing_meant_for_people(hub: HubProcess) -> None:
    bot = await upgraded(hub)
    person = await Player(hub.url).signup()
    sock = await bot.connect()
    seek = {"t": "seek", "ruleset": "nielsen", "move_time": 600, "id": "s1"}
    reply = await lobby_reply(sock, seek)
    assert (reply["t"], reply["code"]) == ("error", "bot_account"), reply
    assert "Bot API" in reply["message"]
    reply = await lobby_reply(
        sock, {"t": "quick", "ruleset": "nielsen", "move_time": 60, "id": "q"}
    )
    assert (reply["t"], reply["code"]) == ("error", "bot_account"), reply
    # A person's seek, which the bot may not take.
    their = await person.connect()
    made = await lobby_reply(their, {**seek, "id": "p1"})
    assert made["t"] == "ack", made
    reply = await lobby_reply(sock, {"t": "accept_seek", "seek": made["seek"], "id": "a"})
    assert (reply["t"], reply["code"]) == ("error", "bot_account"), reply
    # Games from the site: against a person, against the computer, by an invitation.
    for body in ({"opponent": "friend"}, {"opponent": "bot"}):
        r = await bot.http.post("/api/games", json=body)
        assert refused(r) == (403, "bot_account"), r.text
    invited = await person.create_game(opponent="friend")
    r = await bot.http.post(
        f"/api/games/{invited['id']}/join", json={"invite": invited["invite"].split("/")[-1]}
    )
    assert refused(r) == (403, "bot_account"), r.text
    # Tournaments are for people: neither joined nor made by a bot.
    tournament = {
        "name": "Weekly",
        "format": "round_robin",
        "ruleset": "nielsen",
        "move_time": 86400,
        "starts_at": int(time.time() * 1000) + 3_600_000,
    }
    r = await person.http.post("/api/tournaments", json=tournament)
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    r = await bot.http.post(f"/api/tournaments/{tid}/join")
    assert refused(r) == (403, "bot_account") and "tournaments" in r.json()["message"]
    r = await bot.http.post("/api/tournaments", json=tournament)
    assert refused(r) == (403, "bot_account")
    for s in (sock, their):
        await s.close()
    await bot.close()
    await person.close()


async def test_an_account_that_played_rated_stays_a_person(hub: HubProcess) -> None:
    game, alice, bob = await friend_game(hub.url)
    token = await token_of(alice, ["bot:play"])
    async with program(hub, token) as client:
        r = await client.post(UPGRADE)  # its rated game is in progress
        assert refused(r) == (409, "bot_has_rated_games") and "playing" in r.json()["message"]
        socks = await seated(game, alice, bob)
        side = next(s for s in socks if s in ("attackers", "defenders"))
        await socks[side].send({"t": "resign", "game": game, "id": "r"})
        await socks[side].reply_to("r")

        async def rated() -> bool | None:
            profile = (await alice.http.get(f"/api/players/{alice.id}")).json()
            return True if profile["ratings"].get("nielsen") else None

        await wait_for(rated, "alice's game rated", 10)
        r = await client.post(UPGRADE)
        assert refused(r) == (409, "bot_has_rated_games")
        assert (await client.get("/api/account")).json()["bot"] is False
    for s in socks.values():
        await s.close()


async def test_bots_have_a_leaderboard_of_their_own(hub: HubProcess, database_url: str) -> None:
    game, ann, ben = await friend_game(hub.url)
    socks = await seated(game, ann, ben)
    await socks["attackers"].send({"t": "resign", "game": game, "id": "r"})
    await socks["attackers"].reply_to("r")
    for p in (ann, ben):
        r = await p.http.post("/api/settings", json={"leaderboard": True})
        assert r.status_code == 200, r.text

        async def rated(p: Player = p) -> bool | None:
            profile = (await p.http.get(f"/api/players/{p.id}")).json()
            return True if profile["ratings"].get("nielsen") else None

        await wait_for(rated, f"{p.id} rated", 10)
    # Ben made a bot here directly, as if rated through the Bot API; both ratings settled.
    store = Store.from_url(database_url)
    try:
        async with store.engine.begin() as conn:
            await conn.execute(update(accounts).where(accounts.c.id == ben.id).values(bot=True))
            await conn.execute(
                update(ratings)
                .where(ratings.c.player_id.in_([ann.id, ben.id]))
                .values(rd=80.0, rating=2900.0)
            )
    finally:
        await store.close()
    people = (await ann.http.get("/api/leaderboard/nielsen")).json()
    assert people["bots"] is False
    ids = [e["id"] for e in people["players"]]
    assert ann.id in ids and ben.id not in ids
    bots = (await ann.http.get("/api/leaderboard/nielsen?bots=1")).json()
    assert bots["bots"] is True and bots["ruleset"] == "nielsen"
    entry = next(e for e in bots["players"] if e["id"] == ben.id)
    assert entry["bot"] is True and ann.id not in [e["id"] for e in bots["players"]]
    r = await ann.http.get("/api/leaderboard/nielsen?bots=yes")
    assert refused(r) == (400, "bad_field")
    for s in socks.values():
        await s.close()


def test_a_bot_accounts_player_object_says_so_and_a_persons_does_not() -> None:
    plain = running("d1-c1")
    assert plain.public()["players"]["defenders"] == {"id": D.id, "name": "Dan"}
    state = plain.evolve(bots=(D.id,))
    players = state.public()["players"]
    assert players == {
        "attackers": {"id": A.id, "name": "Ann"},
        "defenders": {"id": D.id, "name": "Dan", "bot": True},
    }
    # Kept in the game's hash, read back as written.
    h = {k.encode(): v if isinstance(v, bytes) else v.encode() for k, v in state.fields().items()}
    assert GameState.from_hash(state.id, h).bots == (D.id,)
    assert plain.fields()["bots"] == ""
