"""The API's shapes of the reports: a table's and the floor's day (from the files' one column
spec, reports.files.kinds.TABLE_DAY), the report files asked for, the closed gaming days."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.reverse import reverse

from casino.shared.api.fields import GamingDayField
from reports.files.document import Column, Spec
from reports.files.formats import FORMATS
from reports.files.kinds import KINDS, RATING, TABLE_DAY
from reports.models import ClosedDay, Report
from reports.play import closed_figures
from rounds.api.serializers import MoneyOut

# --- reports --------------------------------------------------------------------------------

class ReportQueryIn(serializers.Serializer):
    gaming_day = GamingDayField()


class ReadFromOut(serializers.Serializer):
    """Where a report's figures were read (casino.shared.db.ReadFrom; docs/operations.md,
    "Reports on a replica")."""

    replica = serializers.BooleanField(help_text="Read from DATABASE_REPORTS_URL's server.")
    standby = serializers.BooleanField(help_text="That server was replaying a primary.")
    streaming = serializers.BooleanField(help_text="... connected to the primary.")
    read_at = serializers.DateTimeField(allow_null=True)
    replayed_to = serializers.DateTimeField(
        allow_null=True, help_text="Commit time of the last transaction the standby replayed.")
    behind_seconds = serializers.IntegerField(
        source="behind_s", allow_null=True,
        help_text="0: it had replayed all it had received; empty: unknown.")
    said = serializers.CharField(source="sentence", help_text="The same, in words.")


@extend_schema_field({"type": "string", "format": "decimal", "nullable": True})
class RatioOut(serializers.Field):
    """A ratio as the report computed it (``"7.00"``, ``"0.1094"``), a decimal string."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs["read_only"] = True
        super().__init__(**kwargs)

    def to_representation(self, value: Decimal) -> str:
        return str(value)


def spec_field(column: Column) -> serializers.Field:
    """The API's field of a report column: the files' name, type and words (reports.files)."""
    help_text = column.label
    common: dict[str, Any] = {"help_text": help_text, "allow_null": column.nullable}
    if column.source:
        common["source"] = column.source
    match column.type:
        case "money":
            return MoneyOut(**common)
        case "ratio":
            return RatioOut(**common)
        case "int":
            return serializers.IntegerField(read_only=True, **common)
        case "date":
            return serializers.DateField(read_only=True, **common)
        case "moment":
            return serializers.DateTimeField(read_only=True, **common)
        case "flag":
            return serializers.BooleanField(read_only=True, **common)
    return serializers.CharField(read_only=True, **common)


def spec_serializer(name: str, spec: Spec, **declared: serializers.Field
                    ) -> type[serializers.Serializer]:
    """A serializer of a report's rows with a field per column of its one spec; the API's
    own fields (``declared``) replace a column of the same name."""
    fields = {c.name: spec_field(c) for c in spec if c.name not in declared}
    return type(name, (serializers.Serializer,), {**fields, **declared})


