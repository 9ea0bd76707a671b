"""The lessons in a browser, at 1280x800 and 390x844: a guest comes from the home page (the
bot game still one click away), goes through the first stages, earns stars, sees why a
wrong move fails and tries again, plays a two-move stage against the server's replies,
switches the rule set; no panel of a lesson lies over another. Screenshots go to
test-output/screenshots/."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from layout import overlaps, panel_boxes

from pages import PHONE, SIZES, click_move, in_view, name_of, shot

Page = Any
HubProcess = Any

LESSON_PANELS = {
    "crumbs": ".lesson-crumbs",
    "title": ".lesson-title",
    "task": "#lesson-task",
    "board": ".lesson-board .board",
    "feedback": "#lesson-feedback",
    "actions": ".lesson-side .lesson-actions",
    "hint": "#lesson-hint",
    "explain": "#lesson-explain",
}


def no_overlap(page: Page, what: str) -> None:
    boxes = panel_boxes(page, LESSON_PANELS)
    assert {"task", "board", "feedback", "actions", "explain"} <= set(boxes), boxes
    bad = overlaps(boxes, set())
    assert not bad, f"{what}: panels overlap: " + "; ".join(bad)
    width = page.viewport_size["width"]
    for name, box in boxes.items():
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (what, name, box)


def feedback(page: Page, kind: str) -> str:
    page.wait_for_selector(f'#lesson-feedback[data-kind="{kind}"]')
    return str(page.text_content("#lesson-feedback"))


@pytest.mark.parametrize("size", SIZES)
def test_a_guest_learns_the_first_stages(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    name = name_of(size)
    page = new_page(size)
    page.goto(web_hub.url + "/")
    page.wait_for_selector("#home-learn-link")
    assert in_view(page, "#play-bot"), "the bot game is one click from a cold start"
    assert in_view(page, "#home-learn-link")
    shot(page, f"learn-home-{name}", full=False)
    if name == "phone":
        page.click("#nav-menu")
    assert page.is_visible("#nav-learn")
    page.click("#home-learn-link")

    page.wait_for_selector('.learn-stage.next[data-stage="moving"]')
    assert "Nielsen" in str(page.text_content("#learn-progress"))
    assert page.get_attribute('#learn-switch [data-ruleset="nielsen"]', "aria-pressed") == "true"
    shot(page, f"learn-list-{name}")
    page.click('.learn-stage[data-stage="moving"] a')

    page.wait_for_selector("#lesson-task")
    assert "d2 to d6" in str(page.text_content("#lesson-task"))
    no_overlap(page, "a new stage")
    page.click("#lesson-hint-btn")
    assert page.is_visible("#lesson-hint")
    no_overlap(page, "the hint shown")

    click_move(page, "d2-d5")
    reason = feedback(page, "failure")
    assert "d2-d5 does not bring a piece to d6" in reason
    assert page.is_visible("#lesson-retry") and not page.is_visible("#lesson-next")
    no_overlap(page, "a wrong move's reason")
    shot(page, f"learn-wrong-{name}")

    page.click("#lesson-retry")
    feedback(page, "task")
    click_move(page, "d2-d6")
    assert "slides as far" in feedback(page, "success")
    assert page.text_content("#lesson-star") == "★"
    no_overlap(page, "a success")
    shot(page, f"learn-success-{name}")

    page.click("#lesson-next")
    page.wait_for_url("**/learn/nielsen/king")
    page.wait_for_selector("#lesson-task")
    click_move(page, "Kd2-d6")
    feedback(page, "success")

    # Two moves against the server's best defence.
    page.goto(web_hub.url + "/learn/nielsen/escape")
    page.wait_for_selector("#lesson-task")
    click_move(page, "Kc3-c7")
    assert "The attackers answered" in feedback(page, "going")
    no_overlap(page, "a stage going on")
    click_move(page, "Kc7-a7")
    feedback(page, "success")

    page.click("#lesson-back")
    page.wait_for_selector('.learn-stage.next[data-stage="capture"]')
    stars = page.locator(".learn-stage.done").evaluate_all("els => els.map(e => e.dataset.stage)")
    assert stars == ["moving", "king", "escape"]
    assert "3 of 12 stars" in str(page.text_content("#learn-progress"))

    # The rule-set switch: walker's king goes home to the throne.
    page.click('#learn-switch [data-ruleset="walker"]')
    page.wait_for_selector('.learn-stage.next[data-stage="moving"]')
    task = page.text_content('.learn-stage[data-stage="king"] .learn-task')
    assert "throne" in str(task)
    assert page.url.endswith("/learn/walker")
    shot(page, f"learn-walker-{name}")
    assert page.errors == []


def test_the_last_stage_starts_a_game_against_the_bot_at_level_1(
    new_page: Any, web_hub: HubProcess
) -> None:
    page = new_page(PHONE)
    page.goto(web_hub.url + "/learn/walker/first-game")
    page.wait_for_selector("#lesson-play")
    assert "level 1" in str(page.text_content("#lesson-play"))
    page.click("#lesson-play")
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    game_id = page.url.rsplit("/", 1)[1]
    state = httpx.get(f"{web_hub.url}/api/games/{game_id}").json()["state"]
    assert (state["ruleset"], state["bot_level"]) == ("walker", 1), state
    assert page.errors == []
