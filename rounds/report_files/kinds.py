"""Each report kind: its parameters, its selector, and its rows laid out as a Document.

Everything a file shows is read inside one snapshot (casino.shared.db.read_snapshot): the
selectors' own snapshots then join this one, so the chain head printed on the title
block is the head the figures were read at.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.utils import timezone

from casino.cash import cash_reports
from casino.models import Player
from casino.selectors import player_statement
from casino.shared.api.fields import GamingDayField
from casino.shared.db import read_snapshot
from casino.shared.errors import ValidationFailed
from casino.shared.money import format_minor
from casino.shared.templatetags.casino_time import casino_time_text
from ledger.reports import chain_point, trial_balance
from rounds.models import Table
from rounds.ratings import player_ratings
from rounds.report_files.document import Cell, Chart, Document, Section
from rounds.reports import (
    BankerReport,
    HourResult,
    TableDayReport,
    banker_report,
    day_by_hour,
    floor_day_report,
    table_day_report,
)


def money(amount: int, currency: str) -> Decimal:
    return Decimal(format_minor(amount, currency))


# What each ratio divides, said on every report that shows them: hold % divides the house
# result by the handle (the wagers); the industry's hold is the win over the drop (the cash
# counted in the table's drop box), shown beside it (docs/rules.md §13).
HOLD_NOTE = ("Hold % here is the house result divided by the handle (every wager against a "
             "bank). The industry's hold is win / drop: the win (the house result) divided "
             "by the drop, the cash counted in the table's drop box; it is empty until the "
             "box is counted. The drop is read as counted, also for a closed day.")


def day_text(day: date) -> str:
    """A gaming day as a person writes it: ``2 Dec 2026``."""
    return f"{day.day} {day:%b %Y}"


def moment_text(moment: datetime) -> str:
    """A moment in the casino's zone: ``2 Dec 2026 07:10``."""
    local = timezone.localtime(moment)
    return f"{day_text(local.date())} {local:%H:%M}"


TABLE_DAY_COLUMNS = [
    "gaming_day", "table", "rounds_settled", "rounds_house_banked", "rounds_player_banked",
    "rounds_co_banked", "rounds_voided", "rounds_reversed", "handle", "house_stakes",
    "house_win_house_banked", "house_win_house_stakes", "commission_players",
    "commission_bankers", "house_result", "hold_percent", "adjustments", "drop_recorded",
    "drop", "drop_variance", "win", "win_to_drop", "band_handle", "band_result", "expected",
    "band", "outside_band", "closed", "currency"]
TABLE_DAY_LABELS = {
    "gaming_day": "Gaming day", "table": "Table", "rounds_settled": "Rounds settled",
    "rounds_house_banked": "Rounds banked by the house",
    "rounds_player_banked": "Rounds banked by a player",
    "rounds_co_banked": "Rounds co-banked (of those banked by a player)",
    "rounds_voided": "Rounds voided", "rounds_reversed": "Rounds reversed",
    "handle": "Handle (wagers against a bank)",
    "house_stakes": "House stakes against player banks",
    "house_win_house_banked": "House win, house-banked play",
    "house_win_house_stakes": "House win, house stakes", "commission_players":
    "Commission from winning players", "commission_bankers": "Commission from player bankers",
    "house_result": "House result (the four above)",
    "hold_percent": "Hold % (house result / handle)",
    "adjustments": "Adjustments (reversals of closed days' rounds)",
    "drop_recorded": "Drop recorded (buy-ins at the table)",
    "drop": "Drop (cash counted in the drop box)",
    "drop_variance": "Drop variance (counted - recorded)",
    "win": "Win (the house result)",
    "win_to_drop": "Win / drop (win divided by drop)",
    "band_handle": "House-banked handle", "band_result": "House-banked result",
    "expected": "Expected result (house-banked handle x player edge)",
    "band": "95 % band (1.96 x sqrt(sum wager^2 x variance))",
    "outside_band": "Outside its band",
    "closed": "Gaming day closed", "currency": "Currency"}


