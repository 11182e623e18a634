"""ledger_verify: clean on an honest ledger, and it names whatever was tampered with."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from ledger import chain
from ledger.management.commands.ledger_verify import parse_anchor
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


# --- the head, and anchors kept outside the database ----------------------------------------

def rows(statement: str, params: list | None = None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])
        return cursor.fetchall()


def verify_output(*args: str) -> str:
    out = StringIO()
    call_command("ledger_verify", *args, stdout=out)
    return out.getvalue()


def anchor_now() -> str:
    (line,) = [ln for ln in verify_output().splitlines() if ln.startswith("head: ")]
    return line.removeprefix("head: ")


def as_the_owner_triggers_off(*statements: tuple[str, list]) -> None:
    """The owner's worst: every guard of the ledger's tables off, edit, guards back on."""
    sql("SET CONSTRAINTS ALL IMMEDIATE")
    tables = ("ledger_entry", "ledger_line", "ledger_account", "ledger_chainhead")
    for table in tables:
        sql(f"ALTER TABLE {table} DISABLE TRIGGER USER")
    for statement, params in statements:
        sql(statement, params)
    for table in tables:
        sql(f"ALTER TABLE {table} ENABLE TRIGGER USER")
    sql("SET CONSTRAINTS ALL DEFERRED")


def rechain_from(seq: int) -> None:
    """Recompute every hash from ``seq`` on and the head, so the chain agrees with itself."""
    prev = rows("SELECT hash FROM ledger_entry WHERE seq = %s", [seq - 1])
    prev_hash = prev[0][0] if prev else chain.GENESIS
    updates = []
    for (entry_id, entry_seq, at, kind, memo, ref, by, reverses, reason, accounts,
         amounts) in rows(
            "SELECT e.id, e.seq, e.created_at, e.kind, e.memo, e.ref, e.created_by_id,"
            " e.reverses_id, e.reason, array_agg(l.account_id ORDER BY l.id),"
            " array_agg(l.amount ORDER BY l.id) FROM ledger_entry e"
            " JOIN ledger_line l ON l.entry_id = e.id WHERE e.seq >= %s"
            " GROUP BY e.id ORDER BY e.seq", [seq]):
        content = chain.canonical(entry_id=entry_id, seq=entry_seq, created_at=at, kind=kind,
                                  memo=memo, ref=ref, created_by_id=by, reverses_id=reverses,
                                  reason=reason, lines=zip(accounts, amounts, strict=True))
        new_hash = chain.entry_hash(prev_hash, content)
        updates.append(("UPDATE ledger_entry SET prev_hash = %s, hash = %s WHERE id = %s",
                        [prev_hash, new_hash, entry_id]))
        updates.append(("UPDATE ledger_chainhead SET last_entry_id = %s, seq = %s,"
                        " prev_hash = %s, last_hash = %s", [entry_id, entry_seq, prev_hash,
                                                           new_hash]))
        prev_hash = new_hash
    as_the_owner_triggers_off(*updates)


def test_the_head_is_printed_as_the_anchor_to_keep(busy_book):
    (seq, entry_hash) = rows("SELECT seq, hash FROM ledger_entry ORDER BY seq DESC LIMIT 1")[0]

    assert f"head: {seq}:{entry_hash}" in verify_output().splitlines()


def test_a_missing_head_row_is_a_discrepancy_not_a_skipped_check(busy_book):
    as_the_owner_triggers_off(("DELETE FROM ledger_chainhead", []))

    (problem,) = ledger_verify().problems
    assert problem.startswith("the chain head row is missing, but the chain has 5 entries")


def test_an_empty_ledger_needs_no_head(db):
    assert ledger_verify().ok
    assert "head: 0:" + chain.GENESIS in verify_output().splitlines()


def test_the_anchor_still_holds_after_honest_postings(busy_book):
    anchor = anchor_now()
    busy_book.fund(busy_book.anna, 100)

    assert "passes through the anchored head" in verify_output("--expect", anchor)


def test_a_tail_rewritten_and_rehashed_by_the_owner_fails_the_anchor(busy_book):
    # given an anchor taken at the head
    anchor = anchor_now()
    # (A deposit, which nothing reverses: a rewritten entry that was reversed would leave
    # its reversal no longer its negation, which ledger_verify names by itself.)
    deposit = busy_book.bram.lines.order_by("pk").first().entry_id
    (first_seq,) = rows("SELECT seq FROM ledger_entry WHERE id = %s", [deposit])[0]

    # when the owner, triggers off, credits the deposit with more and rehashes from there on
    lines = rows("SELECT id, account_id FROM ledger_line WHERE entry_id = %s ORDER BY amount",
                 [deposit])
    as_the_owner_triggers_off(
        ("UPDATE ledger_line SET amount = amount - 5000 WHERE id = %s", [lines[0][0]]),
        ("UPDATE ledger_line SET amount = amount + 5000 WHERE id = %s", [lines[1][0]]),
        ("UPDATE ledger_account SET posted = posted - 5000 WHERE id = %s", [lines[0][1]]),
        ("UPDATE ledger_account SET posted = posted + 5000 WHERE id = %s", [lines[1][1]]))
    rechain_from(first_seq)

    # then the chain agrees with itself, but not with the anchor
    assert ledger_verify().ok
    with pytest.raises(CommandError, match="1 discrepancies"):
        verify_output("--expect", anchor)
    (problem,) = ledger_verify(anchor=parse_anchor(anchor)).problems
    assert problem.startswith(f"the entry at seq {anchor.split(':')[0]} has hash ")
    assert problem.endswith("the chain was rewritten at or before that entry")


def test_entries_removed_with_the_head_moved_back_fail_the_anchor(busy_book):
    # given an anchor, then the owner deletes the newest entry (the reversal) and moves the
    # head back to the entry before it, fixing the cached balances: a consistent chain
    anchor = anchor_now()
    ((last_id, last_seq),) = rows("SELECT id, seq FROM ledger_entry ORDER BY seq DESC LIMIT 1")
    ((prev_id, prev_hash, prev_prev),) = rows(
        "SELECT id, hash, prev_hash FROM ledger_entry WHERE seq = %s", [last_seq - 1])
    undo = [("UPDATE ledger_account SET posted = posted - %s WHERE id = %s", [amount, account])
            for account, amount in rows(
                "SELECT account_id, amount FROM ledger_line WHERE entry_id = %s", [last_id])]
    as_the_owner_triggers_off(
        *undo,
        ("DELETE FROM ledger_line WHERE entry_id = %s", [last_id]),
        ("DELETE FROM ledger_entry WHERE id = %s", [last_id]),
        ("UPDATE ledger_chainhead SET last_entry_id = %s, seq = %s, last_hash = %s,"
         " prev_hash = %s", [prev_id, last_seq - 1, prev_hash, prev_prev]))
    assert ledger_verify().ok

    with pytest.raises(CommandError, match="discrepancies"):
        verify_output("--expect", anchor)
    (problem,) = ledger_verify(anchor=parse_anchor(anchor)).problems
    assert problem == (f"the chain no longer reaches the anchored head at seq {last_seq}: it "
                       f"ends at seq {last_seq - 1} (entries were removed)")


@pytest.mark.parametrize("anchor", ["12", "x:" + "0" * 64, "3:" + "g" * 64, "3:abc"])
def test_a_malformed_anchor_is_refused_plainly(db, anchor):
    with pytest.raises(CommandError, match="--expect takes SEQ:HASH"):
        verify_output("--expect", anchor)


# --- entries written around ledger_entry_post, as the runtime role can ------------------------

def chain_beside_the_function(*, lines: list[tuple[int, int]], kind: str = "raw",
                              by: int | None = None, reverses: int | None = None,
                              reason: str = "", rehash: bool = True,
                              move_head: bool = True) -> int:
    """An entry inserted by hand with the next seq, linked to the head's hash, with its own
    hash right (``rehash``) or not, and the head moved onto it (``move_head``) or not: what
    the runtime role may write without the posting function and its checks. The database's
    guards accept it (they run here at once, as at COMMIT)."""
    ((head_seq, head_hash),) = rows("SELECT seq, last_hash FROM ledger_chainhead")
    ((entry_id, at),) = rows("SELECT nextval('ledger_entry_id_seq'), now()")
    content = chain.canonical(entry_id=entry_id, seq=head_seq + 1, created_at=at, kind=kind,
                              memo="", ref="", created_by_id=by, reverses_id=reverses,
                              reason=reason, lines=lines)
    entry_hash = chain.entry_hash(head_hash, content) if rehash else "f" * 64
    sql("INSERT INTO ledger_entry (id, seq, kind, memo, ref, created_at, created_by_id,"
        " reverses_id, reason, prev_hash, hash) VALUES (%s, %s, %s, '', '', %s, %s, %s, %s,"
        " %s, %s)", [entry_id, head_seq + 1, kind, at, by, reverses, reason, head_hash,
                     entry_hash])
    for account_id, amount in lines:
        sql("INSERT INTO ledger_line (entry_id, account_id, amount) VALUES (%s, %s, %s)",
            [entry_id, account_id, amount])
    if move_head:
        sql("UPDATE ledger_chainhead SET seq = seq + 1, prev_hash = last_hash,"
            " last_hash = %s, last_entry_id = %s", [entry_hash, entry_id])
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


def last_link() -> tuple[int, int, str]:
    return rows("SELECT id, seq, hash FROM ledger_entry ORDER BY seq DESC LIMIT 1")[0]


def test_a_reversal_that_does_not_negate_its_original_is_named_however_it_was_chained(
        busy_book, pit_boss, as_runtime_role):
    # given Bram's deposit of 50.00, and a "reversal" of it the runtime role chained by hand
    # (the posting function refuses it) that takes back 1.00 only
    deposit = busy_book.bram.lines.order_by("pk").first().entry_id
    before_id, before_seq, before_hash = last_link()
    forged = chain_beside_the_function(
        kind="reversal", by=pit_boss.pk, reverses=deposit, reason="typo",
        lines=[(busy_book.cage.pk, 100), (busy_book.bram.pk, -100)])

    out = verify_failing()

    # then it is named, and no head is offered to anchor
    problem = (f"entry #{forged}: reverses entry #{deposit} but its lines are not exactly "
               f"#{deposit}'s negated (not a correction of it)")
    assert problem in out.splitlines()
    assert not [line for line in out.splitlines() if line.startswith("head:")]
    assert (f"last good link: entry #{before_id} at seq {before_seq}, hash {before_hash}"
            in out.splitlines())
    assert f"first bad link: seq {before_seq + 1}, {problem}" in out.splitlines()
    assert ledger_verify().problems == [problem]


def test_a_reversal_of_a_reversal_chained_by_hand_is_named(busy_book, pit_boss,
                                                           as_runtime_role):
    reversal, original = rows("SELECT id, reverses_id FROM ledger_entry"
                              " WHERE reverses_id IS NOT NULL")[0]
    negation = [(account, -amount) for account, amount in rows(
        "SELECT account_id, amount FROM ledger_line WHERE entry_id = %s", [reversal])]
    forged = chain_beside_the_function(kind="reversal", by=pit_boss.pk, reverses=reversal,
                                       reason="again", lines=negation)

    assert ledger_verify().problems == [
        f"entry #{forged}: reverses entry #{reversal}, itself the reversal of entry "
        f"#{original} (a reversal is never reversed)"]


@pytest.mark.parametrize(("rehash", "move_head", "why"), [
    (False, False, "hash does not match its content (altered after posting)"),
    (True, False, "comes after the entry the chain head names, #{last}"
                  " (written beside the chain)"),
])
def test_an_entry_beside_the_chain_is_never_printed_as_its_head(
        busy_book, as_runtime_role, rehash, move_head, why):
    # given the chain's honest end, then a balanced entry linked to it by hand
    last_id, last_seq, last_hash = last_link()
    forged = chain_beside_the_function(lines=[(busy_book.table.pk, -100),
                                              (busy_book.anna.pk, 100)],
                                       rehash=rehash, move_head=move_head)

    out = verify_failing().splitlines()

    assert not [line for line in out if line.startswith("head:")]
    assert f"last good link: entry #{last_id} at seq {last_seq}, hash {last_hash}" in out
    assert (f"first bad link: seq {last_seq + 1}, entry #{forged}: "
            + why.format(last=last_id)) in out


def test_a_head_row_off_the_chain_leaves_the_chains_end_as_its_last_good_link(busy_book):
    last_id, last_seq, last_hash = last_link()
    behind_the_triggers_back("ledger_chainhead", "USER",
                             "UPDATE ledger_chainhead SET last_entry_id = last_entry_id - 1", [])

    out = verify_failing().splitlines()

    assert not [line for line in out if line.startswith("head:")]
    assert f"last good link: entry #{last_id} at seq {last_seq}, hash {last_hash}" in out
    assert (f"first bad link: chain head names entry #{last_id - 1} but the chain ends at "
            f"entry #{last_id}") in out


def test_a_broken_anchor_vouches_for_no_link_but_the_genesis(busy_book):
    anchor = anchor_now()
    as_the_owner_triggers_off(("UPDATE ledger_entry SET memo = 'x' WHERE seq = 1", []))
    rechain_from(1)

    out = verify_failing("--expect", anchor).splitlines()

    assert not [line for line in out if line.startswith("head:")]
    assert f"last good link: the genesis (seq 0, hash {chain.GENESIS})" in out
