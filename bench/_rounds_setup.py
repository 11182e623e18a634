"""The round bench's floor: its scratch database (bench._scratch), tables to play at and
rounds ready to settle (also for bench/profile_settle.py).

Import after ``django.setup()``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date
from typing import Any

from bench._scratch import database_url, scratch_database
from casino import roles
from casino.services import Identity, player_create, staff_create
from casino.shared import approvals
from rounds import services
from rounds.models import Hand, Table

__all__ = ["FUNDS", "HOUSE_STAKE", "WAGERS", "banker_for", "database_url", "deal_round",
           "dealer_token", "full_table", "pit_boss", "play_round", "scratch_database"]

FUNDS = 10_000_000          # each player's bankroll, minor units (100,000.00)
WAGERS = range(200, 10_001, 100)   # within the default limits 2.00-100.00
HOUSE_STAKE = 5_000         # a player-banker's stake against the house (50.00)


def pit_boss(username: str = "bench-pit") -> Any:
    user, _ = staff_create(username=username, role=roles.PIT_BOSS)
    return user


def dealer_token(username: str) -> str:
    """A dealer's API token (``Authorization: Token ...``)."""
    _, token = staff_create(username=username, role=roles.DEALER)
    return token


def _clerk() -> Any:
    """The cage clerk who takes the bench's deposits (created once per scratch database)."""
    from django.contrib.auth import get_user_model

    found = get_user_model().objects.filter(username="bench-cage").first()
    return found or staff_create(username="bench-cage", role=roles.CAGE)[0]


def fund(*, player_id: int, amount: int, boss: Any) -> None:
    """A deposit at the cage as the floor makes it: a clerk takes it; past the day's cap
    (casino.services.cage_day_totals) the pit boss ``boss`` approves it."""
    done = approvals.action_submit(
        action="cage.deposit", by=_clerk(),
        params={"player_id": player_id, "amount_minor": amount, "reference": "Bankroll"})
    if done.approval is not None:
        approvals.approval_decide(approval_id=done.approval.pk, approve=True, by=boss)


def full_table(*, name: str, by: Any, funds: int) -> Table:
    """A table with six seated players, each funded with ``funds`` (minor units).

    Open rotation and no must-have-played rule make any order of house- and player-banked
    rounds legal, so the bench can alternate them; a player-banker may stake up to the table
    maximum."""
    table = services.table_create(by=by, name=name, bank_rotation="open",
                                  banker_must_have_played=False, house_stake_cap="table_max")
    for seat in range(1, 7):
        # A bankroll past the cash rules' identity line needs an identity on file
        # (casino.cash): each bench player is registered with one.
        player = player_create(
            name=f"{name} player {seat}", currency=table.currency, by=by,
            identity=Identity(date_of_birth=date(1980, 1, seat),
                              id_document_kind="passport",
                              id_document_number=f"BENCH{table.pk:04d}{seat}",
                              id_document_country="NL"))
        fund(player_id=player.pk, amount=funds, boss=by)
        services.seat_take(table_id=table.pk, number=seat, player_id=player.pk, by=by)
    return table


def banker_for(number: int) -> int | None:
    """Even rounds: the house banks; odd rounds: seats 1-6 in turn."""
    return None if number % 2 == 0 else (number // 2) % 6 + 1


def deal_round(table_id: int, number: int, by: Any, rng: random.Random) -> int:
    """A round at a full table opened, wagered, banked (banker_for), dealt and set by the
    house way: ready to settle. Returns its id."""
    banker = banker_for(number)
    round_ = services.round_open(table_id=table_id, by=by)
    for seat in range(1, 7):
        if seat != banker:
            services.wager_place(round_id=round_.pk, seat=seat, amount=rng.choice(WAGERS),
                                 by=by)
    if banker is None:
        services.banker_set(round_id=round_.pk, house=True, by=by)
    else:
        services.banker_set(round_id=round_.pk, seat=banker, house_stake=HOUSE_STAKE, by=by)
    services.round_deal(round_id=round_.pk, by=by)
    positions = (Hand.objects.filter(round_id=round_.pk).exclude(position="dealer")
                 .values_list("position", flat=True))
    # The players' hands first, a player-banker's last (rules §4.1).
    for position in sorted(positions, key=lambda p: p == str(banker)):
        services.hand_set(round_id=round_.pk, position=position, house_way=True, by=by)
    return round_.pk


def play_round(call: Callable[[str, str, str, Any], Any], table_id: int) -> None:
    """One whole round through the API, as a dealer's client plays it: open, a wager per
    seat, the house as banker, the electronic deal, every hand by the house way, settle.
    ``call(label, method, path, body)`` sends one request and returns its decoded answer."""
    round_id = call("open", "POST", f"/api/v1/tables/{table_id}/rounds", {})["id"]
    base = f"/api/v1/rounds/{round_id}"
    for seat in range(1, 7):
        call("wager", "POST", f"{base}/wagers", {"seat": seat, "amount": "25.00"})
    call("banker", "POST", f"{base}/banker", {"house": True})
    dealt = call("deal", "POST", f"{base}/deal", {})
    for hand in dealt["hands"]:
        if hand["position"] != "dealer":
            call("hand", "POST", f"{base}/hands",
                 {"position": hand["position"], "house_way": True})
    call("settle", "POST", f"{base}/settle", {})
