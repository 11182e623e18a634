"""Cash rules: the player's identity, the multiple transaction log and cash transaction
reports, counted per player per gaming day (docs/rules.md, "Cash at the cage and the
tables").

Three lines, settings in the player's currency, each read as the rule it comes from words
it (docs/rules.md §11):

- ``CASINO_ID_REQUIRED_FROM`` (2,000.00): a movement that would bring the day's cash in, or
  its cash out, to the line or above it is refused (409 ``identity_required``) while the
  player has no identity on file. The EU's directive (2015/849 art. 11(d)) asks due
  diligence on transactions "amounting to EUR 2 000 or more": reaching the line needs the
  identity. (The setting was called ``CASINO_ID_REQUIRED_ABOVE``; that name is still read.)
- ``CASINO_CASH_LOG_ABOVE`` (3,000.00): every single movement strictly above it is a row of
  the multiple transaction log (``cash_log``): a log "of cash movements above a lower line".
- ``CASINO_CASH_REPORT_ABOVE`` (10,000.00): a day's cash in, or cash out, strictly above it
  makes a cash transaction report (``CashReport``; US 31 CFR 1021.311: "more than 10,000").

Cash in is what the player's account received in cash: deposits at the cage and buy-ins at
a table (ledger entries of kind "deposit" and "buy_in" on the player's account); cash out is
the withdrawals paid at the cage. Each is counted net of its corrections: a correction (the
reversal of a movement) lowers the figure of the movement it corrects, on the gaming day of
that movement.

Every door that moves cash calls, inside its transaction and under the player's account
lock, ``cash_movement_check`` before it posts and ``cash_movement_record`` after it posted:
the cage's deposits, withdrawals and corrections (casino.services) and a table's buy-in::

    with transaction.atomic():
        account_lock(account_ids=[...])          # the player's account among them
        cash_movement_check(player=player, direction="in", amount=amount)
        entry = entry_post(kind="buy_in", ...)   # crediting the player's account
        cash_movement_record(player=player, entry=entry)

A buy-in's entry needs nothing else to count: an entry of kind "buy_in" with a line on the
player's account is cash in, in the totals, the log and the reports.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

from django.conf import settings
from django.db import transaction
from django.db.models import (
    CharField,
    F,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Cast, Coalesce, Concat
from django.utils import timezone

from casino.models import CashReport, CashReportFiling, Player
from casino.selectors import player_account_ref
from casino.shared.errors import Conflict, NotFound
from casino.shared.gaming_day import gaming_day_of, gaming_days_bounds
from casino.shared.money import format_minor, to_minor
from casino.shared.permissions import permission_refused
from ledger.models import Account, Entry, Line
from ledger.selectors import account_find
from ledger.services import REVERSAL

if TYPE_CHECKING:
    from django.contrib.auth.models import User

Direction = Literal["in", "out"]
# The ledger's kinds of entry that are cash crossing the counter, by direction.
CASH_IN_KINDS = ("deposit", "buy_in")
CASH_OUT_KINDS = ("withdrawal",)
CASH_KINDS = CASH_IN_KINDS + CASH_OUT_KINDS
CORRECTION = "correction"
# "Just under" a line, for splitting: within this share below it (10 %).
SPLIT_MARGIN = Decimal("0.10")


@dataclass(frozen=True)
class CashLine:
    """One of the three lines (settings.CASH_LINES), and how its rule reads it."""

    setting: str
    words: str
    # True: a figure that reaches the line passes it ("2,000 or more"); False: only a figure
    # strictly above it does ("more than 10,000", a log of movements "above" 3,000).
    reaching_passes: bool

    def amount(self, currency: str) -> int:
        return cash_line(self.setting, currency)

    def passed_by(self, figure: int, line: int) -> bool:
        """Whether ``figure`` passes the line ``line`` (this line in minor units)."""
        return figure >= line if self.reaching_passes else figure > line

    def just_under(self, figure: int, line: int) -> bool:
        """Whether ``figure`` stays under the line by at most SPLIT_MARGIN of it: what a
        movement split to stay under it looks like."""
        return line - int(line * SPLIT_MARGIN) <= figure and not self.passed_by(figure, line)


IDENTITY_LINE = CashLine("CASINO_ID_REQUIRED_FROM", "identity line", reaching_passes=True)
LOG_LINE = CashLine("CASINO_CASH_LOG_ABOVE", "log line", reaching_passes=False)
REPORT_LINE = CashLine("CASINO_CASH_REPORT_ABOVE", "report line", reaching_passes=False)
LINES = (IDENTITY_LINE, LOG_LINE, REPORT_LINE)


def cash_line(setting: str, currency: str) -> int:
    """One of the three lines (settings.CASH_LINES) in minor units of ``currency``: the
    same number in each currency's unit."""
    return to_minor(str(getattr(settings, setting)), currency)


