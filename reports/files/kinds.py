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
from casino.shared.db import read_from, read_snapshot
from casino.shared.errors import ValidationFailed
from casino.shared.gaming_day import FIRST_DAY, LAST_DAY, moment_in_range
from casino.shared.money import format_minor
from casino.shared.templatetags.casino_time import casino_time_text
from ledger.reports import chain_point, trial_balance
from reports.card_room import proposition_report, rotation_log
from reports.dealers import dealer_shift_report
from reports.exclusions import exclusions_layout
from reports.files.document import Cell, Chart, Column, Document, Section, Spec, spec_row
from reports.play import (
    BankerReport,
    DayFigures,
    HourResult,
    banker_report,
    day_by_hour,
    floor_day_report,
    table_day_report,
)
from rounds import variance
from rounds.models import Table
from rounds.ratings import player_ratings


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


TABLE_DAY: Spec = (
    Column("gaming_day", "Gaming day", "date"),
    Column("table", "Table", "text", source="table_name"),
    Column("rounds_settled", "Rounds settled", "int"),
    Column("rounds_house_banked", "Rounds banked by the house", "int"),
    Column("rounds_player_banked", "Rounds banked by a player", "int"),
    Column("rounds_co_banked", "Rounds co-banked (of those banked by a player)", "int"),
    Column("rounds_voided", "Rounds voided", "int"),
    Column("rounds_reversed", "Rounds reversed", "int"),
    Column("handle", "Handle (wagers against a bank)", "money"),
    Column("house_stakes", "House stakes against player banks", "money"),
    Column("house_win_house_banked", "House win, house-banked play", "money"),
    Column("house_win_house_stakes", "House win, house stakes", "money"),
    Column("commission_players", "Commission from winning players", "money"),
    Column("commission_bankers", "Commission from player bankers", "money"),
    Column("collection_banker", "Collection: bank fees (card room, by band)", "money"),
    Column("collection_players", "Collection: per-wager fees (card room)", "money"),
    Column("house_result", "House result (the six above)", "money"),
    Column("hold_percent", "Hold % (house result / handle)", "ratio",
           divides="house_result / handle", nullable=True),
    Column("adjustments", "Adjustments (reversals of closed days' rounds)", "money"),
    Column("drop_recorded", "Drop recorded (buy-ins at the table)", "money"),
    Column("drop", "Drop (cash counted in the drop box)", "money", nullable=True),
    Column("drop_variance", "Drop variance (counted - recorded)", "money", nullable=True),
    Column("win", "Win (the house result)", "money"),
    Column("win_to_drop", "Win / drop (win divided by drop)", "ratio",
           divides="win / drop", nullable=True),
    Column("band_handle", "House-banked handle", "money", nullable=True),
    Column("band_result", "House-banked result", "money", nullable=True),
    Column("expected", "Expected result (house-banked handle x player edge)", "money",
           nullable=True),
    Column("band", "95 % band (1.96 x sqrt(sum wager^2 x variance))", "money", nullable=True),
    Column("outside_band", "Outside its band", "flag", nullable=True),
    Column("closed", "Gaming day closed", "flag"),
    Column("currency", "Currency", "text"),
)
TABLE_DAY_COLUMNS = [c.name for c in TABLE_DAY]


def _table_day_row(r: DayFigures) -> list[Cell]:
    return spec_row(TABLE_DAY, r, r.currency)


def _day_section(title: str, rows: list[list]) -> Section:
    return Section.of(title, TABLE_DAY, rows, sheet=True, key="table",
                      omit=("gaming_day", "closed"))


def _day_notes(rows: list[DayFigures]) -> list[str]:
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
        # The floor's flag: outside the band, once the day has rounds enough for it
        # (rounds.variance.Band.flagged); the column says where the figures fall.
        if r.outside_band and _band(r).flagged:
            notes.append(band_sentence(r))
    notes.append(HOLD_NOTE)
    notes.append(BAND_NOTE)
    return notes


BAND_NOTE = ("Expected result and band: the house-banked wagers x the player edge of their "
             "rules, and 1.96 x the square root of the sum of each wager squared x the "
             "game's variance per unit wagered (docs/rules.md). A day whose house-banked "
             "result lies outside expected +/- band is one to explain once it has enough "
             "settled house-banked rounds for the band to mean something "
             "(CASINO_VARIANCE_MIN_ROUNDS).")


