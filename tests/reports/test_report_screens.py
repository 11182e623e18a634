"""The console's reports page: who sees it, asking for a report (only the kind's fields,
tables by name, players found by name, the trial balance as of now unless a moment is
chosen), the list in words with the no-worker warning, a report read as a page, the closed
days' figures and chart."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from casino import roles
from casino.services import staff_create
from casino.shared.gaming_day import gaming_day_of
from reports.closing import gaming_day_close
from reports.models import Report
from rounds.models import Round, Table
from tests.conftest import played_rounds_rewritten

pytestmark = pytest.mark.django_db


@pytest.fixture
def auditor(client):
    user, _ = staff_create(username="audra", role=roles.AUDITOR)
    client.force_login(user)
    return user


def test_the_reports_page_is_in_the_nav_of_those_who_may_run_reports(client, auditor):
    page = client.get("/reports/")

    assert page.status_code == 200
    assert 'href="/reports/"' in page.content.decode()


def test_a_dealer_has_no_reports_page(client):
    user, _ = staff_create(username="dee", role=roles.DEALER)
    client.force_login(user)

    assert client.get("/reports/").status_code == 403
    assert 'href="/reports/"' not in client.get("/").content.decode()


def test_asking_with_a_missing_parameter_says_which_and_stores_nothing(client, auditor):
    page = client.post("/reports/ask/", {"kind": "banker", "format": "csv",
                                         "date_from": "2026-01-01"}, follow=True)

    assert "To gaming day: a value is required" in page.content.decode()
    assert not Report.objects.exists()


def test_a_closed_day_shows_its_figures_and_its_chart(client, auditor, dutch_seed):
    yesterday = gaming_day_of() - timedelta(days=1)
    played_rounds_rewritten(Round.objects.filter(table=dutch_seed.table), gaming_day=yesterday)
    gaming_day_close(gaming_day=yesterday, by=None)

    text = client.get("/reports/").content.decode()

    assert f"Gaming day {yesterday}" in text and "400.00 EUR" in text and "1.00 EUR" in text
    # the house result as the day's figures have it (7.00 + 1.00 commission), not re-added
    assert "House result" in text and "8.00 EUR" in text
    chart = client.get(f"/reports/days/{yesterday}/chart.png")
    assert chart.status_code == 200 and chart["Content-Type"] == "image/png"
    assert chart.content.startswith(b"\x89PNG")
    assert client.get(f"/reports/days/{date(2020, 1, 1)}/chart.png").status_code == 404


def _field_names(text: str) -> set[str]:
    form = text[text.index('action="/reports/ask/"'):]
    form = form[:form.index("</form>")]
    # the player search box sits by its select but belongs to the kind's (GET) form
    return set(re.findall(r'name="([a-z_]+)"', form)) - {"csrfmiddlewaretoken", "q"}


@pytest.mark.parametrize(("kind", "fields"), [
    ("table_day", {"kind", "format", "table", "gaming_day"}),
    ("floor_day", {"kind", "format", "gaming_day"}),
    ("banker", {"kind", "format", "date_from", "date_to"}),
    ("player_statement", {"kind", "format", "player", "date_from", "date_to"}),
    ("trial_balance", {"kind", "format", "as_of"}),
])
def test_the_form_shows_only_the_fields_of_the_kind_in_the_query_string(client, auditor,
                                                                         kind, fields):
    page = client.get(f"/reports/?kind={kind}")

    text = page.content.decode()
    assert _field_names(text) == fields
    assert f'<option value="{kind}" selected>' in text


def test_htmx_changing_the_kind_swaps_only_the_asking_part(client, auditor):
    part = client.get("/reports/?kind=floor_day", headers={"HX-Request": "true"})

    text = part.content.decode()
    assert text.lstrip().startswith('<section class="panel" aria-labelledby="ask"')
    assert "<html" not in text and _field_names(text) == {"kind", "format", "gaming_day"}


def test_tables_are_picked_by_name(client, auditor, make_table):
    make_table(name="Dragon 7")

    text = client.get("/reports/?kind=table_day").content.decode()

    (table,) = Table.objects.filter(name="Dragon 7")
    assert f'<option value="{table.pk}">Dragon 7</option>' in text


def test_players_are_found_by_name_and_sent_by_id(client, auditor, dutch_seed):
    found = client.get("/reports/players/?q=bram").content.decode()

    banker = dutch_seed.banker
    assert f'<option value="{banker.pk}">Banker Bram (#{banker.pk}, EUR)</option>' in found
    assert "Speler" not in found
    assert "No player by that name" in client.get("/reports/players/?q=zzz").content.decode()
    # without script: the search in the query string fills the select of the page itself
    page = client.get("/reports/?kind=player_statement&q=speler 3").content.decode()
    assert f'<option value="{dutch_seed.players[3].pk}">Speler 3' in page
    assert "Banker Bram" not in page


def test_asking_for_a_players_statement_sends_the_players_id(
        client, auditor, dutch_seed, settings, tmp_path, django_capture_on_commit_callbacks):
    settings.MEDIA_ROOT = tmp_path
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/reports/ask/", {"kind": "player_statement", "format": "csv",
                                      "player": dutch_seed.players[3].pk,
                                      "date_from": dutch_seed.gaming_day,
                                      "date_to": dutch_seed.gaming_day})

    report = Report.objects.get()
    assert report.parameters["player"] == str(dutch_seed.players[3].pk)
    assert report.status == "done"


def test_the_cage_downloads_the_statement_file_the_auditors_get(
        client, auditor, dutch_seed, settings, tmp_path, django_capture_on_commit_callbacks):
    # given an auditor's statement report of a player's gaming day, made by the worker
    settings.MEDIA_ROOT = tmp_path
    player = dutch_seed.players[3]
    period = {"date_from": dutch_seed.gaming_day, "date_to": dutch_seed.gaming_day}
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/reports/ask/", {"kind": "player_statement", "format": "csv",
                                      "player": player.pk, **period})
    report = Report.objects.get()

    # when the same period's statement is downloaded at the cage
    cage_file = client.get(reverse("console:cage:statement_csv", args=[player.pk]), period)

    # then it is the same file, row for row (one column spec, one layout)
    assert cage_file.status_code == 200
    with report.file.open("rb") as made:
        assert cage_file.content == made.read()
    assert cage_file.content.startswith(b"posted_at,entry,kind,reference,amount,balance,")


def test_an_empty_as_of_asks_for_the_trial_balance_as_of_now(
        client, auditor, settings, tmp_path, django_capture_on_commit_callbacks):
    settings.MEDIA_ROOT = tmp_path
    before = timezone.now()

    with django_capture_on_commit_callbacks(execute=True):
        page = client.post("/reports/ask/", {"kind": "trial_balance", "format": "json",
                                             "as_of": ""}, follow=True)

    assert "Trial balance asked for" in page.content.decode()
    report = Report.objects.get()
    from datetime import datetime
    moment = datetime.fromisoformat(report.parameters["as_of"])  # the moment of asking
    assert before <= moment <= timezone.now()
    assert report.status == "done"


def test_a_moment_chosen_on_the_console_is_read_on_the_casinos_clock(client, auditor):
    client.post("/reports/ask/", {"kind": "trial_balance", "format": "csv",
                                  "as_of": "2026-12-01T06:00"})

    from datetime import datetime
    moment = datetime.fromisoformat(Report.objects.get().parameters["as_of"])
    assert timezone.localtime(moment).strftime("%Y-%m-%d %H:%M") == "2026-12-01 06:00"
    assert moment.utcoffset() is not None


def test_the_list_says_what_each_report_is_for_in_words(client, auditor, dutch_seed):
    by = auditor
    Report.objects.create(kind="table_day", format="pdf", requested_by=by, status="failed",
                          error="x", parameters={"table": str(dutch_seed.table.pk),
                                                 "gaming_day": "2026-12-02"})
    Report.objects.create(kind="player_statement", format="csv", requested_by=by,
                          status="failed", error="x", parameters={
                              "player": str(dutch_seed.banker.pk), "date_from": "2026-11-30",
                              "date_to": "2026-12-02"})
    Report.objects.create(kind="trial_balance", format="csv", requested_by=by, status="failed",
                          error="x", parameters={"as_of": "2026-12-02T05:10:00+00:00"})

    text = client.get("/reports/live/").content.decode()

    assert f"{dutch_seed.table.name}, gaming day 2 Dec 2026" in text
    assert (f"Banker Bram (#{dutch_seed.banker.pk}), gaming days 30 Nov 2026 to 2 Dec 2026"
            in text)
    assert "as of 2 Dec 2026 06:10" in text       # the casino's clock (UTC+1)
    assert "gaming_day" not in text and "date_from" not in text


def test_a_report_no_worker_has_taken_says_so_and_what_to_do(client, auditor):
    fresh = Report.objects.create(kind="floor_day", format="csv", requested_by=auditor,
                                  parameters={"gaming_day": "2026-12-01"})
    stale = Report.objects.create(kind="floor_day", format="csv", requested_by=auditor,
                                  parameters={"gaming_day": "2026-11-30"})
    taken = Report.objects.create(kind="floor_day", format="csv", requested_by=auditor,
                                  parameters={"gaming_day": "2026-11-29"}, status="running",
                                  progress=60)
    Report.objects.filter(pk__in=[stale.pk, taken.pk]).update(
        requested_at=timezone.now() - timedelta(minutes=3))

    text = client.get("/reports/live/").content.decode()

    rows = {int(n): row for n, row in re.findall(r'data-report="(\d+)">(.*?)</tr>', text,
                                                  re.S)}
    assert "waiting for a worker" in rows[stale.pk] and "make worker" in rows[stale.pk]
    assert "3\xa0minutes" in rows[stale.pk]
    assert "waiting for a worker" not in rows[fresh.pk] and "queued" in rows[fresh.pk]
    # a worker has it: slow, not missing
    assert "waiting for a worker" not in rows[taken.pk]
    assert "being made, 60" in rows[taken.pk]
    assert 'hx-trigger="every 2s"' in text      # still watched: it turns done when one runs


def test_a_report_reads_as_a_page_with_its_figures_in_words_and_its_chart(
        client, auditor, dutch_seed, settings, tmp_path, django_capture_on_commit_callbacks):
    settings.MEDIA_ROOT = tmp_path
    # the warm-up round settled two hours earlier: the day spans three hours
    played_rounds_rewritten(Round.objects.filter(pk=dutch_seed.warm_up["id"]),
                            settled_at=timezone.now() - timedelta(hours=2))
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/reports/ask/", {"kind": "table_day", "format": "pdf",
                                      "table": dutch_seed.table.pk,
                                      "gaming_day": dutch_seed.gaming_day})
    report = Report.objects.get()

    page = client.get(f"/reports/{report.pk}/")

    text = page.content.decode()
    assert page.status_code == 200
    assert "Hold % (house result / handle)" in text and "2.00" in text
    assert "Commission from player bankers" in text and "400.00" in text
    assert "win / drop" in text                      # says which hold it is
    assert "rounds_co_banked" not in text and "rounds co banked" not in text
    assert text.count('src="data:image/png;base64,') == 1
    assert "House result by hour settled" in text
    assert report.chain_seq == 0  # nothing of the test's own transaction is sealed
    assert "read with the ledger sealed through no block yet (entries are sealed" in text
    # where the page and the file were read, said twice: both read the primary here
    assert text.count("Read from the primary database (no replica configured).") == 2
    assert report.read_from == "Read from the primary database (no replica configured)."


def test_a_report_of_a_kind_the_role_may_not_read_has_no_page(client, auditor, db):
    from django.contrib.auth.models import Group, Permission

    # a role that runs reports but may not see the house's accounts
    group = Group.objects.create(name="shift_lead")
    group.permissions.add(Permission.objects.get(codename="run_reports"))
    lead, _ = staff_create(username="lead", role=roles.PIT_BOSS)
    lead.groups.set([group])
    report = Report.objects.create(kind="trial_balance", format="csv", requested_by=auditor,
                                   parameters={"as_of": "2026-12-02T05:10:00+00:00"})
    client.force_login(lead)

    assert client.get(f"/reports/{report.pk}/").status_code == 404
    page = client.get("/reports/?kind=trial_balance").content.decode()
    assert 'value="trial_balance"' not in page and 'name="as_of"' not in page
