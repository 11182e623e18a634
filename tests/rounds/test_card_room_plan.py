"""The card room's money as pure arithmetic (rounds.settlement), figure by figure, and the
worked round of docs/rules.md §14.5 read from the page itself."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rounds.paigow import rotation
from rounds.rules import TableRules
from rounds.settlement import (
    FeeBand,
    Outcome,
    Party,
    Position,
    Reason,
    bands_check,
    banker_fee,
    cover_order,
    cover_wagers,
    settlement_plan,
)

P = Position.seat
BANDS = (FeeBand(10_000, 100), FeeBand(50_000, 300), FeeBand(None, 500))


def card_room(**settings: object) -> TableRules:
    return TableRules.from_json({"bank_mode": "card_room", "commission_rate": "0",
                                 "collection_player": 50, **settings})


def plan(wagers: dict[int, int], outcomes: dict[int, str], *, banker_seat: int | None,
         cover: int | None = None, third_party: bool = False, rules: TableRules | None = None):
    stakes = {P(s): v for s, v in wagers.items()}
    return settlement_plan(
        stakes=stakes, outcomes={P(s): Outcome(o) for s, o in outcomes.items()},
        rules=rules or card_room(), banker_is_house=False,
        covers=cover_wagers(wagers=stakes, banker_seat=banker_seat, cover=cover,
                            third_party=third_party),
        player_dealer=banker_seat is not None, third_party=third_party)


def test_the_worked_round_every_line_with_its_reason():
    money = plan({2: 10_000, 3: 10_000, 4: 10_000}, {2: "loss", 3: "win", 4: "loss"},
                 banker_seat=1, cover=15_000, third_party=True)

    assert money.moves == {Party.BANK: 4_700, Party.THIRD_PARTY: 5_000,
                           Party.SEAT_2: -10_050, Party.SEAT_3: 9_950, Party.SEAT_4: -10_050,
                           Party.COLLECTION: 450}
    fees = [(line.party, line.amount) for line in money.lines
            if line.reason is Reason.COLLECTION_BANKER]
    assert fees == [(Party.BANK, -300), (Party.COLLECTION, 300)]
    assert (money.banker_won, money.banker_paid) == (10_000, 5_000)
    assert money.third_party_net == 5_000
    assert (money.collection_banker, money.collection_players) == (300, 150)


def test_the_worked_round_of_the_rules_page_is_what_the_plan_says():
    # the table of docs/rules.md §14.5, read from the page
    page = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text()
    section = page.split("### 14.5 A worked round", 1)[1].split("\n### ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        # the page writes a minus as the typographic sign, U+2212
        figure = cells[-1].replace("\N{MINUS SIGN}", "-") if cells else ""
        if len(cells) == 5 and re.fullmatch(r"[+-]\d+\.\d\d", figure):
            rows[cells[0]] = int(Decimal(figure) * 100)
    money = plan({2: 10_000, 3: 10_000, 4: 10_000}, {2: "loss", 3: "win", 4: "loss"},
                 banker_seat=1, cover=15_000, third_party=True)

    assert rows == {
        "seat 1, the player-dealer": money.moves[Party.BANK],
        "the proposition player": money.moves[Party.THIRD_PARTY],
        "seat 2": money.moves[Party.SEAT_2],
        "seat 3": money.moves[Party.SEAT_3],
        "seat 4": money.moves[Party.SEAT_4],
        "the table's collection": money.moves[Party.COLLECTION],
    }
    assert sum(rows.values()) == 0


def test_wagers_are_covered_from_the_player_dealers_left_and_split_where_the_cover_ends():
    assert cover_order(3, [1, 2, 4, 5, 6]) == [4, 5, 6, 1, 2]
    assert cover_order(None, [5, 2]) == [2, 5]
    covers = cover_wagers(wagers={P(1): 5_000, P(4): 5_000, P(6): 5_000}, banker_seat=3,
                          cover=7_000, third_party=False)

    assert [(p.value, c.player_dealer, c.third_party, c.uncovered)
            for p, c in covers.items()] == [("1", 0, 0, 5_000), ("4", 5_000, 0, 0),
                                           ("6", 2_000, 0, 3_000)]


def test_an_uncovered_wager_moves_nothing_and_pays_no_fee():
    money = plan({2: 10_000, 3: 10_000}, {2: "loss", 3: "loss"}, banker_seat=1, cover=10_000)

    assert Party.SEAT_3 not in money.moves
    assert money.moves == {Party.BANK: 10_000 - 100, Party.SEAT_2: -10_050,
                           Party.COLLECTION: 150}


def test_a_proposition_player_banking_alone_pays_the_banks_fee():
    money = plan({1: 10_000, 2: 4_000}, {1: "loss", 2: "win"}, banker_seat=None,
                 third_party=True)

    assert money.moves[Party.THIRD_PARTY] == 6_000 - 300
    assert Party.BANK not in money.moves
    assert money.collection_payer is Party.THIRD_PARTY


def test_fees_are_due_on_a_push():
    money = plan({2: 10_000}, {2: "push"}, banker_seat=1)

    assert money.moves == {Party.BANK: -100, Party.SEAT_2: -50, Party.COLLECTION: 150}


def test_a_commission_is_charged_when_the_rate_is_not_zero():
    money = plan({2: 10_000, 3: 4_000}, {2: "win", 3: "loss"}, banker_seat=1,
                 cover=2_000, third_party=True, rules=card_room(commission_rate="0.05"))

    # seat 2: 20.00 by the player-dealer, 80.00 by the proposition player; seat 3 by it too
    assert money.moves[Party.SEAT_2] == 10_000 - 500 - 50
    assert money.moves[Party.BANK] == -2_000 - 300  # lost, so no commission; pays the fee
    assert money.third_party_net == 4_000 - 8_000 and money.third_party_commission == 0
    assert money.moves[Party.COMMISSION] == 500


@pytest.mark.parametrize(("action", "fee"), [(0, 0), (1, 100), (10_000, 100), (10_001, 300),
                                             (50_000, 300), (50_001, 500), (10**9, 500)])
def test_the_banks_fee_is_the_band_of_the_covered_action(action, fee):
    assert banker_fee(action, BANDS) == fee


@pytest.mark.parametrize("bands", [(), (FeeBand(100, 1),), (FeeBand(None, 1), FeeBand(None, 2)),
                                   (FeeBand(500, 1), FeeBand(100, 1), FeeBand(None, 1)),
                                   (FeeBand(100, -1), FeeBand(None, 1))])
def test_bands_that_make_no_schedule_are_named(bands):
    assert bands_check(bands) is not None


def test_the_casino_model_refuses_nothing_it_did_and_the_card_room_refuses_a_house_bank():
    with pytest.raises(ValueError, match="neither banks nor stakes"):
        settlement_plan(stakes={P(1): 100}, outcomes={P(1): Outcome.WIN}, rules=card_room(),
                        banker_is_house=True)


# Drawing the cover and the banker's seat from what was drawn before is slow on a loaded
# machine; the property is not about speed, so neither the health check nor a deadline.
@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(wagers=st.dictionaries(st.sampled_from([1, 2, 3, 4, 5, 6]),
                              st.integers(min_value=1, max_value=1_000_000), min_size=1),
       data=st.data(), cover=st.one_of(st.none(), st.integers(min_value=1, max_value=3_000_000)),
       third_party=st.booleans(), rate=st.sampled_from(["0", "0.05"]))
def test_a_card_room_plan_balances_and_no_wager_loses_more_than_itself_and_its_fee(
        wagers, data, cover, third_party, rate):
    free: list[int | None] = [s for s in range(1, 7) if s not in wagers]
    banker = data.draw(st.sampled_from(free or [None]))
    outcomes = {s: data.draw(st.sampled_from(["win", "push", "loss"])) for s in wagers}
    money = plan(wagers, outcomes, banker_seat=banker, cover=cover,
                 third_party=third_party or banker is None,
                 rules=card_room(commission_rate=rate))

    assert sum(money.moves.values()) == 0
    for seat, wager in wagers.items():
        assert money.moves.get(str(seat), 0) >= -wager - 50
    covered = sum(p.cover.player_dealer for p in money.positions if p.cover)
    assert money.moves.get(Party.BANK, 0) >= -covered - 500


def test_the_card_room_rotation_refuses_a_third_bank_and_a_bank_held_too_long():
    table = rotation.BankTable(rotation="alternate", must_have_played=False,
                               seated={1: "Ann", 2: "Bo"}, mode="card_room", streak_seat=1,
                               streak_banks=2, max_consecutive=2, last_banker_seat=1)
    refusal = rotation.bank_refusal(table, 1)
    assert refusal is not None and refusal.reason is rotation.Reason.BANK_LIMIT
    assert rotation.bank_refusal(table, 2) is None
    assert rotation.bank_offer(table).seat == 2

    timed = rotation.BankTable(rotation="alternate", must_have_played=True,
                               seated={1: "Ann"}, mode="card_room", streak_seat=1,
                               streak_banks=1, streak_minutes=40.5, rotation_minutes=40)
    refusal = rotation.bank_refusal(timed, 1)
    assert refusal is not None and refusal.reason is rotation.Reason.BANK_TIME_UP
    assert "proposition player" in rotation.bank_offer(timed).why_none
    # the casino rules of §7.1 do not apply: no house turn, no need to have played
    assert rotation.bank_refusal(timed.__class__(
        rotation="alternate", must_have_played=True, seated={1: "Ann"}, mode="card_room",
        previous_round=1, previous_banker_seat=2), 1) is None


def test_a_plan_commission_stays_exact_to_the_cent():
    money = plan({2: 333}, {2: "win"}, banker_seat=1, rules=card_room(commission_rate="0.05"))
    assert money.player_commission == int((Decimal(333) * Decimal("0.05")).quantize(1))
