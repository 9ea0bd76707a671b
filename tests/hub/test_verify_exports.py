"""POST /api/verify's answer to a JSON body: a tournament's export is checked by the core's
verifier (the browser test checks a real finished arena); anything else is said plainly."""

from __future__ import annotations

from brandubh.hub.http.games import tournament_verdict


def test_json_that_is_not_an_export_is_said_to_be_so() -> None:
    broken = tournament_verdict(b'{"export": ')
    assert broken["ok"] is False
    assert broken["error"] == "export_invalid"
    assert str(broken["message"]).startswith("not a record, nor a tournament export")
    assert tournament_verdict(b'{"game": "abc"}') == {
        "ok": False,
        "error": "export_invalid",
        "message": "a JSON document, but not a tournament export",
    }


def test_an_export_missing_its_parts_lists_its_problems() -> None:
    from brandubh.tournaments import EXPORT_VERSION

    verdict = tournament_verdict(b'{"export": "%s", "id": "t1"}' % EXPORT_VERSION.encode())
    assert verdict["ok"] is False
    assert verdict["tournament"] == "t1"
    problems = verdict["problems"]
    assert isinstance(problems, list) and problems and verdict["message"] == problems[0]
    assert verdict["error"] == "export_invalid"
