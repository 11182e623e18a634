"""What a player wagered and lost in a gaming day, for the limits they set on their own play
(casino.player_limits, which reads it through the reader rounds.apps registers).

Read from the records play writes: the wagers, and each settled round's parties
(RoundParty, whose ``result`` is what the settlement moved on the player's account,
commission and fee included). A voided round took no wager; a reversed one gave the money
back, so neither counts as lost.
"""

from __future__ import annotations

from datetime import date

from django.db.models import Q, Sum

from casino.models import Player
from casino.player_limits import PlayedDay
from rounds.models import Round, RoundParty, Wager


def player_played_day(player: Player, gaming_day: date) -> PlayedDay:
    """The player's wagers and loss in rounds of ``gaming_day``, and what they have at stake
    in rounds still in play: their wagers and the covers of the banks they hold (three
    statements)."""
    wagers = (Wager.objects.filter(player=player, state=Wager.State.ACTIVE,
                                   round__gaming_day=gaming_day)
              .exclude(round__state=Round.State.VOIDED)
              .aggregate(wagered=Sum("amount", default=0),
                         at_stake=Sum("amount", default=0,
                                      filter=~Q(round__state__in=Round.State.FINISHED))))
    # A bank the player holds in a round still in play may lose all its cover.
    banked = (Round.objects.filter(banker_player=player, gaming_day=gaming_day,
                                   state__in=Round.State.OPEN)
              .aggregate(cover=Sum("solvency_required", default=0))["cover"])
    result = (RoundParty.objects.filter(player=player, round__gaming_day=gaming_day,
                                        round__state=Round.State.SETTLED)
              .aggregate(total=Sum("result", default=0))["total"])
    return PlayedDay(wagered=wagers["wagered"], lost=max(-result, 0),
                     at_stake=wagers["at_stake"] + banked)
