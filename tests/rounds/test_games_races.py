"""A player's game against itself at once, on real connections."""

from __future__ import annotations

import functools
import threading

import pytest

from casino.selectors import player_balance
from ledger.models import Hold
from rounds.models import Round
from rounds.services import games
from tests.rounds.test_lock_order import Worker

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_deals_of_one_game_at_once_hold_one_wager(online, make_gamer):
    player, _ = make_gamer()
    player.refresh_from_db()
    game = games.game_open(table_id=online.pk, player_id=player.pk, by=player.user).game
    together = threading.Barrier(2)
    workers = [Worker(functools.partial(games.game_deal, game_id=game.pk, player_id=player.pk,
                                        amount=500, by=player.user, client_seed=s), together)
               for s in ("a", "b")]
    for w in workers:
        w.start()
    for w in workers:
        w.finish()
    errors = [w.error for w in workers if w.error is not None]
    assert len(errors) == 1, [repr(w.error) for w in workers]
    assert player_balance(player).held == 500


def test_two_opens_at_two_tables_at_once_leave_one_game_in_play(online, make_table,
                                                                make_gamer):
    other = make_table(name="Online 2", self_service=True, deal_modes=["electronic"])
    player, _ = make_gamer()
    player.refresh_from_db()
    together = threading.Barrier(2)
    workers = [Worker(functools.partial(games.game_open, table_id=t.pk, player_id=player.pk,
                                        by=player.user), together) for t in (online, other)]
    for w in workers:
        w.start()
    for w in workers:
        w.finish()
    assert all(w.error is None or getattr(w.error, "code", None) for w in workers), \
        [repr(w.error) for w in workers]
    assert Round.objects.filter(player=player, state__in=Round.State.OPEN).count() == 1
    assert not Hold.objects.exists() or player_balance(player).held == 0
