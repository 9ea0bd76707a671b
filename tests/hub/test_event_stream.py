"""The account event stream on real hubs (docs/protocol.md §2.10): its opening lines (open
challenges, games in progress), its live lines (a challenge made, cancelled, declined, a
game started and finished), delivered from another hub, given again when reopened after
its hub stopped; a bot account that plays a whole game it was challenged to, through its
token alone; the per-account cap and who may open one."""

from __future__ import annotations

import os
import signal
from typing import Any

import httpx
import pytest
from api_tokens import error_of
from challenge_clients import EventReader, bot_account, token_client

from services import HubProcess
from waiting import wait_for
from wsclient import Msg, Player

QUICK_ESCAPE = ["g4-g3", "d5-g5", "g3-g2", "Kd4-d5", "g2-g3", "Kd5-a5", "g3-g2", "Ka5-a7"]


async def challenge(client: httpx.AsyncClient, target: str, **terms: object) -> Msg:
    r = await client.post(f"/api/challenge/{target}", json=terms)
    assert r.status_code == 201, r.text
    made: Msg = r.json()["challenge"]
    return made


async def accepted(client: httpx.AsyncClient, game: str) -> None:
    r = await client.post(f"/api/challenge/{game}/accept")
    assert r.status_code == 200, r.text


async def test_the_opening_lines_then_the_live_ones(hub: HubProcess) -> None:
    ann = await Player(hub.url).signup(name="Ann Streamer")
    ben = await Player(hub.url).signup(name="Ben Sender")
    carl = await Player(hub.url).signup(name="Carl Player")
    ann_api = await token_client(hub, ann, ["challenge:write"])
    waiting = await challenge(ben.http, ann.id, move_time=600)
    mine = await challenge(ann_api, carl.id, side="defenders")
    playing = await challenge(carl.http, ann.id, side="attackers")
    await accepted(ann_api, playing["id"])
    stream = await EventReader(ann_api).open()
    assert stream.headers is not None
    assert stream.headers["content-type"] == "application/x-ndjson"
    first, second, third = await stream.take(3)
    assert first == {"type": "challenge", "challenge": waiting}  # oldest first
    assert second == {"type": "challenge", "challenge": mine}
    assert third["type"] == "gameStart"
    assert third["game"] == {
        "id": playing["id"],
        "url": f"/g/{playing['id']}",
        "ruleset": "nielsen",
        "move_time": 300,
        "rated": True,
        "side": "defenders",
        "opponent": {"id": carl.id, "name": "Carl Player", "bot": False},
        "status": "active",
        "result": None,
    }
    # Live: a challenge made, cancelled; another declined; one accepted, then its end.
    made = await challenge(carl.http, ann.id, ruleset="walker")
    assert await stream.next() == {"type": "challenge", "challenge": made}
    assert (await ben.http.post(f"/api/challenge/{waiting['id']}/cancel")).status_code == 200
    line = await stream.next()
    assert line is not None and line["type"] == "challengeCanceled"
    assert line["challenge"] == {**waiting, "status": "canceled"}
    r = await ann_api.post(f"/api/challenge/{made['id']}/decline", json={"reason": "ruleset"})
    assert r.status_code == 200, r.text
    line = await stream.next()
    assert line == {
        "type": "challengeDeclined",
        "challenge": {**made, "status": "declined", "declineReason": "ruleset"},
    }
    await accepted(carl.http, mine["id"])
    line = await stream.next()
    assert line is not None and line["type"] == "gameStart"
    assert line["game"]["id"] == mine["id"] and line["game"]["side"] == "defenders"
    sock = await carl.connect()
    await sock.watch(mine["id"])
    await sock.send({"t": "resign", "game": mine["id"], "id": "r1"})
    line = await stream.next()
    assert line is not None and line["type"] == "gameFinish"
    assert line["game"]["status"] == "ended"
    assert line["game"]["result"] == {"winner": "defenders", "reason": "resignation"}
    await wait_for(lambda: stream.keepalives >= 1, "a keep-alive line", 20, 0.2)
    await stream.close()
    await ann_api.aclose()


@pytest.mark.cluster
async def test_a_challenge_made_on_one_hub_reaches_a_stream_on_another(
    hub: HubProcess, hub2: HubProcess
) -> None:
    ann = await Player(hub.url).signup()
    ben = await Player(hub.url).signup()
    made = await token_client(hub2, ann, ["bot:play"])
    stream = await EventReader(made).open()
    there = await ann.connect(hub2.url)  # the site's socket on hub2 too
    sent = await challenge(ben.http, ann.id)
    assert await stream.next() == {"type": "challenge", "challenge": sent}
    frame = await there.recv_until(lambda m: m["t"] == "challenge")
    assert frame["challenge"] == sent
    r = await ben.http.post(f"/api/challenge/{sent['id']}/cancel")
    assert r.status_code == 200, r.text
    line = await stream.next()
    assert line is not None and line["type"] == "challengeCanceled"
    gone = await there.recv_until(lambda m: m["t"] == "challenge_gone")
    assert gone["challenge"]["status"] == "canceled"
    await stream.close()
    await made.aclose()