def number_words(amount: int, currency: str) -> str:
    """``210000`` EUR -> ``"2,100.00"``: an amount as a person reads it in a sentence that
    has already named the currency."""
    plain = format_minor(amount, currency)
    sign = "-" if plain.startswith("-") else ""
    whole, _, fraction = plain.lstrip("-").partition(".")
    return f"{sign}{int(whole):,}{'.' + fraction if fraction else ''}"


def money_words(amount: int, currency: str) -> str:
    """``210000`` EUR -> ``"2,100.00 EUR"``: an amount as a person reads it in a sentence."""
    return f"{number_words(amount, currency)} {currency}"


# --- the player's gaming day in cash ---------------------------------------------------------

@dataclass(frozen=True)
class CashMovement:
    """One entry of the day on the player's account, as the cash rules count it: ``amount``
    is what it adds to its direction's total (negative for a correction)."""

    entry_id: int
    at: datetime
    direction: Direction
    amount: int
    kind: str            # deposit, buy_in, withdrawal, or correction
    by: str              # the staff member's username; "" for the system
    corrects: int | None = None


@dataclass(frozen=True)
class CashDay:
    player_id: int
    gaming_day: date
    currency: str
    cash_in: int
    cash_out: int
    movements: list[CashMovement] = field(default_factory=list)

    def total(self, direction: Direction) -> int:
        return self.cash_in if direction == "in" else self.cash_out

    def standing(self, direction: Direction) -> list[CashMovement]:
        """The day's movements in ``direction`` that no correction took back."""
        corrected = {m.corrects for m in self.movements if m.corrects is not None}
        return [m for m in self.movements if m.direction == direction
                and m.kind != CORRECTION and m.entry_id not in corrected]


def _movement(row: dict[str, Any]) -> CashMovement:
    reversal = row["entry__kind"] == REVERSAL
    kind = row["entry__reverses__kind"] if reversal else row["entry__kind"]
    direction: Direction = "in" if kind in CASH_IN_KINDS else "out"
    # Into the account is cash in (a correction of a withdrawal lowers cash out, and so on).
    amount = row["amount"] if direction == "in" else -row["amount"]
    return CashMovement(entry_id=row["entry_id"], at=row["entry__created_at"],
                        direction=direction, amount=amount,
                        kind=CORRECTION if reversal else kind,
                        by=row["entry__created_by__username"] or "",
                        corrects=row["entry__reverses_id"] if reversal else None)


_ROW = ("entry_id", "entry__kind", "entry__reverses__kind", "entry__reverses_id",
        "entry__created_at", "entry__created_by__username", "amount")


def cash_day(*, player: Player, gaming_day: date | None = None) -> CashDay:
    """The player's cash in and cash out of ``gaming_day`` (the current one by default),
    each net of its corrections, and the entries that make them, in time order. A
    correction counts on the gaming day of the movement it corrects."""
    day = gaming_day or gaming_day_of()
    account = account_find(kind=Account.Kind.PLAYER, currency=player.currency,
                           ref=player_account_ref(player.pk))
    if account is None:
        return CashDay(player_id=player.pk, gaming_day=day, currency=player.currency,
                       cash_in=0, cash_out=0)
    since, until = gaming_days_bounds(day, day)
    rows = (Line.objects.filter(account=account)
            .filter(Q(entry__kind__in=CASH_KINDS, entry__created_at__gte=since,
                      entry__created_at__lt=until)
                    | Q(entry__kind=REVERSAL, entry__reverses__kind__in=CASH_KINDS,
                        entry__reverses__created_at__gte=since,
                        entry__reverses__created_at__lt=until))
            .order_by("entry__created_at", "entry_id").values(*_ROW))
    movements = [_movement(row) for row in rows]
    return CashDay(player_id=player.pk, gaming_day=day, currency=player.currency,
                   cash_in=sum(m.amount for m in movements if m.direction == "in"),
                   cash_out=sum(m.amount for m in movements if m.direction == "out"),
                   movements=movements)


