"""Request bodies of the reports' operations, as a client sends them
(casino.shared.api.examples says why): one report request per kind, with its parameters."""

from __future__ import annotations

from casino.shared.api.examples import example
from reports.files.kinds import KINDS

# A value of each kind's parameter, as the demo floor would have it: table 1, player 1, the
# day of 2026-12-06, the first week of December, the trial balance as of now (empty).
SAMPLE = {"table": "1", "player": "1", "gaming_day": "2026-12-06",
          "date_from": "2026-12-01", "date_to": "2026-12-06", "as_of": ""}
# The file each kind's example asks for: the spreadsheet, or the page a person reads.
FORMAT = {"player_statement": "pdf", "trial_balance": "pdf"}

REPORT = [example(kind.label, {"kind": name, "format": FORMAT.get(name, "csv"),
                               **{p: SAMPLE[p] for p in kind.parameters}})
          for name, kind in KINDS.items()]
GAMING_DAY_CLOSE = [example("Close a gaming day", {"gaming_day": "2026-12-05"},
                            "Its figures stored for good; no round of it may change after")]
