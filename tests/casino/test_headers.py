"""Security headers: a Content-Security-Policy on the pages, no-store on the API's answers
and the console's pages."""

import re

import pytest
from django.test import Client

from tests.players import make_player

pytestmark = pytest.mark.django_db


def directives(response) -> dict[str, list[str]]:
    policy = response["Content-Security-Policy"]
    return {name: values for name, *values in (d.split() for d in policy.split(";") if d.strip())}


def test_the_admin_login_page_carries_a_policy_without_inline_scripts():
    response = Client().get("/admin/login/")

    policy = directives(response)
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["object-src"] == ["'none'"]


def test_swagger_ui_loads_everything_it_needs_from_the_service_itself():
    browser = Client()

    page = browser.get("/api/docs/")

    assert page.status_code == 200
    assert directives(page)["script-src"] == ["'self'"]
    html = page.content.decode()
    # no inline script: every <script> has a src, as script-src 'self' requires
    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html) == []
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert len(assets) >= 4  # the bundle, the preset, the start script, the stylesheet
    for url in assets:
        url = url.replace("&amp;", "&")
        assert url.startswith("/"), f"{url} is not served by the service"
        assert browser.get(url).status_code == 200, url
    script = browser.get("/api/docs/?script=")
    assert script["Content-Type"].startswith("application/javascript")
    assert b"SwaggerUIBundle" in script.content
    assert b"/api/schema/" in script.content


def test_redoc_loads_its_script_from_the_service_itself():
    page = Client().get("/api/redoc/")

    html = page.content.decode()
    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html) == []
    assert all(src.startswith("/") for src in re.findall(r'<script src="([^"]+)"', html))


def test_answers_that_carry_balances_are_never_stored(pit_boss_client):
    for url in ("/api/v1/players", "/api/v1/ledger/accounts", "/api/v1/ledger/entries",
                "/api/v1/ledger/holds", "/api/v1/tables"):
        response = pit_boss_client.get(url)
        assert response.status_code == 200, url
        assert "no-store" in response["Cache-Control"], url
    assert "no-store" in pit_boss_client.get("/api/v1/nowhere")["Cache-Control"]

    refused = Client().post("/api/v1/auth/token", {}, content_type="application/json")
    assert "no-store" in refused["Cache-Control"]


def test_console_pages_with_balances_are_never_stored():
    # given a player with a movement, and a cage clerk signed in to the console
    from casino import roles
    from casino.services import player_deposit, staff_create

    anna = make_player(name="Anna", currency="EUR", by=None)
    entry = player_deposit(player_id=anna.pk, amount=12_000, by=None)
    user, _ = staff_create(username="cage-headers", role=roles.CAGE)
    client = Client()
    client.force_login(user)

    # then the cage, the player's page, the statement and its CSV and the receipt are
    # never stored
    for url in ("/cage/", f"/cage/players/{anna.pk}/", f"/cage/players/{anna.pk}/statement/",
                f"/cage/players/{anna.pk}/statement.csv", f"/cage/receipts/{entry.pk}/"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert "no-store" in response["Cache-Control"], url


def test_the_health_check_may_be_cached():
    response = Client().get("/api/v1/health")

    assert response.status_code == 200
    assert "no-store" not in response.get("Cache-Control", "")
