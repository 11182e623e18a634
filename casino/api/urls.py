"""Every route of version 1 of the API, under /api/v1/, in the namespace ``api`` (casino/urls.py
includes this URLconf there; the apps' routes it includes share it: ``api:table``)."""

from django.urls import include, path

from casino.api import me, views
from reports import urls as report_urls

urlpatterns = [
    # The player's own (casino.api.me), first: "me" is never another route's parameter.
    path("me", me.MeView.as_view(), name="me"),
    path("me/statement", me.MeStatementView.as_view(), name="me-statement"),
    path("me/limits", me.MeLimitsView.as_view(), name="me-limits"),
    path("me/exclusions", me.MeExclusionsView.as_view(), name="me-exclusions"),
    path("health", views.HealthView.as_view(), name="health"),
    path("auth/token", views.TokenView.as_view(), name="auth-token"),
    path("auth/token/revoke", views.RevokeTokenView.as_view(), name="auth-token-revoke"),
    path("", include("rounds.api.urls")),
    path("", include(report_urls.api)),
]

# Players and the cage (casino.api.players), requests waiting for a second person
# (casino.shared.api.approvals), and the ledger (ledger.api).
from casino.api import cash, exclusions, players  # noqa: E402
from casino.shared.api import approvals  # noqa: E402

urlpatterns += [
    path("players", players.PlayerListView.as_view(), name="players"),
    path("players/<int:player_id>", players.PlayerDetailView.as_view(), name="player"),
    path("players/<int:player_id>/deposits", players.PlayerDepositView.as_view(),
         name="player-deposits"),
    path("players/<int:player_id>/withdrawals", players.PlayerWithdrawalView.as_view(),
         name="player-withdrawals"),
    path("players/<int:player_id>/corrections", players.PlayerCorrectionView.as_view(),
         name="player-corrections"),
    path("players/<int:player_id>/login", players.PlayerLoginView.as_view(),
         name="player-login"),
    path("players/<int:player_id>/exclusions", exclusions.PlayerExclusionsView.as_view(),
         name="player-exclusions"),
    path("exclusions", exclusions.ExclusionListView.as_view(), name="exclusions"),
    path("exclusions/<int:exclusion_id>/lift", exclusions.ExclusionLiftView.as_view(),
         name="exclusion-lift"),
    path("cash-log", cash.CashLogView.as_view(), name="cash-log"),
    path("cash-reports", cash.CashReportListView.as_view(), name="cash-reports"),
    path("cash-reports/<int:report_id>/file", cash.CashReportFileView.as_view(),
         name="cash-report-file"),
    path("approvals", approvals.ApprovalListView.as_view(), name="approvals"),
    path("approvals/<int:approval_id>", approvals.ApprovalDetailView.as_view(),
         name="approval"),
    path("approvals/<int:approval_id>/approve", approvals.ApprovalApproveView.as_view(),
         name="approval-approve"),
    path("approvals/<int:approval_id>/reject", approvals.ApprovalRejectView.as_view(),
         name="approval-reject"),
    path("", include("ledger.api.urls")),
]
