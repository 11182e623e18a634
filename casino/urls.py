"""The project's URLs. Every route's name is namespaced, so none resolves by include order:

- ``api:``: the REST API under /api/v1/ (casino/api/urls.py and the apps' routes it
  includes), its OpenAPI schema and the docs pages drawn from it;
- ``console:``: the pit console's pages: login and logout, the floor and tables
  (rounds/screens/urls.py), the reports (reports/urls.py), approvals, and the cage
  (``console:cage:``, casino/screens/urls.py, with the statement's CSV that the reports
  make, reports/urls.py), the cash log and the cash reports (casino/screens/cash.py);
- ``admin:``: Django's admin.
"""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from casino.screens import approvals as approval_screens
from casino.screens import cash as cash_screens
from casino.screens import exclusions as exclusion_screens
from casino.screens import play_urls
from casino.screens import urls as cage_urls
from casino.shared.forms import StaffAuthenticationForm
from reports import urls as report_urls

api: list[URLPattern | URLResolver] = [
    path("v1/", include("casino.api.urls")),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start script from its own URL (?script), not inline,
    # so the Content-Security-Policy needs no 'unsafe-inline' for scripts.
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api:schema"), name="docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api:schema"), name="redoc"),
]

console: list[URLPattern | URLResolver] = [
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True,
                                                authentication_form=StaffAuthenticationForm),
         name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    # A player's own pages (casino/screens/play_urls.py); no staff page lets a player in.
    path("play/", include(play_urls)),
    path("cage/", include(([*cage_urls.urlpatterns, *report_urls.cage], cage_urls.app_name))),
    path("approvals/", approval_screens.approval_list, name="approvals"),
    path("exclusions/", exclusion_screens.exclusion_list, name="exclusions"),
    path("exclusions/record/", exclusion_screens.exclusion_record, name="exclusion-record"),
    path("exclusions/<int:exclusion_id>/lift/", exclusion_screens.exclusion_lift,
         name="exclusion-lift"),
    path("approvals/<int:approval_id>/decide/", approval_screens.approval_decide,
         name="approval-decide"),
    path("cash/log/", cash_screens.cash_log_page, name="cash-log"),
    path("cash/reports/", cash_screens.cash_reports_page, name="cash-reports"),
    path("cash/reports/<int:report_id>/file/", cash_screens.cash_report_file,
         name="cash-report-file"),
    path("", include(report_urls.console)),
    path("", include("rounds.screens.urls")),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include((api, "api"))),
    path("", include((console, "console"))),
]

handler400 = "casino.shared.api.errors.bad_request"
handler403 = "casino.shared.api.errors.permission_denied"
handler404 = "casino.shared.api.errors.not_found"
handler500 = "casino.shared.api.errors.server_error"

admin.site.site_header = "Pai Gow Poker — casino accounting"
admin.site.site_title = "Pai Gow accounting"
admin.site.index_title = "Pit, cage and audit"
admin.site.site_url = "/"  # "View site" opens the pit console
