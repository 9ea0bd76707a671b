"""The mail flows in the browser, end to end, reading the mails a real SMTP server got:
sign up, follow the confirmation link, play rated; forget the password, follow the reset
link, set a new one and log in; a bad link says which and offers a new one.

Real Chromium, a real hub, real Redis, aiosmtpd (fixtures in tests/conftest.py).
Screenshots go to test-output/screenshots/ (mail-*).
"""

from __future__ import annotations

import re
import secrets
from typing import Any

import wsclient
from pages import SMALL_PHONE, TALL_DESKTOP, shot

Page = Any  # playwright.sync_api.Page
HubProcess = Any  # services.HubProcess

PASSWORD = "a long walk to the corner"
NEW_PASSWORD = "another long walk home"


def sign_up_form(page: Page, base: str) -> str:
    email = f"mail{secrets.token_hex(5)}@example.org"
    page.goto(base + "/signup")
    page.fill("#signup-email", email)
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-submit")
    page.wait_for_selector(f"#signup-sent:has-text('We sent a link to {email}')")
    return email


def test_sign_up_confirm_by_the_mailed_link_then_play_rated(
    new_page: Any, web_hub: HubProcess
) -> None:
    base = web_hub.url
    ann = new_page(TALL_DESKTOP)
    email = sign_up_form(ann, base)
    shot(ann, "mail-signup-sent")
    # Nobody is logged in until the link is followed: no account, no banner.
    assert ann.locator("#nav-profile").count() == 0
    r = ann.context.request.post(
        base + "/api/games", data={"opponent": "friend"}, headers={"Origin": base}
    )
    assert r.status == 403 and r.json()["error"] == "account_required"
    # The mail's link shows whose account it confirms and asks; its button confirms the
    # address and logs in.
    mail = wsclient.MAILBOX.wait_blocking(email, wsclient.CONFIRM)
    ann.goto(mail.link("/verify-email/"))
    ann.wait_for_selector('#verify-email-status[data-state="ask"]')
    assert email in ann.inner_text("#verify-email-status")
    assert "logs you in" in ann.inner_text("#verify-email-effect")
    # This browser held no session when it signed up: the page asks for the password.
    assert "sets it as the account's password" in ann.inner_text("#verify-email-ask")
    ann.fill("#verify-email-password", PASSWORD)
    ann.click("#verify-email-confirm")
    ann.wait_for_selector('#verify-email-status[data-state="ok"]')
    shot(ann, "mail-confirmed")
    ann.click("#verify-email-lobby")  # a full load: the header follows the new session
    ann.wait_for_selector("#nav-profile")
    assert ann.locator("#mail-banner").count() == 0
    # Rated play against a person now works: a rated friend game with its invite link.
    ann.goto(base + "/")
    assert ann.is_checked("#rated")
    ann.click("#play-friend")
    ann.locator("#invite-link").wait_for()
    # The account page says the address is confirmed and offers the reminders switch.
    ann.goto(base + "/account")
    ann.wait_for_selector("#mail-verified")
    assert ann.is_checked("#reminders-on")
    ann.uncheck("#reminders-on")
    ann.wait_for_selector("#reminders-saved:has-text('off')")
    # The link again says it was used.
    ann.goto(mail.link("/verify-email/"))
    ann.wait_for_selector('#verify-email-status[data-state="token_used"]')
    assert "used already" in ann.inner_text("#verify-email-status")
    ann.locator("#verify-email-again #resend-verification").wait_for()