def _net(kinds: tuple[str, ...]) -> Q:
    return Q(entry__kind__in=kinds) | Q(entry__kind=REVERSAL, entry__reverses__kind__in=kinds)


def with_cash_today(players: QuerySet[Player]) -> QuerySet[Player]:
    """``players`` with ``cash_in_today`` and ``cash_out_today`` annotated (minor units, as
    ``cash_day`` counts the current gaming day): one query for a whole page."""
    since, until = gaming_days_bounds(gaming_day_of(), gaming_day_of())
    day = (Q(entry__kind__in=CASH_KINDS, entry__created_at__gte=since,
             entry__created_at__lt=until)
           | Q(entry__kind=REVERSAL, entry__reverses__kind__in=CASH_KINDS,
               entry__reverses__created_at__gte=since, entry__reverses__created_at__lt=until))
    lines = Line.objects.filter(
        day, account__kind=Account.Kind.PLAYER, account__currency=OuterRef("currency"),
        account__ref=Concat(Value("player:"), Cast(OuterRef("pk"), CharField())),
    ).values("account")

    def total(kinds: tuple[str, ...], sign: int) -> Coalesce:
        summed = lines.annotate(total=Sum(F("amount") * sign, filter=_net(kinds)))
        return Coalesce(Subquery(summed.values("total")[:1]), 0)

    return players.annotate(cash_in_today=total(CASH_IN_KINDS, 1),
                            cash_out_today=total(CASH_OUT_KINDS, -1))


# --- before a movement: the identity line ----------------------------------------------------

class IdentityRequired(Conflict):
    code = "identity_required"


def cash_movement_check(*, player: Player, direction: Direction, amount: int,
                        gaming_day: date | None = None) -> None:
    """Refuse a cash movement the player may not make without an identity on file.

    Call it inside the movement's transaction, with the player's ledger account locked,
    before posting: ``direction`` "in" for cash the player hands over (a deposit at the
    cage, a buy-in at a table), "out" for cash paid to them (a withdrawal); ``amount`` in
    minor units of the player's currency; ``gaming_day`` the day it counts on (the current
    one by default).

    Raises IdentityRequired (409 ``identity_required``, a sentence naming the player and
    the figures) when the player has no identity on file (Player.identity_on_file) and
    the day's cash in (or cash out) with this movement would reach CASINO_ID_REQUIRED_FROM
    or more: the line itself needs the identity (EU 2015/849 art. 11(d), "EUR 2 000 or
    more"); a cent below it does not."""
    if direction not in ("in", "out"):
        raise ValueError(f"direction is 'in' or 'out', not {direction!r}")
    if player.identity_on_file:
        return
    day = cash_day(player=player, gaming_day=gaming_day)
    cur = player.currency
    line = IDENTITY_LINE.amount(cur)
    reach = day.total(direction) + amount
    if not IDENTITY_LINE.passed_by(reach, line):
        return
    what = "cash in" if direction == "in" else "cash out"
    when = ("today" if day.gaming_day == gaming_day_of()
            else f"on gaming day {day.gaming_day.isoformat()}")
    raise IdentityRequired(
        f"{player.name} #{player.pk} needs an identity on file: {what} {when} would come to "
        f"{money_words(reach, cur)}, which reaches {number_words(line, cur)} or more. Record "
        "their date of birth and identity document first.",
        detail={"player_id": player.pk, "direction": direction,
                "gaming_day": day.gaming_day.isoformat(), "currency": cur,
                "amount": format_minor(amount, cur),
                "day_total": format_minor(day.total(direction), cur),
                "would_reach": format_minor(reach, cur), "line": format_minor(line, cur)})


# --- after a movement: the cash transaction report ------------------------------------------

def identity_snapshot(player: Player) -> dict[str, Any]:
    """Who the player is on file, as a report keeps it."""
    return {"name": player.name,
            "birth_date": player.date_of_birth.isoformat() if player.date_of_birth else None,
            "id_document": {"kind": player.id_document_kind,
                            "number": player.id_document_number,
                            "country": player.id_document_country},
            "nationality": player.nationality, "licence": player.licence,
            "on_file": player.identity_on_file}


