"""The player's own game screen, /play/: the German seed's electronic Pai Gow table.

The page is a frame: the player's name and game account as the page opens, and the
table that rounds/static/play/play.js draws and drives. Every step of a game (open it,
deal, set the hand, settle) is the player's own API (/api/v1/me/tables, /api/v1/me/games,
rounds/api/games.py), called with this page's session and its CSRF token, so the rules,
the limits and the money are the services' alone; the screen only shows what they answer.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET

from casino.selectors import player_balance
from casino.shared.guards import player_only
from casino.shared.money import amount_separators

TEMPLATE = "rounds/play/game.html"


@require_GET
@player_only
@ensure_csrf_cookie
def play(request: HttpRequest) -> HttpResponse:
    player = request.user.player  # type: ignore[union-attr]  # player_only: a player's login
    # The page writes amounts as the console does (settings.CASINO_LOCALE): "12,379.50 EUR" in
    # en, "12.379,50 EUR" in de; the API keeps "12379.50".
    decimal_sep, group_sep = amount_separators()
    return render(request, TEMPLATE, {"player": player, "balance": player_balance(player),
                                      "decimal_sep": decimal_sep, "group_sep": group_sep})
