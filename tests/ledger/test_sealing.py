"""Entries sealed after commit, in blocks: postings on disjoint accounts never wait for each
other, the sealer seals only what no earlier transaction can overtake, and ledger_verify
finds a tampered, missing or reordered block and an entry left unsealed, run as the owner
and as the service's role. Committed transactions throughout: the sealer never seals an
entry of a transaction still running, a test's own included."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from io import StringIO

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.test import override_settings

from ledger import chain
from ledger.models import Block, Checkpoint, Entry
from ledger.services import entries_seal, entry_post
from ledger.verify import ledger_verify
from tests.ledger.conftest import make_book, seal_everything

pytestmark = pytest.mark.django_db(transaction=True)


def sql(statement: str, params: list | None = None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])
        return cursor.fetchall() if cursor.description else []


def owner_triggers_off(*statements: str) -> None:
    """The database owner's worst: the ledger's guards off, edit, guards back on."""
    with transaction.atomic():
        for table in ("ledger_entry", "ledger_line", "ledger_block"):
            sql(f"ALTER TABLE {table} DISABLE TRIGGER USER")
        for statement in statements:
            sql(statement)
        for table in ("ledger_entry", "ledger_line", "ledger_block"):
            sql(f"ALTER TABLE {table} ENABLE TRIGGER USER")


@contextmanager
def as_role(role: str | None) -> Iterator[None]:
    """ledger_verify run by the owner (None) or by the service's role."""
    with transaction.atomic():
        if role:
            sql(f"SET LOCAL ROLE {role}")
        yield


def verify_out(*args: str, role: str | None = None) -> tuple[bool, list[str]]:
    out = StringIO()
    with as_role(role):
        try:
            call_command("ledger_verify", *args, stdout=out)
            ok = True
        except CommandError:
            ok = False
    return ok, out.getvalue().splitlines()


def three_blocks(book) -> list[int]:
    """Three or more sealed blocks of deposits; their numbers."""
    for amount in (100, 200, 300):
        book.fund(book.anna, amount)
        book.fund(book.bram, amount)
        seal_everything()
    return list(Block.objects.values_list("n", flat=True))


def test_blocks_hash_their_entries_in_order_as_ledger_chain_says(runtime_role):
    book = make_book()
    book.fund(book.anna, 1_000)
    book.fund(book.bram, 500)

    seal_everything()

    # (one block, or two when another process's transaction held the second entry back)
    entries = list(Entry.objects.order_by("txid", "id"))
    blocks = list(Block.objects.order_by("n"))
    assert sum(b.entries for b in blocks) == len(entries) == 2
    prev, taken = chain.GENESIS, 0
    for block in blocks:
        mine, taken = entries[taken:taken + block.entries], taken + block.entries
        assert block.last_entry_id == mine[-1].pk
        digests = [chain.entry_digest(
            entry_id=e.pk, txid=e.txid, created_at=e.created_at, kind=e.kind, memo=e.memo,
            ref=e.ref, created_by_id=e.created_by_id, reverses_id=e.reverses_id,
            reason=e.reason, lines=e.lines.values_list("account_id", "amount"))
            for e in mine]
        assert block.prev_hash == prev
        assert block.hash == chain.block_hash(prev, block.n, digests)
        prev = block.hash
    for role in (None, runtime_role):
        ok, out = verify_out(role=role)
        assert ok, out
        assert f"head: {blocks[-1].n}:{prev}" in out


def test_two_postings_on_disjoint_accounts_never_wait_for_each_other(runtime_role):
    # given table 1's posting held open in a transaction of its own
    one, two = make_book(), make_book()
    one.fund(one.anna, 1_000)
    two.fund(two.anna, 1_000)
    settings = connection.settings_dict
    held = psycopg.connect(host=settings["HOST"], port=settings["PORT"] or 5432,
                           user=settings["USER"], password=settings["PASSWORD"] or None,
                           dbname=settings["NAME"])
    try:
        held.execute("SELECT ledger_entry_post('bet', '', '', NULL, NULL, '', %s::bigint[],"
                     " %s::bigint[], '{}'::bigint[])",
                     [[one.anna.pk, one.table.pk], [-100, 100]])
        # when table 2 posts on accounts of its own, allowed to wait 1 s for a lock
        with transaction.atomic():
            sql("SET LOCAL lock_timeout = '1s'")
            started = time.monotonic()
            entry_post(kind="bet", memo="", by=None,
                       lines=[(two.anna.pk, -100), (two.table.pk, 100)])
            waited = time.monotonic() - started
        # then it posted without waiting; a posting on table 1's player would have
        with pytest.raises(Exception, match="lock timeout"), transaction.atomic():
            sql("SET LOCAL lock_timeout = '1s'")
            entry_post(kind="bet", memo="", by=None,
                       lines=[(one.anna.pk, -100), (one.table.pk, 100)])
    finally:
        held.rollback()
        held.close()
    assert waited < 1.0


