"""Reads of the ledger that matter: balances (now and as of a past time), lists for the API,
and an account's statement."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce

from casino.shared.errors import NotFound
from ledger.models import Account, Block, Entry, Hold, Line


@dataclass(frozen=True)
class Balance:
    """An account's money in minor units: posted (sum of lines), held (open holds)."""

    posted: int
    held: int
    currency: str

    @property
    def available(self) -> int:
        return self.posted - self.held


def account_get(*, account_id: int) -> Account:
    try:
        return Account.objects.get(pk=account_id)
    except Account.DoesNotExist:
        raise NotFound(f"There is no ledger account #{account_id}.",
                       detail={"account_id": account_id}) from None


def account_find(*, kind: str, currency: str, ref: str = "") -> Account | None:
    """The account of this kind, currency and reference (their unique key), if it exists."""
    return Account.objects.filter(kind=kind, currency=currency, ref=ref).first()


def account_ids(*, currency: str, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """The id of each account of ``currency`` named by a (kind, ref) pair that exists, in
    one statement by the accounts' unique key (kind, currency, ref)."""
    wanted = set(keys)
    if not wanted:
        return {}
    by_key = Q()
    for kind, ref in wanted:
        by_key |= Q(kind=kind, ref=ref)
    return {(kind, ref): pk for kind, ref, pk in Account.objects.filter(
        by_key, currency=currency).values_list("kind", "ref", "pk")}


def account_balance(*, account_id: int, as_of: datetime | None = None) -> Balance:
    """The balance now (the cached columns), or as it stood at ``as_of``.

    As of a time: the lines of entries made at or before it, and the holds placed at or
    before it that were not yet resolved then (a hold resolved by an entry carries that
    entry's time, so a capture moves money from held to posted at one instant).
    """
    account = account_get(account_id=account_id)
    if as_of is None:
        return Balance(posted=account.posted, held=account.held, currency=account.currency)
    posted = Line.objects.filter(account_id=account_id, entry__created_at__lte=as_of).aggregate(
        total=Coalesce(Sum("amount"), 0))["total"]
    held = Hold.objects.filter(
        Q(resolved_at__isnull=True) | Q(resolved_at__gt=as_of),
        account_id=account_id, created_at__lte=as_of,
    ).aggregate(total=Coalesce(Sum("amount"), 0))["total"]
    return Balance(posted=posted, held=held, currency=account.currency)


def account_list(*, kind: str | None = None, currency: str | None = None,
                 ref: str | None = None, players_only: bool = False) -> QuerySet[Account]:
    """Accounts in id order; ``players_only`` for a reader without the house's accounts."""
    accounts = Account.objects.all()
    if players_only:
        accounts = accounts.filter(kind=Account.Kind.PLAYER)
    if kind:
        accounts = accounts.filter(kind=kind)
    if currency:
        accounts = accounts.filter(currency=currency)
    if ref:
        accounts = accounts.filter(ref=ref)
    return accounts.order_by("id")


def entry_list(*, account_id: int | None = None, ref: str | None = None,
               kind: str | None = None, created_after: datetime | None = None,
               created_before: datetime | None = None,
               players_only: bool = False) -> QuerySet[Entry]:
    """Entries, newest first, with their lines and those lines' accounts fetched alongside;
    ``players_only``: the entries that move a player's account, and an ``account_id`` only
    of a player's account: a house account (the cage's cash, a bankroll) is not found, as
    one that does not exist, so such a reader neither lists its entries nor learns it
    exists."""
    entries = _players_only(Entry.objects.all()) if players_only else Entry.objects.all()
    if players_only and account_id is not None and not Account.objects.filter(
            pk=account_id, kind=Account.Kind.PLAYER).exists():
        raise NotFound(f"There is no ledger account #{account_id}.",
                       detail={"account_id": account_id})
    if account_id is not None:
        entries = entries.filter(
            Exists(Line.objects.filter(entry_id=OuterRef("pk"), account_id=account_id)))
    if ref:
        entries = entries.filter(ref=ref)
    if kind:
        entries = entries.filter(kind=kind)
    if created_after is not None:
        entries = entries.filter(created_at__gte=created_after)
    if created_before is not None:
        entries = entries.filter(created_at__lt=created_before)
    return (_with_block(entries).select_related("created_by", "reversed_by")
            .prefetch_related("lines__account").order_by("-id"))


def _with_block(entries: QuerySet[Entry]) -> QuerySet[Entry]:
    """Each entry with ``block``: the number of the sealed block that holds it, None while it
    waits for the sealer. A block holds the entries after its predecessor's last one up to
    its own last, in (txid, id) order; an entry chained before blocks is block ``seq``."""
    # last_txid >= the entry's, redundant with what follows, is what the index can seek.
    sealing = Block.objects.filter(last_txid__gte=OuterRef("txid")).filter(
        Q(last_txid__gt=OuterRef("txid"))
        | Q(last_txid=OuterRef("txid"), last_entry_id__gte=OuterRef("pk")))
    return entries.annotate(block=Coalesce(
        "seq", Subquery(sealing.order_by("last_txid", "last_entry_id").values("n")[:1])))


def entries_moving_players(entries: QuerySet[Entry]) -> QuerySet[Entry]:
    """The entries among ``entries`` that move a player's account (what the cage may read)."""
    return _players_only(entries)


def _players_only(entries: QuerySet[Entry]) -> QuerySet[Entry]:
    return entries.filter(Exists(Line.objects.filter(entry_id=OuterRef("pk"),
                                                     account__kind=Account.Kind.PLAYER)))


def entry_get(*, entry_id: int, players_only: bool = False) -> Entry:
    """One entry; with ``players_only`` an entry that moves no player's account is not
    found (a reader without the house's accounts does not learn it exists)."""
    entries = _players_only(Entry.objects.all()) if players_only else Entry.objects.all()
    try:
        return (_with_block(entries).select_related("created_by", "reversed_by")
                .prefetch_related("lines__account").get(pk=entry_id))
    except Entry.DoesNotExist:
        raise NotFound(f"There is no ledger entry #{entry_id}.",
                       detail={"entry_id": entry_id}) from None


def hold_list(*, account_id: int | None = None, status: str | None = None,
              ref: str | None = None) -> QuerySet[Hold]:
    holds = Hold.objects.select_related("account")
    if account_id is not None:
        holds = holds.filter(account_id=account_id)
    if status:
        holds = holds.filter(status=status)
    if ref:
        holds = holds.filter(ref=ref)
    return holds.order_by("-id")


# --- statements -----------------------------------------------------------------------------

@dataclass(frozen=True)
class StatementLine:
    """One movement of the account: the entry that made it and the balance after it."""

    entry_id: int
    posted_at: datetime
    kind: str
    memo: str
    ref: str
    # What the movement belongs to: the entry's ref ("round:42"), or, for the account's own
    # movements (a deposit carries the player's ref), the memo the cashier typed.
    reference: str
    amount: int
    balance: int


@dataclass(frozen=True)
class Statement:
    """An account's posted balance before a period, every movement in it, and after it.

    ``since``/``until`` bound the period (``since <= posted_at < until``; None is open);
    ``closing == opening + sum(line.amount)`` by construction, and equals the account's
    posted balance as of ``until``.
    """

    account_id: int
    currency: str
    since: datetime | None
    until: datetime | None
    opening: int
    lines: list[StatementLine]
    closing: int

    @property
    def credits(self) -> int:
        return sum(line.amount for line in self.lines if line.amount > 0)

    @property
    def debits(self) -> int:
        return sum(line.amount for line in self.lines if line.amount < 0)

    @property
    def debited(self) -> int:
        """What went out, as a positive amount: "out 120.00 EUR" reads with one sign."""
        return -self.debits


def account_statement(*, account_id: int, since: datetime | None = None,
                      until: datetime | None = None) -> Statement:
    """The account's statement for a period, in three queries whatever its length.

    A period is cut by the entries' time (the database clock at posting); inside it the
    movements run in entry id order, which on one account is the order they were committed
    in (ledger_entry_post draws the id once it holds the account's lock, and keeps the lock
    to commit), so the running balance is the one each movement actually left behind.
    """
    account = account_get(account_id=account_id)
    before = Line.objects.filter(account_id=account_id)
    if since is not None:
        opening = before.filter(entry__created_at__lt=since).aggregate(
            total=Coalesce(Sum("amount"), 0))["total"]
    else:
        opening = 0
    period = Line.objects.filter(account_id=account_id)
    if since is not None:
        period = period.filter(entry__created_at__gte=since)
    if until is not None:
        period = period.filter(entry__created_at__lt=until)
    rows = period.order_by("entry_id", "id").values_list(
        "entry_id", "entry__created_at", "entry__kind", "entry__memo", "entry__ref", "amount")
    balance = opening
    lines = []
    for entry_id, posted_at, kind, memo, ref, amount in rows:
        balance += amount
        own = not ref or ref == account.ref
        lines.append(StatementLine(entry_id=entry_id, posted_at=posted_at, kind=kind,
                                   memo=memo, ref=ref, reference=memo if own else ref,
                                   amount=amount, balance=balance))
    return Statement(account_id=account.pk, currency=account.currency, since=since,
                     until=until, opening=opening, lines=lines, closing=balance)


def account_balance_after(*, account_id: int, entry_id: int) -> int:
    """The account's posted balance just after the entry (its lines and every earlier
    one's on this account, which come before it in id order, as in account_statement):
    the "balance after" a receipt prints."""
    return Line.objects.filter(
        account_id=account_id, entry_id__lte=entry_id,
    ).aggregate(total=Coalesce(Sum("amount"), 0))["total"]
