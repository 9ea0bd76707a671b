"""Takebacks over real websockets and Redis: against the bot at once (one ply or two,
racing its reply), between people by offer and answer in casual games only; the
repetitions counted again, and a finished game's record still verifies."""

from __future__ import annotations

from typing import Any

from services import HubProcess
from wsclient import Msg, Player, Socket, seated

# Four plies that come back to the start (Nielsen): its position then stands twice.
ROUND_TRIP = ("d1-c1", "d3-c3", "c1-d1", "c3-d3")


async def act(sock: Socket, msg: Msg) -> Msg:
    """Send an action; its ack or error."""
    await sock.send(msg)
    return await sock.reply_to(str(msg["id"]))


class Events:
    """A socket's events of one game, taken in order (an event may come before or after
    the ack of the action that made it: either is read first)."""

    def __init__(self, sock: Socket, game: str, n: int) -> None:
        self.sock, self.game, self.n = sock, game, n

    async def next(self) -> Msg:
        n, game = self.n + 1, self.game
        ev = await self.sock.seen_or_next(
            lambda m: m["t"] == "event" and m["game"] == game and m["n"] == n
        )
        self.n = n
        return ev


async def bot_game_as_attacker(base: str) -> tuple[Player, str, Socket, Msg]:
    """A guest attacking the bot (new guests until the seed gives one the attackers)."""
    for _ in range(12):
        guest = await Player(base).start()
        game = (await guest.create_game(opponent="bot", bot_level=1))["id"]
        sock = await guest.connect()
        snap = await sock.watch(game)
        if snap["state"]["players"]["attackers"]["id"] == guest.id:
            return guest, game, sock, snap
        await sock.close()
    raise AssertionError("the seed never gave a guest the attackers in 12 games")


async def test_taking_back_against_the_bot_before_and_after_its_reply(
    start_hub: Any, own_redis: Any
) -> None:
    # A hub with no bot search first: the bot's turn waits, so one ply goes back.
    front = start_hub({"BRANDUBH_BOT_PROCESSES": "0"}, redis=own_redis.url)
    guest, game, sock, snap = await bot_game_as_attacker(front.url)
    events = Events(sock, game, snap["n"])
    next_event = events.next
    start_position = snap["state"]["position"]
    refused = await act(sock, {"t": "takeback", "game": game, "ply": 0, "id": "t0"})
    assert refused["code"] == "nothing_to_take_back", refused
    await sock.move(game, 0, "d1-c1")
    assert (await next_event())["state"]["turn"] == "defenders"
    ack = await act(sock, {"t": "takeback", "game": game, "ply": 1, "id": "t1"})
    assert ack["t"] == "ack" and ack["of"] == "takeback", ack
    ev = await next_event()
    assert (ev["kind"], ev["by"], ev["plies"]) == ("takeback", "attackers", 1)
    state = ev["state"]
    assert (state["ply"], state["turn"], state["last"]) == (0, "attackers", None)
    assert state["position"] == start_position and state["deadline"]
    # Sent again: the same ack, nothing more happens.
    again = await act(sock, {"t": "takeback", "game": game, "ply": 1, "id": "t1"})
    assert again["duplicate"] is True and again["n"] == ack["n"]

    # Now a hub that plays the bot: its turn comes back with the player's move.
    start_hub({"BRANDUBH_BOT_PROCESSES": "1"}, redis=own_redis.url)
    await sock.move(game, 0, "d1-c1")
    await next_event()
    reply = await next_event()
    assert reply["kind"] == "move" and reply["by"] == "defenders", reply
    # Asked as if the reply had not come yet (ply 1): it goes too, two plies.
    ack = await act(sock, {"t": "takeback", "game": game, "ply": 1, "id": "t2"})
    assert ack["t"] == "ack", ack
    ev = await next_event()
    assert (ev["kind"], ev["plies"], ev["state"]["ply"]) == ("takeback", 2, 0)
    # A second takeback asked at the same ply lost the race: nothing more goes back.
    lost = await act(sock, {"t": "takeback", "game": game, "ply": 1, "id": "t3"})
    assert lost["code"] == "stale_ply", lost
    # The bot answers the same ply again (its message id for it was used before).
    await sock.move(game, 0, "d1-c1")
    await next_event()
    reply = await next_event()
    assert reply["kind"] == "move" and reply["state"]["ply"] == 2, reply
    snap = await (await guest.connect()).watch(game)
    assert snap["moves"] == ["d1-c1", reply["move"]]
    # A finished game's record holds the moves as finally played, and verifies.
    await act(sock, {"t": "resign", "game": game, "id": "r"})
    record = (await guest.http.get(f"/api/games/{game}/record")).text
    verdict = (await guest.http.post("/api/verify", content=record)).json()
    assert verdict["ok"] is True and verdict["moves"] == 2, verdict
    assert verdict["stored"]["same"] is True
    await sock.close()


async def casual_game(base: str, rated: bool = False) -> tuple[str, dict[str, Socket], Player]:
    alice = await Player(base).signup()
    bob = await Player(base).signup()
    created = await alice.create_game(opponent="friend", move_time=600, rated=rated)
    await bob.join(created["invite"])
    return created["id"], await seated(created["id"], alice, bob), alice