def test_an_entry_is_sealed_only_once_no_earlier_transaction_can_overtake_it():
    book = make_book()
    book.fund(book.anna, 1_000)
    seal_everything()
    # given an earlier transaction, still running, that posted an entry
    settings = connection.settings_dict
    early = psycopg.connect(host=settings["HOST"], port=settings["PORT"] or 5432,
                            user=settings["USER"], password=settings["PASSWORD"] or None,
                            dbname=settings["NAME"])
    try:
        ((early_id,),) = early.execute(
            "SELECT o_id FROM ledger_entry_post('bet', '', '', NULL, NULL, '',"
            " %s::bigint[], %s::bigint[], '{}'::bigint[])",
            [[book.anna.pk, book.table.pk], [-100, 100]]).fetchall()
        # and a later one, committed
        later = entry_post(kind="bet", memo="", by=None,
                           lines=[(book.bram.pk, 1), (book.cage.pk, -1)])
        # then the later entry waits: sealing it now could let the earlier one commit
        # behind a block already sealed
        assert entries_seal().entries == 0
        assert not Block.objects.filter(last_entry_id=later.pk).exists()
        early.commit()
    finally:
        early.close()
    # once it has ended, both are sealed, the earlier transaction's entry first
    seal_everything()
    from ledger.selectors import entry_get

    early_block = entry_get(entry_id=early_id).block
    later_block = entry_get(entry_id=later.pk).block
    assert early_block is not None and later_block is not None
    assert early_block <= later_block
    assert list(Entry.objects.filter(pk__in=[early_id, later.pk])
                .order_by("txid", "id").values_list("id", flat=True)) == [early_id, later.pk]
    assert ledger_verify().ok


@pytest.mark.parametrize("role", ["owner", "runtime"])
def test_a_tampered_sealed_block_is_caught(runtime_role, role):
    book = make_book()
    n = three_blocks(book)[1]
    entry = Entry.objects.get(pk=Block.objects.get(n=n).last_entry_id)

    owner_triggers_off(f"UPDATE ledger_entry SET memo = 'nothing to see' WHERE id = {entry.pk}")

    ok, out = verify_out(role=None if role == "owner" else runtime_role)
    assert not ok
    problem = (f"block {n}: its hash does not match its entries (an entry was altered after "
               "sealing, or the block was)")
    assert problem in out
    assert not [line for line in out if line.startswith("head:")]
    assert f"last good block: block {n - 1}, hash {Block.objects.get(n=n - 1).hash}" in out
    # a block rehashed to match is caught by the next one's link
    owner_triggers_off(f"UPDATE ledger_block SET hash = md5('x') || md5('y') WHERE n = {n}")
    ok, out = verify_out(role=None if role == "owner" else runtime_role)
    assert f"block {n + 1}: prev_hash is not the hash of block {n} (a block was removed, " \
           "inserted, reordered or rewritten)" in out


@pytest.mark.parametrize("role", ["owner", "runtime"])
def test_a_missing_block_is_caught(runtime_role, role):
    book = make_book()
    first, middle, last = three_blocks(book)[:3]

    owner_triggers_off(f"DELETE FROM ledger_block WHERE n = {middle}")

    ok, out = verify_out(role=None if role == "owner" else runtime_role)
    assert not ok
    assert f"block {last}: follows block {first} (blocks {middle} to {middle} are missing)" \
        in out


@pytest.mark.parametrize("role", ["owner", "runtime"])
def test_a_reordered_block_is_caught(runtime_role, role):
    book = make_book()
    first, middle, last = three_blocks(book)[:3]

    # blocks 2 and 3 swap their numbers
    owner_triggers_off(f"UPDATE ledger_block SET n = -1 WHERE n = {middle}",
                       f"UPDATE ledger_block SET n = {middle} WHERE n = {last}",
                       f"UPDATE ledger_block SET n = {last} WHERE n = -1")

    ok, out = verify_out(role=None if role == "owner" else runtime_role)
    assert not ok
    assert f"block {middle}: prev_hash is not the hash of block {first} (a block was " \
           "removed, inserted, reordered or rewritten)" in out


@pytest.mark.parametrize("role", ["owner", "runtime"])
def test_an_entry_left_unsealed_past_the_setting_is_caught(runtime_role, role):
    book = make_book()
    book.fund(book.anna, 1_000)
    entry = Entry.objects.get()
    time.sleep(1.1)

    with override_settings(LEDGER_SEAL_WITHIN_SECONDS=60):
        ok, _ = verify_out(role=None if role == "owner" else runtime_role)
        assert ok  # a second old: waiting for the sealer is normal
    with override_settings(LEDGER_SEAL_WITHIN_SECONDS=1):
        ok, out = verify_out(role=None if role == "owner" else runtime_role)
    assert not ok
    assert [line for line in out if line.startswith(f"entry #{entry.pk}, posted at ")
            and line.endswith("is not sealed after 1 s (is the sealer running? "
                              "manage.py ledger_seal)")]


