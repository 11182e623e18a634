"""Migration 0018 moves the chain kept one entry at a time into blocks with nothing lost: an
anchor written down before the move still verifies, and entries posted after it are sealed
onto the same chain."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from ledger.models import Block
from tests.ledger.conftest import make_book, seal_everything

BEFORE = ("ledger", "0017_collection_account_kind")


def sql(statement: str, params: list | None = None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])
        return cursor.fetchall() if cursor.description else []


def verify(*args: str) -> list[str]:
    out = StringIO()
    call_command("ledger_verify", *args, stdout=out)
    return out.getvalue().splitlines()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_chain_moves_into_blocks_and_anchors_from_before_still_verify(executor):
    # given the ledger as it was, three entries chained by the old posting function
    executor.migrate([BEFORE])
    (cage,), (anna,) = (sql("INSERT INTO ledger_account (kind, currency, ref, name,"
                            " allow_negative, posted, held, created_at) VALUES"
                            f" ('{kind}', 'EUR', '{ref}', '', {neg}, 0, 0, now()) RETURNING id")[0]
                        for kind, ref, neg in (("cage", "", "true"), ("player", "player:1",
                                                                       "false")))
    chained = [sql("SELECT o_id, o_seq, o_hash FROM ledger_entry_post('deposit', 'slip', '',"
                   " NULL, NULL, '', %s::bigint[], %s::bigint[], '{}'::bigint[])",
                   [[cage, anna], [-amount, amount]])[0] for amount in (100, 250, 400)]
    middle_anchor = f"{chained[1][1]}:{chained[1][2]}"
    head_anchor = f"{chained[2][1]}:{chained[2][2]}"

    # when the ledger migrates to blocks
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    # then each chained entry is the block of its seq, with its hashes
    assert list(Block.objects.values_list("n", "last_txid", "last_entry_id", "entries",
                                          "hash")) == [
        (seq, None, entry_id, 1, entry_hash) for entry_id, seq, entry_hash in chained]
    # and the anchors written down before the move still verify
    for anchor in (middle_anchor, head_anchor):
        assert f"head: {head_anchor}" in verify("--expect", anchor, "--all")
    # and new entries are sealed onto the same chain, the old anchors holding
    book = make_book()
    book.fund(book.anna, 1_000)
    newest = seal_everything()
    assert Block.objects.get(n=newest).prev_hash == chained[2][2]
    assert any(line.startswith(f"head: {newest}:") for line in verify("--expect", head_anchor))
    # and a chained entry rewritten by the owner is found through its block
    sql("ALTER TABLE ledger_entry DISABLE TRIGGER USER")
    sql("UPDATE ledger_entry SET memo = 'other slip' WHERE id = %s", [chained[0][0]])
    sql("ALTER TABLE ledger_entry ENABLE TRIGGER USER")
    with pytest.raises(CommandError, match="discrepancies"):
        verify("--all")