def _table_day_row(r: TableDayReport) -> list:
    c = r.currency
    return [r.gaming_day, r.table_name, r.rounds_settled, r.rounds_house_banked,
            r.rounds_player_banked, r.rounds_co_banked, r.rounds_voided, r.rounds_reversed,
            money(r.handle, c), money(r.house_stakes, c), money(r.house_win_house_banked, c),
            money(r.house_win_house_stakes, c), money(r.commission_players, c),
            money(r.commission_bankers, c), money(r.house_result, c), r.hold_percent,
            money(r.adjustments, c), money(r.drop_recorded, c), _maybe_money(r.drop, c),
            _maybe_money(r.drop_variance, c), money(r.win, c), r.win_to_drop,
            _maybe_money(r.band_handle, c), _maybe_money(r.band_result, c),
            _maybe_money(r.expected, c), _maybe_money(r.band, c), r.outside_band, r.closed, c]


def _maybe_money(amount: int | None, currency: str) -> Decimal | None:
    """A figure that is empty until something happens (the drop before its count) or
    that a row has none of (the band on a floor's total row)."""
    return None if amount is None else money(amount, currency)


def _day_section(title: str, rows: list[list]) -> Section:
    return Section(title, TABLE_DAY_COLUMNS, rows, labels=TABLE_DAY_LABELS, sheet=True,
                   key="table", omit=("gaming_day", "closed"))


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
    for r in rows:
        if r.outside_band:
            notes.append(band_sentence(r))
    notes.append(HOLD_NOTE)
    notes.append(BAND_NOTE)
    return notes


BAND_NOTE = ("Expected result and band: the house-banked wagers x the player edge of their "
             "rules, and 1.96 x the square root of the sum of each wager squared x the "
             "game's variance per unit wagered (docs/rules.md). A day whose house-banked "
             "result lies outside expected +/- band is one to explain.")


def band_sentence(r: TableDayReport, *, when: str = "") -> str:
    """A day outside its band, as the pit manager reads it; ``when`` names the day in
    words ("today") where the reader knows which one."""
    assert r.band_result is not None and r.expected is not None and r.band is not None
    c = r.currency
    when = when or f"on {day_text(r.gaming_day)}"
    return (f"{r.table_name}'s result {when} is outside its expected "
            f"band: the house won {format_minor(r.band_result, c)} {c} on "
            f"{format_minor(r.band_handle or 0, c)} {c} of house-banked wagers, where "
            f"{format_minor(r.expected, c)} +/- {format_minor(r.band, c)} {c} was expected.")


def _hold_chart(rows: list[TableDayReport]) -> list[Chart]:
    """Hold by table: worth drawing only when there are tables to compare."""
    held = [r for r in rows if r.hold_percent is not None]
    if len(held) < 2:
        return []
    series: dict[str, dict[str, Decimal]] = {}
    for r in held:
        assert r.hold_percent is not None
        series.setdefault(r.currency, {})[r.table_name] = r.hold_percent
    return [Chart(title="Hold % by table (house result / handle)",
                  y_label="hold % (house result / handle)", series=series,
                  file_stem="hold-by-table")]


def _hours_chart(hours: list[HourResult], what: str) -> list[Chart]:
    """The day's house result by the hour its rounds were settled (casino time): where in
    the day the house won or lost. Nothing to draw when all play fell in one hour."""
    if len({h.hour for h in hours}) < 2:
        return []
    first, last = min(h.hour for h in hours), max(h.hour for h in hours)
    by_hour = {(h.currency, h.hour): h.house_result for h in hours}
    series: dict[str, dict[str, Decimal]] = {}
    # Every hour from the first to the last, an hour without play at 0: the gaps show.
    for currency in sorted({h.currency for h in hours}):
        values = series[currency] = {}
        hour = first
        while hour <= last:
            values[f"{timezone.localtime(hour):%H}:00"] = money(
                by_hour.get((currency, hour), 0), currency)
            hour += timedelta(hours=1)
    return [Chart(title=f"House result by hour settled, {what}", y_label="house result",
                  x_label="hour settled (casino time)", series=series,
                  file_stem="result-by-hour")]


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
    hours = day_by_hour(gaming_day=p["gaming_day"], table_id=p["table"])
    return Laid(title=f"Table day: {r.table_name}", period=f"gaming day {day_text(r.gaming_day)}",
                sections=[_day_section("Figures", [_table_day_row(r)])],
                charts=_hours_chart(hours, r.table_name), notes=_day_notes([r]))


