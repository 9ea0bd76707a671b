"""One place for each refusal: every refusal code raised anywhere (Lua scripts' replies
included) is in errors.CODES, each situation says one message, docs/protocol.md's table is
that registry, and the client tells apart only codes the server gives."""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import Path

import pytest

from brandubh.hub.errors import CODES, ProtocolError, RateLimited, Refusal, http_status
from brandubh.hub.live import changes
from brandubh.hub.live.games import rematch_refusal
from brandubh.hub.mail import tokens
from states import A, D, running

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "brandubh"
HUB = SRC / "hub"
LUA = HUB / "redis" / "lua"
PROTOCOL = ROOT / "docs" / "protocol.md"
CLIENT = ROOT / "client" / "src"
PUBLIC = {code for code, known in CODES.items() if not known.internal}


# -- the registry --------------------------------------------------------------------------


def test_a_refusal_says_its_codes_message_unless_given_a_fact() -> None:
    assert Refusal("not_your_turn").message == CODES["not_your_turn"].message
    assert Refusal("not_found", "there is no game x").message == "there is no game x"
    assert RateLimited("too many tries", 5).code == "rate_limited"
    assert http_status("not_found") == 404 and http_status("bad_field") == 400
    with pytest.raises(ValueError, match=r"not in errors\.CODES"):
        Refusal("no_such_code")
    with pytest.raises(ValueError, match="'bad_frme'"):
        ProtocolError("bad_frme", "a typo")


def test_every_code_has_a_status_and_a_sentence() -> None:
    for code, known in CODES.items():
        assert re.fullmatch(r"[a-z]+(_[a-z]+)*", code), code
        assert known.status in {400, 401, 403, 404, 409, 410, 413, 429, 503}, code
        assert known.message and known.message[0].islower(), code  # the client capitalises
        assert not known.message.endswith("."), code


def _literal_codes() -> dict[str, list[str]]:
    """code -> where, for each refusal in the source whose code is written out: the first
    argument of Refusal, ProtocolError or frames.error, RateLimited's ``code`` (rate_limited
    unless given), and the
    "error" of an HTTP error body ({"error": code, "message": ...})."""
    found: dict[str, list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            where = f"{path.relative_to(SRC)}:{getattr(node, 'lineno', 0)}"
            codes: list[ast.expr] = []
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                refusing = name in ("Refusal", "ProtocolError")
                if name == "RateLimited":  # its code: rate_limited unless given as code=
                    given = [k.value for k in node.keywords if k.arg == "code"]
                    codes += given or [ast.Constant("rate_limited")]
                elif node.args and (refusing or ast.unparse(func) == "frames.error"):
                    codes.append(node.args[0])
            elif isinstance(node, ast.Dict):
                keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
                if "error" in keys and "message" in keys:
                    codes.append(node.values[keys.index("error")])
            for expr in codes:  # a conditional code: both its branches
                branches = [expr.body, expr.orelse] if isinstance(expr, ast.IfExp) else [expr]
                for branch in branches:
                    if isinstance(branch, ast.Constant) and isinstance(branch.value, str):
                        found.setdefault(branch.value, []).append(where)
    return found


def test_every_http_error_body_is_made_from_a_refusal() -> None:
    """One place makes an HTTP error body (http/base.refusal_body, from a ``Refusal``, whose
    code must be in the registry): no other dict in the source has an "error" key, so no
    route, handler or verdict (/api/verify's) writes a code or a message of its own."""
    makers = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Dict)
                and any(isinstance(k, ast.Constant) and k.value == "error" for k in node.keys)
            ) or (isinstance(node, ast.Call) and any(k.arg == "error" for k in node.keywords)):
                makers.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert [m.partition(":")[0] for m in makers] == ["hub/http/base.py"], makers


def test_every_code_raised_in_the_source_is_in_the_registry() -> None:
    found = _literal_codes()
    assert len(found) > 30  # the scan finds them
    unknown = {code: where for code, where in found.items() if code not in CODES}
    assert unknown == {}


