"""The console's front door: signing in, the header, error pages in words."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles


@pytest.mark.django_db(transaction=True)
def test_a_wrong_password_is_refused_in_words(screen_factory: Any, staff_user: Any) -> None:
    staff_user(roles.DEALER, "dana")
    screen = screen_factory()
    screen.sign_in("dana", "not-the-password")
    assert "correct username and password" in screen.page.get_by_role("alert").inner_text()
    screen.shot("refused")


@pytest.mark.django_db(transaction=True)
def test_a_missing_page_is_an_html_page_in_words(screen_factory: Any, staff_user: Any) -> None:
    staff_user(roles.DEALER, "dana")
    screen = screen_factory()
    screen.sign_in("dana")
    response = screen.goto("/no-such-screen/")
    assert response.status == 404
    assert "text/html" in response.headers["content-type"]
    expect(screen.page.get_by_role("heading", name="Page not found")).to_be_visible()
    screen.shot("not-found")
