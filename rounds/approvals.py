"""The round operations that may wait for a second person (casino.shared.approvals): a buy-in
past the buy-in line, always; and only when CASINO_DUAL_CONTROL is on, reversing a settled
round, settling a round from outcomes alone (no cards prove them), and the table's cash
corrections, a buy-in's and a drop count's (each reverses ledger entries, as a cage
correction does)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from django.db import transaction

from casino import cash
from casino.models import Player
from casino.selectors import player_get
from casino.shared import approvals
from casino.shared.money import format_minor
from casino.shared.templatetags.money import money_text
from ledger.models import Entry
from rounds import services
from rounds.errors import RoundNotFound
from rounds.models import DropCount, Round, Table
from rounds.selectors import round_active_wagers
from rounds.services import drop
from rounds.services.settling import round_outcomes_check
from rounds.services.steps import round_require_state

if TYPE_CHECKING:
    from django.contrib.auth.models import User

SETTLE_RESULTS = "rounds.settle_results"
REVERSE = "rounds.reverse"


def _round(round_id: int) -> Round:
    round_ = Round.objects.filter(pk=round_id).first()
    if round_ is None:
        raise RoundNotFound(f"no round #{round_id}")
    return round_


def _round_state(round_id: int) -> str:
    return _round(round_id).state


def _settle_check(params: Mapping[str, Any], by: User) -> None:
    """Refused now what the settlement would refuse later: the wrong state, outcomes for
    other positions than those playing against the bank."""
    round_ = _round(params["round_id"])
    # The settlement's own check (rounds.services.settling), not a copy of it.
    round_outcomes_check(round_, round_active_wagers(round_), params["outcomes"])


def _reverse_check(params: Mapping[str, Any], by: User) -> None:
    round_require_state(_round(params["round_id"]), Round.State.SETTLED, doing="reverse")


def _round_name(round_id: int) -> str:
    """"Table 1, round 3" as people at the table say it (the id is in the request's ref)."""
    found = Round.objects.filter(pk=round_id).select_related("table").first()
    return f"{found.table.name}, round {found.number}" if found else f"round #{round_id}"


def _round_ref(round_: Round) -> str:
    return f"round:{round_.pk}"


# --- the table's cash corrections -------------------------------------------------------------

def _buy_in_correct_check(params: Mapping[str, Any], by: User) -> None:
    drop.buy_in_correct_check(entry_id=params["entry_id"], reason=params["reason"], by=by)


def _buy_in_summary(params: Mapping[str, Any]) -> str:
    """"Correct the buy-in of 250.00 EUR by Anna at Table 1, seat 2 (entry #12): keyed
    twice"."""
    entry = Entry.objects.filter(pk=params["entry_id"]).first()
    line = entry.lines.filter(amount__gt=0).select_related("account").first() if entry else None
    if entry is None or line is None:
        return f"Correct buy-in #{params['entry_id']}: {params['reason']}"
    where = entry.memo.removeprefix("Buy-in at ")
    return (f"Correct the buy-in of {money_text(line.amount, line.account.currency)} by "
            f"{line.account.name} at {where} (entry #{entry.pk}): {params['reason']}")


def _count_correct_check(params: Mapping[str, Any], by: User) -> None:
    drop.drop_count_correct_check(count_id=params["count_id"],
                                  counted=int(params["counted_minor"]),
                                  witness=params["witness"], reason=params["reason"], by=by)


def _count_summary(params: Mapping[str, Any]) -> str:
    """"Correct the drop count of Table 1 for gaming day 2026-12-02 (#3) to 480.00 EUR,
    witness wendy: miscounted"."""
    count = DropCount.objects.filter(pk=params["count_id"]).select_related("table").first()
    if count is None:
        return f"Correct drop count #{params['count_id']}: {params['reason']}"
    return (f"Correct the drop count of {count.table.name} for gaming day "
            f"{count.gaming_day} (#{count.pk}) to "
            f"{money_text(int(params['counted_minor']), count.currency)}, witness "
            f"{params['witness']}: {params['reason']}")


def _count_shown(params: Mapping[str, Any]) -> dict[str, Any]:
    # The amount in the unit at every edge; the minor units stay the service's argument.
    currency = (DropCount.objects.filter(pk=params["count_id"])
                .values_list("currency", flat=True).first() or "")
    shown = {k: v for k, v in params.items() if k != "counted_minor"}
    counted = format_minor(int(params["counted_minor"]), currency) if currency else \
        str(params["counted_minor"])
    return {**shown, "counted": counted, "currency": currency}


# --- a buy-in past the line (always, whatever CASINO_DUAL_CONTROL says) ----------------------

def _buy_in_player(params: Mapping[str, Any]) -> Player:
    return player_get(player_id=params["player_id"])


def _buy_in_needs_approval(params: Mapping[str, Any]) -> bool:
    player = _buy_in_player(params)
    return (drop.buy_ins_today(table_id=params["table_id"], player=player)
            + int(params["amount_minor"]) > drop.buy_in_line(player.currency))


def _buy_in_take_summary(params: Mapping[str, Any]) -> str:
    """"Buy-in of 2,500.00 EUR by Anna at Table 1, seat 2: brings Anna's buy-ins at Table 1
    today to 2,500.00 EUR, above the line of 2,000.00 EUR" (the day as it was asked)."""
    player = _buy_in_player(params)
    table = Table.objects.filter(pk=params["table_id"]).first()
    where = table.name if table else f"table #{params['table_id']}"
    amount, cur = int(params["amount_minor"]), player.currency
    day = drop.buy_ins_today(table_id=params["table_id"], player=player) + amount
    return (f"Buy-in of {money_text(amount, cur)} by {player.name} at {where}, seat "
            f"{params['seat']}: brings {player.name}'s buy-ins at {where} today to "
            f"{money_text(day, cur)}, above the line of "
            f"{money_text(drop.buy_in_line(cur), cur)}")


def _buy_in_take_check(params: Mapping[str, Any], by: User) -> None:
    # Refused now rather than after a pit boss's approval (buy_in_take checks again then):
    # the table, the seat and its player, and the cash rules' identity line.
    with transaction.atomic():
        _, player = drop.buy_in_check(table_id=params["table_id"], seat=params["seat"],
                                      amount=int(params["amount_minor"]), by=by)
    cash.cash_movement_check(player=player, direction="in",
                             amount=int(params["amount_minor"]))


def _buy_in_shown(params: Mapping[str, Any]) -> dict[str, Any]:
    # The amount in the unit at every edge; the minor units stay the service's argument.
    currency = _buy_in_player(params).currency
    shown = {k: v for k, v in params.items() if k != "amount_minor"}
    return {**shown, "amount": format_minor(int(params["amount_minor"]), currency),
            "currency": currency}


def _buy_in_ref(buy_in: drop.BuyIn) -> str:
    return f"entry:{buy_in.entry_id}"


def _entry_ref(entry: Entry) -> str:
    return f"entry:{entry.pk}"


def _count_ref(count: DropCount) -> str:
    return f"drop_count:{count.pk}"


def approval_actions_register() -> None:
    approvals.action_register(approvals.Action(
        name=drop.BUY_IN_ACTION, ask_permission=drop.TAKE_BUY_IN,
        approve_permission=drop.APPROVE_BUY_IN, needs_approval=_buy_in_needs_approval,
        run=lambda p, by, approved: drop.buy_in_take(
            table_id=p["table_id"], seat=p["seat"], amount=int(p["amount_minor"]), by=by,
            player_id=p["player_id"], approved_by=approved),
        result_ref=_buy_in_ref, summary=_buy_in_take_summary, shown=_buy_in_shown,
        # The table's screen finds what waits for it by this prefix (approvals_waiting).
        ref=lambda p: f"table:{p['table_id']}:player:{p['player_id']}",
        check=_buy_in_take_check, queues=True))
    approvals.action_register(approvals.Action(
        name=SETTLE_RESULTS, ask_permission="rounds.run_rounds",
        approve_permission="casino.approve_results",
        # A round already settled answers with its settlement, as round_settle does.
        needs_approval=lambda p: (approvals.dual_control()
                                  and _round_state(p["round_id"]) not in Round.State.PLAYED),
        run=lambda p, by, approved: services.round_settle(
            round_id=p["round_id"], by=by, outcomes=p["outcomes"], approved_by=approved),
        result_ref=_round_ref,
        summary=lambda p: f"Settle {_round_name(p['round_id'])} with outcomes "
                          + ", ".join(f"{k}: {v}" for k, v in sorted(p["outcomes"].items())),
        ref=lambda p: f"round:{p['round_id']}", check=_settle_check))
    approvals.action_register(approvals.Action(
        name=REVERSE, ask_permission="rounds.reverse_round",
        approve_permission="rounds.reverse_round",
        needs_approval=lambda p: (approvals.dual_control()
                                  and _round_state(p["round_id"]) != Round.State.REVERSED),
        run=lambda p, by, approved: services.round_reverse(
            round_id=p["round_id"], reason=p["reason"], by=by, approved_by=approved),
        result_ref=_round_ref,
        summary=lambda p: f"Reverse {_round_name(p['round_id'])}: {p['reason']}",
        ref=lambda p: f"round:{p['round_id']}", check=_reverse_check))
    approvals.action_register(approvals.Action(
        name=drop.CORRECT_BUY_IN, ask_permission=drop.CORRECT_DROP,
        approve_permission=drop.CORRECT_DROP,
        needs_approval=lambda p: approvals.dual_control(),
        run=lambda p, by, approved: drop.buy_in_correct(
            entry_id=p["entry_id"], reason=p["reason"], by=by, approved_by=approved),
        result_ref=_entry_ref, summary=_buy_in_summary,
        ref=lambda p: f"entry:{p['entry_id']}", check=_buy_in_correct_check))
    approvals.action_register(approvals.Action(
        name=drop.CORRECT_COUNT, ask_permission=drop.CORRECT_DROP,
        approve_permission=drop.CORRECT_DROP,
        needs_approval=lambda p: approvals.dual_control(),
        run=lambda p, by, approved: drop.drop_count_correct(
            count_id=p["count_id"], counted=int(p["counted_minor"]), witness=p["witness"],
            reason=p["reason"], by=by, approved_by=approved),
        result_ref=_count_ref, summary=_count_summary, shown=_count_shown,
        ref=lambda p: f"drop_count:{p['count_id']}", check=_count_correct_check))
