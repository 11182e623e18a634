"""Each filing of a cash transaction report is a row of its own, kept whole.

A report's figures follow every movement of its day (casino.cash.cash_movement_record),
also after an auditor filed it; a single ``filed_at``/``filed_by`` on the report could not
say what was filed, nor that the figures changed since. A ``CashReportFiling`` keeps who
filed, when, and the cash in and cash out filed; a report filed again (an amendment) adds
one, the earlier ones untouched. PostgreSQL refuses to change or delete a filing, for every
role (``sql/0015_cash_report_filings.pg.sql``, with its way back).

Existing filed reports become one filing each, with the figures they had when filed: the
version of ``history`` in force at ``filed_at`` (the first whose ``until`` is later), or
the current figures if none changed since. Going back puts the last filing's who and when
on the report again.
"""

from datetime import datetime
from pathlib import Path
from typing import Any

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from ledger.sqlfiles import migration_operations


def _figures_at(report: Any, filed_at: datetime) -> tuple[int, int]:
    for version in report.history:
        until = datetime.fromisoformat(version["until"])
        if until > filed_at:
            return version["cash_in"], version["cash_out"]
    return report.cash_in, report.cash_out


def filings_from_reports(apps: Any, schema_editor: Any) -> None:
    # The filings' foreign keys are checked now, not at COMMIT, so the columns dropped
    # below leave no pending trigger event on the reports' table.
    schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    CashReport = apps.get_model("casino", "CashReport")
    CashReportFiling = apps.get_model("casino", "CashReportFiling")
    alias = schema_editor.connection.alias
    filings = []
    for report in CashReport.objects.using(alias).filter(filed_at__isnull=False).order_by("pk"):
        cash_in, cash_out = _figures_at(report, report.filed_at)
        filings.append(CashReportFiling(report_id=report.pk, filed_at=report.filed_at,
                                        filed_by_id=report.filed_by_id,
                                        cash_in=max(cash_in, 0), cash_out=max(cash_out, 0)))
    CashReportFiling.objects.using(alias).bulk_create(filings)


def reports_from_filings(apps: Any, schema_editor: Any) -> None:
    schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    CashReport = apps.get_model("casino", "CashReport")
    CashReportFiling = apps.get_model("casino", "CashReportFiling")
    alias = schema_editor.connection.alias
    for filing in CashReportFiling.objects.using(alias).order_by("report_id", "pk"):
        CashReport.objects.using(alias).filter(pk=filing.report_id).update(
            filed_at=filing.filed_at, filed_by_id=filing.filed_by_id)


class Migration(migrations.Migration):

    dependencies = [
        ('casino', '0014_exclusions'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='CashReportFiling',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('filed_at', models.DateTimeField()),
                ('cash_in', models.BigIntegerField()),
                ('cash_out', models.BigIntegerField()),
                ('filed_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('report', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='filings', to='casino.cashreport')),
            ],
            options={
                'ordering': ['report_id', 'id'],
            },
        ),
        migrations.AddConstraint(
            model_name='cashreportfiling',
            constraint=models.CheckConstraint(condition=models.Q(('cash_in__gte', 0), ('cash_out__gte', 0)), name='cash_report_filing_totals_not_negative'),
        ),
        migrations.RunPython(filings_from_reports, reports_from_filings),
        migrations.RemoveConstraint(
            model_name='cashreport',
            name='cash_report_filed_whole',
        ),
        migrations.RemoveField(
            model_name='cashreport',
            name='filed_at',
        ),
        migrations.RemoveField(
            model_name='cashreport',
            name='filed_by',
        ),
        *migration_operations("0015_cash_report_filings", Path(__file__).resolve().parent / "sql"),
    ]
