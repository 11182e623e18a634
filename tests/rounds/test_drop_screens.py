"""The dealer's Buy-in on the table screen and the count room's Drop count screen: each
calls the service the API calls, and a refusal is a sentence that changes nothing."""

from __future__ import annotations

import pytest
from django.test import Client

from casino import roles
from casino.services import staff_create
from casino.shared.gaming_day import gaming_day_of
from ledger.models import Entry
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


def test_the_count_room_counts_a_box_and_sees_recorded_counted_and_variance(
        table, seat_player, pit_boss):
    from rounds.services.drop import buy_in_take

    seat_player(table, 1, funds=0)
    buy_in_take(table_id=table.pk, seat=1, amount=20_000, by=pit_boss)
    staff_create(username="wendy", role=roles.COUNT)
    counter = _client(roles.COUNT, "carl")
    assert counter.get("/", follow=True).redirect_chain[-1][0] == "/drop-count/"
    day = str(gaming_day_of())
    form = {"table": str(table.pk), "gaming_day": day, "counted": "190", "witness": "wendy"}

    # counted without a reason: taken, the variance an exception still to explain
    open_page = counter.post("/drop-count/", form, follow=True).content.decode()
    count = DropCount.objects.get()
    assert (count.recorded, count.counted, count.variance, count.status) == \
        (20_000, 19_000, -1_000, "unexplained")
    assert "The variance is still to explain" in open_page

    page = counter.post(f"/drop-count/{count.pk}/explain/", {"reason": "a 10 note torn"},
                        follow=True).content.decode()

    count.refresh_from_db()
    assert (count.status, count.reason) == ("explained", "a 10 note torn")
    for figure in ("200.00 EUR", "190.00 EUR", "-10.00 EUR", "a 10 note torn",
                   "explained by carl"):
        assert figure in page, figure
    assert "The variance is still to explain" not in page


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
    from rounds.services.drop import drop_count_record

    staff_create(username="wendy", role=roles.COUNT)
    counter, _ = staff_create(username="carl", role=roles.COUNT)
    count = drop_count_record(table_id=table.pk, gaming_day=gaming_day_of(), counted=500,
                              witness="wendy", reason="a 5.00 note found", by=counter)
    auditor = _client(roles.AUDITOR, "audrey")

    page = auditor.get(f"/admin/rounds/dropcount/{count.pk}/change/")

    assert page.status_code == 200
    text = page.content.decode()
    assert "5.00 EUR" in text and "a 5.00 note found" in text
    assert auditor.get("/admin/rounds/dropcount/add/").status_code == 403
