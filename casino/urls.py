from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from casino.screens import approvals as approval_screens

urlpatterns = [
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True),
         name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("cage/", include("casino.screens.urls")),
    path("approvals/", approval_screens.approval_list, name="approvals-screen"),
    path("approvals/<int:approval_id>/decide/", approval_screens.approval_decide,
         name="approvals-screen-decide"),
    path("api/v1/", include("casino.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start script from its own URL (?script), not inline,
    # so the Content-Security-Policy needs no 'unsafe-inline' for scripts.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
    path("", include("rounds.screens.urls")),
]

handler400 = "casino.shared.api.errors.bad_request"
handler403 = "casino.shared.api.errors.permission_denied"
handler404 = "casino.shared.api.errors.not_found"
handler500 = "casino.shared.api.errors.server_error"

admin.site.site_header = "Pai Gow Poker — casino accounting"
admin.site.site_title = "Pai Gow accounting"
admin.site.index_title = "Pit, cage and audit"
admin.site.site_url = "/"  # "View site" opens the pit console
