"""ledger_verify: clean on an honest ledger, and it names whatever was tampered with."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from ledger.services import entry_post, entry_reverse, hold_capture, hold_place, hold_release
from ledger.verify import ledger_verify


def sql(statement: str, params: list | None = None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])


def behind_the_triggers_back(table: str, trigger: str, statement: str, params: list) -> None:
    """What someone with the database owner's rights could do: switch a guard off, edit,
    switch it back on."""
    # The test's transaction never commits: run deferred checks as they come, since
    # PostgreSQL will not alter a table with trigger events pending.
    sql("SET CONSTRAINTS ALL IMMEDIATE")
    sql(f"ALTER TABLE {table} DISABLE TRIGGER {trigger}")
    sql(statement, params)
    sql(f"ALTER TABLE {table} ENABLE TRIGGER {trigger}")
    sql("SET CONSTRAINTS ALL DEFERRED")


@pytest.fixture
def busy_book(book, pit_boss):
    book.fund(book.anna, 10_000)
    book.fund(book.bram, 5_000)
    hold = hold_place(account_id=book.anna.pk, amount=3_000, by=None, ref="round:1")
    hold_capture(hold_id=hold.pk, amount=1_000, to_account_id=book.table.pk, by=None)
    released = hold_place(account_id=book.bram.pk, amount=500, by=None)
    hold_release(hold_id=released.pk, by=None)
    hold_place(account_id=book.bram.pk, amount=700, by=None)  # left open
    win = entry_post(kind="win", memo="", by=None,
                     lines=[(book.table.pk, -1_900), (book.bram.pk, 1_900)])
    entry_reverse(entry_id=win.pk, reason="wrong seat", by=pit_boss)
    return book


def test_an_honest_ledger_verifies_clean(busy_book, capsys):
    call_command("ledger_verify")

    assert capsys.readouterr().out.startswith("OK: ")
    assert ledger_verify().ok


def test_a_line_altered_behind_the_triggers_back_is_caught_and_named(busy_book, capsys):
    line = busy_book.bram.lines.order_by("pk").first()
    behind_the_triggers_back("ledger_line", "ledger_line_immutable",
                             "UPDATE ledger_line SET amount = amount + 100 WHERE id = %s",
                             [line.pk])

    with pytest.raises(CommandError, match="discrepancies"):
        call_command("ledger_verify")

    out = capsys.readouterr().out
    assert f"entry #{line.entry_id}: EUR lines sum to 1.00, not 0" in out
    assert (f"account #{busy_book.bram.pk} (player {busy_book.bram.ref} EUR): cached posted "
            "50.00 but its lines sum to 51.00") in out
    assert "the EUR accounts sum to 1.00, not 0" in out


def test_a_tampered_held_cache_is_caught(busy_book):
    behind_the_triggers_back("ledger_account", "ledger_account_guard",
                             "UPDATE ledger_account SET held = 0 WHERE id = %s",
                             [busy_book.bram.pk])

    assert ledger_verify().problems == [
        f"account #{busy_book.bram.pk} (player {busy_book.bram.ref} EUR): cached held 0.00 "
        "but its open holds sum to 7.00"]


# --- entries written around the posting function -------------------------------------------

def rows(statement: str, params: list | None = None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])
        return cursor.fetchall()


def entry_beside_the_function(*, lines: list[tuple[int, int]], kind: str = "raw",
                              by: int | None = None, reverses: int | None = None,
                              reason: str = "") -> int:
    """An entry inserted by hand, stamped as the guard wants: what the runtime role may
    write without the posting function and its checks. The database's guards accept it
    (they run here at once, as at COMMIT)."""
    ((entry_id,),) = rows(
        "INSERT INTO ledger_entry (kind, memo, ref, created_at, created_by_id, reverses_id,"
        " reason, txid) VALUES (%s, '', '', now(), %s, %s, %s,"
        " pg_current_xact_id()::text::bigint) RETURNING id", [kind, by, reverses, reason])
    for account_id, amount in lines:
        sql("INSERT INTO ledger_line (entry_id, account_id, amount) VALUES (%s, %s, %s)",
            [entry_id, account_id, amount])
    sql("SET CONSTRAINTS ALL IMMEDIATE")
    sql("SET CONSTRAINTS ALL DEFERRED")
    return entry_id


def verify_failing(*args: str) -> str:
    """ledger_verify's output when it finds discrepancies; it exits with status 1."""
    out = StringIO()
    with pytest.raises(CommandError, match="discrepancies") as failed:
        call_command("ledger_verify", *args, stdout=out)
    assert failed.value.returncode == 1
    return out.getvalue()


def test_a_reversal_that_does_not_negate_its_original_is_named_however_it_was_posted(
        busy_book, pit_boss, as_runtime_role):
    # given Bram's deposit of 50.00, and a "reversal" of it the runtime role wrote by hand
    # (the posting function refuses it) that takes back 1.00 only
    deposit = busy_book.bram.lines.order_by("pk").first().entry_id
    forged = entry_beside_the_function(
        kind="reversal", by=pit_boss.pk, reverses=deposit, reason="typo",
        lines=[(busy_book.cage.pk, 100), (busy_book.bram.pk, -100)])

    out = verify_failing()

    # then it is named
    problem = (f"entry #{forged}: reverses entry #{deposit} but its lines are not exactly "
               f"#{deposit}'s negated (not a correction of it)")
    assert problem in out.splitlines()
    assert ledger_verify().problems == [problem]


def test_a_reversal_of_a_reversal_chained_by_hand_is_named(busy_book, pit_boss,
                                                           as_runtime_role):
    reversal, original = rows("SELECT id, reverses_id FROM ledger_entry"
                              " WHERE reverses_id IS NOT NULL")[0]
    negation = [(account, -amount) for account, amount in rows(
        "SELECT account_id, amount FROM ledger_line WHERE entry_id = %s", [reversal])]
    forged = entry_beside_the_function(kind="reversal", by=pit_boss.pk, reverses=reversal,
                                       reason="again", lines=negation)

    assert ledger_verify().problems == [
        f"entry #{forged}: reverses entry #{reversal}, itself the reversal of entry "
        f"#{original} (a reversal is never reversed)"]
