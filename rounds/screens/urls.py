"""The console's play screens; each step is a POST of its own (one view per action).

casino/urls.py includes them in the namespace ``console``: ``console:table``."""

from django.urls import path

from rounds.screens import deal_picker, dealers, drop, history, play, ratings, views

urlpatterns = [
    path("", views.floor, name="floor"),
    path("floor/live/", views.floor_live, name="floor-live"),
    path("players/<int:player_id>/ratings/", ratings.player_page, name="player-ratings"),
    path("drop-count/", drop.drop_count, name="drop-count"),
    path("drop-count/<int:count_id>/explain/", drop.drop_count_explain_view,
         name="drop-count-explain"),
    path("drop-count/<int:count_id>/witness/", drop.drop_count_witness_view,
         name="drop-count-witness"),
    path("tables/<int:table_id>/", views.table, name="table"),
    path("tables/<int:table_id>/variance/explain/", views.variance_explain_view,
         name="variance-explain"),
    path("tables/<int:table_id>/rounds/open/", views.round_open, name="round-open"),
    path("tables/<int:table_id>/seats/", views.seat_take, name="seat-take"),
    path("tables/<int:table_id>/buy-ins/", views.buy_in, name="buy-in"),
    path("tables/<int:table_id>/dealer/", dealers.dealer_sign_in, name="dealer-sign-in"),
    path("tables/<int:table_id>/dealer/relieve/", dealers.dealer_relieve,
         name="dealer-relieve"),
    path("tables/<int:table_id>/seats/<int:number>/leave/", views.seat_leave,
         name="seat-leave"),
    path("tables/<int:table_id>/settings/", views.table_settings, name="table-settings"),
    path("rounds/<int:round_id>/wagers/", views.wager_place, name="wager-place"),
    path("rounds/<int:round_id>/wagers/clear/", views.wager_clear_all, name="wager-clear-all"),
    path("rounds/<int:round_id>/wagers/rebet/", views.wager_rebet_all, name="wager-rebet-all"),
    path("rounds/<int:round_id>/wagers/<int:seat>/clear/", views.wager_clear,
         name="wager-clear"),
    path("rounds/<int:round_id>/wagers/<int:seat>/lower/", views.wager_lower,
         name="wager-lower"),
    path("rounds/<int:round_id>/wagers/<int:seat>/rebet/", views.wager_rebet,
         name="wager-rebet"),
    path("rounds/<int:round_id>/banker/", views.banker_set, name="banker-set"),
    path("rounds/<int:round_id>/banker/decline/", views.bank_decline, name="bank-decline"),
    path("rounds/<int:round_id>/deal/", views.round_deal, name="round-deal"),
    path("rounds/<int:round_id>/deal/draft/pick/", deal_picker.deal_pick, name="deal-pick"),
    path("rounds/<int:round_id>/deal/draft/undo/", deal_picker.deal_undo, name="deal-undo"),
    path("rounds/<int:round_id>/deal/draft/clear/", deal_picker.deal_clear, name="deal-clear"),
    path("rounds/<int:round_id>/deal/physical/", views.round_deal_physical,
         name="round-deal-physical"),
    path("rounds/<int:round_id>/hands/<str:position>/", views.hand_set, name="hand-set"),
    path("rounds/<int:round_id>/settle/", views.round_settle, name="round-settle"),
    path("rounds/<int:round_id>/settle/results/", views.round_settle_results,
         name="round-settle-results"),
    path("rounds/<int:round_id>/void/", views.round_void, name="round-void"),
    path("rounds/<int:round_id>/reverse/", views.round_reverse, name="round-reverse"),
]
# A table's round history, a round's page, and the reversal asked from that page
# (rounds/screens/history.py).
urlpatterns += [
    path("tables/<int:table_id>/history/", history.table_history, name="table-history"),
    path("rounds/<int:round_id>/", history.round_page, name="round"),
    path("rounds/<int:round_id>/page/reverse/", history.round_page_reverse,
         name="round-page-reverse"),
]
# The player's own game screen (rounds/screens/play.py); its steps are the player's API.
urlpatterns += [
    path("play/", play.play, name="play"),
]