def test_a_signed_checkpoint_is_where_the_next_verify_starts(runtime_role):
    book = make_book()
    newest = three_blocks(book)[-1]
    ok, out = verify_out(role=runtime_role)
    assert ok and f"checkpoint recorded at block {newest}" in out
    assert Checkpoint.objects.get().block_n == newest

    book.fund(book.anna, 50)
    seal_everything()
    ok, out = verify_out(role=runtime_role)
    # only the block after the checkpoint is rehashed
    assert ok and out[0].startswith(
        f"OK: 1 blocks (1 entries) after the checkpoint at block {newest}")

    # history before the checkpoint rewritten by the owner is --all's to find
    entry = Entry.objects.order_by("txid", "id").first()
    owner_triggers_off(f"UPDATE ledger_entry SET memo = 'x' WHERE id = {entry.pk}")
    assert verify_out()[0]
    ok, out = verify_out("--all")
    assert not ok and any(line.startswith("block 1: its hash does not match") for line in out)

    # a checkpoint written without the key is no starting point
    sql("INSERT INTO ledger_checkpoint (block_n, hash, balances, verified_at, signature)"
        " SELECT n, hash, '{}', now(), repeat('0', 64) FROM ledger_block ORDER BY n DESC"
        " LIMIT 1")
    ok, out = verify_out()
    assert not ok
    assert any("is not signed with the ledger's checkpoint key" in line for line in out)


def test_the_sealer_runs_beside_postings_without_losing_an_entry():
    # given eight threads posting on accounts of their own while the sealer runs
    books = [make_book() for _ in range(4)]
    stop = threading.Event()

    def post(book) -> None:
        try:
            for _ in range(15):
                book.fund(book.anna, 10)
        finally:
            connection.close()

    def seal() -> None:
        try:
            while not stop.is_set():
                entries_seal(max_entries=7)
        finally:
            connection.close()

    sealer = threading.Thread(target=seal)
    sealer.start()
    posters = [threading.Thread(target=post, args=(b,)) for b in books]
    for t in posters:
        t.start()
    for t in posters:
        t.join()
    stop.set()
    sealer.join()

    seal_everything()
    assert sum(Block.objects.values_list("entries", flat=True)) == Entry.objects.count() == 60
    assert ledger_verify(full=True).ok


def test_an_entry_says_which_block_holds_it_once_sealed(runtime_role):
    from ledger.api.serializers import EntryOutput
    from ledger.selectors import entry_get, entry_list

    book = make_book()
    book.fund(book.anna, 1_000)
    first = Entry.objects.get()
    assert EntryOutput(entry_get(entry_id=first.pk)).data["block"] is None  # not sealed yet
    one = seal_everything()
    book.fund(book.bram, 500)
    two = seal_everything()

    second = Entry.objects.exclude(pk=first.pk).get()
    assert EntryOutput(entry_get(entry_id=first.pk)).data["block"] == one
    assert [(e.pk, e.block) for e in entry_list()] == [(second.pk, two), (first.pk, one)]
    assert EntryOutput(entry_get(entry_id=second.pk)).data["hash"] is None  # the block's


def test_the_beat_task_and_the_command_seal_what_they_can():
    from ledger.tasks import ledger_seal_task

    book = make_book()
    book.fund(book.anna, 1_000)
    deadline = time.monotonic() + 60
    sealed = 0
    while not sealed and time.monotonic() < deadline:  # another process's open transaction
        sealed = ledger_seal_task()
        time.sleep(0.1)
    assert sealed == 1
    book.fund(book.bram, 1_000)
    out = StringIO()
    while time.monotonic() < deadline:
        call_command("ledger_seal", stdout=out)
        if Block.objects.count() == 2:
            break
        time.sleep(0.1)
    assert "sealed 1 entries in 1 blocks; the newest is block 2" in out.getvalue()


def test_the_signed_anchor_printed_is_accepted_and_a_forged_one_refused():
    book = make_book()
    book.fund(book.anna, 1_000)
    newest = seal_everything()
    ok, out = verify_out()
    assert ok
    (signed,) = [line.split(": ", 1)[1] for line in out if line.startswith("signed anchor")]
    n, block_hash, signature = signed.split(":")
    assert (int(n), block_hash) == (newest, Block.objects.get(n=newest).hash)

    # kept outside the database and handed back, it verifies
    assert verify_out("--expect", signed)[0]
    # one written to fit (another hash, the same signature; or a signature of its own) is refused
    for forged in (f"{n}:{'0' * 64}:{signature}", f"{n}:{block_hash}:{'f' * 64}"):
        with pytest.raises(CommandError, match="not signed with this ledger's checkpoint key"):
            call_command("ledger_verify", "--expect", forged, stdout=StringIO())
