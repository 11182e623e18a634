"""Who may bank and for how much (rules §7.1-§7.3), under each table setting."""

from __future__ import annotations

import pytest

from rounds import services

pytestmark = pytest.mark.django_db


def test_with_alternate_rotation_the_bank_returns_to_the_house_after_a_player_banked(
    dealer, table, seat_player
):
    for n in (1, 2, 3):
        seat_player(table, n)
    dealer.house_round(table, {1: "10", 2: "10", 3: "10"},
                       {"1": "push", "2": "push", "3": "push"})
    player_banked = dealer.open_round(table)["id"]
    dealer.wager(player_banked, 2, "10")
    dealer.banker(player_banked, seat=1, house_stake="0")
    dealer.settle(player_banked, {"outcomes": {"2": "loss"}})

    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 3, "10")
    refused = dealer.banker(round_id, seat=2, house_stake="0", expect=409)

    assert refused["error"]["code"] == "banker_not_allowed"
    assert "every other round" in refused["error"]["message"]
    assert dealer.banker(round_id, house=True)["banker"]["house"] is True


def test_with_circle_rotation_players_may_bank_in_consecutive_rounds(
    dealer, make_table, seat_player
):
    table = make_table(bank_rotation="circle", banker_must_have_played=False)
    for n in (1, 2, 3):
        seat_player(table, n)
    first = dealer.open_round(table)["id"]
    dealer.wager(first, 2, "10")
    dealer.banker(first, seat=1, house_stake="0")
    dealer.settle(first, {"outcomes": {"2": "win"}})

    second = dealer.open_round(table)["id"]
    dealer.wager(second, 1, "10")
    body = dealer.banker(second, seat=2, house_stake="0")

    assert body["banker"] == {"house": False, "seat": 2, "player": body["banker"]["player"],
                              "position": "2"}


def test_a_player_who_did_not_wager_in_the_last_house_banked_round_may_not_bank(
    dealer, table, seat_player
):
    for n in (1, 2):
        seat_player(table, n)
    dealer.house_round(table, {2: "10"}, {"2": "push"})  # seat 1 sat out

    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 2, "10")
    refused = dealer.banker(round_id, seat=1, house_stake="0", expect=409)

    assert refused["error"]["code"] == "banker_not_allowed"
    assert "wagering against the house" in refused["error"]["message"]


def test_the_bank_holder_places_no_wager_of_their_own(dealer, table, seat_player):
    for n in (1, 2):
        seat_player(table, n)
    dealer.house_round(table, {1: "10"}, {"1": "push"})
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "10")
    dealer.wager(round_id, 2, "10")

    refused = dealer.banker(round_id, seat=1, house_stake="0", expect=409)

    assert "no wager of their own" in refused["error"]["message"]


@pytest.mark.parametrize(
    ("cap", "stake", "status"),
    [
        ("last_wager", "40.00", 200),    # the banker's own last wager against the house
        ("last_wager", "40.01", 400),
        ("last_wager", "0", 200),        # the house sits out
        ("last_wager", "1.99", 400),     # below the table minimum
        ("table_max", "100.00", 200),
        ("table_max", "100.01", 400),
    ],
)
def test_the_house_stake_is_capped_by_the_table_setting(
    dealer, make_table, seat_player, cap, stake, status
):
    table = make_table(house_stake_cap=cap)
    for n in (1, 2):
        seat_player(table, n)
    dealer.house_round(table, {1: "40.00"}, {"1": "push"})
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 2, "10")

    body = dealer.banker(round_id, seat=1, house_stake=stake, expect=status)

    if status == 200:
        assert body["house_stake"] == ("0.00" if stake == "0" else stake)
    else:
        assert body["error"]["code"] == "out_of_limits"


def test_the_house_stake_is_settled_against_the_player_bank(dealer, table, seat_player):
    banker = seat_player(table, 1, funds=50_000)
    seat_player(table, 2)
    dealer.house_round(table, {1: "50.00"}, {"1": "push"})
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 2, "20.00")
    dealer.banker(round_id, seat=1, house_stake="50.00")

    body = dealer.settle(round_id, {"outcomes": {"2": "loss", "dealer": "win"}})

    settlement = body["settlement"]
    assert settlement["house"]["stake_result"] == "50.00"
    # the bank won 20 and paid 50: a net loss, so no banker commission
    assert settlement["banker"]["net"] == "-30.00"
    assert settlement["banker"]["commission"] == "0.00"
    from tests.rounds.conftest import available

    assert available(banker) == 50_000 - 3_000