def splitting_reasons(day: CashDay) -> list[str]:
    """Why the day looks split to stay under a line, in words; empty when it does not.

    In each direction apart, over the movements no correction took back:
    - two or more movements each just under one line (at least 90 % of it, and not passing
      it: below the identity line, at most the log and report lines), for each line;
    - two or more movements each at or under the log line (none of them logged) that
      together pass the report line."""
    reasons = []
    cur = day.currency
    for direction in ("in", "out"):
        what = "cash-in" if direction == "in" else "cash-out"
        standing = day.standing(direction)  # type: ignore[arg-type]
        for kind in LINES:
            line = kind.amount(cur)
            under = [m for m in standing if kind.just_under(m.amount, line)]
            if len(under) >= 2:
                reasons.append(
                    f"{len(under)} {what} movements just under the {kind.words} "
                    f"({money_words(line, cur)}): "
                    + ", ".join(f"#{m.entry_id} {money_words(m.amount, cur)}" for m in under))
        log = LOG_LINE.amount(cur)
        report = REPORT_LINE.amount(cur)
        small = [m for m in standing if not LOG_LINE.passed_by(m.amount, log)]
        if len(small) >= 2 and REPORT_LINE.passed_by(sum(m.amount for m in small), report):
            reasons.append(
                f"{len(small)} {what} movements each at or under the log line "
                f"({money_words(log, cur)}) add up to "
                f"{money_words(sum(m.amount for m in small), cur)}, above the report line "
                f"({money_words(report, cur)})")
    return reasons


def _report_fields(player: Player, day: CashDay) -> dict[str, Any]:
    cur = player.currency
    report = REPORT_LINE.amount(cur)
    reasons = [f"{what} {money_words(total, cur)}, above the report line "
               f"({money_words(report, cur)})"
               for what, total in (("cash in", day.cash_in), ("cash out", day.cash_out))
               if REPORT_LINE.passed_by(total, report)]
    passed = bool(reasons)
    split = splitting_reasons(day)
    return {"currency": cur, "identity": identity_snapshot(player),
            "cash_in": max(day.cash_in, 0), "cash_out": max(day.cash_out, 0),
            "movements": [m.entry_id for m in day.movements],
            "report_line_passed": passed, "splitting_suspected": bool(split),
            "reasons": reasons + split}


_VERSIONED = ("identity", "cash_in", "cash_out", "movements", "report_line_passed",
              "splitting_suspected", "reasons")


def cash_movement_record(*, player: Player, entry: Entry) -> CashReport | None:
    """Bring the player's cash transaction report of the movement's gaming day up to date;
    call it in the movement's transaction, right after posting ``entry`` (a deposit, a
    withdrawal, a buy-in, or a correction of one of them), with the player's ledger account
    still locked (movements of one player are counted one after the other).

    Makes the report when the day passes CASINO_CASH_REPORT_ABOVE (cash in or cash out) or
    looks split (``splitting_reasons``); updates one that exists with every further
    movement of that day, the version before appended to its ``history``. Returns the
    report, or None when the day needs none. The multiple transaction log needs no write:
    it is read from the ledger (``cash_log``)."""
    counted = entry.reverses.created_at if entry.reverses_id and entry.reverses else \
        entry.created_at
    day = cash_day(player=player, gaming_day=gaming_day_of(counted))
    fields = _report_fields(player, day)
    report = (CashReport.objects.select_for_update()
              .filter(player=player, gaming_day=day.gaming_day).first())
    if report is None:
        if not (fields["report_line_passed"] or fields["splitting_suspected"]):
            return None
        return CashReport.objects.create(player=player, gaming_day=day.gaming_day, **fields)
    before = {name: getattr(report, name) for name in _VERSIONED}
    if all(before[name] == fields[name] for name in _VERSIONED):
        return report
    report.history = [*report.history, {**before, "until": timezone.now().isoformat()}]
    for name, value in fields.items():
        setattr(report, name, value)
    report.save()
    return report


class CashReportUnchanged(Conflict):
    code = "cash_report_filed"


def _filed_words(filing: CashReportFiling, currency: str) -> str:
    return (f"by {filing.filed_by.get_username()} on "
            f"{timezone.localtime(filing.filed_at):%Y-%m-%d %H:%M} (cash in "
            f"{money_words(filing.cash_in, currency)}, cash out "
            f"{money_words(filing.cash_out, currency)})")


def cash_report_file_check(*, report: CashReport) -> None:
    """Refuse to file a report whose figures are those of its last filing (409
    ``cash_report_filed``, in words): the authority already holds them. A report never
    filed, or amended since (``amended_since_filing``), may be filed."""
    last = report.last_filing
    if last is None or report.amended_since_filing:
        return
    raise CashReportUnchanged(
        f"Cash report #{report.pk} was filed {_filed_words(last, report.currency)} and its "
        "figures have not changed since: there is nothing to amend.",
        detail={"cash_report_id": report.pk, "filed_at": last.filed_at.isoformat(),
                "cash_in": format_minor(report.cash_in, report.currency),
                "cash_out": format_minor(report.cash_out, report.currency)})


