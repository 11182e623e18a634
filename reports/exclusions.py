"""The exclusions report: who was kept from play on a gaming day, self-excluded or barred,
as the regulator reads the list (casino.exclusions.exclusion_rows gives the rows; this
module only lays them out)."""

from __future__ import annotations

from typing import Any

from casino.exclusions import exclusion_rows
from reports.files.document import Column, Section, Spec, spec_row

EXCLUSION: Spec = (
    Column("exclusion", "Exclusion #", "int"),
    Column("player", "Player #", "int"),
    Column("player_name", "Player", "text"),
    Column("kind", "Kind", "text"),
    Column("starts", "From (gaming day)", "date"),
    Column("until", "Until (inclusive; empty: for good)", "date", nullable=True),
    Column("reason", "Reason", "text"),
    Column("recorded_by", "Recorded by", "text"),
    Column("recorded_at", "Recorded at", "moment"),
    Column("lifted_at", "Lifted at", "moment", nullable=True),
    Column("lifted_by", "Lifted by", "text"),
    Column("lift_reason", "Why lifted", "text"),
)
NOTE = ("Every exclusion in force on the gaming day: it covers the day and was not lifted "
        "before the day began (one lifted during the day is listed with its lift). An "
        "excluded player is refused a seat, a wager, a buy-in, a deposit and the bank.")


def exclusions_layout(p: dict[str, Any]) -> tuple[list[Section], list[str]]:
    """The report's one section and its notes, for the gaming day ``p["gaming_day"]``."""
    rows = [spec_row(EXCLUSION, r) for r in exclusion_rows(gaming_day=p["gaming_day"])]
    notes = [NOTE]
    if not rows:
        notes.insert(0, "Nobody was self-excluded or barred on this gaming day.")
    return [Section.of("Self-excluded and barred players", EXCLUSION, rows)], notes
