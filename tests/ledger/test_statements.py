"""An account's statement: opening balance, each movement with the balance it left, and the
closing balance, for a period cut by the entries' time; checked against the lines."""

from __future__ import annotations

from datetime import timedelta

from ledger.models import Entry
from ledger.selectors import account_balance, account_balance_after, account_statement
from ledger.services import entry_post


def test_a_statement_runs_from_the_opening_to_the_closing_balance(book, django_assert_num_queries):
    # given three movements on Anna's account and one on Bram's
    book.fund(book.anna, 10_000)
    entry_post(kind="wager_lost", memo="Table 1, round 1", ref="round:1",
               lines=[(book.anna.pk, -2_500), (book.table.pk, 2_500)], by=None)
    book.fund(book.bram, 7_000)
    book.fund(book.anna, 500)

    # when
    with django_assert_num_queries(2):  # the account, the lines (no opening before "ever")
        statement = account_statement(account_id=book.anna.pk)

    # then
    assert statement.opening == 0
    assert [(line.amount, line.balance) for line in statement.lines] == [
        (10_000, 10_000), (-2_500, 7_500), (500, 8_000)]
    assert statement.closing == 8_000 == account_balance(account_id=book.anna.pk).posted
    assert statement.lines[1].reference == "round:1"
    assert statement.lines[0].reference == "test funds"  # the account's own movement: its memo
    assert (statement.credits, statement.debits) == (10_500, -2_500)


def test_a_period_starts_from_the_balance_its_first_moment_had(book, django_assert_num_queries):
    book.fund(book.anna, 10_000)
    book.fund(book.anna, 2_000)
    book.fund(book.anna, 300)
    first, second, third = Entry.objects.filter(lines__account=book.anna).order_by("seq")

    with django_assert_num_queries(3):  # the account, the opening sum, the period's lines
        middle = account_statement(account_id=book.anna.pk, since=second.created_at,
                                   until=third.created_at)

    # then: the period holds the second movement only, from the first one's balance
    assert first.created_at < second.created_at < third.created_at  # the database clock
    assert [line.entry_id for line in middle.lines] == [second.pk]
    assert (middle.opening, middle.lines[0].balance, middle.closing) == (10_000, 12_000, 12_000)
    assert middle.closing == account_balance(
        account_id=book.anna.pk, as_of=third.created_at - timedelta(microseconds=1)).posted
    later = account_statement(account_id=book.anna.pk,
                              since=third.created_at + timedelta(microseconds=1))
    assert later.opening == later.closing == 12_300 and later.lines == []


def test_the_balance_after_an_entry_counts_it_and_every_earlier_one(book):
    book.fund(book.anna, 10_000)
    book.fund(book.anna, 2_000)
    first, second = Entry.objects.filter(lines__account=book.anna).order_by("seq")
    book.fund(book.anna, 300)

    assert account_balance_after(account_id=book.anna.pk, entry_id=first.pk) == 10_000
    assert account_balance_after(account_id=book.anna.pk, entry_id=second.pk) == 12_000
