"""The auditors' report selectors (table_day, floor_day, banker, player_statement,
trial_balance), each figure checked against the ledger entries it summarises, with the
Dutch seed's player-banked round in every report it belongs to."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.db.models import Sum
from django.utils import timezone

from casino.models import Player
from casino.selectors import player_statement
from ledger.models import Entry, Line
from ledger.reports import statement_report, trial_balance
from reports.play import banker_report, floor_day_report, table_day_report
from rounds.models import Round
from tests.conftest import newest_block, played_rounds_rewritten
from tests.rounds.conftest import DutchSeed

pytestmark = pytest.mark.django_db


def _moved(refs: list[str], **account) -> int:
    return Line.objects.filter(entry__ref__in=refs, **{
        f"account__{k}": v for k, v in account.items()}).aggregate(s=Sum("amount"))["s"] or 0


def _round_refs(table) -> list[str]:
    return [f"round:{pk}" for pk in Round.objects.filter(table=table).values_list("pk",
                                                                                flat=True)]


def test_the_dutch_seed_banker_line_nets_20_and_pays_1_commission(dutch_seed: DutchSeed):
    day = date.fromisoformat(dutch_seed.gaming_day)

    report = banker_report(date_from=day, date_to=day)

    (line,) = report.lines
    assert (line.round_id, line.party, line.player_id, line.player) == (
        dutch_seed.round_id, "player_banker", dutch_seed.banker.pk, "Banker Bram")
    assert (line.house_stake, line.covered) == (0, 30_000)     # 100 + 60 + 100 + 40
    assert (line.bank_won, line.bank_paid) == (16_000, 14_000)
    assert (line.net, line.commission, line.fee, line.result) == (2_000, 100, 0, 1_900)
    # against the ledger: what the round's entry moved on the banker's account
    assert _moved([f"round:{dutch_seed.round_id}"],
                  ref=f"player:{dutch_seed.banker.pk}") == line.result
    (total,) = report.totals
    assert (total.player_id, total.rounds, total.net, total.commission, total.result) == (
        dutch_seed.banker.pk, 1, 2_000, 100, 1_900)


def test_the_banker_report_covers_only_its_date_range(dutch_seed: DutchSeed):
    day = date.fromisoformat(dutch_seed.gaming_day)

    assert banker_report(date_from=day + timedelta(days=1),
                         date_to=day + timedelta(days=9)).lines == []
    assert len(banker_report(date_from=day - timedelta(days=9), date_to=day).lines) == 1


def test_the_dutch_seed_day_takes_1_from_the_banker_and_5_percent_of_each_win(
        dutch_seed: DutchSeed):
    day = date.fromisoformat(dutch_seed.gaming_day)

    report = table_day_report(table_id=dutch_seed.table.pk, gaming_day=day)

    assert (report.rounds_settled, report.rounds_house_banked, report.rounds_player_banked,
            report.rounds_co_banked) == (2, 1, 1, 0)
    assert report.handle == 10_000 + 30_000          # the warm-up's 100 pushes, then 300
    assert report.commission_bankers == 100
    assert report.commission_players == 500 + 200    # 5% of 100.00 and of 40.00
    assert report.house_win_house_banked == 0 and report.house_win_house_stakes == 0
    assert report.house_result == 800
    assert str(report.hold_percent) == "2.00"        # 8 / 400
    # against the ledger: the table's commission account took exactly the commissions
    refs = _round_refs(dutch_seed.table)
    assert _moved(refs, kind="commission") == report.commission_players \
        + report.commission_bankers
    assert _moved(refs, ref=f"table:{dutch_seed.table.pk}") == report.house_result


def test_the_floor_day_lists_every_table_and_a_total_that_adds_them(
        dutch_seed: DutchSeed, dealer, make_table, seat_player):
    other = make_table(name="Table B")
    seat_player(other, 1, funds=10_000)
    dealer.house_round(other, {1: "30.00"}, {"1": "loss"})
    day = date.fromisoformat(dutch_seed.gaming_day)

    floor = floor_day_report(gaming_day=day)

    assert [row.table_id for row in floor.tables] == [dutch_seed.table.pk, other.pk]
    (total,) = floor.totals
    assert total.table_id is None and total.currency == "EUR"
    assert total.handle == 40_000 + 3_000
    assert total.commission_bankers == 100 and total.commission_players == 700
    assert total.house_result == 800 + 3_000
    everything = _round_refs(dutch_seed.table) + _round_refs(other)
    assert _moved(everything, kind__in=["commission", "table_bankroll"]) == total.house_result
    for row in floor.tables:
        assert row.table_id is not None  # a table's row, not the total
        assert row == table_day_report(table_id=row.table_id, gaming_day=day)


def test_each_players_statement_has_the_round_on_it(dutch_seed: DutchSeed):
    day = date.fromisoformat(dutch_seed.gaming_day)
    expected = {1: 2_000 - 100, 2: -10_000, 3: 9_500, 4: 3_800, 5: -6_000}

    for seat, player in {1: dutch_seed.banker, **dutch_seed.players}.items():
        report = player_statement(player_id=player.pk, date_from=day, date_to=day)

        statement = report.statement
        (line,) = [x for x in statement.lines if x.reference == f"round:{dutch_seed.round_id}"]
        assert line.amount == expected[seat]
        assert statement.opening == 0
        assert statement.lines[0].kind == "deposit"
        assert statement.closing == statement.opening + sum(x.amount for x in statement.lines)
        # against the ledger: the closing balance is every line on the player's account
        assert statement.closing == Line.objects.filter(
            account__ref=f"player:{player.pk}").aggregate(s=Sum("amount"))["s"]
        assert [x.balance for x in statement.lines][-1] == statement.closing


def test_a_statement_for_a_later_period_opens_with_the_balance_and_is_empty(
        dutch_seed: DutchSeed):
    day = date.fromisoformat(dutch_seed.gaming_day) + timedelta(days=1)
    player = dutch_seed.players[3]

    report = player_statement(player_id=player.pk, date_from=day, date_to=day)

    assert report.statement.lines == []
    assert report.statement.opening == report.statement.closing == 50_000 + 9_500


def test_the_trial_balance_sums_to_zero_and_carries_the_verified_chain_head(
        dutch_seed: DutchSeed):
    report = trial_balance(as_of=timezone.now())

    assert report.verified and report.problems == []
    head = newest_block()
    assert (report.chain_head.seq, report.chain_head.hash) == (head.seq, head.hash)
    (grand,) = [t for t in report.totals if t.kind == ""]
    assert grand.posted == 0 and grand.currency == "EUR"
    by_kind = {t.kind: t for t in report.totals if t.kind}
    assert by_kind["commission"].posted == 800
    assert by_kind["player"].posted == 100_000 + 4 * 50_000 + 2_000 - 100 - 10_000 \
        + 9_500 + 3_800 - 6_000
    for line in report.lines:
        assert line.posted == (Line.objects.filter(account_id=line.account_id)
                               .aggregate(s=Sum("amount"))["s"] or 0)
        assert line.held == 0


def test_the_trial_balance_as_of_before_the_round_does_not_have_it(dutch_seed: DutchSeed):
    entry = Entry.objects.get(ref=f"round:{dutch_seed.round_id}")

    before = trial_balance(as_of=entry.created_at - timedelta(microseconds=1))

    assert before.chain_head.seq <= newest_block().seq
    commission = {t.kind: t.posted for t in before.totals if t.kind}.get("commission", 0)
    assert commission == 0
    assert [t.posted for t in before.totals if t.kind == ""] == [0]


def test_a_statement_of_an_account_that_does_not_exist_is_not_found(db):
    from casino.shared.errors import NotFound

    with pytest.raises(NotFound):
        statement_report(account_ref="player:999999", currency="EUR", since=None, until=None)
    with pytest.raises(NotFound):
        player_statement(player_id=999999, date_from=date(2026, 1, 1),
                         date_to=date(2026, 1, 1))
    assert not Player.objects.exists()


def test_the_day_by_hour_adds_up_to_the_days_house_result_and_the_ledger(
        dutch_seed: DutchSeed, dealer, make_table, seat_player):
    from reports.play import day_by_hour

    other = make_table(name="Table B")
    seat_player(other, 1, funds=10_000)
    dealer.house_round(other, {1: "30.00"}, {"1": "loss"})
    # the warm-up round settled three hours before the rest
    warm_up = Round.objects.get(pk=dutch_seed.warm_up["id"])
    assert warm_up.settled_at is not None
    played_rounds_rewritten(Round.objects.filter(pk=warm_up.pk),
                            settled_at=warm_up.settled_at - timedelta(hours=3))
    day = date.fromisoformat(dutch_seed.gaming_day)

    one = day_by_hour(gaming_day=day, table_id=dutch_seed.table.pk)
    floor = day_by_hour(gaming_day=day)

    assert [h.rounds for h in one] == [1, 1]
    assert (one[1].hour - one[0].hour) == timedelta(hours=3)
    assert sum(h.house_result for h in one) == table_day_report(
        table_id=dutch_seed.table.pk, gaming_day=day).house_result == 800
    assert sum(h.rounds for h in floor) == 3
    assert sum(h.house_result for h in floor) == floor_day_report(
        gaming_day=day).totals[0].house_result
    # against the ledger: what the rounds of the hour moved to the house's accounts
    latest = one[1].hour
    refs = [f"round:{pk}" for pk in Round.objects.filter(
        table=dutch_seed.table, settled_at__gte=latest).values_list("pk", flat=True)]
    assert _moved(refs, kind__in=["commission", "table_bankroll"]) == one[1].house_result
    # each hour starts on the hour of the casino's clock
    assert all(timezone.localtime(h.hour).minute == 0 for h in floor)
