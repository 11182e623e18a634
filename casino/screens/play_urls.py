"""A player's own pages beside the game, under /play/ in the console's namespace
(casino/urls.py): ``console:play-login``, ``console:play-logout``, ``console:play-account``.
The game screen itself (``console:play``, /play/) is rounds.screens.play's."""

from django.urls import path

from casino.screens import play_account

urlpatterns = [
    path("login/", play_account.play_login, name="play-login"),
    path("logout/", play_account.play_logout, name="play-logout"),
    path("account/", play_account.play_account, name="play-account"),
    path("account/limits/", play_account.play_limits, name="play-limits"),
    path("account/exclude/", play_account.play_exclude, name="play-exclude"),
]