def _floor_day(p: dict[str, Any]) -> Laid:
    floor = floor_day_report(gaming_day=p["gaming_day"])
    rows = [_table_day_row(r) for r in [*floor.tables, *floor.totals]]
    hours = day_by_hour(gaming_day=p["gaming_day"])
    return Laid(title="Floor day", period=f"gaming day {day_text(floor.gaming_day)}",
                sections=[_day_section("Tables and total", rows)],
                charts=[*_hold_chart(floor.tables), *_hours_chart(hours, "all tables")],
                notes=_day_notes(floor.tables))


BANKER_COLUMNS = ["gaming_day", "table", "round", "banker", "co_banked", "house_stake",
                  "covered", "bank_won", "bank_paid", "net", "commission", "currency"]
BANKER_TOTAL_COLUMNS = ["banker", "rounds", "covered", "bank_won", "bank_paid", "net",
                        "commission", "currency"]
BANKER_LABELS = {
    "gaming_day": "Gaming day", "table": "Table", "round": "Round", "banker": "Banker",
    "co_banked": "Co-banked with the house", "house_stake": "House stake",
    "covered": "Covered (wagers and house stake)", "bank_won": "Bank won",
    "bank_paid": "Bank paid", "net": "Net (won - paid)",
    "commission": "Commission paid by the banker", "rounds": "Rounds banked",
    "currency": "Currency"}


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
    charts = []
    if len(report.totals) > 1:   # one banker: the totals say it all
        charts.append(Chart(
            title="Bank net by banker (won - paid)", y_label="net", file_stem="bank-net",
            series={"net": {f"{t.banker_name} ({t.currency})": money(t.net, t.currency)
                            for t in report.totals}}))
    days = sorted({x.gaming_day for x in report.lines})
    if len(days) > 1:            # across days: how the bankers' net ran
        net: dict[str, dict[str, Decimal]] = {}
        for x in report.lines:
            values = net.setdefault(x.currency, dict.fromkeys(
                (day_text(d) for d in days), Decimal(0)))
            values[day_text(x.gaming_day)] += money(x.net, x.currency)
        charts.append(Chart(title="The player bankers' net by gaming day", y_label="net",
                            x_label="gaming day", series=net, file_stem="bank-net-by-day"))
    return Laid(title="Player-banked rounds", period=_range(p),
                sections=[Section("Rounds", BANKER_COLUMNS, lines, labels=BANKER_LABELS),
                          Section("Totals per banker", BANKER_TOTAL_COLUMNS, totals,
                                  labels=BANKER_LABELS, key="banker")],
                charts=charts, notes=[])


STATEMENT_COLUMNS = ["posted_at", "entry", "kind", "reference", "amount", "balance",
                     "currency"]
STATEMENT_LABELS = {"posted_at": "Posted at", "entry": "Entry #", "kind": "Movement",
                    "reference": "Reference", "amount": "Amount", "balance": "Balance after",
                    "currency": "Currency"}


def _player_statement(p: dict[str, Any]) -> Laid:
    s = player_statement(player_id=p["player"], date_from=p["date_from"],
                         date_to=p["date_to"])
    st, c = s.statement, s.statement.currency
    rows: list[list] = [[st.since, None, "opening", "", None, money(st.opening, c), c]]
    rows += [[x.posted_at, x.entry_id, x.kind, x.reference, money(x.amount, c),
              money(x.balance, c), c] for x in st.lines]
    rows.append([st.until, None, "closing", "", money(st.closing - st.opening, c),
                 money(st.closing, c), c])
    charts = []
    if len(st.lines) > 1:
        balance = {f"{moment_text(x.posted_at)} #{x.entry_id}": money(x.balance, c)
                   for x in st.lines}
        charts.append(Chart(title=f"{s.player_name}'s balance after each movement",
                            y_label=f"balance ({c})", x_label="posted at (casino time)",
                            series={c: balance}, file_stem="balance", style="line"))
    return Laid(title=f"Player statement: {s.player_name} (#{s.player_id})",
                period=_range(p), sections=[Section("Movements", STATEMENT_COLUMNS, rows,
                                                    labels=STATEMENT_LABELS)],
                charts=charts, notes=[])


TRIAL_COLUMNS = ["account", "kind", "ref", "name", "currency", "posted", "held",
                 "available"]
TRIAL_LABELS = {"account": "Account #", "kind": "Kind", "ref": "Reference", "name": "Name",
                "currency": "Currency", "posted": "Posted balance", "held": "Held",
                "available": "Available (posted - held)"}


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
                sections=[Section("Accounts", TRIAL_COLUMNS, rows, labels=TRIAL_LABELS)],
                charts=[], notes=[verdict])


