"""The dealer's Buy-in on the table screen and the count room's Drop count screen: each
calls the service the API calls, and a refusal is a sentence that changes nothing."""

from __future__ import annotations

import pytest
from django.test import Client

from casino import roles
from casino.services import staff_create
from casino.shared.gaming_day import gaming_day_of
from ledger.models import Account, Entry
from rounds.models import DropCount
from tests.rounds.conftest import available

pytestmark = pytest.mark.django_db


def _client(role: str, name: str) -> Client:
    user, _ = staff_create(username=name, role=role)
    client = Client()
    client.force_login(user)
    return client


def test_the_dealer_takes_a_buy_in_from_the_table_screen(table, seat_player):
    player = seat_player(table, 2, funds=0, name="Anna")
    dealer = _client(roles.DEALER, "dora")

    screen = dealer.get(f"/tables/{table.pk}/").content.decode()
    assert "Buy-in seat 2" in screen

    page = dealer.post(f"/tables/{table.pk}/buy-ins/", {"seat": "2", "amount": "250"},
                       follow=True).content.decode()

    assert "Anna (seat 2) bought in for 250.00 EUR" in page
    assert available(player) == 25_000


@pytest.mark.parametrize(("body", "words"), [
    ({"seat": "3", "amount": "50"}, "Seat 3 of Table 1 is empty"),
    ({"seat": "2", "amount": "0"}, "The amount must be more than zero"),
    ({"seat": "2", "amount": "ten"}, "is not an amount as this casino writes them"),
    ({"seat": "2", "amount": ""}, "Type the cash taken"),
])
def test_a_refused_buy_in_is_said_in_words_and_moves_nothing(table, seat_player, body, words):
    player = seat_player(table, 2, funds=0, name="Anna")
    dealer = _client(roles.DEALER, "dora")

    page = dealer.post(f"/tables/{table.pk}/buy-ins/", body, follow=True).content.decode()

    assert words in page
    assert not Entry.objects.filter(kind="buy_in").exists()
    assert available(player) == 0


def _ledger_now():
    return (list(Entry.objects.order_by("pk").values_list("pk", flat=True)),
            sorted(Account.objects.values_list("pk", "posted")))


def test_a_count_waits_for_its_witness_who_confirms_it_signed_in_as_themselves(
        table, seat_player, pit_boss):
    from rounds.services.drop import buy_in_take

    seat_player(table, 1, funds=0)
    buy_in_take(table_id=table.pk, seat=1, amount=20_000, by=pit_boss)
    witness = _client(roles.COUNT, "wendy")
    counter = _client(roles.COUNT, "carl")
    assert counter.get("/", follow=True).redirect_chain[-1][0] == "/drop-count/"
    day = str(gaming_day_of())
    form = {"table": str(table.pk), "gaming_day": day, "counted": "200", "witness": "wendy"}
    before = _ledger_now()

    # the counter records it: it waits for wendy, nothing posted
    page = counter.post("/drop-count/", form, follow=True).content.decode()
    count = DropCount.objects.get()
    assert count.status == "awaiting_witness" and _ledger_now() == before
    assert "it waits for wendy to confirm it" in page
    assert "Waiting for wendy" in page
    assert "Counts waiting for your signature" not in page
    # another who may witness sees it waiting, and has nothing to sign
    other = _client(roles.CAGE, "cleo").get("/drop-count/").content.decode()
    assert "waiting for wendy" in other and "Counts waiting for your signature" not in other
    refused = _client(roles.CAGE, "cody").post(f"/drop-count/{count.pk}/witness/",
                                               {"decision": "confirm"}, follow=True)
    assert "only wendy, signed in as themselves, confirms or refuses it" in \
        refused.content.decode()
    assert _ledger_now() == before

    # wendy, signed in as herself, sees it waiting for her signature and confirms it
    signing = witness.get("/drop-count/").content.decode()
    assert "Counts waiting for your signature" in signing
    assert "Confirm the count of 200.00 EUR" in signing
    done = witness.post(f"/drop-count/{count.pk}/witness/", {"decision": "confirm"},
                        follow=True).content.decode()

    count.refresh_from_db()
    assert (count.status, count.recorded) == ("balanced", 20_000)
    assert "You confirmed Table 1&#x27;s count" in done or "You confirmed Table 1's count" in done
    assert Account.objects.get(kind="drop_box", ref=f"table:{table.pk}").posted == 0


def test_a_witness_refuses_a_count_with_a_reason_on_the_screen(table):
    witness = _client(roles.COUNT, "wendy")
    counter = _client(roles.COUNT, "carl")
    counter.post("/drop-count/", {"table": str(table.pk), "gaming_day": str(gaming_day_of()),
                                  "counted": "5", "witness": "wendy"})
    count = DropCount.objects.get()

    empty = witness.post(f"/drop-count/{count.pk}/witness/", {"decision": "refuse"},
                         follow=True).content.decode()
    assert "Say why the count is refused." in empty
    page = witness.post(f"/drop-count/{count.pk}/witness/",
                        {"decision": "refuse", "reason": "I saw no cash counted"},
                        follow=True).content.decode()

    count.refresh_from_db()
    assert (count.status, count.reason) == ("refused", "I saw no cash counted")
    assert "nothing is posted, and the box is counted again" in page
    assert not Entry.objects.filter(kind__in=["drop_count", "drop_variance"]).exists()


