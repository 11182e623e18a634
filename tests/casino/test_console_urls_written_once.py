"""Each console URL is written once, by name: templates reverse it ({% url %}, or
{% post_to %} for a form that posts as a page and through htmx alike), the scripts read it
from the page. A path typed into a template or a script would outlive a change of route."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = sorted(p for folder in ("casino/templates", "rounds/templates")
                   for p in (ROOT / folder).rglob("*.html") if "/admin/" not in str(p))
SCRIPTS = sorted((ROOT / "casino/static/console").glob("*.js"))
# A URL attribute whose value starts with a path, not with a tag.
TYPED_PATH = re.compile(r'\b(?:href|action|formaction|hx-(?:get|post|delete|patch|put))="/')
# The same {% url %} written twice on one element: a form's action and its hx-post.
TWICE = re.compile(r'="\{% url ([^%]+?) %\}" hx-(?:get|post)="\{% url \1 %\}"')
PATH_IN_SCRIPT = re.compile(r"""["'`]/(?:rounds|tables|cage|reports|approvals|api)/""")


def test_the_checks_below_can_fail():
    assert TYPED_PATH.search('<a href="/cage/">')
    assert TWICE.search('''action="{% url 'x' r.pk %}" hx-post="{% url 'x' r.pk %}"''')
    assert PATH_IN_SCRIPT.search('fetch("/rounds/" + id)')
    assert TEMPLATES and SCRIPTS


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: p.name)
def test_a_template_writes_each_url_once_and_by_name(template):
    text = template.read_text()
    assert TYPED_PATH.findall(text) == []
    assert TWICE.findall(text) == []


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_a_script_takes_its_urls_from_the_page(script):
    assert PATH_IN_SCRIPT.findall(script.read_text()) == []
