import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from casino.shared.errors import Conflict, NotFound, PermissionRefused, ValidationFailed
from ledger.models import Entry
from ledger.services import (
    account_get_or_create,
    entry_post,
    entry_reverse,
    hold_place,
    holds_release,
)
from tests.ledger.conftest import fresh


def test_a_deposit_moves_money_from_the_cage_to_the_player_and_sums_to_zero(book):
    entry = entry_post(kind="deposit", memo="chips", ref="player:1",
                       lines=[(book.cage.pk, -5000), (book.anna.pk, 5000)], by=None)

    assert fresh(book.anna).posted == 5000
    assert fresh(book.cage).posted == -5000
    assert sorted(entry.lines.values_list("amount", flat=True)) == [-5000, 5000]
    assert (entry.kind, entry.memo, entry.ref) == ("deposit", "chips", "player:1")


def test_an_entry_with_one_line_is_refused(book):
    with pytest.raises(ValidationFailed) as refused:
        entry_post(kind="x", memo="", lines=[(book.cage.pk, 0)], by=None)
    assert refused.value.code == "invalid_amount"
    with pytest.raises(ValidationFailed) as refused:
        entry_post(kind="x", memo="", lines=[(book.cage.pk, 100)], by=None)
    assert refused.value.code == "unbalanced_entry"


def test_lines_that_do_not_sum_to_zero_are_refused_and_nothing_is_written(book):
    count = Entry.objects.count()
    with pytest.raises(ValidationFailed) as refused:
        entry_post(kind="x", memo="", lines=[(book.cage.pk, -100), (book.table.pk, 99)], by=None)
    assert refused.value.detail == {"sums": {"EUR": "-0.01"}}
    assert Entry.objects.count() == count
    assert fresh(book.cage).posted == 0


def test_lines_sum_to_zero_in_each_currency_separately(book):
    usd_cage = account_get_or_create(kind="cage", currency="USD")
    usd_table = account_get_or_create(kind="table_bankroll", currency="USD", ref="table:usd")
    with pytest.raises(ValidationFailed) as refused:
        entry_post(kind="fx", memo="", by=None,
                   lines=[(book.cage.pk, -100), (usd_cage.pk, 100)])
    assert refused.value.detail == {"sums": {"EUR": "-1.00", "USD": "1.00"}}
    # Only the currency that does not balance is named.
    with pytest.raises(ValidationFailed) as refused:
        entry_post(kind="fx", memo="", by=None,
                   lines=[(book.cage.pk, -100), (book.table.pk, 100),
                          (usd_cage.pk, -50), (usd_table.pk, 49)])
    assert refused.value.detail == {"sums": {"USD": "-0.01"}}
    # Each currency balanced on its own: posted.
    entry = entry_post(kind="fx", memo="", by=None,
                       lines=[(book.cage.pk, -100), (usd_cage.pk, -50), (book.table.pk, 100),
                              (usd_table.pk, 50)])
    assert sorted(entry.lines.values_list("amount", flat=True)) == [-100, -50, 50, 100]
    assert fresh(usd_table).posted == 50


@pytest.mark.parametrize("amount", [1.5, "100", True, None])
def test_amounts_must_be_integers_of_minor_units(book, amount):
    with pytest.raises(ValidationFailed):
        entry_post(kind="x", memo="", by=None, lines=[(book.cage.pk, amount), (book.table.pk, 1)])


def test_a_player_account_cannot_be_overdrawn(book):
    book.fund(book.anna, 1000)
    with pytest.raises(Conflict) as refused:
        entry_post(kind="wager", memo="", by=None,
                   lines=[(book.anna.pk, -1500), (book.table.pk, 1500)])
    assert refused.value.code == "insufficient_funds"
    assert refused.value.detail["available"] == "10.00"
    assert refused.value.detail["shortfall"] == "5.00"
    assert not [k for k in refused.value.detail if k.endswith("_minor")]  # the unit only
    assert fresh(book.anna).posted == 1000


def test_house_accounts_may_go_negative(book):
    entry_post(kind="payout", memo="", by=None, lines=[(book.table.pk, -700), (book.anna.pk, 700)])
    assert fresh(book.table).posted == -700


def test_an_unknown_account_is_not_found(book):
    with pytest.raises(NotFound):
        entry_post(kind="x", memo="", by=None, lines=[(book.cage.pk, -1), (999_999, 1)])


def test_an_entry_is_stamped_with_its_transaction_and_hashed_only_when_sealed(book):
    first = entry_post(kind="a", memo="", by=None, lines=[(book.cage.pk, -1), (book.table.pk, 1)])
    second = entry_post(kind="b", memo="", by=None, lines=[(book.cage.pk, -2), (book.table.pk, 2)])

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_xact_id()::text::bigint")
        (txid,) = cursor.fetchone()
    stored = list(Entry.objects.filter(pk__in=[first.pk, second.pk]).order_by("id")
                  .values_list("txid", "seq", "prev_hash", "hash"))
    # No chain position drawn while posting: the sealer hashes it into a block later.
    assert stored == [(txid, None, None, None), (txid, None, None, None)]


