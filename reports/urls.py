"""The reports' routes, kept under the names and paths they had: ``api`` is included in the
API's URLconf (casino/api/urls.py, namespace ``api``), ``console`` in the console's
(casino/urls.py, namespace ``console``), and ``cage`` with the cage's own screens
(namespace ``console:cage``): the statement's CSV, which is the statement report's."""

from django.urls import URLPattern, path

from reports import api as views
from reports import screens

api: list[URLPattern] = [
    path("tables/<int:table_id>/report", views.TableReportView.as_view(), name="table-report"),
    path("floor/report", views.FloorReportView.as_view(), name="floor-report"),
    path("ratings", views.RatingsView.as_view(), name="ratings"),
    path("reports", views.ReportsView.as_view(), name="reports"),
    path("reports/<int:report_id>", views.ReportDetailView.as_view(), name="report"),
    path("reports/<int:report_id>/file", views.ReportFileView.as_view(), name="report-file"),
    path("reports/<int:report_id>/retry", views.ReportRetryView.as_view(),
         name="report-retry"),
    path("gaming-days", views.GamingDaysView.as_view(), name="gaming-days"),
    path("gaming-days/close", views.GamingDayCloseView.as_view(), name="gaming-day-close"),
]

console: list[URLPattern] = [
    path("reports/", screens.reports, name="reports"),
    path("reports/live/", screens.reports_live, name="reports-live"),
    path("reports/ask/", screens.report_ask, name="report-ask"),
    path("reports/players/", screens.report_players, name="report-players"),
    path("reports/<int:report_id>/", screens.report_page, name="report-page"),
    path("reports/<int:report_id>/download/", screens.report_download, name="report-download"),
    path("reports/days/close/", screens.gaming_day_close, name="gaming-day-close"),
    path("reports/days/<str:gaming_day>/chart.png", screens.closed_day_chart,
         name="closed-day-chart"),
]

cage: list[URLPattern] = [
    path("players/<int:player_id>/statement.csv", screens.statement_csv, name="statement_csv"),
]
