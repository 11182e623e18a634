"""The ledger over the API: accounts, entries with filters, one entry, reversal."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ledger.models import Entry
from ledger.services import entry_post


@pytest.fixture
def posted(book):
    book.fund(book.anna, 10_000)
    wager = entry_post(kind="wager", memo="seat 2", ref="round:42", by=None,
                       lines=[(book.anna.pk, -2_500), (book.table.pk, 2_500)])
    other = entry_post(kind="wager", memo="", ref="round:43", by=None,
                       lines=[(book.bram.pk, 500), (book.table.pk, -500)])
    return book, wager, other


def ids(response):
    assert response.status_code == 200, response.json()
    return [e["id"] for e in response.json()["results"]]


def test_auditors_list_accounts_with_balances_as_decimal_strings(posted, auditor_client):
    book, *_ = posted
    response = auditor_client.get(f"/api/v1/ledger/accounts?ref={book.anna.ref}")

    (account,) = response.json()["results"]
    assert account["kind"] == "player" and account["allow_negative"] is False
    assert account["balance"] == {"posted": "75.00", "held": "0.00", "available": "75.00",
                                  "currency": "EUR"}


def test_entries_are_filtered_by_account_ref_round_kind_and_time(posted, auditor_client):
    book, wager, other = posted
    deposit = Entry.objects.get(kind="deposit", lines__account=book.anna)
    url = "/api/v1/ledger/entries"

    assert ids(auditor_client.get(url)) == [other.pk, wager.pk, deposit.pk]
    assert ids(auditor_client.get(f"{url}?account={book.anna.pk}")) == [wager.pk, deposit.pk]
    assert ids(auditor_client.get(f"{url}?ref=round:42")) == [wager.pk]
    assert ids(auditor_client.get(f"{url}?round=43")) == [other.pk]
    assert ids(auditor_client.get(f"{url}?kind=deposit")) == [deposit.pk]
    after = (wager.created_at).isoformat().replace("+00:00", "Z")
    assert ids(auditor_client.get(url, {"created_after": after})) == [other.pk, wager.pk]
    assert ids(auditor_client.get(url, {"created_before": after})) == [deposit.pk]
    later = (timezone.now() + timedelta(hours=1)).isoformat()
    assert ids(auditor_client.get(url, {"created_after": later})) == []


def test_the_cage_reads_a_players_entries_but_not_a_house_accounts(posted, cage_client,
                                                                    auditor_client,
                                                                    pit_boss_client):
    book, wager, other = posted
    deposit = Entry.objects.get(kind="deposit", lines__account=book.anna)
    url = "/api/v1/ledger/entries"
    # given a movement between house accounts only, which the cage never sees
    entry_post(kind="fill", memo="", by=None, lines=[(book.cage.pk, -300),
                                                     (book.table.pk, 300)])

    # a house account's entries (each of these also moves a player) are refused, as an
    # account that does not exist is
    for house in (book.cage, book.table):
        response = cage_client.get(f"{url}?account={house.pk}")
        assert response.status_code == 404
        assert response.json() == {"error": {
            "code": "not_found", "message": f"There is no ledger account #{house.pk}.",
            "detail": {"account_id": house.pk}}}
    assert cage_client.get(f"{url}?account=999999999").status_code == 404
    # a player's are read
    assert ids(cage_client.get(f"{url}?account={book.anna.pk}")) == [wager.pk, deposit.pk]
    # auditors and pit bosses keep the house's
    fill = Entry.objects.get(kind="fill")
    for client in (auditor_client, pit_boss_client):
        assert ids(client.get(f"{url}?account={book.table.pk}")) == [fill.pk, other.pk,
                                                                     wager.pk]
        assert ids(client.get(f"{url}?account={book.cage.pk}")) == [fill.pk, deposit.pk]


def test_a_bad_filter_is_a_400_in_the_error_shape(posted, auditor_client):
    response = auditor_client.get("/api/v1/ledger/entries?account=abc")
    assert response.status_code == 400
    assert "account" in response.json()["error"]["detail"]["fields"]


def test_one_entry_shows_its_lines_signed_and_its_hash(posted, auditor_client):
    _, wager, _ = posted
    entry = auditor_client.get(f"/api/v1/ledger/entries/{wager.pk}").json()

    assert entry["ref"] == "round:42" and entry["memo"] == "seat 2"
    assert sorted((line["account_kind"], line["amount"]) for line in entry["lines"]) == [
        ("player", "-25.00"), ("table_bankroll", "25.00")]
    assert entry["hash"] == wager.hash and entry["reversed_by"] is None


def test_a_pit_boss_reverses_an_entry_with_a_reason(posted, pit_boss_client, auditor_client):
    _, wager, _ = posted

    response = pit_boss_client.post(f"/api/v1/ledger/entries/{wager.pk}/reverse",
                                    {"reason": "misdealt hand"}, format="json")

    assert response.status_code == 201
    reversal = response.json()
    assert reversal["reverses"] == wager.pk and reversal["reason"] == "misdealt hand"
    assert auditor_client.get(f"/api/v1/ledger/entries/{wager.pk}").json()[
        "reversed_by"] == reversal["id"]
    again = pit_boss_client.post(f"/api/v1/ledger/entries/{wager.pk}/reverse",
                                 {"reason": "twice"}, format="json")
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_reversed"


def test_a_reversal_without_a_reason_is_a_400(posted, pit_boss_client):
    _, wager, _ = posted
    response = pit_boss_client.post(f"/api/v1/ledger/entries/{wager.pk}/reverse", {},
                                    format="json")
    assert response.status_code == 400
    assert not Entry.objects.filter(reverses=wager).exists()


def test_dealers_cage_and_auditors_cannot_reverse(posted, dealer_client, cage_client,
                                                  auditor_client):
    _, wager, _ = posted
    for client in (dealer_client, cage_client, auditor_client):
        response = client.post(f"/api/v1/ledger/entries/{wager.pk}/reverse",
                               {"reason": "x"}, format="json")
        assert response.status_code == 403
    assert dealer_client.get("/api/v1/ledger/entries").status_code == 403


def test_an_unknown_entry_is_a_404(posted, auditor_client):
    assert auditor_client.get("/api/v1/ledger/entries/999999").status_code == 404


def test_holds_are_listed_for_auditors(posted, auditor_client):
    from ledger.services import hold_place

    book, *_ = posted
    hold_place(account_id=book.anna.pk, amount=1_000, by=None, ref="round:50")
    (hold,) = auditor_client.get("/api/v1/ledger/holds?status=open").json()["results"]
    assert (hold["amount"], hold["ref"], hold["status"]) == ("10.00", "round:50", "open")


def test_listing_entries_takes_the_same_queries_for_any_page_size(posted, auditor_client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries_for(page_size):
        with CaptureQueriesContext(connection) as queries:
            auditor_client.get(f"/api/v1/ledger/entries?page_size={page_size}")
        return len(queries)

    assert queries_for(1) == queries_for(3)
