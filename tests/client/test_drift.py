"""The server and the browser client speak one vocabulary: these fail when either side
changes without the other. The client's side is read from its TypeScript source."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from brandubh.engine import OTN_RULES
from brandubh.hub.messages.protocol import MESSAGES

# Notices between hubs on their own channel (keys.hub_channel); no client ever sees them.
HUB_TO_HUB = {"sessions_ended", "turn_for", "analysis_evaluated", "account_notice"}

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL_TS = ROOT / "client" / "src" / "network" / "protocol.ts"
ROUTES_TS = ROOT / "client" / "src" / "routes.ts"
HUB = ROOT / "src" / "brandubh" / "hub"


def ts_block(source: str, start: str) -> str:
    """The text of a TypeScript declaration from ``start`` to its closing ``;`` or ``}``."""
    at = source.index(start)
    if "interface" in start:
        return source[at : source.index("\n}", at)]
    return source[at : source.index(";\n", at)]


def union_members(source: str, name: str) -> list[str]:
    block = ts_block(source, f"export type {name} =").split("=", 1)[1]
    return re.findall(r"(?:^|\|)\s*([A-Za-z]+)", block.strip())


def frame_types(source: str, union: str) -> set[str]:
    """Every `t` of a union of frame interfaces (following nested unions)."""
    out: set[str] = set()
    for member in union_members(source, union):
        if f"export type {member} =" in source:
            out |= frame_types(source, member)
        else:
            block = ts_block(source, f"export interface {member} {{")
            out |= set(re.findall(r'\bt: "([a-z_]+)"', block))
    return out


def client_message_types(source: str) -> set[str]:
    """The `t` of every inline member of ClientFrame's unions."""
    out: set[str] = set()
    for union in union_members(source, "ClientFrame"):
        out |= set(re.findall(r'\{ t: "([a-z_]+)"', ts_block(source, f"export type {union} =")))
    return out


def server_frame_types() -> set[str]:
    """Every frame type the hub builds: `"t": "…"` in Python, `t = '…'` in its Lua."""
    found: set[str] = set()
    for path in HUB.rglob("*.py"):
        found |= set(re.findall(r'["\']t["\']\s*:\s*["\']([a-z_]+)["\']', path.read_text()))
    for path in (HUB / "redis" / "lua").glob("*.lua"):
        found |= set(re.findall(r"\bt\s*=\s*'([a-z_]+)'", path.read_text()))
    return found


def public_state_keys() -> set[str]:
    """The keys of the dict GameState.public() returns, read from its source: its own dict
    literal and, spread into it, the one of ``_public_terms`` (the terms no move changes),
    with the keys that one adds only when set (``terms["tournament"] = …``)."""
    tree = ast.parse((HUB / "live" / "state.py").read_text())
    functions = {
        node.name: node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name in ("public", "_public_terms")
    }
    assert set(functions) == {"public", "_public_terms"}, "GameState.public() moved"
    keys: set[str] = set()
    for function in functions.values():
        for sub in ast.walk(function):
            # `view: dict[…] = {…}` (an annotated assignment) holds the literal too.
            value = sub.value if isinstance(sub, ast.Return | ast.Assign | ast.AnnAssign) else None
            if isinstance(value, ast.Dict):
                keys |= {str(k.value) for k in value.keys if isinstance(k, ast.Constant)}
            if isinstance(sub, ast.Assign):
                keys |= {
                    str(t.slice.value)
                    for t in sub.targets
                    if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant)
                }
    assert keys, "GameState.public() returns no dict literal"
    return keys


def ts_state_fields(source: str) -> set[str]:
    block = ts_block(source, "export interface State {")
    return set(re.findall(r"^  ([a-z_]+)\??:", block, flags=re.M))


def test_the_client_sends_exactly_the_servers_message_types() -> None:
    client = client_message_types(PROTOCOL_TS.read_text())
    assert client == set(MESSAGES), (
        f"only the server: {sorted(set(MESSAGES) - client)}; only the client: "
        f"{sorted(client - set(MESSAGES))}"
    )


def test_every_frame_the_server_builds_is_in_the_clients_union() -> None:
    client = frame_types(PROTOCOL_TS.read_text(), "ServerFrame")
    server = server_frame_types()
    # The hub also builds messages it only receives in tests or sends to itself; every
    # one of them must still be a type the client knows or a client message.
    missing = server - client - set(MESSAGES) - HUB_TO_HUB
    assert not missing, f"frames the hub sends that protocol.ts does not know: {sorted(missing)}"
    assert {"presence", "turn", "match", "paired", "ack"} <= client


def test_the_typescript_state_has_every_field_of_the_servers() -> None:
    server, client = public_state_keys(), ts_state_fields(PROTOCOL_TS.read_text())
    assert server == client, (
        f"only the server: {sorted(server - client)}; only the client: {sorted(client - server)}"
    )


def test_the_hub_serves_every_page_of_the_clients_route_table() -> None:
    examples = re.findall(r'example: "([^"]+)"', ROUTES_TS.read_text())
    assert len(examples) >= 10
    http = (HUB / "http" / "games.py").read_text()
    patterns = [
        re.compile("^" + re.sub(r"\{[a-z_]+\}", "[^/]+", p) + "/?$")
        for p in re.findall(r'Route\("([^"]+)", (?:page|ruleset_page)\)', http)
    ]
    unserved = [e for e in examples if not any(p.match(e) for p in patterns)]
    assert not unserved, f"client pages the hub does not serve: {unserved}"


def test_the_client_tells_guests_by_the_hubs_prefix() -> None:
    """The client asks no profile of a guest (none exists): it knows them by their id's
    prefix, which must be the hub's."""
    from brandubh.hub.accounts.sessions import GUEST_PREFIX

    source = (ROOT / "client" / "src" / "network" / "account.ts").read_text()
    assert f'export const GUEST_PREFIX = "{GUEST_PREFIX}";' in source


def test_the_mail_writes_move_times_as_the_site_does() -> None:
    """A reminder says "1 day per move" where the site says "1 day": the mail's
    move_time gives what the client's durationText test expects, value for value."""
    from brandubh.hub.mail.mails import move_time

    test = (ROOT / "client" / "src" / "logic" / "status.test.ts").read_text()
    found = re.search(r"\[([\d, ]+)\]\.map\(durationText\)\)\.toEqual\(\[\s*([^\]]+)\]", test)
    assert found, "status.test.ts no longer lists durationText's cases"
    seconds = [int(x) for x in found.group(1).split(",")]
    words = re.findall(r'"([^"]+)"', found.group(2))
    assert len(seconds) == len(words) >= 7
    assert [move_time(s) for s in seconds] == words


def test_the_replay_offers_opentafl_notation_for_the_rule_sets_it_can_say() -> None:
    source = (ROOT / "client" / "src" / "pages" / "replay.ts").read_text()
    found = re.search(r"OTN_RULESETS: readonly string\[\] = \[([^\]]*)\]", source)
    assert found, "replay.ts no longer names the rule sets OTN can say"
    assert re.findall(r'"(\w+)"', found.group(1)) == list(OTN_RULES)
