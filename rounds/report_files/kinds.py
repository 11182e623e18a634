"""Each report kind: its parameters, its selector, and its rows laid out as a Document.

Everything a file shows is read inside one snapshot (casino.shared.db.read_snapshot): the
selectors' own snapshots then join this one, so the chain head printed on the title
block is the head the figures were read at.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.conf import settings

from casino.models import Player
from casino.selectors import player_statement
from casino.shared.api.fields import GamingDayField
from casino.shared.db import read_snapshot
from casino.shared.errors import ValidationFailed
from casino.shared.money import format_minor
from casino.shared.templatetags.casino_time import casino_time_text
from ledger.reports import chain_point, trial_balance
from rounds.models import Table
from rounds.report_files.document import Cell, Chart, Document, Section
from rounds.reports import (
    BankerReport,
    TableDayReport,
    banker_report,
    floor_day_report,
    table_day_report,
)


def money(amount: int, currency: str) -> Decimal:
    return Decimal(format_minor(amount, currency))


TABLE_DAY_COLUMNS = [
    "gaming_day", "table", "rounds_settled", "rounds_house_banked", "rounds_player_banked",
    "rounds_co_banked", "rounds_voided", "rounds_reversed", "handle", "house_stakes",
    "house_win_house_banked", "house_stake_result", "commission_players",
    "commission_bankers", "house_result", "hold_percent", "adjustments", "closed",
    "currency"]


def _table_day_row(r: TableDayReport) -> list:
    c = r.currency
    return [r.gaming_day, r.table_name, r.rounds_settled, r.rounds_house_banked,
            r.rounds_player_banked, r.rounds_co_banked, r.rounds_voided, r.rounds_reversed,
            money(r.handle, c), money(r.house_stakes, c), money(r.house_win_house_banked, c),
            money(r.house_win_house_stakes, c), money(r.commission_players, c),
            money(r.commission_bankers, c), money(r.house_result, c), r.hold_percent,
            money(r.adjustments, c), r.closed, c]


def _day_notes(rows: list[TableDayReport]) -> list[str]:
    """What an auditor must know to read a day's figures: a closed day's figures are the
    stored ones; rounds reversed since show on the day of their reversal."""
    notes = []
    if any(r.closed for r in rows):
        notes.append("This gaming day is closed: these are the figures stored at the close.")
    for r in rows:
        if r.reversed_after_close:
            numbers = ", ".join(str(n) for n in r.reversed_after_close)
            notes.append(f"{r.table_name}: round(s) {numbers} were reversed after the close; "
                         "each reversal shows as an adjustment on the gaming day it was made.")
        if r.adjustments:
            notes.append(f"{r.table_name}: adjustments of {format_minor(r.adjustments, r.currency)}"
                         f" {r.currency} reverse rounds of gaming days closed before.")
    return notes


def _hold_chart(rows: list[TableDayReport]) -> Chart:
    series: dict[str, dict[str, Decimal]] = {}
    for r in rows:
        series.setdefault(str(r.gaming_day), {})[r.table_name] = r.hold_percent or Decimal(0)
    return Chart(title="Hold % by table and gaming day", y_label="hold %", series=series,
                 file_stem="hold-by-table")


@dataclass(frozen=True)
class Laid:
    """What a kind contributes to its Document."""

    title: str
    period: str
    sections: list[Section]
    charts: list[Chart]
    notes: list[str]


def _table_day(p: dict[str, Any]) -> Laid:
    r = table_day_report(table_id=p["table"], gaming_day=p["gaming_day"])
    return Laid(title=f"Table day: {r.table_name}", period=f"gaming day {r.gaming_day}",
                sections=[Section("Figures", TABLE_DAY_COLUMNS, [_table_day_row(r)])],
                charts=[_hold_chart([r])], notes=_day_notes([r]))


def _floor_day(p: dict[str, Any]) -> Laid:
    floor = floor_day_report(gaming_day=p["gaming_day"])
    rows = [_table_day_row(r) for r in [*floor.tables, *floor.totals]]
    return Laid(title="Floor day", period=f"gaming day {floor.gaming_day}",
                sections=[Section("Tables and total", TABLE_DAY_COLUMNS, rows)],
                charts=[_hold_chart(floor.tables)] if floor.tables else [],
                notes=_day_notes(floor.tables))


BANKER_COLUMNS = ["gaming_day", "table", "round", "banker", "co_banked", "house_stake",
                  "covered", "bank_won", "bank_paid", "net", "commission", "currency"]
BANKER_TOTAL_COLUMNS = ["banker", "rounds", "covered", "bank_won", "bank_paid", "net",
                        "commission", "currency"]


def _banker(p: dict[str, Any]) -> Laid:
    report: BankerReport = banker_report(date_from=p["date_from"], date_to=p["date_to"])
    lines: list[list[Cell]] = [
             [x.gaming_day, x.table_name, x.round_number, x.banker_name, x.co_banked,
              money(x.house_stake, x.currency), money(x.covered, x.currency),
              money(x.bank_won, x.currency), money(x.bank_paid, x.currency),
              money(x.net, x.currency), money(x.commission, x.currency), x.currency]
             for x in report.lines]
    totals: list[list[Cell]] = [[t.banker_name, t.rounds, money(t.covered, t.currency),
               money(t.bank_won, t.currency), money(t.bank_paid, t.currency),
               money(t.net, t.currency), money(t.commission, t.currency), t.currency]
              for t in report.totals]
    chart = Chart(title="Bank net by banker", y_label="net", file_stem="bank-net",
                  series={"net": {f"{t.banker_name} ({t.currency})":
                                  money(t.net, t.currency) for t in report.totals}})
    return Laid(title="Player-banked rounds", period=_range(p),
                sections=[Section("Rounds", BANKER_COLUMNS, lines),
                          Section("Totals per banker", BANKER_TOTAL_COLUMNS, totals)],
                charts=[chart] if report.totals else [], notes=[])


STATEMENT_COLUMNS = ["posted_at", "entry", "kind", "reference", "amount", "balance",
                     "currency"]


def _player_statement(p: dict[str, Any]) -> Laid:
    s = player_statement(player_id=p["player"], date_from=p["date_from"],
                         date_to=p["date_to"])
    st, c = s.statement, s.statement.currency
    rows: list[list] = [[st.since, None, "opening", "", None, money(st.opening, c), c]]
    rows += [[x.posted_at, x.entry_id, x.kind, x.reference, money(x.amount, c),
              money(x.balance, c), c] for x in st.lines]
    rows.append([st.until, None, "closing", "", money(st.closing - st.opening, c),
                 money(st.closing, c), c])
    return Laid(title=f"Player statement: {s.player_name} (#{s.player_id})",
                period=_range(p), sections=[Section("Movements", STATEMENT_COLUMNS, rows)],
                charts=[], notes=[])


TRIAL_COLUMNS = ["account", "kind", "ref", "name", "currency", "posted", "held",
                 "available"]


def _trial_balance(p: dict[str, Any]) -> Laid:
    tb = trial_balance(as_of=p["as_of"])
    rows: list[list] = [[x.account_id, x.kind, x.ref, x.name, x.currency,
                         money(x.posted, x.currency), money(x.held, x.currency),
                         money(x.available, x.currency)] for x in tb.lines]
    rows += [["total", t.kind or "all", "", "", t.currency, money(t.posted, t.currency),
              money(t.held, t.currency), money(t.available, t.currency)] for t in tb.totals]
    verdict = ("ledger_verify: the chain, every entry's balance, the accounts' caches and "
               "the holds check out" if tb.verified else
               f"ledger_verify found {len(tb.problems)} problem(s): "
               + "; ".join(tb.problems[:5]))
    return Laid(title="Trial balance", period=f"as of {casino_time_text(tb.as_of)}",
                sections=[Section("Accounts", TRIAL_COLUMNS, rows)], charts=[],
                notes=[verdict])


def _range(p: dict[str, Any]) -> str:
    return f"gaming days {p['date_from']}..{p['date_to']}"


@dataclass(frozen=True)
class Kind:
    name: str
    parameters: tuple[str, ...]       # all required
    lay_out: Callable[[dict[str, Any]], Laid]
    # Who may ask for it, see it and download it: besides rounds.run_reports, what the
    # API asks before showing the same figures (the house's accounts, a player's money).
    permissions: tuple[str, ...]


_PLAY = ("rounds.run_reports",)
KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("table_day", ("table", "gaming_day"), _table_day, _PLAY),
    Kind("floor_day", ("gaming_day",), _floor_day, _PLAY),
    Kind("banker", ("date_from", "date_to"), _banker, (*_PLAY, "casino.view_player")),
    Kind("player_statement", ("player", "date_from", "date_to"), _player_statement,
         (*_PLAY, "casino.view_player", "ledger.view_entry")),
    Kind("trial_balance", ("as_of",), _trial_balance,
         (*_PLAY, "ledger.view_account", "ledger.view_house_accounts")),
)}
MAX_DAYS = 366   # a range report covers at most a year of gaming days


def _parse_one(name: str, raw: Any) -> Any:
    text = raw if isinstance(raw, str) else str(raw) if isinstance(raw, int) else None
    if text is None or not text.strip():
        raise ValueError("a value is required")
    text = text.strip()
    if name in ("table", "player"):
        if not text.isascii() or not text.isdigit() or len(text) > 12:
            raise ValueError("an id, a whole number")
        return int(text)
    if name in ("gaming_day", "date_from", "date_to"):
        try:
            if len(text) != 10:
                raise ValueError(text)
            day = date.fromisoformat(text)
        except ValueError:
            raise ValueError("a date, YYYY-MM-DD") from None
        # The API's bounds of a gaming day (the day after it must exist too).
        if not GamingDayField.FIRST <= day <= GamingDayField.LAST:
            raise ValueError(f"a date from {GamingDayField.FIRST} to {GamingDayField.LAST}")
        return day
    # as_of: an ISO time with its offset (a bare time would be read in an unknown zone)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError("a time, ISO 8601 with an offset") from None
    if moment.tzinfo is None:
        raise ValueError("a time, ISO 8601 with an offset")
    return moment


def report_parameters(*, kind: str, raw: dict[str, Any]) -> dict[str, Any]:
    """The kind's parameters, typed, from what was asked (strings; ids may be numbers);
    refuses an unknown kind, a missing or malformed parameter, a range backwards or
    longer than MAX_DAYS, and a table or player that does not exist."""
    spec = KINDS.get(kind)
    if spec is None:
        raise ValidationFailed(f"There is no report kind {kind!r}.", code="invalid",
                               detail={"fields": {"kind": [f"one of {', '.join(KINDS)}"]}})
    errors: dict[str, list[str]] = {}
    typed: dict[str, Any] = {}
    for name in spec.parameters:
        try:
            typed[name] = _parse_one(name, raw.get(name))
        except ValueError as why:
            errors[name] = [str(why)]
    if not errors and "date_from" in typed:
        span = (typed["date_to"] - typed["date_from"]).days
        if span < 0:
            errors["date_to"] = ["on or after date_from"]
        elif span >= MAX_DAYS:
            errors["date_to"] = [f"at most {MAX_DAYS} gaming days after date_from"]
    if not errors and "table" in typed and not Table.objects.filter(pk=typed["table"]).exists():
        errors["table"] = [f"there is no table #{typed['table']}"]
    if not errors and "player" in typed and not Player.objects.filter(
            pk=typed["player"]).exists():
        errors["player"] = [f"there is no player #{typed['player']}"]
    if errors:
        raise ValidationFailed("The report's parameters are not valid.", code="invalid",
                               detail={"fields": errors})
    return typed


def report_document(*, kind: str, parameters: dict[str, Any], made_by: str,
                    made_at: datetime) -> Document:
    """The Document of one report, read from one snapshot."""
    spec = KINDS[kind]
    with read_snapshot():
        laid = spec.lay_out(parameters)
        head = chain_point(as_of=parameters.get("as_of"))
    return Document(
        kind=kind, title=laid.title, casino=settings.CASINO_NAME, period=laid.period,
        made_at=made_at, made_by=made_by, chain_seq=head.seq, chain_hash=head.hash,
        sections=laid.sections, charts=laid.charts, notes=laid.notes,
        parameters={k: _param_text(v) for k, v in parameters.items()})


def _param_text(value: Any) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return str(value)