def _band(r: DayFigures) -> variance.Band:
    assert r.band_result is not None and r.expected is not None and r.band is not None
    return variance.Band(handle=r.band_handle or 0, result=r.band_result, expected=r.expected,
                         band=r.band, outside_band=bool(r.outside_band),
                         rounds=r.rounds_house_banked)


def band_sentence(r: DayFigures) -> str:
    """A day outside its band, in the words the floor's screen uses (rounds.variance)."""
    return variance.band_sentence(table_name=r.table_name, currency=r.currency,
                                  band=_band(r), when=f"on {day_text(r.gaming_day)}")


def _hold_chart(rows: list[DayFigures]) -> list[Chart]:
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


BANKER_LINE: Spec = (
    Column("gaming_day", "Gaming day", "date"),
    Column("table", "Table", "text", source="table_name"),
    Column("round", "Round", "int", source="round_number"),
    Column("party", "Bank", "text"),
    Column("player", "Banker", "text"),
    Column("co_banked", "Co-banked with the house", "flag"),
    Column("house_stake", "House stake", "money"),
    Column("covered", "Covered (wagers and house stake)", "money"),
    Column("bank_won", "Bank won", "money"),
    Column("bank_paid", "Bank paid", "money"),
    Column("net", "Net (won - paid)", "money"),
    Column("commission", "Commission paid by the banker", "money"),
    Column("fee", "Collection fee paid by the bank", "money"),
    Column("result", "Result (the banker's account)", "money"),
    Column("currency", "Currency", "text"),
)
BANKER_TOTAL: Spec = (
    Column("player", "Banker", "text"),
    Column("rounds", "Rounds banked", "int"),
    *(c for c in BANKER_LINE if c.name in ("covered", "bank_won", "bank_paid", "net",
                                          "commission", "fee", "result", "currency")),
)


