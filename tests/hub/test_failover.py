"""A hub process dies mid-game; its clients move to another and nothing is lost."""

from __future__ import annotations

from typing import Any

from wsclient import Player, Socket, friend_game, side_of


async def test_hub_killed_mid_game_clients_resume_on_the_other(start_hub: Any) -> None:
    doomed, survivor = start_hub(), start_hub()
    game, alice, bob = await friend_game(doomed.url)
    sockets: dict[str, Socket] = {}
    players: dict[str, Player] = {}
    for p in (alice, bob):
        sock = await p.connect(doomed.url)
        snap = await sock.watch(game)
        side = side_of(snap["state"], p)
        sockets[side], players[side] = sock, p
    state, n = snap["state"], snap["n"]
    seen: list[str] = []
    for _ in range(4):
        mover = sockets[state["turn"]]
        move = state["legal"][len(seen) % len(state["legal"])]
        await mover.move(game, state["ply"], move)
        n += 1
        ev = await mover.event(n)
        seen.append(ev["move"])
        state = ev["state"]

    doomed.kill()
    for sock in sockets.values():
        assert await sock.close_code() is None  # killed: no close frame

    # Reconnect to the survivor with the last event number each client holds.
    for side, p in players.items():
        sock = await p.connect(survivor.url)
        await sock.send({"t": "watch", "game": game, "since": n})
        sockets[side] = sock
    mover = sockets[state["turn"]]
    move = state["legal"][0]
    await mover.move(game, state["ply"], move)
    for sock in sockets.values():
        ev = await sock.recv_until(lambda m: m["t"] in ("event", "snapshot"))
        assert ev["t"] == "event" and ev["n"] == n + 1 and ev["move"].startswith(move[:5])
    final = await Player(survivor.url).game(game)
    assert final["moves"][:4] == seen and final["state"]["ply"] == 5
    for sock in sockets.values():
        await sock.close()


async def test_the_seed_reaches_nobody_before_the_end(start_hub: Any) -> None:
    hub = start_hub()
    game, alice, bob = await friend_game(hub.url)
    watcher = await Player(hub.url).start()
    socks = [await p.connect() for p in (alice, bob, watcher)]
    for s in socks:
        await s.watch(game)
    snap = await alice.game(game)
    state, n = snap["state"], snap["n"]
    by_side = {
        side_of(state, alice): socks[0],
        side_of(state, bob): socks[1],
    }
    while state["status"] == "active":
        mover = by_side[state["turn"]]
        await mover.move(game, state["ply"], state["legal"][0])
        n += 1
        state = (await socks[2].event(n, timeout=15))["state"]
        await by_side["attackers"].event(n)
        await by_side["defenders"].event(n)
    seed_hex = state["seed"]
    assert seed_hex and len(seed_hex) == 64
    import hashlib

    assert hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest() == state["commitment"]
    seed = bytes.fromhex(seed_hex)
    for s in socks:
        final_index = max(i for i, f in enumerate(s.frames) if f.get("t") == "event")
        before = s.raw[:final_index]
        assert before, "frames before the final event"
        for raw in before:
            assert seed not in raw and seed_hex.encode() not in raw
            assert seed_hex.upper().encode() not in raw
        await s.close()