def test_the_explain_panel_is_a_partial_and_the_row_then_says_who_explained_it(
        table, seat_player, pit_boss):
    from rounds.services.drop import buy_in_take, drop_count_confirm, drop_count_record

    seat_player(table, 1, funds=0)
    buy_in_take(table_id=table.pk, seat=1, amount=20_000, by=pit_boss)
    wendy, _ = staff_create(username="wendy", role=roles.COUNT)
    carl, _ = staff_create(username="carl", role=roles.COUNT)
    count = drop_count_record(table_id=table.pk, gaming_day=gaming_day_of(), counted=19_000,
                              witness="wendy", note="a 10 note torn?", by=carl)
    drop_count_confirm(count_id=count.pk, by=wendy)
    counter, witness = Client(), Client()
    counter.force_login(carl)
    witness.force_login(wendy)
    htmx = {"HX-Request": "true"}

    # the counter's list: to explain, by someone other than them; the service says why
    listed = counter.get("/drop-count/").content.decode()
    assert "To explain" in listed and "by someone other than you" in listed
    own = counter.get(f"/drop-count/{count.pk}/explain/", headers=htmx).content.decode()
    assert "its variance is explained by someone else" in own
    assert "<html" not in own and "explain-form" not in own
    assert counter.post(f"/drop-count/{count.pk}/explain/", {"reason": "mine"},
                        headers=htmx).status_code == 200
    # and without the script, the page opens the same panel and says the same
    plain = counter.get(f"/drop-count/{count.pk}/explain/", follow=True).content.decode()
    assert "its variance is explained by someone else" in plain
    assert DropCount.objects.get(pk=count.pk).status == "unexplained"

    # the witness opens the panel: only the count's rows, the form in them
    panel = witness.get(f"/drop-count/{count.pk}/explain/", headers=htmx).content.decode()
    assert panel.lstrip().startswith(f'<tbody id="count-{count.pk}"')
    assert "<html" not in panel and "Recent counts" not in panel
    assert "differ from the buy-ins by -10.00 EUR" in panel
    row = witness.post(f"/drop-count/{count.pk}/explain/", {"reason": "a 10 note torn"},
                       headers=htmx).content.decode()

    count.refresh_from_db()
    assert (count.status, count.reason, count.explained_by) == ("explained",
                                                                "a 10 note torn", wendy)
    assert "Explained by wendy" in row and "To explain" not in row
    assert "<html" not in row and "explain-form" not in row
    page = counter.get("/drop-count/").content.decode()
    assert "Explained by wendy" in page and "To explain" not in page
    for figure in ("200.00 EUR", "190.00 EUR", "-10.00 EUR", "a 10 note torn",
                   "Counter's note: a 10 note torn?"):
        assert figure in page, figure


def test_garbage_posted_to_the_buy_in_and_the_count_is_never_a_server_error(table,
                                                                            seat_player):
    seat_player(table, 1, funds=0)
    pit, cage = _client(roles.PIT_BOSS, "petra"), _client(roles.CAGE, "cleo")
    garbage = [{}, {"seat": "x", "amount": "1e3"}, {"seat": "9", "amount": "-5"},
               {"seat": "1", "amount": "NaN"}, {"table": "-1", "gaming_day": "yesterday",
                                                "counted": "1.234", "witness": ""},
               {"table": str(table.pk), "gaming_day": "9999-12-31", "counted": "5",
                "witness": "cleo"}]
    for client, url in ((pit, f"/tables/{table.pk}/buy-ins/"), (pit, "/tables/999/buy-ins/"),
                        (cage, "/drop-count/")):
        for body in garbage:
            assert client.post(url, body).status_code < 500, (url, body)
    assert not Entry.objects.filter(kind__in=["buy_in", "drop_count"]).exists()
    assert not DropCount.objects.exists()


def test_the_admin_shows_drop_counts_read_only(table, pit_boss):
    from rounds.services.drop import drop_count_confirm, drop_count_record

    wendy, _ = staff_create(username="wendy", role=roles.COUNT)
    counter, _ = staff_create(username="carl", role=roles.COUNT)
    count = drop_count_record(table_id=table.pk, gaming_day=gaming_day_of(), counted=500,
                              witness="wendy", note="a 5.00 note found", by=counter)
    drop_count_confirm(count_id=count.pk, by=wendy)
    auditor = _client(roles.AUDITOR, "audrey")

    page = auditor.get(f"/admin/rounds/dropcount/{count.pk}/change/")

    assert page.status_code == 200
    text = page.content.decode()
    assert "5.00 EUR" in text and "a 5.00 note found" in text
    assert auditor.get("/admin/rounds/dropcount/add/").status_code == 403


def test_a_pit_boss_named_as_witness_signs_on_the_drop_count_page_without_counting(table):
    from rounds.services.drop import drop_count_record

    carl, _ = staff_create(username="carl", role=roles.COUNT)
    staff_create(username="petra", role=roles.PIT_BOSS)
    count = drop_count_record(table_id=table.pk, gaming_day=gaming_day_of(), counted=0,
                              witness="petra", by=carl)
    boss = _client(roles.PIT_BOSS, "paul")
    petra = Client()
    petra.force_login(count.witness)

    # the pit boss reaches the page from the menu; it offers no count form, only her part
    floor = petra.get("/").content.decode()
    assert 'href="/drop-count/"' in floor
    page = petra.get("/drop-count/").content.decode()
    assert "Counts waiting for your signature" in page
    assert "Record the count" not in page
    assert "Counts waiting for your signature" not in boss.get("/drop-count/").content.decode()

    done = petra.post(f"/drop-count/{count.pk}/witness/", {"decision": "confirm"},
                      follow=True).content.decode()

    count.refresh_from_db()
    assert (count.status, count.recorded, count.variance) == ("balanced", 0, 0)
    assert "it is posted (0.00 EUR counted, 0.00 EUR recorded)." in done