def test_forgot_password_reset_then_log_in(new_page: Any, web_hub: HubProcess) -> None:
    base = web_hub.url
    page = new_page(SMALL_PHONE)
    email = sign_up_form(page, base)  # never confirmed: the reset link confirms it too
    page.wait_for_selector("#nav-login", state="attached")
    page.goto(base + "/login")
    page.click("#forgot-link")
    page.wait_for_url(base + "/forgot-password")
    page.fill("#forgot-email", email)
    page.click("#forgot-submit")
    page.wait_for_selector("#forgot-answer:has-text('check your inbox')")
    shot(page, "mail-forgot-phone")
    link = wsclient.MAILBOX.wait_blocking(email, "set a new password").link("/reset-password/")
    page.goto(link)
    page.wait_for_selector(f"#reset-status:has-text('{email}')")
    page.fill("#reset-password", "short")
    page.click("#reset-submit")
    page.wait_for_selector("#reset-error:has-text('too short')")
    page.fill("#reset-password", NEW_PASSWORD)
    page.click("#reset-submit")
    page.wait_for_selector('#reset-status[data-state="ok"]')
    shot(page, "mail-reset-done-phone")
    page.click("#reset-login")
    page.wait_for_url(base + "/login")
    page.fill("#login-email", email)
    page.fill("#login-password", PASSWORD)  # the old one no longer works
    page.click("#login-submit")
    page.wait_for_selector("#login-error:has-text('not right')")
    page.fill("#login-password", NEW_PASSWORD)
    page.click("#login-submit")
    page.wait_for_url(re.compile(r"/u/[A-Za-z0-9_-]+$"))
    page.wait_for_selector("#nav-profile", state="attached")
    # The link cannot be used twice: its page says so and offers a new one.
    page.goto(link)
    page.wait_for_selector('#reset-status[data-state="token_used"]')
    page.locator("#reset-again a[href='/forgot-password']").wait_for()


LAPTOP = {"width": 1280, "height": 800}
MOBILE = {"width": 390, "height": 844}


def test_a_confirmation_link_asks_and_never_swaps_the_browsers_account(
    new_page: Any, web_hub: HubProcess
) -> None:
    # Login CSRF: an attacker signs up with their own address and sends a victim's browser
    # to the link. Opening it changes nothing; the page names the attacker's account, and
    # pressing its button confirms that address without logging the victim out.
    base = web_hub.url
    victim = new_page(LAPTOP)
    victim_email = sign_up_form(victim, base)
    victim_link = wsclient.MAILBOX.wait_blocking(victim_email, wsclient.CONFIRM)
    victim.goto(victim_link.link("/verify-email/"))
    victim.wait_for_selector('#verify-email-status[data-state="ask"]')
    shot(victim, "mail-verify-ask")
    victim.fill("#verify-email-password", PASSWORD)
    victim.click("#verify-email-confirm")
    victim.wait_for_selector('#verify-email-status[data-state="ok"]')
    victim_name = victim.evaluate("fetch('/api/me').then(r => r.json())")["name"]
    attacker = new_page(MOBILE)
    attacker_email = sign_up_form(attacker, base)
    link = wsclient.MAILBOX.wait_blocking(attacker_email, wsclient.CONFIRM).link("/verify-")
    attacker_name = attacker.context.request.get(
        base + "/api/verify-email/" + link.rsplit("/", 1)[1]
    ).json()["name"]
    attacker.goto(link)  # the attacker's own browser: asked, with the effect spelled out
    attacker.wait_for_selector('#verify-email-status[data-state="ask"]')
    shot(attacker, "mail-verify-ask-phone")
    victim.goto(link)
    victim.wait_for_selector('#verify-email-status[data-state="ask"]')
    assert attacker_name in victim.inner_text("#verify-email-account")
    effect = victim.inner_text("#verify-email-effect")
    assert victim_name in effect and "you stay so" in effect, effect
    assert "do not confirm" in victim.inner_text("#verify-email-not-mine")
    shot(victim, "mail-verify-other-session")
    victim.set_viewport_size(MOBILE)
    shot(victim, "mail-verify-other-session-phone")
    victim.set_viewport_size(LAPTOP)

    def attacker_login(password: str = PASSWORD) -> int:
        return int(
            attacker.context.request.post(
                base + "/api/login",
                data={"email": attacker_email, "password": password},
                headers={"Origin": base},
            ).status
        )

    assert attacker_login() == 401  # opening the page confirmed nothing
    victim.fill("#verify-email-password", NEW_PASSWORD)
    victim.click("#verify-email-confirm")
    victim.wait_for_selector('#verify-email-status[data-state="ok"]')
    assert "still playing as" in victim.inner_text("#verify-email-status")
    victim.locator("#verify-email-login").wait_for()
    shot(victim, "mail-verify-kept-session")
    victim.goto(base + "/lobby")
    assert victim.wait_for_selector("#nav-profile", state="attached").text_content() == victim_name
    # Confirmed all the same, with the password typed on the page: only whoever confirms
    # can log in (docs/accounts.md, "Who can log in after a confirmation").
    assert attacker_login() == 401
    assert attacker_login(NEW_PASSWORD) == 200


