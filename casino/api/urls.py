"""Every route of version 1 of the API, under /api/v1/."""

from django.urls import path

from casino.api import views

urlpatterns = [
    path("health", views.HealthView.as_view(), name="health"),
    path("auth/token", views.TokenView.as_view(), name="auth-token"),
    path("auth/token/revoke", views.RevokeTokenView.as_view(), name="auth-token-revoke"),
]