def test_a_message_given_at_a_raise_site_adds_to_the_registrys() -> None:
    """A raise site that writes out its message never repeats its code's own message, nor
    one that another site of the same code writes out: a fixed message lives in CODES."""
    sites: dict[tuple[str, str], list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or len(node.args) < 2:
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            code, message = node.args[0], node.args[1]
            if (
                name in ("Refusal", "ProtocolError")
                and isinstance(code, ast.Constant)
                and isinstance(message, ast.Constant)
            ):
                where = f"{path.relative_to(SRC)}:{node.lineno}"
                sites.setdefault((str(code.value), str(message.value)), []).append(where)
    assert len(sites) > 20
    wrong = {
        f"{code}: {message}": where
        for (code, message), where in sites.items()
        if len(where) > 1 or CODES[code].message == message
    }
    assert wrong == {}


def test_every_code_in_the_registry_is_raised_somewhere() -> None:
    """No code is kept that nothing gives (the scripts' codes are given as they are)."""
    given = set(_literal_codes()) | _lua_codes()
    given |= {f"token_{state}" for state in _token_states()}
    assert set(CODES) - given == set()


def _lua_replies() -> dict[str, set[str]]:
    """script -> the codes of its ``{'err', code, ...}`` replies."""
    return {
        path.name: set(re.findall(r"\{'err', '(\w+)'", path.read_text()))
        for path in sorted(LUA.glob("*.lua"))
    }


def _lua_codes() -> set[str]:
    return {code for codes in _lua_replies().values() for code in codes}


def _token_states() -> set[str]:
    """What lua/token.lua answers for a token that is not good."""
    return set(re.findall(r"return \{'(\w+)'\}", (LUA / "token.lua").read_text()))


def test_every_scripts_refusal_becomes_a_registered_code() -> None:
    """Each Lua script's error reply is raised through a registered code (Refusal refuses
    any other): commit.lua's through changes.script_refusal, in the words of the check it
    repeats; the rematch scripts' through rematch_refusal; the lobby's as they are."""
    replies = _lua_replies()
    assert replies["commit.lua"] >= {"stale_ply", "wrong_status", "id_reused", "not_found"}
    change = changes.Change(running(), {"kind": "move"}, (), ply=0)
    for script, codes in replies.items():
        for code in codes:
            if script == "commit.lua":
                detail = "ended" if code == "wrong_status" else "3"
                if code == "internal":  # a fault of the hub's own, never a refusal
                    with pytest.raises(RuntimeError):
                        changes.script_refusal(code, detail, change)
                    continue
                refused = changes.script_refusal(code, detail, change)
            elif script.startswith("rematch"):
                refused = rematch_refusal(code)
            else:
                refused = Refusal(code)
            assert refused.code in CODES, (script, code)
    for state_name in _token_states() - {"ok"}:
        assert tokens.refusal(state_name, "verify").code == f"token_{state_name}"


def test_a_race_lost_in_commit_lua_reads_as_the_check_it_repeats() -> None:
    """The same refusal, in the same words, whether the cache or Redis saw it."""
    state = running()
    change = changes.Change(state, {"kind": "move"}, (), ply=0)
    for code, detail, seen in (
        ("stale_ply", "1", changes.move_refusal(replace(state, ply=1), A.id, 0, "m")),
        (
            "wrong_status",
            "ended",
            changes.move_refusal(replace(state, status="ended"), A.id, 0, "m"),
        ),
        ("not_your_turn", D.id, changes.move_refusal(replace(state, turn=D.id), A.id, 0, "m")),
    ):
        assert seen is not None
        by_script = changes.script_refusal(code, detail, change)
        assert (by_script.code, by_script.message) == (seen.code, seen.message)


def test_each_rematch_refusal_has_one_message() -> None:
    """Asking for a rematch of an archived game, and declining one, say the same."""
    assert rematch_refusal("not_found").code == "rematch_closed"
    for code in ("game_not_over", "no_rematch_offer", "rematch_declined"):
        assert rematch_refusal(code).message == CODES[code].message


# -- the docs ------------------------------------------------------------------------------


def _doc_table() -> dict[str, int]:
    """code -> HTTP status, from docs/protocol.md §3.5's table."""
    text = PROTOCOL.read_text()
    section = text[text.index("### 3.5 Error codes") : text.index("## 3.6")]
    rows = re.findall(r"^\| `(\w+)` \| (\d{3}) \|", section, re.M)
    assert len(rows) == len({code for code, _ in rows}), "a code listed twice"
    return {code: int(status) for code, status in rows}


def test_the_docs_table_is_the_registry() -> None:
    assert _doc_table() == {code: CODES[code].status for code in PUBLIC}


def test_every_status_the_docs_give_a_code_is_its_status() -> None:
    """Wherever the docs say "`code` (404" or "`404 code`", the registry agrees."""
    checked = 0
    wrong = []
    for doc in (PROTOCOL, ROOT / "docs" / "accounts.md"):
        text = doc.read_text()
        said = re.findall(r"`([a-z_]+)` \(([45]\d\d)\b", text)
        said += [(c, s) for s, c in re.findall(r"`([45]\d\d) ([a-z_]+)`", text)]
        checked += len(said)
        for code, status in said:
            if code not in CODES or CODES[code].status != int(status):
                wrong.append(f"{doc.name}: {code} {status}")
    assert checked > 20 and wrong == []


def test_every_error_the_docs_name_is_a_code() -> None:
    """Each error the docs name (error `cannot_abort`; "Lobby error codes: …") is a code."""
    text = PROTOCOL.read_text()
    named = set(re.findall(r"error `(\w+)`", text))
    named |= set(re.findall(r"`error` `(\w+)`", text))
    for paragraph in re.findall(r"error codes[^:]*:(.*?)\n\n", text, re.S):
        named |= set(re.findall(r"`(\w+)` \(", paragraph))
        named |= set(re.findall(r"`([a-z]+_[a-z_]+)`", paragraph))
    assert len(named) > 20
    assert named - PUBLIC == set()


def test_the_client_knows_only_codes_the_server_gives() -> None:
    """The codes the client tells apart (its words for each) are the server's, besides
    the few it makes itself for a request that never reached the server."""
    own = {"offline", "dropped", "cancelled", "network"}  # no answer came from the server
    seen: set[str] = set()
    for path in CLIENT.rglob("*.ts"):
        if path.name.endswith(".test.ts"):
            continue
        text = path.read_text()
        seen |= set(re.findall(r"\bcode [!=]== \"(\w+)\"", text))
        seen |= set(re.findall(r"new ApiError\(\"(\w+)\"", text))
        for body in re.findall(r"function \w*[eE]rrorText\(.*?\n}\n", text, re.S):
            seen |= set(re.findall(r"case \"(\w+)\":", body))
            seen |= set(re.findall(r"^\s+(\w+): \"", body, re.M))
        for codes in re.findall(r"ACCOUNT_CODES = new Set\(\[(.*?)\]\)", text):
            seen |= set(re.findall(r"\"(\w+)\"", codes))
    assert len(seen) > 20
    assert seen - own - PUBLIC == set()