CASH_REPORT_COLUMNS = ["report", "gaming_day", "player", "player_name", "birth_date",
                       "id_document", "nationality", "cash_in", "cash_out", "currency",
                       "movements", "report_line_passed", "splitting_suspected",
                       "filed_at", "filed_by"]
# Each reason a row of its own: a sentence with the entries, too long for a column.
CASH_REASON_COLUMNS = ["report", "player_name", "reason"]
CASH_REPORT_LABELS = {
    "report": "Report #", "gaming_day": "Gaming day", "player": "Player #",
    "player_name": "Player", "birth_date": "Date of birth",
    "id_document": "Identity document (kind, number, country)",
    "nationality": "Nationality", "cash_in": "Cash in (deposits, buy-ins)",
    "cash_out": "Cash out (withdrawals)", "currency": "Currency",
    "movements": "Ledger entries", "report_line_passed": "Report line passed",
    "splitting_suspected": "Splitting suspected", "reason": "Why",
    "filed_at": "Filed at", "filed_by": "Filed by"}


def _cash_report(p: dict[str, Any]) -> Laid:
    rows: list[list[Cell]] = []
    reasons: list[list[Cell]] = []
    for r in cash_reports(gaming_day=p["gaming_day"]):
        who, doc = r.identity, r.identity.get("id_document") or {}
        document = " ".join(v for v in (doc.get("kind"), doc.get("number"),
                                        doc.get("country")) if v)
        rows.append([r.pk, r.gaming_day, r.player_id, who.get("name", r.player.name),
                     who.get("birth_date") or "", document, who.get("nationality", ""),
                     money(r.cash_in, r.currency), money(r.cash_out, r.currency),
                     r.currency, " ".join(str(e) for e in r.movements),
                     r.report_line_passed, r.splitting_suspected,
                     r.filed_at, r.filed_by.get_username() if r.filed_by else ""])
        reasons += [[r.pk, r.player.name, reason] for reason in r.reasons]
    notes = [f"Cash in and cash out are counted apart, per player and gaming day, each net "
             f"of its corrections; a report is made above CASINO_CASH_REPORT_ABOVE "
             f"({settings.CASINO_CASH_REPORT_ABOVE} in the player's currency) either way, "
             "or when the day's movements look split to stay under a line (docs/rules.md)."]
    return Laid(title="Cash transaction reports", period=f"gaming day {day_text(p['gaming_day'])}",
                sections=[Section("Reports", CASH_REPORT_COLUMNS, rows,
                                  labels=CASH_REPORT_LABELS),
                          Section("Why each report was made", CASH_REASON_COLUMNS, reasons,
                                  labels=CASH_REPORT_LABELS)],
                charts=[], notes=notes)


RATING_COLUMNS = ["gaming_day", "player", "player_name", "table", "table_name",
                  "time_seated_s", "rounds", "wagers", "wagered", "average_wager",
                  "rounds_banked", "action_covered", "actual", "theoretical", "currency"]
RATING_LABELS = {
    "gaming_day": "Gaming day", "player": "Player #", "player_name": "Player",
    "table": "Table #", "table_name": "Table", "time_seated_s": "Time seated (s)",
    "rounds": "Rounds played", "wagers": "Wagers", "wagered": "Wagered",
    "average_wager": "Average wager", "rounds_banked": "Rounds banked",
    "action_covered": "Action covered as banker",
    "actual": "Actual result (+ player won)", "theoretical": "Theoretical win (house)",
    "currency": "Currency"}


def _rating(p: dict[str, Any]) -> Laid:
    rows: list[list] = [[
        r.gaming_day, r.player_id, r.player_name, r.table_id, r.table_name, r.time_seated_s,
        r.rounds, r.wagers, money(r.wagered, r.currency), money(r.average_wager, r.currency),
        r.rounds_banked, money(r.action_covered, r.currency), money(r.actual, r.currency),
        money(r.theoretical, r.currency), r.currency]
        for r in player_ratings(gaming_day=p["gaming_day"])]
    return Laid(title="Player ratings", period=f"gaming day {day_text(p['gaming_day'])}",
                sections=[Section("Players by table", RATING_COLUMNS, rows,
                                  labels=RATING_LABELS)],
                charts=[], notes=[RATING_NOTE])


