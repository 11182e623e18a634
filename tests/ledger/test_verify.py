"""ledger_verify: clean on an honest ledger, and it names whatever was tampered with."""

from __future__ import annotations

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
    assert f"entry #{line.entry_id}: hash does not match its content" in out
    assert f"entry #{line.entry_id}: EUR lines sum to 1.00, not 0" in out
    assert (f"account #{busy_book.bram.pk} (player {busy_book.bram.ref} EUR): cached posted "
            "50.00 but its lines sum to 51.00") in out
    assert "the EUR accounts sum to 1.00, not 0" in out


def test_a_rewritten_memo_breaks_the_chain_at_that_entry(busy_book):
    entry = busy_book.anna.lines.order_by("pk").first().entry
    behind_the_triggers_back("ledger_entry", "ledger_entry_immutable",
                             "UPDATE ledger_entry SET memo = 'nothing to see' WHERE id = %s",
                             [entry.pk])

    assert ledger_verify().problems == [
        f"entry #{entry.pk}: hash does not match its content (altered after posting)"]


def test_a_rehashed_entry_still_breaks_the_link_to_the_next_one(busy_book):
    entry = busy_book.anna.lines.order_by("pk").first().entry
    behind_the_triggers_back("ledger_entry", "ledger_entry_immutable",
                             "UPDATE ledger_entry SET hash = md5('forged') || md5('x')"
                             " WHERE id = %s", [entry.pk])

    problems = ledger_verify().problems
    assert any(p.startswith(f"entry #{entry.pk}: hash does not match") for p in problems)
    assert any("prev_hash does not match the hash of " f"entry #{entry.pk}" in p
               for p in problems)


def test_a_tampered_held_cache_is_caught(busy_book):
    behind_the_triggers_back("ledger_account", "ledger_account_guard",
                             "UPDATE ledger_account SET held = 0 WHERE id = %s",
                             [busy_book.bram.pk])

    assert ledger_verify().problems == [
        f"account #{busy_book.bram.pk} (player {busy_book.bram.ref} EUR): cached held 0.00 "
        "but its open holds sum to 7.00"]


def test_a_chain_head_moved_off_the_last_entry_is_caught(busy_book):
    # The head's own triggers refuse this move; the owner can switch them off.
    behind_the_triggers_back("ledger_chainhead", "USER",
                             "UPDATE ledger_chainhead SET last_entry_id = last_entry_id - 1", [])

    (problem,) = ledger_verify().problems
    assert problem.startswith("chain head names entry #")
