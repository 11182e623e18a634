"""The service's database role: what it may not do it cannot do, and what the ledger's
guards refuse they refuse to it as well, by raw SQL and through the ORM alike."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import IntegrityError, ProgrammingError, connection, transaction
from django.db.models.functions import Now

from casino.shared.db_roles import runtime_functions
from casino.shared.errors import ValidationFailed
from ledger.models import Account, Block, Entry, Hold, Line
from ledger.services import entry_post, entry_reverse, hold_place
from ledger.verify import ledger_verify
from tests.ledger.conftest import fresh, make_book, seal_everything


def sql(statement: str, params: list | None = None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])
        return cursor.fetchall() if cursor.description else []


@contextmanager
def refused(error: type[Exception], match: str) -> Iterator[None]:
    # A savepoint, so the test's transaction survives the refusal.
    with pytest.raises(error, match=match), transaction.atomic():
        yield
        sql("SET CONSTRAINTS ALL IMMEDIATE")  # deferred guards speak now, as at COMMIT


@contextmanager
def committed_as(role: str) -> Iterator[None]:
    """One transaction that commits, run as ``role`` (for rows older than the transaction)."""
    with transaction.atomic():
        sql(f"SET LOCAL ROLE {role}")
        yield


# --- finding 7: what the runtime role cannot do at all --------------------------------------

@pytest.mark.parametrize("statement", [
    "ALTER TABLE ledger_entry DISABLE TRIGGER ledger_entry_immutable",
    "ALTER TABLE ledger_line DISABLE TRIGGER USER",
    "TRUNCATE ledger_line",
    "TRUNCATE ledger_entry CASCADE",
    "TRUNCATE ledger_block",
    "UPDATE ledger_entry SET memo = 'edited'",
    "DELETE FROM ledger_entry",
    "UPDATE ledger_line SET amount = amount * 2",
    "DELETE FROM ledger_line",
    "UPDATE ledger_account SET posted = posted + 100",
    "DELETE FROM ledger_account",
    "DELETE FROM ledger_hold",
    "UPDATE ledger_hold SET amount = 1",
    "UPDATE ledger_block SET hash = md5('forged') || md5('x')",
    "DELETE FROM ledger_block",
    "UPDATE ledger_checkpoint SET hash = md5('forged') || md5('x')",
    "DELETE FROM ledger_checkpoint",
    "UPDATE rounds_roundevent SET kind = 'edited'",
    "DELETE FROM rounds_roundevent",
    "DROP TRIGGER ledger_line_immutable ON ledger_line",
    "CREATE TABLE ledger_shadow (id int)",
    "ALTER FUNCTION ledger_post_lines() SECURITY INVOKER",
])
def test_the_runtime_role_is_refused_what_only_the_owner_may_do(as_runtime_role, statement):
    book = make_book()
    book.fund(book.anna, 1_000)

    with refused(ProgrammingError, "permission denied|must be owner"):
        sql(statement)


def test_the_runtime_role_cannot_forge_a_block_nor_date_an_entry_back(as_runtime_role):
    book = make_book()
    book.fund(book.anna, 1_000)

    with refused(ProgrammingError, "permission denied"):
        sql("UPDATE ledger_entry SET hash = md5('forged') || md5('x')")
    # It may append blocks (the sealer runs as it), but the block's trigger computes them:
    # a block that does not follow the newest, or reaches an entry whose transaction (this
    # one) is still running, is refused; so is a hash of its own choosing.
    with refused(IntegrityError, "does not follow"):
        sql("INSERT INTO ledger_block (n, last_txid, last_entry_id) VALUES (5, 1, 1)")
    entry = book.anna.lines.get().entry
    with refused(IntegrityError, "must end at an entry"):
        sql("INSERT INTO ledger_block (n, last_txid, last_entry_id)"
            " SELECT 1, txid, id FROM ledger_entry WHERE id = %s", [entry.pk])
    # An entry is stamped with the transaction that posts it: none dated into a block
    # already sealed, none with a chain position or hash of its own.
    for columns, values in (("txid", "1"), ("txid, seq", "pg_current_xact_id()::text::bigint, 7"),
                            ("txid, hash", "pg_current_xact_id()::text::bigint, md5('x')")):
        with refused(IntegrityError, "stamped with the transaction"):
            sql(f"INSERT INTO ledger_entry (kind, memo, ref, created_at, reason, {columns})"
                f" VALUES ('raw', '', '', now(), '', {values})")


def test_the_runtime_role_owns_nothing_and_is_no_superuser(as_runtime_role):
    assert sql("SELECT rolsuper FROM pg_roles WHERE rolname = current_user") == [(False,)]
    assert sql("SELECT count(*) FROM pg_class WHERE pg_has_role(current_user, relowner,"
               " 'USAGE') AND relnamespace = current_schema()::regnamespace") == [(0,)]


# --- finding 6: the ORM's holes, reproduced as the runtime role -----------------------------

@pytest.mark.django_db(transaction=True)
def test_no_line_can_be_added_to_an_old_entry_even_a_balanced_pair(runtime_role):
    book = make_book()
    with committed_as(runtime_role):
        book.fund(book.anna, 1_000)
    old = book.anna.lines.get().entry

    with pytest.raises(IntegrityError, match="not posted by this transaction"), \
            committed_as(runtime_role):
        Line.objects.bulk_create([Line(entry=old, account=book.cage, amount=-1_000_000),
                                  Line(entry=old, account=book.anna, amount=1_000_000)])
    with pytest.raises(IntegrityError, match="not posted by this transaction"), \
            committed_as(runtime_role):
        sql("INSERT INTO ledger_line (entry_id, account_id, amount) VALUES (%s, %s, -7),"
            " (%s, %s, 7)", [old.pk, book.cage.pk, old.pk, book.anna.pk])

    assert sql("SELECT count(*) FROM ledger_line WHERE entry_id = %s", [old.pk]) == [(2,)]
    assert sql("SELECT posted FROM ledger_account WHERE id = %s", [book.anna.pk]) == [(1_000,)]
    assert ledger_verify().ok


def test_lines_go_into_an_entry_of_the_same_transaction_by_raw_sql_too(as_runtime_role):
    book = make_book()
    with refused(IntegrityError, "not posted by this transaction"):
        sql("INSERT INTO ledger_line (entry_id, account_id, amount) VALUES (%s, %s, 5)",
            [10**12, book.anna.pk])


@pytest.mark.parametrize(("fields", "match"), [
    ({"posted": 10**6, "allow_negative": True}, "ledger_account_players_never_negative"),
    ({"posted": 0, "allow_negative": True}, "ledger_account_players_never_negative"),
    ({"posted": 10**6, "allow_negative": False}, "opens with posted 0 and held 0"),
])
def test_no_account_is_made_rich_or_allowed_into_the_red_at_birth(as_runtime_role, fields,
                                                                   match):
    with refused(IntegrityError, match):
        Account.objects.create(kind="player", currency="EUR", ref="player:forged", **fields)


def test_a_house_account_opens_at_zero_too_by_raw_sql(as_runtime_role):
    with refused(IntegrityError, "opens with posted 0 and held 0"):
        sql("INSERT INTO ledger_account (kind, currency, ref, name, allow_negative, posted,"
            " held, created_at) VALUES ('cage', 'EUR', 'forged', '', true, 500, 0, now())")


@pytest.mark.django_db(transaction=True)
def test_a_hold_cannot_be_released_backdated_or_reopened_behind_the_services(runtime_role):
    book = make_book()
    with committed_as(runtime_role):
        book.fund(book.anna, 1_000)
        hold = hold_place(account_id=book.anna.pk, amount=400, by=None, ref="round:1")
    live = Hold.objects.filter(pk=hold.pk)

    with pytest.raises(IntegrityError, match="ledger_hold_resolution_consistent"), \
            committed_as(runtime_role):
        live.update(status="released")
    with pytest.raises(IntegrityError, match="at the time of its resolution"), \
            committed_as(runtime_role):
        live.update(status="released", resolved_at=hold.created_at)
    with pytest.raises(IntegrityError, match="changes only by resolving"), \
            committed_as(runtime_role):
        live.update(status="open", resolved_by=None)
    with pytest.raises(ProgrammingError, match="permission denied"), committed_as(runtime_role):
        live.update(amount=1)
    with pytest.raises(IntegrityError, match="at the time of its resolution"), \
            committed_as(runtime_role):
        sql("UPDATE ledger_hold SET status = 'released', resolved_at = now() - interval '1 day'"
            " WHERE id = %s", [hold.pk])

    assert live.get().status == Hold.Status.OPEN
    assert sql("SELECT held FROM ledger_account WHERE id = %s", [book.anna.pk]) == [(400,)]


@pytest.mark.django_db(transaction=True)
def test_a_hold_is_captured_only_by_an_entry_of_its_own_transaction(runtime_role):
    book = make_book()
    with committed_as(runtime_role):
        book.fund(book.anna, 1_000)
        hold = hold_place(account_id=book.anna.pk, amount=400, by=None)
        old = entry_post(kind="win", memo="", by=None,
                         lines=[(book.table.pk, -10), (book.anna.pk, 10)])

    with pytest.raises(IntegrityError, match="did not post"), committed_as(runtime_role):
        Hold.objects.filter(pk=hold.pk).update(
            status="captured", captured_amount=400, entry=old.pk, resolved_at=Now())
    # An entry of the same transaction that does not debit what the hold claims.
    with pytest.raises(IntegrityError, match="debits only 0"), committed_as(runtime_role):
        small = entry_post(kind="win", memo="", by=None,
                           lines=[(book.table.pk, -10), (book.bram.pk, 10)])
        Hold.objects.filter(pk=hold.pk).update(
            status="captured", captured_amount=400, entry=small.pk,
            resolved_at=small.created_at)

    assert Hold.objects.get(pk=hold.pk).status == Hold.Status.OPEN


def test_a_hold_is_placed_open_and_unresolved(as_runtime_role):
    book = make_book()
    book.fund(book.anna, 1_000)
    entry = book.anna.lines.get().entry
    with refused(IntegrityError, "placed open and unresolved"):
        sql("INSERT INTO ledger_hold (account_id, amount, status, ref, memo, created_at,"
            " entry_id) VALUES (%s, 5, 'open', '', '', now(), %s)", [book.anna.pk, entry.pk])


@pytest.mark.django_db(transaction=True)
def test_the_runtime_role_seals_and_cannot_change_a_sealed_block(runtime_role):
    book = make_book()
    with committed_as(runtime_role):
        book.fund(book.anna, 1_000)
    with committed_as(runtime_role):
        seal_everything()
    assert list(Block.objects.values_list("n", "entries")) == [(1, 1)]

    for statement in ("UPDATE ledger_block SET entries = 2", "DELETE FROM ledger_block",
                      "TRUNCATE ledger_block"):  # only the owner may; verify finds it
        with pytest.raises(ProgrammingError, match="permission denied"), \
                committed_as(runtime_role):
            sql(statement)
    # As the owner, the block's trigger refuses it too.
    for statement in ("UPDATE ledger_block SET entries = 2", "DELETE FROM ledger_block"):
        with pytest.raises(IntegrityError, match="a sealed block never changes"), \
                transaction.atomic():
            sql(statement)
    assert Block.objects.get().entries == 1
    assert ledger_verify().ok


def test_a_temporary_table_cannot_stand_in_for_the_ledgers_in_a_guard(as_runtime_role):
    book = make_book()
    # then the balance check at commit still reads the real lines
    with refused(IntegrityError, "has 1 line"):
        # given an unbalanced entry in the real tables, and a session's temporary
        # ledger_line (any role may create one) showing the guard a balanced pair instead
        (entry_id,) = sql(
            "INSERT INTO public.ledger_entry (kind, memo, ref, created_at, reason, txid)"
            " VALUES ('raw', '', '', now(), '', pg_current_xact_id()::text::bigint)"
            " RETURNING id")[0]
        sql("INSERT INTO public.ledger_line (entry_id, account_id, amount)"
            " VALUES (%s, %s, 100)", [entry_id, book.anna.pk])
        sql("CREATE TEMP TABLE ledger_line (id bigserial, entry_id bigint, account_id bigint,"
            " amount bigint)")
        sql("INSERT INTO pg_temp.ledger_line (entry_id, account_id, amount)"
            " VALUES (%s, %s, -5), (%s, %s, 5)",
            [entry_id, book.cage.pk, entry_id, book.anna.pk])


def test_a_line_added_to_an_entry_of_the_same_transaction_after_its_check_is_refused(
        as_runtime_role):
    book = make_book()
    entry = entry_post(kind="win", memo="", by=None,
                       lines=[(book.table.pk, -100), (book.anna.pk, 100)])
    sql("SET CONSTRAINTS ALL IMMEDIATE")  # the entry's own check runs now, and passes

    with refused(IntegrityError, "unbalanced"):
        sql("INSERT INTO ledger_line (entry_id, account_id, amount) VALUES (%s, %s, 5000)",
            [entry.pk, book.anna.pk])


def test_a_line_cannot_follow_an_entry_checked_inside_its_own_statement(as_runtime_role):
    book = make_book()
    # given a function of the session's own (any role may create temporary ones) that posts
    # a balanced entry, checked at once, for a statement that then adds a line to it
    sql("SET CONSTRAINTS ALL IMMEDIATE")
    sql("CREATE FUNCTION pg_temp.balanced_entry(a bigint, b bigint) RETURNS bigint"
        " LANGUAGE sql AS $$ SELECT o_id FROM public.ledger_entry_post('raw', '', '', NULL,"
        " NULL, '', ARRAY[a, b], ARRAY[-100, 100]::bigint[], '{}') $$")

    with refused(IntegrityError, "unbalanced"):
        sql("INSERT INTO ledger_line (entry_id, account_id, amount)"
            " SELECT pg_temp.balanced_entry(%s, %s), %s, 5000",
            [book.table.pk, book.anna.pk, book.anna.pk])

    assert sql("SELECT posted FROM ledger_account WHERE id = %s", [book.anna.pk]) == [(0,)]


def test_a_temporary_table_cannot_hide_an_entry_from_its_lines_check(as_runtime_role):
    book = make_book()
    entry = entry_post(kind="win", memo="", by=None,
                       lines=[(book.table.pk, -100), (book.anna.pk, 100)])
    sql("SET CONSTRAINTS ALL IMMEDIATE")
    # given a session's empty temporary ledger_entry, where the entry is missing
    sql("CREATE TEMP TABLE ledger_entry (id bigint)")

    with refused(IntegrityError, "unbalanced"):
        sql("INSERT INTO public.ledger_line (entry_id, account_id, amount)"
            " VALUES (%s, %s, 5000)", [entry.pk, book.anna.pk])


# --- the posting functions refuse by themselves, without the services' checks ---------------

POST = ("SELECT o_id FROM ledger_entry_post('raw', '', '', NULL, NULL, '', %s::bigint[],"
        " %s::bigint[], %s::bigint[])")


def test_the_posting_function_refuses_an_unbalanced_entry_called_directly(as_runtime_role):
    book = make_book()
    with refused(IntegrityError, "must sum to zero in each currency"):
        sql(POST, [[book.cage.pk, book.anna.pk], [-100, 99], []])
    with refused(IntegrityError, "at least two lines"):
        sql(POST, [[book.anna.pk], [100], []])

    assert sql("SELECT count(*) FROM ledger_line WHERE account_id = %s", [book.anna.pk]) == [(0,)]


def test_the_posting_function_refuses_an_overdraft_called_directly(as_runtime_role):
    book = make_book()
    book.fund(book.anna, 1_000)
    hold_place(account_id=book.anna.pk, amount=300, by=None)

    with refused(IntegrityError, "has 700 available; the entry needs 800"):
        sql(POST, [[book.anna.pk, book.table.pk], [-800, 800], []])
    with refused(IntegrityError, "has 700 available; the hold needs 701"):
        sql("SELECT * FROM ledger_hold_place(%s, 701, NULL, '', '')", [book.anna.pk])

    assert sql("SELECT posted, held FROM ledger_account WHERE id = %s",
               [book.anna.pk]) == [(1_000, 300)]


def test_the_posting_function_refuses_a_hold_already_resolved_called_directly(as_runtime_role):
    book = make_book()
    book.fund(book.anna, 1_000)
    hold = hold_place(account_id=book.anna.pk, amount=500, by=None)
    sql("SELECT * FROM ledger_holds_release(%s::bigint[], NULL)", [[hold.pk]])

    with refused(IntegrityError, f"hold {hold.pk} is already released"):
        sql(POST, [[book.anna.pk, book.table.pk], [-500, 500], [hold.pk]])
    with refused(IntegrityError, f"hold {hold.pk} is already released"):
        sql("SELECT * FROM ledger_holds_release(%s::bigint[], NULL)", [[hold.pk]])

    assert Hold.objects.get(pk=hold.pk).entry_id is None
    assert ledger_verify().ok


def test_a_temporary_table_cannot_stand_in_for_the_ledgers_in_the_posting_function(
        as_runtime_role):
    book = make_book()
    book.fund(book.anna, 1_000)
    # given a session's temporary ledger_account showing Anna rich
    sql("CREATE TEMP TABLE ledger_account AS SELECT * FROM public.ledger_account")
    sql("UPDATE pg_temp.ledger_account SET posted = 10000000 WHERE id = %s", [book.anna.pk])

    with refused(IntegrityError, "has 1000 available"):
        sql(POST, [[book.anna.pk, book.table.pk], [-5_000, 5_000], []])


def test_a_direct_call_is_stamped_and_checked_like_a_posting(as_runtime_role):
    book = make_book()
    book.fund(book.anna, 1_000)

    ((entry_id,),) = sql(POST, [[book.anna.pk, book.table.pk], [-250, 250], []])

    assert sql("SELECT posted FROM ledger_account WHERE id = %s", [book.anna.pk]) == [(750,)]
    assert sql("SELECT txid = pg_current_xact_id()::text::bigint FROM ledger_entry"
               " WHERE id = %s", [entry_id]) == [(True,)]
    assert ledger_verify().ok


@pytest.mark.parametrize("function", runtime_functions())
def test_only_the_runtime_role_is_granted_the_posting_functions(runtime_role, db, function):
    (oid,) = sql("SELECT oid FROM pg_proc WHERE proname = %s", [function])[0]
    assert sql("SELECT has_function_privilege(%s, %s, 'EXECUTE')", [runtime_role, oid]) \
        == [(True,)]
    # Not PUBLIC's: no role the service does not connect as is given it by default.
    assert sql("SELECT count(*) FROM pg_proc, aclexplode(proacl) acl"
               " WHERE oid = %s AND acl.grantee = 0", [oid]) == [(0,)]
    assert sql("SELECT prosecdef FROM pg_proc WHERE oid = %s", [oid]) == [(False,)]


# --- a reversal is its original negated, checked by the function itself (0015) -------------

REVERSE = ("SELECT o_id FROM ledger_entry_post('reversal', '', '', %s, %s, 'wrong seat',"
           " %s::bigint[], %s::bigint[], '{}')")


def reversal_call(by: int | None, original: int, lines: list[tuple[int, int]]) -> list[tuple]:
    return sql(REVERSE, [by, original, [a for a, _ in lines], [m for _, m in lines]])


@pytest.fixture
def win(db):
    """A table paid two players: the original a reversal must negate."""
    book = make_book()
    book.fund(book.anna, 1_000)
    book.fund(book.bram, 1_000)
    entry = entry_post(kind="win", memo="", by=None,
                       lines=[(book.table.pk, -300), (book.anna.pk, 200), (book.bram.pk, 100)])
    return book, entry


@pytest.mark.parametrize("lines", [
    pytest.param(lambda b: [(b.table, 250), (b.anna, -150), (b.bram, -100)], id="other amounts"),
    pytest.param(lambda b: [(b.table, 300), (b.anna, -100), (b.bram, -200)], id="swapped"),
    pytest.param(lambda b: [(b.table, 200), (b.anna, -200)], id="a line left out"),
    pytest.param(lambda b: [(b.table, 300), (b.anna, -200), (b.bram, -100), (b.cage, -5),
                            (b.table, 5)], id="a line more"),
    pytest.param(lambda b: [(b.table, 300), (b.anna, -200), (b.cage, -100)], id="other account"),
    pytest.param(lambda b: [(b.table, 300), (b.anna, -200), (b.bram, -50), (b.bram, -50)],
                 id="same sums other lines"),
    pytest.param(lambda b: [(b.table, -300), (b.anna, 200), (b.bram, 100)], id="not negated"),
])
def test_a_reversal_that_does_not_negate_its_original_is_refused_by_the_database(
        win, pit_boss, as_runtime_role, lines):
    book, original = win
    forged = [(account.pk, amount) for account, amount in lines(book)]

    with refused(IntegrityError, f"reversal of entry {original.pk} must be exactly its lines "
                                 "negated"):
        reversal_call(pit_boss.pk, original.pk, forged)

    # then nothing moved, and the real correction is still to be made, and made
    assert not Entry.objects.filter(reverses=original).exists()
    reversal = entry_reverse(entry_id=original.pk, reason="wrong seat", by=pit_boss)
    assert sorted(reversal.lines.values_list("account_id", "amount")) == sorted(
        [(book.table.pk, 300), (book.anna.pk, -200), (book.bram.pk, -100)])
    assert (fresh(book.anna).posted, fresh(book.bram).posted) == (1_000, 1_000)
    assert ledger_verify().ok


def test_the_exact_negation_called_directly_is_the_correction(win, pit_boss, as_runtime_role):
    book, original = win

    ((reversal_id,),) = reversal_call(pit_boss.pk, original.pk, [
        (book.bram.pk, -100), (book.table.pk, 300), (book.anna.pk, -200)])  # any order

    assert Entry.objects.get(reverses=original).pk == reversal_id
    assert ledger_verify().ok


def test_a_reversal_of_a_reversal_is_refused_by_the_database(win, pit_boss, as_runtime_role):
    book, original = win
    reversal = entry_reverse(entry_id=original.pk, reason="wrong seat", by=pit_boss)

    # Its exact negation would pay the win again behind the round's back.
    with refused(IntegrityError, f"entry {reversal.pk} is itself the reversal of entry "
                                 f"{original.pk}; a reversal is never reversed"):
        reversal_call(pit_boss.pk, reversal.pk, [
            (book.table.pk, -300), (book.anna.pk, 200), (book.bram.pk, 100)])

    assert fresh(book.anna).posted == 1_000


def test_a_reversal_names_a_user_that_exists(win, as_runtime_role):
    book, original = win
    negation = [(book.table.pk, 300), (book.anna.pk, -200), (book.bram.pk, -100)]

    with refused(IntegrityError, "a reversal names the user who asked for it"):
        reversal_call(None, original.pk, negation)
    with refused(IntegrityError, "no such user: 999999999"):
        reversal_call(999_999_999, original.pk, negation)
    # any entry's p_by, at the call rather than at COMMIT
    with refused(IntegrityError, "no such user: 999999999"):
        sql("SELECT o_id FROM ledger_entry_post('raw', '', '', 999999999, NULL, '',"
            " %s::bigint[], '{-5,5}'::bigint[], '{}')", [[book.table.pk, book.anna.pk]])
    with refused(IntegrityError, "no such entry to reverse: 999999999"):
        reversal_call(None, 999_999_999, negation)

    assert not Entry.objects.filter(reverses=original).exists()


def test_the_services_answer_the_functions_reversal_refusals_in_their_own_words(win, pit_boss):
    book, original = win
    with pytest.raises(ValidationFailed, match="exactly its lines") as refusal:
        entry_post(kind="reversal", memo="", by=pit_boss, reverses=original, reason="x",
                   lines=[(book.table.pk, 300), (book.anna.pk, -300)])
    assert refusal.value.code == "invalid_reversal"
    with pytest.raises(ValidationFailed, match="names the user") as refusal:
        entry_post(kind="reversal", memo="", by=None, reverses=original, reason="x",
                   lines=[(book.table.pk, 300), (book.anna.pk, -200), (book.bram.pk, -100)])
    assert refusal.value.code == "user_required"
