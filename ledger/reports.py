"""The auditors' ledger reports: an account's statement over a period and the trial
balance as of a moment, each read from one snapshot (casino.shared.db.read_snapshot) and returned
as plain typed rows in minor units; the renderers only format them.

The ledger knows no players: a player's statement is the statement of the account whose
reference the caller names (``player:12``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, Sum
from django.utils import timezone

from casino.shared.db import read_snapshot
from casino.shared.errors import NotFound
from ledger import chain
from ledger.models import Account, Block, Hold, Line
from ledger.selectors import Statement, account_statement
from ledger.verify import ledger_verify


@dataclass(frozen=True)
class ChainPoint:
    """Where the sealed chain stood: block ``seq`` had ``hash`` (0 and the genesis hash
    before the first block). What ``ledger_verify --expect N:HASH`` checks. Before blocks,
    entry ``seq`` n was chained alone; it is block n now, so the number means the same."""

    seq: int
    hash: str

    @property
    def anchor(self) -> str:
        return f"{self.seq}:{self.hash}"


def chain_point(*, as_of: datetime | None = None) -> ChainPoint:
    """The newest sealed block now, or the newest sealed at or before ``as_of``. Entries
    are sealed within a minute or so of their commit (ledger_seal): a point taken for a
    moment just past may not cover that moment's last entries yet."""
    blocks = Block.objects.order_by("-n")
    if as_of is not None and as_of < timezone.now():
        blocks = blocks.filter(sealed_at__lte=as_of)
    last = blocks.values_list("n", "hash").first()
    return ChainPoint(seq=last[0], hash=last[1]) if last else ChainPoint(0, chain.GENESIS)


@dataclass(frozen=True)
class StatementReport:
    account_ref: str
    account_name: str
    statement: Statement
    chain_head: ChainPoint


def statement_report(*, account_ref: str, currency: str, since: datetime | None,
                     until: datetime | None) -> StatementReport:
    """The statement of the account ``account_ref`` in ``currency`` for ``[since, until)``
    (account_statement), with the chain head it was read at."""
    with read_snapshot():
        account = Account.objects.filter(ref=account_ref, currency=currency,
                                         kind=Account.Kind.PLAYER).first()
        if account is None:
            raise NotFound(f"There is no ledger account for {account_ref} in {currency}.",
                           detail={"ref": account_ref, "currency": currency})
        statement = account_statement(account_id=account.pk, since=since, until=until)
        head = chain_point(as_of=until)
    return StatementReport(account_ref=account.ref, account_name=account.name,
                           statement=statement, chain_head=head)


@dataclass(frozen=True)
class TrialBalanceLine:
    account_id: int
    kind: str
    ref: str
    name: str
    currency: str
    posted: int
    held: int

    @property
    def available(self) -> int:
        return self.posted - self.held


@dataclass(frozen=True)
class TrialBalanceTotal:
    kind: str          # "" on a currency's grand total
    currency: str
    posted: int
    held: int

    @property
    def available(self) -> int:
        return self.posted - self.held


@dataclass(frozen=True)
class TrialBalance:
    """Every account as of ``as_of``; each currency's posted balances sum to zero (the
    double entry), ``verified`` and ``problems`` are ledger_verify's verdict on the whole
    chain read in the same snapshot, and ``chain_head`` its last entry at ``as_of``."""

    as_of: datetime
    lines: list[TrialBalanceLine]
    totals: list[TrialBalanceTotal]
    verified: bool
    problems: list[str]
    chain_head: ChainPoint


def trial_balance(*, as_of: datetime) -> TrialBalance:
    """Posted balances from the lines of entries made at or before ``as_of``, held from
    the holds open at that moment (as account_balance reads one account), for every
    account in two grouped queries."""
    with read_snapshot() as alias:
        posted = dict(Line.objects.filter(entry__created_at__lte=as_of)
                      .values("account_id").order_by("account_id")
                      .annotate(total=Sum("amount")).values_list("account_id", "total"))
        held = dict(Hold.objects.filter(Q(resolved_at__isnull=True) | Q(resolved_at__gt=as_of),
                                        created_at__lte=as_of)
                    .values("account_id").order_by("account_id")
                    .annotate(total=Sum("amount")).values_list("account_id", "total"))
        # An account's own created_at is the application's clock, its entries' the
        # database's: an account with money as of the moment is listed whatever its stamp.
        accounts = list(Account.objects.filter(Q(created_at__lte=as_of)
                                               | Q(pk__in=[*posted, *held]))
                        .order_by("currency", "kind", "ref", "id"))
        verdict = ledger_verify(using=alias)
        head = chain_point(as_of=as_of)
    lines = [TrialBalanceLine(account_id=a.pk, kind=a.kind, ref=a.ref, name=a.name,
                              currency=a.currency, posted=posted.get(a.pk, 0),
                              held=held.get(a.pk, 0)) for a in accounts]
    return TrialBalance(as_of=as_of, lines=lines, totals=_totals(lines),
                        verified=verdict.ok, problems=verdict.problems, chain_head=head)


def _totals(lines: list[TrialBalanceLine]) -> list[TrialBalanceTotal]:
    sums: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for line in lines:
        for key in ((line.currency, line.kind), (line.currency, "")):
            sums[key][0] += line.posted
            sums[key][1] += line.held
    # Each currency's kinds, then its grand total (kind "") last.
    order = sorted(sums, key=lambda k: (k[0], k[1] == "", k[1]))
    return [TrialBalanceTotal(kind=kind, currency=cur, posted=sums[(cur, kind)][0],
                              held=sums[(cur, kind)][1]) for cur, kind in order]
