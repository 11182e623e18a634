"""The cage's screens, in the namespace ``cage`` within the console's (casino/urls.py):
``console:cage:find``. The statement's CSV is made by the reports (reports/urls.py,
``console:cage:statement_csv``), which casino/urls.py puts in the same namespace."""

from django.urls import path

from casino.screens import views

app_name = "cage"

urlpatterns = [
    path("", views.cage_find, name="find"),
    path("players/new/", views.player_new, name="player_new"),
    path("players/<int:player_id>/", views.player_page, name="player"),
    path("players/<int:player_id>/identity/", views.player_identity, name="identity"),
    path("players/<int:player_id>/login/", views.player_login, name="login"),
    path("players/<int:player_id>/deposit/", views.player_deposit, name="deposit"),
    path("players/<int:player_id>/withdraw/", views.player_withdraw, name="withdraw"),
    path("players/<int:player_id>/statement/", views.statement, name="statement"),
    path("receipts/<int:entry_id>/", views.receipt, name="receipt"),
]
