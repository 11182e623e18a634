from django.urls import path

from ledger.api import views

urlpatterns = [
    path("ledger/accounts", views.AccountListView.as_view(), name="ledger-accounts"),
    path("ledger/entries", views.EntryListView.as_view(), name="ledger-entries"),
    path("ledger/entries/<int:entry_id>", views.EntryDetailView.as_view(),
         name="ledger-entry"),
    path("ledger/entries/<int:entry_id>/reverse", views.EntryReverseView.as_view(),
         name="ledger-entry-reverse"),
    path("ledger/holds", views.HoldListView.as_view(), name="ledger-holds"),
]
