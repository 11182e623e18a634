"""A floor to play on: a table, funded players in seats, and API helpers for round steps."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from casino import roles
from casino.models import Player
from casino.player_logins import player_login_give
from casino.selectors import player_balance
from casino.services import player_deposit, staff_create, token_create
from rounds import services
from rounds.models import Table
from tests.players import make_player


@pytest.fixture
def pit_boss(db):
    user, _ = staff_create(username="pit", role=roles.PIT_BOSS)
    return user


@pytest.fixture
def make_table(pit_boss) -> Callable[..., Table]:
    def make(**settings: Any) -> Table:
        settings.setdefault("name", f"Table {Table.objects.count() + 1}")
        # Most tests settle with outcomes for brevity, so their tables allow every deal
        # mode; test_deal_modes.py plays at tables with the default setting.
        settings.setdefault("deal_modes", list(Table.DealMode.values))
        return services.table_create(by=pit_boss, **settings)

    return make


@pytest.fixture
def table(make_table) -> Table:
    return make_table()


@pytest.fixture
def seat_player(pit_boss) -> Callable[..., Player]:
    """seat_player(table, seat, funds_in_cents) -> a new player with funds in that seat,
    an identity on file (tests.players); ``identity=False``: without one."""

    def seat(table: Table, number: int, funds: int = 100_000, name: str | None = None,
             identity: bool = True) -> Player:
        player = make_player(name=name or f"Player {number}", currency=table.currency,
                             by=pit_boss, identity=identity)
        if funds:
            player_deposit(player_id=player.pk, amount=funds, by=pit_boss)
        services.seat_take(table_id=table.pk, number=number, player_id=player.pk, by=pit_boss)
        return player

    return seat


def available(player: Player) -> int:
    return player_balance(player).available


def balances(*players: Player) -> list[tuple[int, int]]:
    out = []
    for p in players:
        b = player_balance(p)
        out.append((b.posted, b.held))
    return out


@dataclass
class Dealer:
    """Runs round steps through the API as a dealer and checks each answer's status."""

    client: APIClient

    def call(self, method: str, url: str, body: Any = None, expect: int = 200) -> dict:
        response = getattr(self.client, method)(url, body, format="json")
        assert response.status_code == expect, (response.status_code, response.json())
        return response.json()

    def open_round(self, table: Table) -> dict:
        return self.call("post", f"/api/v1/tables/{table.pk}/rounds", {}, expect=201)

    def wager(self, round_id: int, seat: int, amount: str, expect: int = 201) -> dict:
        return self.call("post", f"/api/v1/rounds/{round_id}/wagers",
                         {"seat": seat, "amount": amount}, expect)

    def banker(self, round_id: int, expect: int = 200, **body: Any) -> dict:
        return self.call("post", f"/api/v1/rounds/{round_id}/banker", body, expect)

    def deal(self, round_id: int, body: dict | None = None, expect: int = 200) -> dict:
        return self.call("post", f"/api/v1/rounds/{round_id}/deal", body or {}, expect)

    def hand(self, round_id: int, expect: int = 200, **body: Any) -> dict:
        return self.call("post", f"/api/v1/rounds/{round_id}/hands", body, expect)

    def settle(self, round_id: int, body: dict | None = None, expect: int = 200) -> dict:
        return self.call("post", f"/api/v1/rounds/{round_id}/settle", body or {}, expect)

    def get(self, round_id: int) -> dict:
        return self.call("get", f"/api/v1/rounds/{round_id}")

    def house_round(self, table: Table, wagers: dict[int, str],
                    outcomes: dict[str, str]) -> dict:
        """A whole house-banked, results-only round."""
        round_id = self.open_round(table)["id"]
        for seat, amount in wagers.items():
            self.wager(round_id, seat, amount)
        self.banker(round_id, house=True)
        return self.settle(round_id, {"outcomes": outcomes})


@pytest.fixture
def dealer(dealer_client) -> Dealer:
    return Dealer(dealer_client)


@dataclass
class DutchSeed:
    """The Dutch seed's player-banked round (docs/rules.md §7): seat 1 banks, seats 2 and 5
    lose 100.00 and 60.00 to it, seats 3 and 4 win 100.00 and 40.00 from it."""

    table: Table
    banker: Player
    players: dict[int, Player]   # seat -> player, seats 2-5
    warm_up: dict                # the house-banked round that made seat 1 eligible
    round_id: int
    gaming_day: str


@pytest.fixture
def dutch_seed(dealer, table, seat_player) -> DutchSeed:
    banker = seat_player(table, 1, funds=100_000, name="Banker Bram")
    players = {n: seat_player(table, n, funds=50_000, name=f"Speler {n}") for n in (2, 3, 4, 5)}
    # A house-banked round in which seat 1 pushes: it may bank next (banker_must_have_played).
    warm_up = dealer.house_round(table, {1: "100.00"}, {"1": "push"})
    round_id = dealer.open_round(table)["id"]
    for seat, amount in ((2, "100.00"), (5, "60.00"), (3, "100.00"), (4, "40.00")):
        dealer.wager(round_id, seat, amount)
    dealer.banker(round_id, seat=1, house_stake="0")
    body = dealer.settle(round_id, {"outcomes": {"2": "loss", "5": "loss",
                                                 "3": "win", "4": "win"}})
    return DutchSeed(table=table, banker=banker, players=players, warm_up=warm_up,
                     round_id=round_id, gaming_day=body["gaming_day"])


# --- a player's own games (tests/rounds/test_games*.py) -------------------------------------

def player_client(player: Player) -> APIClient:
    """A login for the player, as the cage gives one, and a client holding its token."""
    cage = User.objects.filter(groups__name=roles.CAGE).first() or \
        staff_create(username="cage-clerk", role=roles.CAGE)[0]
    given = player_login_give(player_id=player.pk, username=f"p{player.pk}",
                              password="A long passphrase 7", by=cage)
    _, token = token_create(user=given.user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    client.user = given.user  # type: ignore[attr-defined]
    return client


@pytest.fixture
def online(make_table) -> Table:
    return make_table(name="Online 1", self_service=True, deal_modes=["electronic"])


@pytest.fixture
def make_gamer(pit_boss) -> Callable[..., tuple[Player, APIClient]]:
    def make(name: str = "Lena", funds: int = 50_000) -> tuple[Player, APIClient]:
        player = make_player(name=name, by=pit_boss)
        player_deposit(player_id=player.pk, amount=funds, by=pit_boss)
        return player, player_client(player)

    return make