async def play(sockets: dict[str, Socket], game: str, ply: int, moves: tuple[str, ...]) -> Msg:
    """Play ``moves`` in turn from ``ply`` (the attackers' first); the last event."""
    ev: Msg = {}
    for i, text in enumerate(moves):
        mover = sockets["attackers" if (ply + i) % 2 == 0 else "defenders"]
        await mover.move(game, ply + i, text)
        ev = await mover.recv_until(
            lambda m, n=ply + i + 1: m["t"] == "event" and m["state"]["ply"] == n
        )
    return ev


async def test_between_people_an_offer_is_declined_then_accepted(hub: HubProcess) -> None:
    game, sockets, alice = await casual_game(hub.url)
    a, d = sockets["attackers"], sockets["defenders"]
    state = (await play(sockets, game, 0, ROUND_TRIP))["state"]
    assert (state["ply"], state["repetitions"], state["takeback_offer"]) == (4, 2, None)
    refused = await act(a, {"t": "takeback", "game": game, "ply": 4, "id": "x"})
    assert refused["code"] == "takeback_not_allowed", refused

    assert (await act(a, {"t": "takeback_offer", "game": game, "id": "o1"}))["t"] == "ack"
    offer = await d.recv_until(lambda m: m["t"] == "event" and m["kind"] == "takeback_offer")
    assert offer["by"] == "attackers" and offer["state"]["takeback_offer"] == "attackers"
    no = await act(d, {"t": "takeback_answer", "game": game, "accept": False, "id": "n1"})
    assert no["t"] == "ack" and no["of"] == "takeback_answer", no
    ev = await a.recv_until(lambda m: m["t"] == "event" and m["kind"] == "takeback_declined")
    assert ev["state"]["takeback_offer"] is None and ev["state"]["ply"] == 4
    again = await act(a, {"t": "takeback_offer", "game": game, "id": "o2"})
    assert again["code"] == "takeback_offer_too_soon", again

    # The defenders ask, on the attackers' turn: their last move goes back, one ply.
    assert (await act(d, {"t": "takeback_offer", "game": game, "id": "o3"}))["t"] == "ack"
    await a.recv_until(lambda m: m["t"] == "event" and m["kind"] == "takeback_offer")
    yes = await act(a, {"t": "takeback_answer", "game": game, "accept": True, "id": "y1"})
    assert yes["t"] == "ack", yes
    ev = await d.recv_until(lambda m: m["t"] == "event" and m["kind"] == "takeback")
    assert (ev["by"], ev["plies"]) == ("defenders", 1)
    assert (ev["state"]["ply"], ev["state"]["turn"], ev["state"]["repetitions"]) == (
        3,
        "defenders",
        1,
    )
    # Back to the start again: it has stood twice now, not three times (the position the
    # takeback removed no longer counts), so the game goes on.
    await d.move(game, 3, "c3-d3")
    ev = await d.recv_until(lambda m: m["t"] == "event" and m.get("move") == "c3-d3")
    assert ev["state"]["status"] == "active" and ev["state"]["repetitions"] == 2
    # One more round trip would make it three times, and the game ends by repetition.
    final = (await play(sockets, game, 4, ROUND_TRIP))["state"]
    assert final["status"] == "ended" and final["result"]["reason"] == "repetition", final
    record = (await alice.http.get(f"/api/games/{game}/record")).text
    verdict = (await alice.http.post("/api/verify", content=record)).json()
    assert verdict["ok"] is True and verdict["moves"] == 8, verdict
    for sock in sockets.values():
        await sock.close()


async def test_a_move_closes_an_open_offer(hub: HubProcess) -> None:
    game, sockets, _ = await casual_game(hub.url)
    a, d = sockets["attackers"], sockets["defenders"]
    await a.move(game, 0, "d1-c1")
    await d.recv_until(lambda m: m["t"] == "event" and m.get("move") == "d1-c1")
    assert (await act(a, {"t": "takeback_offer", "game": game, "id": "o"}))["t"] == "ack"
    await d.recv_until(lambda m: m["t"] == "event" and m["kind"] == "takeback_offer")
    await d.move(game, 1, "d3-c3")
    ev = await a.recv_until(lambda m: m["t"] == "event" and m.get("move") == "d3-c3")
    assert ev["takeback_closed"] is True and ev["state"]["takeback_offer"] is None
    late = await act(d, {"t": "takeback_answer", "game": game, "accept": True, "id": "y"})
    assert late["code"] == "no_takeback_offer", late
    for sock in sockets.values():
        await sock.close()


async def test_no_takebacks_in_a_rated_game(hub: HubProcess) -> None:
    game, sockets, _ = await casual_game(hub.url, rated=True)
    a = sockets["attackers"]
    await a.move(game, 0, "d1-c1")
    await a.recv_until(lambda m: m["t"] == "event" and m.get("move") == "d1-c1")
    refused = await act(a, {"t": "takeback_offer", "game": game, "id": "o"})
    assert refused["code"] == "takeback_not_allowed" and "rated" in refused["message"]
    state = (await a.watch(game))["state"]
    assert state["ply"] == 1 and state["takeback_offer"] is None
    for sock in sockets.values():
        await sock.close()