def sign_up_as(page: Page, base: str, email: str, password: str) -> None:
    page.goto(base + "/signup")
    page.fill("#signup-email", email)
    page.fill("#signup-password", password)
    page.click("#signup-submit")
    page.wait_for_selector(f"#signup-sent:has-text('We sent a link to {email}')")


def test_a_squatters_sign_up_leaves_them_no_way_in_once_the_owner_confirms(
    new_page: Any, web_hub: HubProcess
) -> None:
    # Pre-account hijacking: someone signs up with the owner's address and a password of
    # their own; the owner signs up too (the same answer), then follows the first mail's
    # link. The page asks for a password, which becomes the account's: the squatter's
    # stops working, the owner's works.
    base = web_hub.url
    address = f"owner{secrets.token_hex(5)}@example.org"
    squatter = new_page(TALL_DESKTOP)
    sign_up_as(squatter, base, address, "the squatter's words")
    owner = new_page(SMALL_PHONE)
    sign_up_as(owner, base, address, "the owner's own words")
    wsclient.MAILBOX.wait_blocking(address, "finish signing up")  # the second sign-up's
    owner.goto(wsclient.MAILBOX.wait_blocking(address, wsclient.CONFIRM).link("/verify-email/"))
    owner.wait_for_selector('#verify-email-status[data-state="ask"]')
    owner.click("#verify-email-confirm")  # no password: refused, the page stays
    owner.wait_for_selector("#verify-email-error:has-text('too short')")
    shot(owner, "mail-verify-password-phone")
    owner.fill("#verify-email-password", "the owner's own words")
    owner.click("#verify-email-confirm")
    owner.wait_for_selector('#verify-email-status[data-state="ok"]')
    assert "you are logged in" in owner.inner_text("#verify-email-status")

    def login(password: str) -> int:
        return int(
            new_page(TALL_DESKTOP)
            .context.request.post(
                base + "/api/login",
                data={"email": address, "password": password},
                headers={"Origin": base},
            )
            .status
        )

    assert login("the squatter's words") == 401
    assert login("the owner's own words") == 200
    # The squatter's own login form says no as well.
    squatter.goto(base + "/login")
    squatter.fill("#login-email", address)
    squatter.fill("#login-password", "the squatter's words")
    squatter.click("#login-submit")
    squatter.wait_for_selector("#login-error:has-text('not right')")


def test_a_forged_link_says_so(new_page: Any, web_hub: HubProcess) -> None:
    page = new_page(TALL_DESKTOP)
    page.goto(web_hub.url + "/verify-email/" + "x" * 43)
    page.wait_for_selector('#verify-email-status[data-state="token_unknown"]')
    assert "not one we sent" in page.inner_text("#verify-email-status")
    page.locator("#verify-email-again a[href^='/login']").wait_for()  # a guest: log in first
    page.goto(web_hub.url + "/unsubscribe/" + "y" * 43)
    page.click("#unsubscribe-submit")
    page.wait_for_selector("#unsubscribe-status:has-text('not one we sent')")
