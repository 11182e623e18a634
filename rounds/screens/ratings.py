"""A player's ratings for the pit boss: their play by gaming day and table, with the
theoretical win beside the actual result (rounds.ratings, the same figures as
GET /api/v1/ratings). Thin: the selector does the reading."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from casino.models import Player
from casino.shared.guards import staff_may
from rounds.ratings import player_rating_days, player_ratings

NEEDS = ("rounds.run_reports", "casino.view_player")
DAYS_SHOWN = 14   # the player's latest gaming days with play


@staff_may(*NEEDS)
@require_GET
def player_page(request: HttpRequest, player_id: int) -> HttpResponse:
    player = Player.objects.filter(pk=player_id).first()
    if player is None:
        raise Http404(f"There is no player #{player_id}.")
    days = [(day, player_ratings(gaming_day=day, player_id=player_id))
            for day in player_rating_days(player_id=player_id, limit=DAYS_SHOWN)]
    return render(request, "rounds/screens/player_ratings.html",
                  {"player": player, "days": days, "shown": DAYS_SHOWN})
