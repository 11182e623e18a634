"""The round operations that may wait for a second person (casino.shared.approvals): reversing a
settled round, and settling a round from outcomes alone (no cards prove them), both only
when CASINO_DUAL_CONTROL is on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from casino.shared import approvals
from rounds import services
from rounds.errors import RoundNotFound
from rounds.models import Round
from rounds.selectors import round_active_wagers
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


def approval_actions_register() -> None:
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
