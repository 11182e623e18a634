import pytest
from django.db import transaction
from django.utils import timezone

from casino.shared.errors import Conflict, ValidationFailed
from ledger.models import Hold
from ledger.selectors import account_balance
from ledger.services import entry_post, hold_capture, hold_place, hold_release
from tests.ledger.conftest import fresh


def test_a_hold_reduces_the_available_balance_but_not_the_posted_one(book):
    book.fund(book.anna, 10_000)

    hold_place(account_id=book.anna.pk, amount=2_000, by=None, ref="round:1")

    balance = account_balance(account_id=book.anna.pk)
    assert (balance.posted, balance.held, balance.available) == (10_000, 2_000, 8_000)


def test_a_hold_beyond_the_available_balance_is_refused_with_the_figures(book):
    book.fund(book.anna, 10_000)
    hold_place(account_id=book.anna.pk, amount=7_000, by=None)

    with pytest.raises(Conflict) as refused:
        hold_place(account_id=book.anna.pk, amount=4_000, by=None)

    assert refused.value.code == "insufficient_funds"
    assert {k: refused.value.detail[k] for k in ("required", "available", "shortfall")} == {
        "required": "40.00", "available": "30.00", "shortfall": "10.00"}
    assert not [k for k in refused.value.detail if k.endswith("_minor")]  # the unit only
    assert fresh(book.anna).held == 7_000


def test_a_hold_without_a_savepoint_is_refused_with_the_callers_account_and_its_figures(book):
    # given Anna with 30.00 available
    book.fund(book.anna, 3_000)

    # when 40.00 is held on her account in a caller's transaction, without a savepoint
    with pytest.raises(Conflict) as refused, transaction.atomic():
        hold_place(account_id=book.anna.pk, amount=4_000, by=None, savepoint=False,
                   account=book.anna)

    # then the refusal names her account and its figures, read from nothing after it
    assert refused.value.code == "insufficient_funds"
    assert refused.value.detail["shortfall"] == "10.00"
    assert refused.value.message == (f"Account #{book.anna.pk} ({book.anna.ref}) has 30.00 EUR "
                                     "available; this needs 40.00 EUR.")
    assert fresh(book.anna).held == 0


def test_a_hold_without_a_savepoint_needs_the_account_it_holds_on(book):
    book.fund(book.anna, 3_000)

    with pytest.raises(ValueError, match="takes the account"):
        hold_place(account_id=book.anna.pk, amount=1_000, by=None, savepoint=False)
    with pytest.raises(ValueError, match="takes the account"):
        hold_place(account_id=book.anna.pk, amount=1_000, by=None, savepoint=False,
                   account=book.cage)

    assert fresh(book.anna).held == 0


def test_an_entry_refused_without_a_savepoint_says_so_from_the_refusal_alone(book):
    # given Anna with 10.00: an entry taking 30.00 from her, posted without a savepoint
    book.fund(book.anna, 1_000)

    with pytest.raises(Conflict) as refused, transaction.atomic():
        entry_post(kind="withdrawal", memo="", by=None, savepoint=False,
                   lines=[(book.anna.pk, -3_000), (book.cage.pk, 3_000)])

    # then the refusal is a 409 in words, not a failed read in a broken transaction
    assert refused.value.code == "insufficient_funds"
    assert refused.value.message == (f"Account #{book.anna.pk} has too little available: "
                                     "1000 of the 3000 needed (in the currency's minor units).")
    assert fresh(book.anna).posted == 1_000


def test_held_funds_cannot_be_spent_by_another_entry(book):
    book.fund(book.anna, 1_000)
    hold_place(account_id=book.anna.pk, amount=800, by=None)
    with pytest.raises(Conflict):
        entry_post(kind="withdrawal", memo="", by=None,
                   lines=[(book.anna.pk, -300), (book.cage.pk, 300)])


def test_a_partial_capture_moves_that_much_and_releases_the_rest(book):
    book.fund(book.anna, 10_000)
    hold = hold_place(account_id=book.anna.pk, amount=5_000, by=None, ref="round:9")

    entry = hold_capture(hold_id=hold.pk, amount=3_000, to_account_id=book.table.pk, by=None)

    hold.refresh_from_db()
    assert (hold.status, hold.captured_amount, hold.entry_id) == ("captured", 3_000, entry.pk)
    assert entry.ref == "round:9"
    assert account_balance(account_id=book.anna.pk).available == 7_000
    assert fresh(book.anna).held == 0 and fresh(book.table).posted == 3_000


def test_a_capture_cannot_take_more_than_the_hold(book):
    book.fund(book.anna, 10_000)
    hold = hold_place(account_id=book.anna.pk, amount=5_000, by=None)
    with pytest.raises(ValidationFailed):
        hold_capture(hold_id=hold.pk, amount=5_001, to_account_id=book.table.pk, by=None)