def test_when_the_house_banks_there_is_no_house_stake(dealer, table, seat_player):
    seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "10")

    body = dealer.banker(round_id, house=True, house_stake="10.00", expect=400)

    assert body["error"]["code"] == "invalid"


def test_electronic_deal_gives_hands_only_to_positions_in_play(dealer, table, seat_player):
    for n in (1, 3, 4):
        seat_player(table, n)
    dealer.house_round(table, {1: "30"}, {"1": "push"})
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 3, "10")
    dealer.banker(round_id, seat=1, house_stake="0")

    body = dealer.deal(round_id)

    # seat 4 sat without a wager and the house sat out: only the bank and seat 3 play
    assert {h["position"] for h in body["hands"]} == {"1", "3"}
    dealt = next(e for e in body["events"] if e["kind"] == "dealt")["data"]
    assert set(dealt["discarded"]) == {"dealer", "2", "4", "5", "6"}
    # dealing starts after the counted position, which receives the seventh stack
    assert dealt["order"][-1] == body["deal"]["counted_position"]


def test_a_co_banked_round_holds_and_settles_only_the_player_bankers_half(
    dealer, make_table, seat_player
):
    table = make_table(co_banking=True, banker_must_have_played=False)
    banker = seat_player(table, 1, funds=5_000)
    p2, p3 = seat_player(table, 2), seat_player(table, 3)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 2, "100.00")
    dealer.wager(round_id, 3, "60.01")
    assert dealer.banker(round_id, seat=1, house_stake="10.00", expect=400)
    dealer.banker(round_id, seat=1, house_stake="0")

    # the banker's €50 covers half of €160.01 (€80.00, rounded down per wager), not all
    body = dealer.deal(round_id, {"results_only": True}, expect=409)
    assert body["error"]["detail"]["required"] == "80.00"
    from casino.services import player_deposit

    player_deposit(player_id=banker.pk, amount=3_000, by=None)
    assert dealer.deal(round_id, {"results_only": True})["solvency"]["required"] == "80.00"
    body = dealer.settle(round_id, {"outcomes": {"2": "loss", "3": "win"}})

    settlement = body["settlement"]
    assert settlement["banker"] == {"position": "1", "net": "20.00", "commission": "1.00"}
    assert settlement["house"]["bank_share_result"] == "19.99"
    from tests.rounds.conftest import available

    assert available(banker) == 8_000 + 2_000 - 100
    assert (available(p2), available(p3)) == (100_000 - 10_000, 100_000 + 6_001 - 300)


def test_with_alternate_rotation_a_reversed_player_bank_still_returns_the_bank_to_the_house(
    table, seat_player, pit_boss
):
    for n in (1, 2, 3):
        seat_player(table, n)
    r1 = services.round_open(table_id=table.pk, by=pit_boss)
    for n in (1, 2, 3):
        services.wager_place(round_id=r1.pk, seat=n, amount=1_000, by=pit_boss)
    services.banker_set(round_id=r1.pk, house=True, by=pit_boss)
    services.round_settle(round_id=r1.pk, by=pit_boss,
                          outcomes={"1": "push", "2": "push", "3": "push"})
    r2 = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=r2.pk, seat=3, amount=1_000, by=pit_boss)
    services.banker_set(round_id=r2.pk, seat=1, by=pit_boss)
    services.round_settle(round_id=r2.pk, by=pit_boss, outcomes={"3": "loss"})
    services.round_reverse(round_id=r2.pk, reason="wrong outcome keyed", by=pit_boss)

    # round 3 follows a player-banked round (played, then corrected in the ledger)
    r3 = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=r3.pk, seat=3, amount=1_000, by=pit_boss)

    from rounds.errors import BankerNotAllowed
    with pytest.raises(BankerNotAllowed):
        services.banker_set(round_id=r3.pk, seat=2, by=pit_boss)


def test_with_circle_rotation_the_bank_moves_on_after_a_player_banked(make_table, seat_player,
                                                                       pit_boss):
    # "circle — each player in turn, then the house" (rules §7.1)
    table = make_table(bank_rotation="circle", banker_must_have_played=False)
    for n in (1, 2):
        seat_player(table, n)
    r1 = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=r1.pk, seat=2, amount=1_000, by=pit_boss)
    services.banker_set(round_id=r1.pk, seat=1, by=pit_boss)
    services.round_settle(round_id=r1.pk, by=pit_boss, outcomes={"2": "loss"})

    r2 = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=r2.pk, seat=2, amount=1_000, by=pit_boss)

    from rounds.errors import BankerNotAllowed
    with pytest.raises(BankerNotAllowed):
        services.banker_set(round_id=r2.pk, seat=1, by=pit_boss)  # seat 1 again, at once
