"""Setup for the table screens' browser tests: tables, funded seated players and earlier
rounds made with the services (fast), so the browser drives only the steps under test."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from casino import roles
from casino.models import Player
from casino.selectors import player_balance
from casino.services import player_deposit
from ledger.models import Hold
from rounds import services
from rounds.models import Round, Table
from tests.players import make_player


@dataclass
class Floor:
    table: Table
    pit_boss: Any
    players: dict[int, Player] = field(default_factory=dict)

    def played_round(self, wagers: dict[int, int], outcomes: dict[str, str]) -> Round:
        """A house-banked, results-only round played before the test (rotation, Re-Bet)."""
        round_ = services.round_open(table_id=self.table.pk, by=self.pit_boss)
        for seat, amount in wagers.items():
            services.wager_place(round_id=round_.pk, seat=seat, amount=amount,
                                 by=self.pit_boss)
        services.banker_set(round_id=round_.pk, house=True, by=self.pit_boss)
        return services.round_settle(round_id=round_.pk, outcomes=outcomes, by=self.pit_boss)


@pytest.fixture
def make_floor(staff_user: Callable[[str, str], Any]) -> Callable[..., Floor]:
    """make_floor({1: ("Anna", 100_000), ...}, **table settings) -> a table with them seated."""
    pit_boss = staff_user(roles.PIT_BOSS, "pat")

    def make(seated: dict[int, tuple[str, int]], **settings: Any) -> Floor:
        settings.setdefault("name", f"Table {Table.objects.count() + 1}")
        # Earlier rounds are played from outcomes (played_round), which the table must allow.
        settings.setdefault("deal_modes", ["electronic", "physical", "results"])
        table = services.table_create(by=pit_boss, **settings)
        floor = Floor(table=table, pit_boss=pit_boss)
        for number, (name, funds) in seated.items():
            player = make_player(name=name, currency=table.currency, by=pit_boss)
            if funds:
                player_deposit(player_id=player.pk, amount=funds, by=pit_boss)
            services.seat_take(table_id=table.pk, number=number, player_id=player.pk,
                               by=pit_boss)
            floor.players[number] = player
        return floor

    return make


def available(player: Player) -> int:
    return player_balance(player).available


def open_holds(round_: Round) -> int:
    return Hold.objects.filter(ref=f"round:{round_.pk}", status=Hold.Status.OPEN).count()


def seat_row(page: Any, number: int) -> Any:
    return page.locator(f"#seat-{number}")