def test_a_hold_resolves_exactly_once(book):
    book.fund(book.anna, 1_000)
    released = hold_place(account_id=book.anna.pk, amount=500, by=None)
    captured = hold_place(account_id=book.anna.pk, amount=500, by=None)
    hold_release(hold_id=released.pk, by=None)
    hold_capture(hold_id=captured.pk, amount=500, to_account_id=book.table.pk, by=None)

    for hold in (released, captured):
        with pytest.raises(Conflict) as refused:
            hold_release(hold_id=hold.pk, by=None)
        assert refused.value.code == "hold_resolved"
        with pytest.raises(Conflict):
            hold_capture(hold_id=hold.pk, amount=1, to_account_id=book.table.pk, by=None)
    assert fresh(book.anna).posted == 500 and fresh(book.anna).held == 0


def test_funds_held_for_a_wager_pay_that_wager_when_the_entry_settles_the_hold(book):
    # given everything Anna has is held for her wager
    book.fund(book.anna, 2_000)
    hold = hold_place(account_id=book.anna.pk, amount=2_000, by=None, ref="round:3")

    # when the round's settlement loses her wager to the bank and settles the hold with it
    entry_post(kind="settlement", memo="", ref="round:3", by=None, settle_holds=[hold.pk],
               lines=[(book.anna.pk, -2_000), (book.table.pk, 2_000)])

    # then the hold is captured by that very entry and her balance is exactly zero
    hold.refresh_from_db()
    assert (hold.status, hold.captured_amount) == ("captured", 2_000)
    assert (fresh(book.anna).posted, fresh(book.anna).held) == (0, 0)


def test_a_settled_hold_on_an_account_the_entry_credits_is_released(book):
    book.fund(book.anna, 2_000)
    hold = hold_place(account_id=book.anna.pk, amount=2_000, by=None)

    entry_post(kind="win", memo="", by=None, settle_holds=[hold.pk],
               lines=[(book.table.pk, -1_900), (book.anna.pk, 1_900)])

    hold.refresh_from_db()
    assert (hold.status, hold.captured_amount) == ("released", None)
    assert fresh(book.anna).available == 3_900


def test_a_debit_is_shared_over_several_settled_holds_in_order(book):
    book.fund(book.anna, 3_000)
    first = hold_place(account_id=book.anna.pk, amount=1_000, by=None)
    second = hold_place(account_id=book.anna.pk, amount=1_000, by=None)

    entry_post(kind="loss", memo="", by=None, settle_holds=[second.pk, first.pk],
               lines=[(book.anna.pk, -1_500), (book.table.pk, 1_500)])

    assert [(h.status, h.captured_amount) for h in Hold.objects.filter(
        pk__in=[first.pk, second.pk]).order_by("pk")] == [("captured", 1_000), ("captured", 500)]


def test_balances_as_of_a_past_time_count_what_was_posted_and_held_then(book):
    book.fund(book.anna, 10_000)
    hold = hold_place(account_id=book.anna.pk, amount=4_000, by=None)
    while_held = timezone.now()
    hold_capture(hold_id=hold.pk, amount=4_000, to_account_id=book.table.pk, by=None)
    after = timezone.now()

    then = account_balance(account_id=book.anna.pk, as_of=while_held)
    now = account_balance(account_id=book.anna.pk, as_of=after)
    before = account_balance(account_id=book.anna.pk, as_of=hold.created_at.replace(year=2000))

    assert (then.posted, then.held) == (10_000, 4_000)
    assert (now.posted, now.held) == (6_000, 0)
    assert (before.posted, before.held) == (0, 0)
    assert now == account_balance(account_id=book.anna.pk)


def test_house_accounts_may_hold_beyond_their_balance(book):
    hold = hold_place(account_id=book.table.pk, amount=50_000, by=None)
    assert hold.status == "open" and fresh(book.table).held == 50_000


def test_one_statement_resolving_many_holds_moves_each_accounts_held_by_its_own_holds(book):
    # given three open holds on one account, one on another, and a third account's hold
    # that the entry leaves open
    from ledger.services import holds_release

    book.fund(book.anna, 10_000)
    book.fund(book.table, 10_000)
    anna = [hold_place(account_id=book.anna.pk, amount=a, by=None) for a in (1_000, 2_000, 500)]
    table = hold_place(account_id=book.table.pk, amount=4_000, by=None)
    kept = hold_place(account_id=book.table.pk, amount=300, by=None)

    # when one entry settles four of them in one statement: anna's debit of 2,500 captures
    # her first two holds in id order (1,000, then 1,500 of 2,000) and releases the third;
    # the table's hold is released, since the entry credits the table
    entry_post(kind="settlement", memo="", by=None,
               lines=[(book.anna.pk, -2_500), (book.table.pk, 2_500)],
               settle_holds=[*(h.pk for h in anna), table.pk])

    # then each account holds only what is still open on it
    assert (fresh(book.anna).held, fresh(book.table).held) == (0, 300)
    assert [Hold.objects.get(pk=h.pk).captured_amount for h in anna] == [1_000, 1_500, None]
    assert fresh(book.anna).posted == 7_500 and fresh(book.table).posted == 12_500
    # and releasing the last one in a statement of its own frees it too
    holds_release(hold_ids=[kept.pk], by=None)
    assert fresh(book.table).held == 0