# A table's day as the files lay it out (reports.files.kinds.TABLE_DAY), where the API's
# table is the table's id (the files show its name there).
TableDayReportOut = spec_serializer(
    "TableDayReportOut", TABLE_DAY,
    table=serializers.IntegerField(source="table_id", allow_null=True,
                                   help_text="Empty on the floor's total rows."),
    table_name=serializers.CharField(),
    reversed_after_close=serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Numbers of the day's rounds reversed after its close."))


class TableDayReadOut(TableDayReportOut):  # type: ignore[valid-type,misc]
    """A table's day as the API answers it: its figures and where they were read."""

    read_from = ReadFromOut()


# --- report files and closed gaming days ------------------------------------------------------

class ReportIn(serializers.Serializer):
    kind = serializers.ChoiceField(choices=sorted(KINDS))
    format = serializers.ChoiceField(choices=sorted(FORMATS))
    # Each kind's parameters (see docs/api.md); which are required depends on the kind,
    # so they are checked by reports.files.kinds.report_parameters.
    table = serializers.CharField(required=False, max_length=20)
    gaming_day = serializers.CharField(required=False, max_length=20,
                                       help_text="YYYY-MM-DD (table_day, floor_day, "
                                                 "proposition_day, rotation_log, rating, "
                                                 "cash_report)")
    date_from = serializers.CharField(required=False, max_length=20,
                                      help_text="YYYY-MM-DD (banker, player_statement)")
    date_to = serializers.CharField(required=False, max_length=20,
                                    help_text="YYYY-MM-DD, inclusive")
    player = serializers.CharField(required=False, max_length=20)
    as_of = serializers.CharField(required=False, allow_blank=True, max_length=40,
                                  help_text="ISO 8601 time with offset (trial_balance); "
                                            "absent or empty: now")


class ChainHeadOut(serializers.Serializer):
    # The newest sealed block of the ledger's chain (before blocks, entry seq n is block n).
    seq = serializers.IntegerField(help_text="the number of the newest sealed block")
    hash = serializers.CharField(help_text="its hash: ledger_verify --expect SEQ:HASH")


class ReportOut(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    format = serializers.CharField()
    parameters = serializers.DictField(child=serializers.CharField())
    status = serializers.ChoiceField(choices=Report.Status.values)
    progress = serializers.IntegerField(help_text="Percent done.")
    error = serializers.CharField(help_text="Why it failed; empty otherwise.")
    attempts = serializers.IntegerField()
    requested_by = serializers.CharField(source="requested_by.username")
    requested_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    file = serializers.SerializerMethodField(help_text="Where to download it, once done.")
    file_name = serializers.CharField()
    content_type = serializers.CharField()
    chain_head = serializers.SerializerMethodField()
    read_from = serializers.CharField(help_text=(
        "Where the figures were read, once done: the primary database, or the replica and "
        "how far behind it was (docs/operations.md, \"Reports on a replica\")."))

    # null until the report is done
    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_file(self, report: Report) -> str | None:
        if report.status != Report.Status.DONE:
            return None
        return reverse("api:report-file", args=[report.pk], request=self.context.get("request"))

    @extend_schema_field(ChainHeadOut(allow_null=True))
    def get_chain_head(self, report: Report) -> dict[str, Any] | None:
        """The ledger's chain head the figures were read at (ledger_verify --expect)."""
        if report.chain_seq is None:
            return None
        return {"seq": report.chain_seq, "hash": report.chain_hash}


# A closed day's stored row, read as its figures (reports.play.closed_figures): the
# table-day columns a closed day lists.
ClosedTableDayOut = spec_serializer(
    "ClosedTableDayOut",
    tuple(c for c in TABLE_DAY if c.name in (
        "currency", "rounds_settled", "rounds_reversed", "rounds_voided", "handle",
        "house_result", "commission_players", "commission_bankers", "collection_banker",
        "collection_players", "adjustments")),
    table=serializers.IntegerField(source="table_id", allow_null=True,
                                   help_text="Empty on the floor's total row."),
    table_name=serializers.CharField())


class ClosedDayOut(serializers.Serializer):
    gaming_day = serializers.DateField()
    closed_at = serializers.DateTimeField()
    closed_by = serializers.CharField(source="closed_by.username", allow_null=True,
                                      default=None)
    chain_head = serializers.SerializerMethodField()
    tables = serializers.SerializerMethodField()

    @extend_schema_field(ChainHeadOut)
    def get_chain_head(self, closed: ClosedDay) -> dict[str, Any]:
        return {"seq": closed.chain_seq, "hash": closed.chain_hash}

    @extend_schema_field(ClosedTableDayOut(many=True))
    def get_tables(self, closed: ClosedDay) -> list[dict[str, Any]]:
        return [ClosedTableDayOut(figures, context={"currency": figures.currency}).data
                for figures in (closed_figures(row, gaming_day=closed.gaming_day)
                                for row in closed.tables.all())]


class GamingDayCloseIn(serializers.Serializer):
    gaming_day = GamingDayField(help_text="YYYY-MM-DD")


class RatingsIn(serializers.Serializer):
    gaming_day = GamingDayField()
    # A database id at most: a larger number is refused here, not by PostgreSQL.
    player = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1)


# A player's rating per table, as the rating file lays it out (reports.files.kinds.RATING).
RatingOut = spec_serializer("RatingOut", RATING)
