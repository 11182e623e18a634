"""Attacks on the sealed blocks and the checkpoints that start a verify: what the service's
role can write beside the posting function, and what the readers of blocks must survive."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import DatabaseError, connection, transaction

from ledger.selectors import entry_list
from ledger.verify import ledger_verify
from tests.ledger.conftest import make_book


def sql(statement: str, params: list | None = None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])
        return cursor.fetchall() if cursor.description else []


@contextmanager
def refused(match: str) -> Iterator[None]:
    # A savepoint, so the test's transaction survives the refusal.
    with pytest.raises(DatabaseError, match=match), transaction.atomic():
        yield
        sql("SET CONSTRAINTS ALL IMMEDIATE")  # deferred guards speak now, as at COMMIT


# --- an entry is dated when it is posted ----------------------------------------------------

@pytest.mark.django_db
@pytest.mark.parametrize("created_at", [
    # into a day already closed and reported: the trial balance as of then changes
    "now() - interval '2 days'",
    # never "unsealed for too long" in ledger_verify's eyes
    "now() + interval '1 hour'",
    # hashed by the block's trigger as year 0999, by ledger.chain as 999: an honest block
    # that ledger_verify would call tampered, for ever
    "'0999-06-01 12:00:00+00'",
    # no Python datetime: ledger_verify and the entry list would fail to read it
    "'infinity'",
])
def test_an_entry_written_beside_the_function_is_dated_when_it_is_posted(
        as_runtime_role, created_at):
    book = make_book()
    with refused("dated when it is posted"):
        (entry_id,) = sql(
            "INSERT INTO ledger_entry (kind, memo, ref, created_at, reason, txid)"
            f" VALUES ('raw', '', '', {created_at}, '', pg_current_xact_id()::text::bigint)"
            " RETURNING id")[0]
        sql("INSERT INTO ledger_line (entry_id, account_id, amount) VALUES (%s, %s, -5),"
            " (%s, %s, 5)", [entry_id, book.cage.pk, entry_id, book.anna.pk])


# --- which block holds an entry -------------------------------------------------------------

@pytest.mark.django_db
def test_the_block_of_a_listed_entry_is_found_through_an_index_not_a_scan_of_every_block():
    # The sealer makes a block every few seconds, and every entry chained before blocks is
    # one: a scan of them all for each entry of a page would take seconds once years old.
    book = make_book()
    book.fund(book.anna, 100)
    with transaction.atomic():
        sql("SET LOCAL enable_seqscan = off")
        plan = entry_list().explain()
    assert "Seq Scan on ledger_block" not in plan
    assert "Index Cond: (last_txid >= " in plan, plan


# --- a checkpoint written beside ledger_verify ----------------------------------------------

@pytest.mark.django_db
@pytest.mark.parametrize(("balances", "signature"), [
    ('{"cage": 1}', "0" * 64),  # not an account id
    ('{"1": "lots"}', "0" * 64),  # not an amount
    ("[1, 2]", "0" * 64),  # not a mapping
    ('"{"', "0" * 64),  # a JSON string, and no JSON inside
    ("{}", "é" * 64),  # hmac.compare_digest refuses non-ASCII text
])
def test_a_checkpoint_the_service_role_wrote_is_named_not_a_crash(as_runtime_role, balances,
                                                                    signature):
    book = make_book()
    book.fund(book.anna, 100)
    # given a row the runtime role may append, shaped as no verify ever writes one
    sql("INSERT INTO ledger_checkpoint (block_n, hash, balances, verified_at, signature)"
        " VALUES (1, repeat('0', 64), %s::jsonb, now(), %s)", [balances, signature])

    report = ledger_verify()

    assert not report.ok
    assert any("is not signed with the ledger's checkpoint key" in problem
               for problem in report.problems), report.problems
    assert report.started_after is None  # from the genesis