RATING_NOTE = ("Theoretical win: each wager x the player edge of its table's rules, plus the "
               "action covered as banker x the banker edge (docs/rules.md, House edge). "
               "Actual: the player's own result in settled rounds, commission included.")


def _range(p: dict[str, Any]) -> str:
    if p["date_from"] == p["date_to"]:
        return f"gaming day {day_text(p['date_from'])}"
    return f"gaming days {day_text(p['date_from'])} to {day_text(p['date_to'])}"


@dataclass(frozen=True)
class Kind:
    name: str
    label: str                        # in words, for the console
    parameters: tuple[str, ...]       # all required, unless they have a default
    lay_out: Callable[[dict[str, Any]], Laid]
    # Who may ask for it, see it and download it: besides rounds.run_reports, what the
    # API asks before showing the same figures (the house's accounts, a player's money).
    permissions: tuple[str, ...]
    # A parameter left empty takes its default's value at the moment of asking.
    defaults: dict[str, Callable[[], Any]] = field(default_factory=dict)


_PLAY = ("rounds.run_reports",)
KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("table_day", "A table's day", ("table", "gaming_day"), _table_day, _PLAY),
    Kind("floor_day", "The floor's day", ("gaming_day",), _floor_day, _PLAY),
    Kind("banker", "Player-banked rounds", ("date_from", "date_to"), _banker,
         (*_PLAY, "casino.view_player")),
    Kind("player_statement", "A player's statement", ("player", "date_from", "date_to"),
         _player_statement, (*_PLAY, "casino.view_player", "ledger.view_entry")),
    Kind("rating", "Player ratings", ("gaming_day",), _rating,
         (*_PLAY, "casino.view_player")),
    # The trial balance as of now unless a moment is chosen.
    # Who was identified and what they moved in cash: the cash rules' own readers.
    Kind("cash_report", "Cash transaction reports", ("gaming_day",), _cash_report,
         (*_PLAY, "casino.view_cashreport")),
    Kind("trial_balance", "Trial balance", ("as_of",), _trial_balance,
         (*_PLAY, "ledger.view_account", "ledger.view_house_accounts"),
         defaults={"as_of": timezone.now}),
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
    one left empty that has a default takes it (the trial balance's moment: now). Refuses
    an unknown kind, a missing or malformed parameter, a range backwards or longer than
    MAX_DAYS, and a table or player that does not exist."""
    spec = KINDS.get(kind)
    if spec is None:
        raise ValidationFailed(f"There is no report kind {kind!r}.", code="invalid",
                               detail={"fields": {"kind": [f"one of {', '.join(KINDS)}"]}})
    errors: dict[str, list[str]] = {}
    typed: dict[str, Any] = {}
    for name in spec.parameters:
        value = raw.get(name)
        if name in spec.defaults and (value is None or str(value).strip() == ""):
            typed[name] = spec.defaults[name]()
            continue
        try:
            typed[name] = _parse_one(name, value)
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
        parameters={k: _param_text(v) for k, v in parameters.items()},
        time_zone=settings.TIME_ZONE)


def parameters_in_words(kind: str, parameters: dict[str, Any], *,
                        tables: dict[int, str] | None = None,
                        players: dict[int, str] | None = None) -> str:
    """What a report was asked for, as a person says it: "Table 1, gaming day 2 Dec
    2026"; ``parameters`` as stored (plain text), names of tables and players by id (a
    missing one is said by its number)."""
    tables, players = tables or {}, players or {}
    try:
        typed = {name: _parse_one(name, value) for name, value in parameters.items()
                 if name in KINDS[kind].parameters}
    except (KeyError, ValueError):
        return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in parameters.items())
    said = []
    if "table" in typed:
        said.append(tables.get(typed["table"], f"table #{typed['table']}"))
    if "player" in typed:
        said.append(f"{players.get(typed['player'], 'player')} (#{typed['player']})")
    if "gaming_day" in typed:
        said.append(f"gaming day {day_text(typed['gaming_day'])}")
    if "date_from" in typed and "date_to" in typed:
        said.append(_range(typed))
    if "as_of" in typed:
        said.append(f"as of {moment_text(typed['as_of'])}")
    return ", ".join(said)


def _param_text(value: Any) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return str(value)
