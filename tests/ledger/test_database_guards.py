"""PostgreSQL itself refuses what the services refuse: each test goes around the ORM."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from ledger.services import entry_post, hold_capture, hold_place, hold_release


def sql(statement: str, params: list | None = None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])
        return cursor.fetchall() if cursor.description else []


def raw_entry(*lines: tuple[int, int]) -> int:
    """An entry and its lines inserted straight into the tables, as a careless script would."""
    (entry_id,) = sql(
        "INSERT INTO ledger_entry (kind, memo, ref, created_at, reason, txid)"
        " VALUES ('raw', '', '', now(), '', pg_current_xact_id()::text::bigint) RETURNING id")[0]
    for account_id, amount in lines:
        sql("INSERT INTO ledger_line (entry_id, account_id, amount) VALUES (%s, %s, %s)",
            [entry_id, account_id, amount])
    return entry_id


def check_deferred_now() -> None:
    """Run the deferred constraint triggers now, as COMMIT would."""
    sql("SET CONSTRAINTS ALL IMMEDIATE")


def refused(match: str):
    # A savepoint, so the test's transaction survives the refusal.
    class Refused:
        def __enter__(self):
            self.raises = pytest.raises(IntegrityError, match=match)
            self.raises.__enter__()
            self.atomic = transaction.atomic()
            self.atomic.__enter__()

        def __exit__(self, *exc):
            self.atomic.__exit__(*exc)  # never suppresses: it re-raises after rolling back
            return self.raises.__exit__(*exc)

    return Refused()


def test_an_unbalanced_entry_is_refused_at_commit(book):
    with refused("unbalanced"):
        raw_entry((book.cage.pk, -100), (book.table.pk, 90))
        check_deferred_now()


def test_an_entry_with_a_single_line_is_refused_at_commit(book):
    with refused("needs at least two"):
        raw_entry((book.table.pk, 100))
        check_deferred_now()


def test_an_entry_with_no_lines_is_refused_at_commit(book):
    with refused("needs at least two"):
        raw_entry()
        check_deferred_now()


def test_a_balanced_raw_entry_passes_and_updates_the_cached_balances(book):
    with transaction.atomic():
        raw_entry((book.cage.pk, -100), (book.table.pk, 60), (book.bram.pk, 40))
        check_deferred_now()
    assert sql("SELECT posted FROM ledger_account WHERE id = %s", [book.bram.pk]) == [(40,)]


def test_balance_is_checked_per_currency(book):
    usd = sql("INSERT INTO ledger_account (kind, currency, ref, name, allow_negative, posted,"
              " held, created_at) VALUES ('cage', 'USD', '', '', true, 0, 0, now())"
              " RETURNING id")[0][0]
    with refused("unbalanced: its (EUR|USD) lines"):
        raw_entry((book.cage.pk, -100), (usd, 100))
        check_deferred_now()


def test_an_entry_in_two_currencies_balances_in_each_or_is_refused_naming_the_one_that_does_not(
        book):
    usd = sql("INSERT INTO ledger_account (kind, currency, ref, name, allow_negative, posted,"
              " held, created_at) VALUES ('cage', 'USD', '', '', true, 0, 0, now())"
              " RETURNING id")[0][0]
    usd_table = sql("INSERT INTO ledger_account (kind, currency, ref, name, allow_negative,"
                    " posted, held, created_at) VALUES ('table_bankroll', 'USD', 'table:usd', '',"
                    " true, 0, 0, now()) RETURNING id")[0][0]

    with refused("unbalanced: its USD lines sum to 7"):
        raw_entry((book.cage.pk, -100), (book.table.pk, 100), (usd, -50), (usd_table, 57))
        check_deferred_now()
    with transaction.atomic():
        raw_entry((book.cage.pk, -100), (book.table.pk, 100), (usd, -50), (usd_table, 50))
        check_deferred_now()
    assert sql("SELECT posted FROM ledger_account WHERE id = %s", [usd_table]) == [(50,)]


@pytest.mark.django_db(transaction=True)
def test_the_balance_trigger_fires_on_a_real_commit():
    from tests.ledger.conftest import make_book

    book = make_book()
    with pytest.raises(IntegrityError, match="unbalanced"), transaction.atomic():
        raw_entry((book.cage.pk, -100), (book.table.pk, 99))
        # no SET CONSTRAINTS: the refusal comes from COMMIT itself
    assert sql("SELECT count(*) FROM ledger_entry WHERE kind = 'raw'") == [(0,)]


@pytest.mark.parametrize("statement", [
    "UPDATE ledger_entry SET memo = 'edited' WHERE id = %s",
    "UPDATE ledger_entry SET hash = hash WHERE id = %s",
    "DELETE FROM ledger_entry WHERE id = %s",
    "UPDATE ledger_line SET amount = amount * 2 WHERE entry_id = %s",
    "DELETE FROM ledger_line WHERE entry_id = %s",
])
def test_entries_and_lines_are_never_edited_or_deleted(book, statement):
    entry = entry_post(kind="deposit", memo="", by=None,
                       lines=[(book.cage.pk, -100), (book.anna.pk, 100)])
    with refused("never edited or deleted"):
        sql(statement, [entry.pk])


def test_a_resolved_hold_cannot_change_and_no_hold_is_deleted(book):
    book.fund(book.anna, 1_000)
    released = hold_place(account_id=book.anna.pk, amount=100, by=None)
    hold_release(hold_id=released.pk, by=None)
    captured = hold_place(account_id=book.anna.pk, amount=100, by=None)
    hold_capture(hold_id=captured.pk, amount=50, to_account_id=book.table.pk, by=None)
    open_hold = hold_place(account_id=book.anna.pk, amount=100, by=None)

    for hold in (released, captured):
        with refused("already .* and resolves once"):
            sql("UPDATE ledger_hold SET status = 'open', resolved_at = NULL,"
                " captured_amount = NULL, entry_id = NULL WHERE id = %s", [hold.pk])
    for hold in (released, captured, open_hold):
        with refused("DELETE on ledger_hold refused"):
            sql("DELETE FROM ledger_hold WHERE id = %s", [hold.pk])
    with refused("only the resolution"):
        sql("UPDATE ledger_hold SET amount = 1 WHERE id = %s", [open_hold.pk])


def test_a_hold_is_placed_open(book):
    with refused("placed open"):
        sql("INSERT INTO ledger_hold (account_id, amount, status, ref, memo, created_at,"
            " resolved_at) VALUES (%s, 5, 'released', '', '', now(), now())", [book.table.pk])


def test_a_player_account_cannot_hold_or_post_below_zero_even_around_the_orm(book):
    book.fund(book.anna, 1_000)
    with refused("ledger_account_available_not_negative"):
        sql("INSERT INTO ledger_hold (account_id, amount, status, ref, memo, created_at)"
            " VALUES (%s, 1001, 'open', '', '', now())", [book.anna.pk])
    with refused("ledger_account_available_not_negative"):
        raw_entry((book.anna.pk, -1_001), (book.table.pk, 1_001))


@pytest.mark.parametrize(("posted", "held", "constraint"), [
    (-1, 0, "ledger_account_available_not_negative"),
    (100, 101, "ledger_account_available_not_negative"),
    (0, -1, "ledger_account_held_not_negative"),
])
def test_check_constraints_keep_a_player_accounts_balances_sound(db, posted, held, constraint):
    with refused(constraint):
        sql("INSERT INTO ledger_account (kind, currency, ref, name, allow_negative, posted, held,"
            " created_at) VALUES ('player', 'EUR', 'player:raw', '', false, %s, %s, now())",
            [posted, held])


def test_the_held_check_applies_to_accounts_that_may_go_negative_too(db):
    with refused("ledger_account_held_not_negative"):
        sql("INSERT INTO ledger_account (kind, currency, ref, name, allow_negative, posted, held,"
            " created_at) VALUES ('cage', 'EUR', 'raw', '', true, 0, -1, now())")


@pytest.mark.parametrize("change", [
    "posted = posted + 100", "held = held + 1", "allow_negative = true", "currency = 'USD'",
    "kind = 'cage'",
])
def test_an_accounts_identity_and_cached_balances_change_only_through_the_ledger(book, change):
    with refused("never change|change only by posting"):
        sql(f"UPDATE ledger_account SET {change} WHERE id = %s", [book.anna.pk])


# --- the balance check of a line added to an entry that already exists ----------------------

def balance_checks_run() -> int:
    """How many times this transaction ran the balance check so far (track_functions)."""
    rows = sql("SELECT calls FROM pg_stat_xact_user_functions"
               " WHERE funcname = 'ledger_check_entry_balanced'")
    return rows[0][0] if rows else 0


def test_a_posted_entry_is_checked_once_and_a_line_added_to_an_existing_entry_again(book):
    sql("SET LOCAL track_functions = 'all'")

    entry_post(kind="deposit", memo="", by=None, lines=[(book.cage.pk, -100), (book.anna.pk, 100)])
    check_deferred_now()
    # the posting function inserts the lines before their entry, so only the entry's check runs
    assert balance_checks_run() == 1

    sql("SET CONSTRAINTS ALL DEFERRED")  # an entry, then its lines, statement by statement
    raw_entry((book.cage.pk, -100), (book.table.pk, 60), (book.bram.pk, 40))
    check_deferred_now()
    # lines inserted into an entry that already exists: the entry's check, and one per line
    assert balance_checks_run() == 1 + 4


def test_a_line_added_to_an_entry_after_its_check_ran_is_refused(book):
    entry = entry_post(kind="deposit", memo="", by=None,
                       lines=[(book.cage.pk, -100), (book.anna.pk, 100)])
    check_deferred_now()  # the entry's own check has run, and passed

    with refused("unbalanced"):
        sql("INSERT INTO ledger_line (entry_id, account_id, amount) VALUES (%s, %s, 5000)",
            [entry.pk, book.anna.pk])
    with refused("unbalanced"):
        sql("SET CONSTRAINTS ALL DEFERRED")  # deferred again: refused at commit instead
        sql("INSERT INTO ledger_line (entry_id, account_id, amount) VALUES (%s, %s, 5000)",
            [entry.pk, book.anna.pk])
        check_deferred_now()
    assert sql("SELECT count(*) FROM ledger_line WHERE entry_id = %s", [entry.pk]) == [(2,)]


def _lines_then_entry(lines: list[tuple[int, int]]) -> None:
    """One statement that inserts an entry's lines first and then the entry, as
    ledger_entry_post does: the lines' entry does not exist yet when they are inserted."""
    (entry_id,) = sql("SELECT nextval(pg_get_serial_sequence('ledger_entry', 'id'))")[0]
    values = ", ".join(["(%s::bigint, %s::bigint, %s::bigint)"] * len(lines))
    sql("WITH l AS (INSERT INTO ledger_line (entry_id, account_id, amount)"
        f" VALUES {values} RETURNING entry_id)"
        " INSERT INTO ledger_entry (id, kind, memo, ref, created_at, reason, txid)"
        " SELECT e.id, 'raw', '', '', now(), '', pg_current_xact_id()::text::bigint"
        " FROM (SELECT DISTINCT entry_id AS id FROM l) e",
        [value for account, amount in lines for value in (entry_id, account, amount)])


