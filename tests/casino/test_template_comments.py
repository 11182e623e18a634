"""Django's {# #} comment ends on its own line: one left open runs on as page text (the
console's base template once showed a whole comment above every page). A comment over
several lines is {% comment %} ... {% endcomment %}."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_template_opens_a_one_line_comment_it_does_not_close_on_that_line():
    templates = [path for app in ("casino", "rounds", "ledger", "reports")
                 for path in (ROOT / app).rglob("templates/**/*.html")]
    assert len(templates) > 20
    open_comments = [f"{path.relative_to(ROOT)}:{number}"
                     for path in templates
                     for number, line in enumerate(path.read_text().splitlines(), 1)
                     if line.count("{#") > line.count("#}")]
    assert open_comments == []


def test_the_console_page_shows_no_template_syntax(client):
    page = client.get("/login/").content.decode()
    assert "{#" not in page and "#}" not in page
    assert '<meta name="htmx-config" content=\'{"defaultSettleDelay": 0}\'>' in page
