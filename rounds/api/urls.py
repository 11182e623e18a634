from django.urls import path

from rounds.api import reports, views

urlpatterns = [
    path("tables", views.TablesView.as_view(), name="tables"),
    path("tables/<int:table_id>", views.TableDetailView.as_view(), name="table"),
    path("tables/<int:table_id>/seats/<int:number>", views.SeatView.as_view(), name="seat"),
    path("tables/<int:table_id>/players", views.TablePlayersView.as_view(),
         name="table-players"),
    path("tables/<int:table_id>/rounds", views.TableRoundsView.as_view(), name="table-rounds"),
    path("tables/<int:table_id>/report", views.TableReportView.as_view(), name="table-report"),
    path("reports", reports.ReportsView.as_view(), name="reports"),
    path("reports/<int:report_id>", reports.ReportDetailView.as_view(), name="report"),
    path("reports/<int:report_id>/file", reports.ReportFileView.as_view(), name="report-file"),
    path("reports/<int:report_id>/retry", reports.ReportRetryView.as_view(),
         name="report-retry"),
    path("gaming-days", reports.GamingDaysView.as_view(), name="gaming-days"),
    path("gaming-days/close", reports.GamingDayCloseView.as_view(), name="gaming-day-close"),
    path("rounds/<int:round_id>", views.RoundDetailView.as_view(), name="round"),
    path("rounds/<int:round_id>/wagers", views.WagersView.as_view(), name="round-wagers"),
    path("rounds/<int:round_id>/wagers/<int:seat>", views.WagerView.as_view(),
         name="round-wager"),
    path("rounds/<int:round_id>/rebet", views.RebetView.as_view(), name="round-rebet"),
    path("rounds/<int:round_id>/banker", views.BankerView.as_view(), name="round-banker"),
    path("rounds/<int:round_id>/banker/decline", views.BankDeclineView.as_view(),
         name="round-bank-decline"),
    path("rounds/<int:round_id>/deal", views.DealView.as_view(), name="round-deal"),
    path("rounds/<int:round_id>/hands", views.HandsView.as_view(), name="round-hands"),
    path("rounds/<int:round_id>/settle", views.SettleView.as_view(), name="round-settle"),
    path("rounds/<int:round_id>/void", views.VoidView.as_view(), name="round-void"),
    path("rounds/<int:round_id>/reverse", views.ReverseView.as_view(), name="round-reverse"),
]