def test_lines_inserted_before_their_entry_are_checked_with_the_entry(book):
    with refused("unbalanced"):
        _lines_then_entry([(book.cage.pk, -100), (book.table.pk, 99)])
        check_deferred_now()
    with refused("needs at least two"):
        _lines_then_entry([(book.cage.pk, -100)])
        check_deferred_now()

    with transaction.atomic():
        _lines_then_entry([(book.cage.pk, -100), (book.table.pk, 100)])
        check_deferred_now()
    assert sql("SELECT posted FROM ledger_account WHERE id = %s", [book.table.pk]) == [(100,)]


@pytest.mark.django_db(transaction=True)
def test_a_line_added_to_an_old_entry_is_checked_even_without_the_same_transaction_guard():
    from tests.ledger.conftest import make_book

    book = make_book()
    old = entry_post(kind="deposit", memo="", by=None,
                     lines=[(book.cage.pk, -100), (book.anna.pk, 100)])
    try:
        # given the owner has switched off the guard that refuses lines for old entries,
        with pytest.raises(IntegrityError, match="unbalanced"), transaction.atomic():
            sql("ALTER TABLE ledger_line DISABLE TRIGGER ledger_line_posts")
            sql("INSERT INTO ledger_line (entry_id, account_id, amount) VALUES (%s, %s, 5000)",
                [old.pk, book.anna.pk])
        # then the line's own balance check still refuses it at commit
    finally:
        sql("ALTER TABLE ledger_line ENABLE TRIGGER ledger_line_posts")
    assert sql("SELECT count(*) FROM ledger_line WHERE entry_id = %s", [old.pk]) == [(2,)]
