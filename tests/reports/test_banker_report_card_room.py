"""The ``banker`` report in card rooms: one line per bank party per round (the
player-dealer and the proposition player each with their own figures), each line's result
what the round moved on that party's account."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from django.db.models import Sum
from django.utils import timezone

from casino.models import Player
from ledger.models import Line
from reports.files.kinds import report_document
from reports.play import banker_report
from rounds.models import Round, Table
from tests.rounds.test_card_room import proposition, worked_round  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def card_table(make_table) -> Table:
    return make_table(bank_mode="card_room", commission_rate="0", collection_player=50)


def _moved(round_id: int, player_id: int) -> int:
    """What the round's entry moved on the player's account (the ledger's own figure)."""
    return Line.objects.filter(entry__ref=f"round:{round_id}",
                               account__ref=f"player:{player_id}").aggregate(
        s=Sum("amount"))["s"] or 0


def _day(round_id: int) -> date:
    return Round.objects.get(pk=round_id).gaming_day


def test_the_card_room_worked_round_has_a_line_for_each_bank(dealer, card_table, seat_player,
                                                            proposition):  # noqa: F811
    # given the worked round of docs/rules.md §14.5: seat 1 covers 150.00, a proposition
    # player the rest; seat 2 loses, seat 3 wins, seat 4 loses
    state, players = worked_round(dealer, card_table, seat_player, proposition)
    round_id = state["round_id"]
    dealer.settle(round_id, {"outcomes": {"2": "loss", "3": "win", "4": "loss"}})

    # when
    report = banker_report(date_from=_day(round_id), date_to=_day(round_id))

    # then the player-dealer covered 150.00 and made +47.00 after a 3.00 fee; the proposition
    # player covered the other 150.00 and made +50.00
    figures = {line.party: (line.player_id, line.covered, line.bank_won, line.bank_paid,
                            line.net, line.commission, line.fee, line.result)
               for line in report.lines}
    assert figures == {
        "player_dealer": (players[1].pk, 15_000, 10_000, 5_000, 5_000, 0, 300, 4_700),
        "proposition": (proposition["id"], 15_000, 10_000, 5_000, 5_000, 0, 0, 5_000),
    }
    for line in report.lines:
        assert line.result == _moved(round_id, line.player_id)


def test_a_proposition_player_banking_alone_is_its_rounds_one_line(dealer, card_table,
                                                                   seat_player,
                                                                   proposition):  # noqa: F811
    # given every seated player declines, and the proposition player banks alone
    players = {n: seat_player(card_table, n, funds=100_000) for n in (1, 2)}
    round_id = dealer.open_round(card_table)["id"]
    dealer.wager(round_id, 1, "100.00")
    dealer.wager(round_id, 2, "40.00")
    for seat in (1, 2):
        dealer.call("post", f"/api/v1/rounds/{round_id}/banker/decline", {"seat": seat})
    dealer.banker(round_id, third_party=proposition["id"])
    dealer.settle(round_id, {"outcomes": {"1": "win", "2": "loss"}})

    # when the report of the day is asked for (it used to fail on this round)
    report = banker_report(date_from=_day(round_id), date_to=_day(round_id))

    # then one line: the proposition player's, paying the bank's fee (3.00 on 140.00)
    (line,) = report.lines
    assert (line.party, line.player_id, line.player) == (
        "proposition", proposition["id"], "Golden Prop LLC")
    assert (line.covered, line.bank_won, line.bank_paid, line.net, line.fee, line.result) \
        == (14_000, 4_000, 10_000, -6_000, 300, -6_300)
    assert line.result == _moved(round_id, line.player_id)
    assert players  # seated players wagered against it
    # and the report's files are made from it (a card room's day does not break them)
    document = report_document(kind="banker", parameters={
        "date_from": _day(round_id), "date_to": _day(round_id)}, made_by="auditor",
        made_at=timezone.now())
    (lines, totals) = document.sections
    assert len(lines.rows) == 1 and len(totals.rows) == 1


def test_a_player_banks_in_a_card_room_and_a_casino_in_one_period(dealer, card_table, table,
                                                                 seat_player, dutch_seed,
                                                                 proposition):  # noqa: F811
    state, _players = worked_round(dealer, card_table, seat_player, proposition)
    dealer.settle(state["round_id"], {"outcomes": {"2": "loss", "3": "win", "4": "loss"}})
    day = _day(state["round_id"])

    report = banker_report(date_from=day, date_to=day)

    assert sorted(line.party for line in report.lines) == [
        "player_banker", "player_dealer", "proposition"]
    by_player: dict[int, Any] = {t.player_id: t for t in report.totals}
    assert by_player[proposition["id"]].result == 5_000
    assert Player.objects.filter(pk__in=by_player).count() == 3