async def test_reopened_after_its_hub_restarts_it_gives_everything_again(
    start_hub: Any, hub: HubProcess
) -> None:
    h = start_hub()
    ann = await Player(hub.url).signup()
    ben = await Player(hub.url).signup()
    api = await token_client(h, ann, ["challenge:write"])
    open_one = await challenge(ben.http, ann.id)
    game = await challenge(ben.http, ann.id, side="attackers")
    await accepted(ann.http, game["id"])
    stream = await EventReader(api).open()
    before = await stream.take(2)
    assert [line["type"] for line in before] == ["challenge", "gameStart"]
    assert h.proc is not None
    os.kill(h.pid, signal.SIGTERM)  # a hub that stops ends its streams at once
    assert await stream.next(20) is None
    h.proc.wait(20)
    assert "Traceback" not in "".join(h.log), "".join(h.log)
    again = start_hub()
    api2 = httpx.AsyncClient(base_url=again.url, headers=dict(api.headers))
    reopened = await EventReader(api2).open()
    assert await reopened.take(2) == before
    assert before[0]["challenge"] == open_one
    assert before[1]["game"]["id"] == game["id"] and before[1]["game"]["side"] == "defenders"
    await reopened.close()
    await api.aclose()
    await api2.aclose()


async def test_a_bot_account_plays_a_whole_game_it_was_challenged_to(hub: HubProcess) -> None:
    bot, api = await bot_account(hub, "Knotwork Engine")
    person = await Player(hub.url).signup(name="Person Player")
    events = await EventReader(api).open()
    made = await challenge(person.http, bot.id, side="attackers")
    assert made["to"] == {"id": bot.id, "name": "Knotwork Engine", "bot": True}
    assert made["rated"] is True
    assert await events.next() == {"type": "challenge", "challenge": made}
    game = made["id"]
    await accepted(api, game)  # the bot accepts with its token (bot:play)
    start = await events.until("gameStart")
    assert start["game"]["side"] == "defenders" and start["game"]["opponent"]["id"] == person.id
    sock = await person.connect()
    snap = await sock.watch(game)
    assert snap["state"]["players"]["defenders"] == {
        "id": bot.id,
        "name": "Knotwork Engine",
        "bot": True,
    }
    async with api.stream("GET", f"/api/bot/game/stream/{game}", timeout=30) as r:
        assert r.status_code == 200
        lines = r.aiter_lines()
        full = await anext(lines)
        assert '"type":"gameFull"' in full
        for ply, mv in enumerate(QUICK_ESCAPE):
            if ply % 2 == 0:
                await sock.move(game, ply, mv)
            else:
                r2 = await api.post(f"/api/bot/game/{game}/move/{mv}", params={"ply": ply})
                assert r2.status_code == 200, r2.text
            await sock.recv_until(lambda m, p=ply: m["t"] == "event" and m["state"]["ply"] == p + 1)
    finish = await events.until("gameFinish")
    assert finish["game"]["result"] == {"winner": "defenders", "reason": "king_escaped"}
    await events.close()
    await api.aclose()


async def test_who_may_open_it_and_how_many(hub: HubProcess) -> None:
    ann = await Player(hub.url).signup()
    r = await ann.http.get("/api/stream/event")  # a session: no token
    assert (r.status_code, error_of(r)) == (401, "token_invalid")
    reader = await token_client(hub, ann, ["games:read"])
    r = await reader.get("/api/stream/event")
    assert (r.status_code, error_of(r)) == (403, "token_scope")
    api = await token_client(hub, ann, ["challenge:write"])
    streams = [await EventReader(api).open() for _ in range(4)]
    fifth = await EventReader(api).open(expect=429)
    assert b"too_many_streams" in fifth.body
    await streams[0].close()  # its place is free once the hub sees its client go
    sixth = await wait_for(lambda: _opens(api), "a stream to open once one closed", 10, 0.2)
    await sixth.close()
    for stream in streams[1:]:
        await stream.close()
    await reader.aclose()
    await api.aclose()


async def _opens(api: httpx.AsyncClient) -> EventReader | None:
    stream = EventReader(api)
    try:
        return await stream.open()
    except AssertionError:
        await stream.close()
        return None