FILE_CASH_REPORT = "casino.file_cashreport"


def cash_report_file(*, report_id: int, by: User | None) -> CashReportFiling:
    """File a cash transaction report with the authority, by ``by``, now: a new filing
    row keeps who, when and the figures filed. The first is the filing; a report whose
    figures changed since its last filing (further movements of its day, corrections) is
    filed again as an amendment, the filings before it kept whole. Filing figures already
    filed is refused (``cash_report_file_check``).

    Holds the report's row locked from the check to the filing: the movements that
    update its figures (cash_movement_record) lock it too, so the figures filed are the
    ones checked. Who may file is the service's rule, whatever door calls it."""
    if by is None or not by.has_perm(FILE_CASH_REPORT):
        raise permission_refused(FILE_CASH_REPORT)
    with transaction.atomic():
        report = (CashReport.objects.select_for_update().prefetch_related(FILINGS)
                  .filter(pk=report_id).first())
        if report is None:
            raise NotFound(f"There is no cash report #{report_id}.",
                           detail={"cash_report_id": report_id})
        cash_report_file_check(report=report)
        return CashReportFiling.objects.create(report=report, filed_at=timezone.now(),
                                               filed_by=by, cash_in=report.cash_in,
                                               cash_out=report.cash_out)


# --- reading: the log and the reports -------------------------------------------------------

@dataclass(frozen=True)
class CashLogRow:
    player_id: int
    player_name: str
    currency: str
    movement: CashMovement


def cash_log(*, gaming_day: date) -> list[CashLogRow]:
    """The multiple transaction log of ``gaming_day``: every single cash movement (or
    correction of one) made that day on a player's account whose amount is above
    CASINO_CASH_LOG_ABOVE in the player's currency, in time order. Read from the ledger,
    so it holds every door's movements (cage, tables) and cannot drift from the money."""
    since, until = gaming_days_bounds(gaming_day, gaming_day)
    rows = (Line.objects.filter(account__kind=Account.Kind.PLAYER,
                                entry__created_at__gte=since, entry__created_at__lt=until)
            .filter(Q(entry__kind__in=CASH_KINDS)
                    | Q(entry__kind=REVERSAL, entry__reverses__kind__in=CASH_KINDS))
            .order_by("entry__created_at", "entry_id")
            .values(*_ROW, "account__ref", "account__name", "account__currency"))
    lines: dict[str, int] = defaultdict(int)
    found = []
    for row in rows:
        cur = row["account__currency"]
        if cur not in lines:
            lines[cur] = LOG_LINE.amount(cur)
        movement = _movement(row)
        if LOG_LINE.passed_by(abs(movement.amount), lines[cur]):
            found.append(CashLogRow(player_id=int(row["account__ref"].split(":", 1)[1]),
                                    player_name=row["account__name"], currency=cur,
                                    movement=movement))
    return found


# A report's filings, oldest first, with who filed each: what ``last_filing`` and
# ``amended_since_filing`` read, one query for a whole list of reports.
FILINGS = Prefetch("filings", queryset=CashReportFiling.objects.select_related("filed_by")
                   .order_by("pk"))


def cash_reports(*, gaming_day: date) -> list[CashReport]:
    """The day's cash transaction reports (the report line passed, or splitting
    suspected), by player, each with its filings."""
    return list(CashReport.objects.filter(gaming_day=gaming_day)
                .select_related("player").prefetch_related(FILINGS).order_by("player_id"))


def cash_report_get(*, report_id: int) -> CashReport:
    """One cash transaction report with its player and filings; NotFound otherwise."""
    report = (CashReport.objects.select_related("player").prefetch_related(FILINGS)
              .filter(pk=report_id).first())
    if report is None:
        raise NotFound(f"There is no cash report #{report_id}.",
                       detail={"cash_report_id": report_id})
    return report


def cash_report_filed_words(report: CashReport) -> str:
    """Where a report stands with the authority, in words, as the screens, the admin and
    the report file say it."""
    last = report.last_filing
    if last is None:
        return "not filed"
    said = f"filed {_filed_words(last, report.currency)}"
    if report.amended_since_filing:
        said += "; amended since, to be filed again"
    return said