def _banker(p: dict[str, Any]) -> Laid:
    report: BankerReport = banker_report(date_from=p["date_from"], date_to=p["date_to"])
    lines = [spec_row(BANKER_LINE, x, x.currency) for x in report.lines]
    totals = [spec_row(BANKER_TOTAL, t, t.currency) for t in report.totals]
    charts = []
    if len(report.totals) > 1:   # one banker: the totals say it all
        charts.append(Chart(
            title="Bank net by banker (won - paid)", y_label="net", file_stem="bank-net",
            series={"net": {f"{t.player} ({t.currency})": money(t.net, t.currency)
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
                sections=[Section.of("Rounds", BANKER_LINE, lines),
                          Section.of("Totals per banker", BANKER_TOTAL, totals, key="banker")],
                charts=charts, notes=[])


STATEMENT: Spec = (
    Column("posted_at", "Posted at", "moment"),
    Column("entry", "Entry #", "int"),
    Column("kind", "Movement", "text"),
    Column("reference", "Reference", "text"),
    Column("amount", "Amount", "money"),
    Column("balance", "Balance after", "money"),
    Column("currency", "Currency", "text"),
    # Every row says whose statement it is, so a spreadsheet of several players' files
    # sorts and filters by player; the PDF and the page say it once, in their title.
    Column("player", "Player #", "int"),
    Column("player_name", "Player", "text"),
)
STATEMENT_IN_TITLE = ("player", "player_name")


def _player_statement(p: dict[str, Any]) -> Laid:
    """Also the cage's statement file (reports.services.statement_read), whose period may
    be open at either end (None)."""
    s = player_statement(player_id=p["player"], date_from=p["date_from"],
                         date_to=p["date_to"])
    st, c = s.statement, s.statement.currency
    who = [s.player_id, s.player_name]
    rows: list[list] = [[st.since, None, "opening", "", None, money(st.opening, c), c, *who]]
    rows += [[x.posted_at, x.entry_id, x.kind, x.reference, money(x.amount, c),
              money(x.balance, c), c, *who] for x in st.lines]
    # A period open at its end closes at the moment it was read.
    rows.append([st.until or timezone.now(), None, "closing", "",
                 money(st.closing - st.opening, c), money(st.closing, c), c, *who])
    charts = []
    if len(st.lines) > 1:
        balance = {f"{moment_text(x.posted_at)} #{x.entry_id}": money(x.balance, c)
                   for x in st.lines}
        charts.append(Chart(title=f"{s.player_name}'s balance after each movement",
                            y_label=f"balance ({c})", x_label="posted at (casino time)",
                            series={c: balance}, file_stem="balance", style="line"))
    return Laid(title=f"Player statement: {s.player_name} (#{s.player_id})",
                period=_range(p), sections=[Section.of("Movements", STATEMENT, rows,
                                                         omit=STATEMENT_IN_TITLE)],
                charts=charts, notes=[])


TRIAL: Spec = (
    Column("account", "Account #", "int"),
    Column("kind", "Kind", "text"),
    Column("ref", "Reference", "text"),
    Column("name", "Name", "text"),
    Column("currency", "Currency", "text"),
    Column("posted", "Posted balance", "money"),
    Column("held", "Held", "money"),
    Column("available", "Available (posted - held)", "money"),
)


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
                sections=[Section.of("Accounts", TRIAL, rows)],
                charts=[], notes=[verdict])


CASH_REPORT: Spec = (
    Column("report", "Report #", "int"),
    Column("gaming_day", "Gaming day", "date"),
    Column("player", "Player #", "int"),
    Column("player_name", "Player", "text"),
    Column("birth_date", "Date of birth", "text"),
    Column("id_document", "Identity document (kind, number, country)", "text"),
    Column("nationality", "Nationality", "text"),
    Column("cash_in", "Cash in (deposits, buy-ins)", "money"),
    Column("cash_out", "Cash out (withdrawals)", "money"),
    Column("currency", "Currency", "text"),
    Column("movements", "Ledger entries", "text"),
    Column("report_line_passed", "Report line passed", "flag"),
    Column("splitting_suspected", "Splitting suspected", "flag"),
    Column("filed_at", "Last filed at", "moment"),
    Column("filed_by", "Last filed by", "text"),
    Column("filings", "Filings (the first, then amendments)", "int"),
    Column("amended_since_filing", "Amended since filing", "flag"),
)
# Each reason a row of its own: a sentence with the entries, too long for a column.
CASH_REASON: Spec = (
    Column("report", "Report #", "int"),
    Column("player_name", "Player", "text"),
    Column("reason", "Why", "text"),
)


def _cash_report(p: dict[str, Any]) -> Laid:
    rows: list[list[Cell]] = []
    reasons: list[list[Cell]] = []
    for r in cash_reports(gaming_day=p["gaming_day"]):
        who, doc, last = r.identity, r.identity.get("id_document") or {}, r.last_filing
        document = " ".join(v for v in (doc.get("kind"), doc.get("number"),
                                        doc.get("country")) if v)
        rows.append([r.pk, r.gaming_day, r.player_id, who.get("name", r.player.name),
                     who.get("birth_date") or "", document, who.get("nationality", ""),
                     money(r.cash_in, r.currency), money(r.cash_out, r.currency),
                     r.currency, " ".join(str(e) for e in r.movements),
                     r.report_line_passed, r.splitting_suspected,
                     last.filed_at if last else None,
                     last.filed_by.get_username() if last else "",
                     len(r.filings.all()), r.amended_since_filing])
        reasons += [[r.pk, r.player.name, reason] for reason in r.reasons]
    notes = [f"Cash in and cash out are counted apart, per player and gaming day, each net "
             f"of its corrections; a report is made above CASINO_CASH_REPORT_ABOVE "
             f"({settings.CASINO_CASH_REPORT_ABOVE} in the player's currency) either way, "
             "or when the day's movements look split to stay under a line (docs/rules.md)."]
    return Laid(title="Cash transaction reports", period=f"gaming day {day_text(p['gaming_day'])}",
                sections=[Section.of("Reports", CASH_REPORT, rows),
                          Section.of("Why each report was made", CASH_REASON, reasons)],
                charts=[], notes=notes)


RATING: Spec = (
    Column("gaming_day", "Gaming day", "date"),
    Column("player", "Player #", "int", source="player_id"),
    Column("player_name", "Player", "text"),
    Column("table", "Table #", "int", source="table_id"),
    Column("table_name", "Table", "text"),
    Column("time_seated_s", "Time seated (s)", "int"),
    Column("rounds", "Rounds played", "int"),
    Column("wagers", "Wagers", "int"),
    Column("wagered", "Wagered", "money"),
    Column("average_wager", "Average wager", "money"),
    Column("rounds_banked", "Rounds banked", "int"),
    Column("action_covered", "Action covered as banker", "money"),
    Column("actual", "Actual result (+ player won)", "money"),
    Column("theoretical", "Theoretical win (house)", "money"),
    Column("currency", "Currency", "text"),
)


def _rating(p: dict[str, Any]) -> Laid:
    rows = [spec_row(RATING, r, r.currency) for r in player_ratings(gaming_day=p["gaming_day"])]
    return Laid(title="Player ratings", period=f"gaming day {day_text(p['gaming_day'])}",
                sections=[Section.of("Players by table", RATING, rows)],
                charts=[], notes=[RATING_NOTE])


RATING_NOTE = ("Theoretical win: each wager x the player edge of its table's rules, plus the "
               "action covered as banker x the banker edge (docs/rules.md, House edge). "
               "Actual: the player's own result in settled rounds, commission and "
               "collection fees included.")


def _range(p: dict[str, Any]) -> str:
    first, last = p["date_from"], p["date_to"]
    if first is None or last is None:  # the cage's statement, open at an end
        return ("all gaming days" if first is None and last is None
                else f"gaming days to {day_text(last)}" if first is None
                else f"gaming days from {day_text(first)}")
    if first == last:
        return f"gaming day {day_text(p['date_from'])}"
    return f"gaming days {day_text(p['date_from'])} to {day_text(p['date_to'])}"


# --- card room: the proposition players, the bank's rotation ---------------------------------

PROPOSITION: Spec = (
    Column("player", "Proposition player", "text", source="name"),
    Column("licence", "Licence", "text"),
    Column("rounds", "Rounds covered", "int"),
    Column("rounds_alone", "Rounds banked alone", "int"),
    Column("action", "Action covered", "money"),
    Column("won", "Won (covered wagers that lost)", "money"),
    Column("lost", "Lost (covered wagers that won)", "money"),
    Column("net", "Net (won - lost)", "money"),
    Column("commission", "Commission paid", "money"),
    Column("fees", "Collection fees paid (banking alone)", "money"),
    Column("result", "Result (net - commission - fees)", "money"),
    Column("currency", "Currency", "text"),
)


def _proposition_day(p: dict[str, Any]) -> Laid:
    report = proposition_report(gaming_day=p["gaming_day"])
    rows = [spec_row(PROPOSITION, x, x.currency) for x in report.lines]
    notes = ["A proposition player covers the wagers a player-dealer leaves, or banks alone "
             "when every seated player declines the bank; the bank's collection fee is the "
             "player-dealer's, paid by the proposition player only when it banks alone."]
    if not rows:
        notes.insert(0, "No proposition player covered a settled round on this gaming day.")
    return Laid(title="Proposition players", period=f"gaming day {day_text(p['gaming_day'])}",
                sections=[Section.of("Per proposition player", PROPOSITION, rows,
                                     key="player")],
                charts=[], notes=notes)


ROTATION: Spec = (
    Column("at", "Time (casino)", "moment"),
    Column("round", "Round", "int", source="round_number"),
    Column("step", "Step", "text"),
    Column("seat", "Seat", "int", nullable=True),
    Column("player", "Player", "text"),
    Column("detail", "Detail", "text"),
)


def _rotation_log(p: dict[str, Any]) -> Laid:
    log = rotation_log(table_id=p["table"], gaming_day=p["gaming_day"])
    rows = [spec_row(ROTATION, x) for x in log.lines]
    notes = ["Every offer, take and decline of the bank, in the order it happened; the bank "
             "is offered to every seated player in seat order (docs/rules.md, card-room "
             "mode)."]
    if not rows:
        notes.insert(0, "The bank was not offered at this table on this gaming day (no "
                        "card-room round).")
    return Laid(title=f"Rotation log: {log.table_name}",
                period=f"gaming day {day_text(log.gaming_day)}",
                sections=[Section.of("Offers, takes and declines", ROTATION, rows)],
                charts=[], notes=notes)


def _exclusions(p: dict[str, Any]) -> Laid:
    sections, notes = exclusions_layout(p)
    return Laid(title="Exclusions", period=f"gaming day {day_text(p['gaming_day'])}",
                sections=sections, charts=[], notes=notes)


# --- the dealers: their shifts, pace, refusals and voids ---------------------------------------

DEALER_SHIFT: Spec = (
    # Short headers: twelve columns read side by side; the notes say what each counts.
    Column("dealer", "Dealer", "text"),
    Column("table", "Table", "text", source="table_name"),
    Column("started_at", "From", "moment", nullable=True),
    Column("ended_at", "To", "moment", nullable=True),
    Column("minutes", "Minutes", "int", nullable=True),
    Column("rounds_dealt", "Rounds dealt", "int"),
    Column("rounds_played", "Played", "int"),
    Column("hands", "Player hands", "int"),
    # Played per minute signed in, times 60.
    Column("hands_per_hour", "Hands per hour", "ratio",
           divides="rounds_played / minutes", nullable=True),
    Column("refusals", "Refusals", "int", nullable=True),
    Column("rounds_voided", "Voided", "int"),
    Column("rounds_reversed", "Reversed", "int"),
)
DEALER_EVENT: Spec = (
    Column("at", "Time (casino)", "moment"),
    Column("dealer", "Dealer", "text"),
    Column("table", "Table", "text", source="table_name"),
    Column("what", "What", "text"),
    Column("detail", "Why", "text"),
)


def _dealer_shift(p: dict[str, Any]) -> Laid:
    report = dealer_shift_report(gaming_day=p["gaming_day"])
    notes = ["A shift runs from the dealer's sign-in at a table to their relief (by "
             "themselves, a pit boss, or the next dealer signing in); a shift without an end "
             "is still dealing, counted to the moment the report was read. Rounds dealt: "
             "opened in the shift (each round counts for the shift it was opened in), "
             "whatever became of them; played: settled (a reversed round was played too); "
             "player hands: the seats that played them. Hands per hour: the rounds played "
             "per hour signed in. Refusals: the service's refusals of the dealer's own "
             "attempts while signed in (the refusals trace). Voided and reversed: of the "
             "rounds dealt.",
             "A line without a shift (no From, no To) counts the rounds of the day dealt "
             "with nobody signed in at the table, by who opened them."]
    if not report.lines:
        notes.insert(0, "No dealer signed in and no round was dealt on this gaming day.")
    return Laid(title="Dealers' shifts", period=f"gaming day {day_text(report.gaming_day)}",
                sections=[Section.of("Per dealer and shift", DEALER_SHIFT,
                                     [spec_row(DEALER_SHIFT, x) for x in report.lines],
                                     key="dealer"),
                          Section.of("Refusals and voids, in order", DEALER_EVENT,
                                     [spec_row(DEALER_EVENT, x) for x in report.events])],
                charts=[], notes=notes)


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
    # Who was identified and what they moved in cash: the cash rules' own readers.
    Kind("cash_report", "Cash transaction reports", ("gaming_day",), _cash_report,
         (*_PLAY, "casino.view_cashreport")),
    # The trial balance as of now unless a moment is chosen.
    Kind("trial_balance", "Trial balance", ("as_of",), _trial_balance,
         (*_PLAY, "ledger.view_account", "ledger.view_house_accounts"),
         defaults={"as_of": timezone.now}),
    Kind("proposition_day", "Proposition players' day", ("gaming_day",),
         _proposition_day, (*_PLAY, "casino.view_player")),
    Kind("rotation_log", "A table's bank rotation log", ("table", "gaming_day"),
         _rotation_log, _PLAY),
    # Who was kept from play: self-excluded and barred players.
    Kind("exclusions", "Self-excluded and barred players", ("gaming_day",), _exclusions,
         (*_PLAY, "casino.view_exclusion")),
    # Refusals are the trace's (casino.view_refusal), shown with the dealer's name.
    Kind("dealer_shift", "Dealers' shifts", ("gaming_day",), _dealer_shift,
         (*_PLAY, "casino.view_refusal")),
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
    # Held to the gaming days every date is held to: beyond them, no zone can show it.
    if not moment_in_range(moment):
        raise ValueError(f"a time within gaming days {FIRST_DAY} to {LAST_DAY}")
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
        source = read_from()
        laid = spec.lay_out(parameters)
        head = chain_point(as_of=parameters.get("as_of"))
    return Document(
        kind=kind, title=laid.title, casino=settings.CASINO_NAME, period=laid.period,
        made_at=made_at, made_by=made_by, chain_seq=head.seq, chain_hash=head.hash,
        sections=laid.sections, charts=laid.charts, notes=laid.notes,
        parameters={k: _param_text(v) for k, v in parameters.items() if v is not None},
        time_zone=settings.TIME_ZONE, read_from=source)


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
