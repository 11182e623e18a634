"""Browser tests: Debian's Chromium driven by Playwright against a live server on the test
database. Each test signs in as a person of one role, clicks through the console, and saves
a screenshot of each step under .data/screenshots/<test name>/.

Without Chromium the tests are skipped, unless CASINO_REQUIRE_BROWSER is set (CI sets it), in
which case a missing browser fails them: a green run must have seen the screens.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

# Playwright's sync API runs an event loop in this thread; the tests' own ORM calls (setup,
# checking the ledger afterwards) are plain synchronous code all the same.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CASINO_CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parents[2] / ".data" / "screenshots"
PASSWORD = "console-test-2026"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)
            # A real Chromium per test, one at a time: `make test` runs them, `make
            # test-fast` leaves them out (they alone take minutes).
            item.add_marker(pytest.mark.slow)
            # One browser at a time: two Chromiums on two cores make both flaky and slow.
            item.add_marker(pytest.mark.xdist_group("browser"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    # The call's outcome, for screen_factory's teardown to describe each tab of a failed test.
    report = yield
    if report.when == "call":
        item.call_report = report  # type: ignore[attr-defined]
    return report


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CASINO_REQUIRE_BROWSER"):
            pytest.fail(f"Chromium is required (CASINO_REQUIRE_BROWSER) but {CHROMIUM} is missing")
        pytest.skip(f"no Chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM,
                                              args=["--no-sandbox", "--disable-gpu"])
        yield launched
        launched.close()


class Screen:
    """One person's browser tab, with a screenshot helper named after the test."""

    def __init__(self, page: Any, base_url: str, folder: Path) -> None:
        self.page = page
        self.base_url = base_url
        self.folder = folder
        self.count = 0
        # What the browser refused under the Content-Security-Policy (an inline script, a
        # handler attribute): the page would silently lose that behaviour in production.
        self.policy_violations: list[str] = []
        # The tab's last requests and script errors, printed when a test fails: a step that
        # never showed its answer says whether it was sent, refused or still waiting.
        self.trail: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.trail.append(f"script error: {error}"))
        self.waiting: dict[Any, str] = {}  # sent, not answered yet
        page.on("request", self._sent)
        page.on("requestfinished", self._finished)
        page.on("requestfailed", self._failed)

    def _console(self, message: Any) -> None:
        if "Content Security Policy" in message.text:
            self.policy_violations.append(message.text)

    def _sent(self, request: Any) -> None:
        if "/static/" not in request.url:
            self.waiting[request] = f"{request.method} {request.url} sent, no answer yet"

    def _failed(self, request: Any) -> None:
        self.waiting.pop(request, None)
        self.trail.append(f"{request.method} {request.url} failed: {request.failure}")

    def _finished(self, request: Any) -> None:
        if self.waiting.pop(request, None) is None:
            return  # a static file
        response = request.response()
        timing = request.timing
        took = timing["responseEnd"] - timing["requestStart"] if timing["responseEnd"] > 0 else -1
        self.trail.append(f"{request.method} {request.url} -> "
                          f"{response.status if response else '?'} in {took:.0f} ms")

    def report(self) -> str:
        """What the tab shows and last did, for a failed test's output."""
        lines = [f"tab at {self.page.url}"]
        try:
            self.shot("FAILED")
            alerts = self.page.locator("#messages, [role=alert]").all_inner_texts()
            lines.append("messages: " + " | ".join(a.strip() for a in alerts if a.strip()))
        except Exception as exc:  # the tab may be gone or stuck: say so, keep the rest
            lines.append(f"(no screenshot or messages: {exc})")
        lines += self.trail[-12:] + list(self.waiting.values())
        return "\n  ".join(lines)

    def goto(self, path: str) -> Any:
        return self.page.goto(self.base_url + path)

    def shot(self, name: str, *, full_page: bool = True) -> Path:
        self.count += 1
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{self.count:02d}-{name}.png"
        # The picture is for people to look at; the test's checks are the expects before it.
        # Headless Chromium now and then refuses a capture on a busy machine ("Unable to
        # capture screenshot", a protocol error with nothing wrong on the page), so a refused
        # capture is tried again once the page has settled, and only a second refusal fails.
        for attempt in (1, 2):
            try:
                self.page.screenshot(path=str(path), full_page=full_page)
                break
            except PlaywrightError as exc:
                if attempt == 2 or "Unable to capture screenshot" not in str(exc):
                    raise
                self.page.wait_for_load_state()
                self.page.wait_for_timeout(250)
        return path

    def sign_in(self, username: str, password: str = PASSWORD) -> None:
        self.goto("/login/")
        self.page.get_by_label("Username").fill(username)
        self.page.get_by_label("Password").fill(password)
        self.page.get_by_role("button", name="Sign in").click()
        self.page.wait_for_load_state("networkidle")


@pytest.fixture
def screen_factory(browser: Any, live_server: Any,
                   request: pytest.FixtureRequest) -> Iterator[Callable[..., Screen]]:
    """screen_factory(width=1280) -> a fresh tab (own cookies) on the live server."""
    contexts = []
    screens: list[Screen] = []
    test_name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)

    # A web-first assertion (expect) waits as long as any other step: the screens answer
    # after an htmx swap or a page load, which a busy two-core machine can slow to seconds.
    expect.set_options(timeout=15_000)

    def make(width: int = 1280, height: int = 900, who: str = "") -> Screen:
        context = browser.new_context(viewport={"width": width, "height": height},
                                      timezone_id="Europe/Amsterdam", locale="en-GB")
        context.set_default_timeout(15_000)
        contexts.append(context)
        folder = SCREENSHOTS / test_name / who if who else SCREENSHOTS / test_name
        screen = Screen(context.new_page(), live_server.url, folder)
        screens.append(screen)
        return screen

    yield make
    failed = getattr(request.node, "call_report", None)
    if failed is not None and failed.failed:
        for screen in screens:
            print("\n" + screen.report())
    for context in contexts:
        context.close()
    violations = [v for screen in screens for v in screen.policy_violations]
    assert violations == [], "the Content-Security-Policy refused part of a page"


@pytest.fixture
def staff_user(transactional_db: None) -> Callable[[str, str], Any]:
    """staff_user("dealer", "dana") -> a staff member of that role who signs in with PASSWORD."""
    from casino.services import staff_create

    def make(role: str, username: str) -> Any:
        user, _ = staff_create(username=username, role=role, password=PASSWORD)
        return user

    return make