def test_posting_an_entry_takes_one_statement_however_many_lines(book):
    book.fund(book.anna, 100)
    # One call: lock the accounts, check, then append (lock the head, hash, insert, move head).
    with CaptureQueriesContext(connection) as queries:
        entry_post(kind="x", memo="", by=None,
                   lines=[(book.cage.pk, -3), (book.table.pk, 1), (book.bram.pk, 2)])
    statements = [q["sql"] for q in queries.captured_queries
                  if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
    assert len(statements) == 1, statements


def test_settling_holds_placing_and_releasing_them_take_one_statement_each(book):
    book.fund(book.anna, 1_000)
    book.fund(book.bram, 1_000)
    with CaptureQueriesContext(connection) as queries:
        first = hold_place(account_id=book.anna.pk, amount=300, by=None)
        second = hold_place(account_id=book.bram.pk, amount=300, by=None)
        entry_post(kind="x", memo="", by=None, settle_holds=[first.pk, second.pk],
                   lines=[(book.anna.pk, -300), (book.bram.pk, -200), (book.table.pk, 500)])
        third = hold_place(account_id=book.anna.pk, amount=100, by=None)
        fourth = hold_place(account_id=book.bram.pk, amount=100, by=None)
        holds_release(hold_ids=[third.pk, fourth.pk], by=None)
    statements = [q["sql"] for q in queries.captured_queries
                  if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
    assert len(statements) == 6, statements


def test_a_reversal_negates_every_line_and_points_at_the_original(book, pit_boss):
    original = entry_post(kind="adjustment", memo="", ref="round:7", by=None,
                          lines=[(book.cage.pk, -2500), (book.anna.pk, 2500)])

    reversal = entry_reverse(entry_id=original.pk, reason="wrong player", by=pit_boss)

    assert reversal.reverses_id == original.pk
    assert (reversal.kind, reversal.reason, reversal.ref) == ("reversal", "wrong player", "round:7")
    assert sorted(reversal.lines.values_list("account_id", "amount")) == sorted(
        [(book.cage.pk, 2500), (book.anna.pk, -2500)])
    assert fresh(book.anna).posted == 0 and fresh(book.cage).posted == 0


def test_an_entry_is_reversed_only_once(book, pit_boss):
    original = entry_post(kind="adjustment", memo="", by=None,
                          lines=[(book.cage.pk, -100), (book.anna.pk, 100)])
    entry_reverse(entry_id=original.pk, reason="mistake", by=pit_boss)

    with pytest.raises(Conflict) as refused:
        entry_reverse(entry_id=original.pk, reason="again", by=pit_boss)
    assert refused.value.code == "already_reversed"


def test_a_reversal_needs_a_reason_and_the_permission(book, pit_boss, dealer):
    original = entry_post(kind="adjustment", memo="", by=None,
                          lines=[(book.cage.pk, -100), (book.anna.pk, 100)])
    with pytest.raises(ValidationFailed):
        entry_reverse(entry_id=original.pk, reason="  ", by=pit_boss)
    with pytest.raises(PermissionRefused):
        entry_reverse(entry_id=original.pk, reason="mistake", by=dealer)
    assert not Entry.objects.filter(reverses=original).exists()


def test_reversing_a_deposit_already_spent_is_refused_as_insufficient_funds(book, pit_boss):
    deposit = entry_post(kind="adjustment", memo="", by=None,
                         lines=[(book.cage.pk, -100), (book.anna.pk, 100)])
    entry_post(kind="wager", memo="", by=None, lines=[(book.anna.pk, -60), (book.table.pk, 60)])

    with pytest.raises(Conflict) as refused:
        entry_reverse(entry_id=deposit.pk, reason="counterfeit notes", by=pit_boss)
    assert refused.value.code == "insufficient_funds"
    assert fresh(book.anna).posted == 40


def test_a_reversal_is_never_reversed(book, pit_boss):
    original = entry_post(kind="adjustment", memo="", by=None,
                          lines=[(book.cage.pk, -100), (book.anna.pk, 100)])
    reversal = entry_reverse(entry_id=original.pk, reason="mistake", by=pit_boss)

    with pytest.raises(Conflict) as refused:
        entry_reverse(entry_id=reversal.pk, reason="undo the undo", by=pit_boss)

    assert refused.value.code == "reversal_not_reversible"
    assert "post a new movement" in refused.value.message
    assert fresh(book.anna).posted == 0


@pytest.mark.parametrize("kind", ["deposit", "withdrawal", "round_settlement"])
def test_an_owned_entry_and_its_reversal_are_reversed_only_by_their_owner(book, pit_boss,
                                                                          kind):
    sign = -1 if kind == "withdrawal" else 1
    if kind == "withdrawal":
        book.fund(book.anna, 100)
    owned = entry_post(kind=kind, memo="", by=None,
                       lines=[(book.cage.pk, -100 * sign), (book.anna.pk, 100 * sign)])

    with pytest.raises(Conflict) as refused:
        entry_reverse(entry_id=owned.pk, reason="behind the owner's back", by=pit_boss)
    assert refused.value.code == "owned_entry"
    reversal = entry_reverse(entry_id=owned.pk, reason="by the owner", by=pit_boss,
                             by_owner=True)
    with pytest.raises(Conflict) as again:
        entry_reverse(entry_id=reversal.pk, reason="pay it again", by=pit_boss)
    assert again.value.code == "owned_entry"
    assert again.value.detail["owner_kind"] == kind
