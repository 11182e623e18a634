"""Under dual control every service that reverses a ledger entry waits for a second person.

The services are found from the code, not listed by hand: every function of the project's
apps that posts a reversal (``entry_post(..., reverses=...)``), and every function that
calls one of those, found again until nothing new turns up (the approval path's own
``run`` lambdas aside: they carry out an approved request). Each one, called by one person
with ``CASINO_DUAL_CONTROL`` on, is refused with ``approval_required`` and moves nothing;
asked through the one approval path (``action_submit``, what the API, the console and the
admin call) it files a pending request and moves nothing; approved by a second person with
their own credentials it reverses. A new function that reverses an entry fails the first
test until it is given a scenario here, and the scenario fails unless it waits too.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from casino import roles
from casino.services import player_cage_correct, player_create, player_deposit, staff_create
from casino.shared import approvals
from casino.shared.errors import Conflict
from casino.shared.gaming_day import gaming_day_of
from ledger.models import Account, Entry
from ledger.services import account_get_or_create, entry_post, entry_reverse
from rounds import services as play
from rounds.models import DropCount, Round, Table
from rounds.services import drop

ROOT = Path(__file__).resolve().parent.parent
APPS = ("casino", "ledger", "rounds", "reports")

pytestmark = pytest.mark.django_db


# --- finding them in the code -----------------------------------------------------------------

@dataclass
class Function:
    name: str            # module.qualname
    calls: set[str]      # the names it calls (f(...) and x.f(...)), lambdas left out
    posts_reversal: bool  # calls entry_post with a ``reverses`` that is not None


class _Scan(ast.NodeVisitor):
    def __init__(self, module: str) -> None:
        self.module, self.stack, self.found = module, [], []  # type: ignore[var-annotated]

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.stack.append(node.name)
        calls, posts = set(), False
        for sub in _walk_without_lambdas(node):
            if isinstance(sub, ast.Call):
                name = (sub.func.id if isinstance(sub.func, ast.Name) else
                        sub.func.attr if isinstance(sub.func, ast.Attribute) else None)
                if name:
                    calls.add(name)
                if name == "entry_post" and any(
                        k.arg == "reverses" and not (isinstance(k.value, ast.Constant)
                                                     and k.value.value is None)
                        for k in sub.keywords):
                    posts = True
        self.found.append(Function(f"{self.module}.{'.'.join(self.stack)}", calls, posts))
        self.generic_visit(node)
        self.stack.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()


def _walk_without_lambdas(node: ast.AST) -> Iterator[ast.AST]:
    """The function's own statements: not a lambda's (the approval path's ``run``, which
    carries out an approved request), nor a nested function's (found on its own)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        yield child
        yield from _walk_without_lambdas(child)


def project_functions() -> list[Function]:
    found: list[Function] = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            scan = _Scan(module.removesuffix(".__init__"))
            scan.visit(ast.parse(path.read_text(encoding="utf-8")))
            found += scan.found
    return found


def reversing_services(functions: list[Function]) -> set[str]:
    """Those that post a reversal, and those that call them, to the end."""
    reversing = {f.name for f in functions if f.posts_reversal}
    while True:
        names = {name.rsplit(".", 1)[-1] for name in reversing}
        more = {f.name for f in functions if f.name not in reversing and f.calls & names}
        if not more:
            return reversing
        reversing |= more


# --- how each is asked for, by one person -----------------------------------------------------

@dataclass
class Ask:
    """One reversing service, ready: call it alone, or ask for it through the approval path."""

    call: Callable[[], Any]          # the service, called directly by ``asker``
    action: str                      # its request for a second person
    params: dict[str, Any]
    asker: User
    approver: User                   # a second person allowed to decide it


@dataclass
class Floor:
    pit_boss: User
    second_pit_boss: User
    clerk: User
    second_clerk: User
    counter: User

    def table(self) -> Table:
        return play.table_create(by=self.pit_boss, name=f"Table {Table.objects.count() + 1}",
                                 deal_modes=list(Table.DealMode.values))


def _plain_reversal(floor: Floor) -> Ask:
    table = account_get_or_create(kind="table_bankroll", currency="EUR", ref="table:99")
    player = account_get_or_create(kind="player", currency="EUR", ref="player:99")
    entry = entry_post(kind="payout", memo="", by=None,
                       lines=[(table.pk, -500), (player.pk, 500)])
    params: dict[str, Any] = {"entry_id": entry.pk, "reason": "paid twice"}
    return Ask(lambda: entry_reverse(**params, by=floor.pit_boss), "ledger.entry_reverse",
               params, floor.pit_boss, floor.second_pit_boss)


def _cage_correction(floor: Floor) -> Ask:
    player = player_create(name="Anna", currency="EUR", by=floor.clerk)
    entry = player_deposit(player_id=player.pk, amount=20_000, by=floor.clerk)
    params: dict[str, Any] = {"player_id": player.pk, "entry_id": entry.pk,
                              "reason": "keyed twice"}
    return Ask(lambda: player_cage_correct(**params, by=floor.clerk), "cage.correction",
               params, floor.clerk, floor.second_clerk)


def _seated(floor: Floor, table: Table, funds: int = 0) -> None:
    player = player_create(name="Bram", currency="EUR", by=floor.pit_boss)
    if funds:
        player_deposit(player_id=player.pk, amount=funds, by=floor.pit_boss)
    play.seat_take(table_id=table.pk, number=1, player_id=player.pk, by=floor.pit_boss)


def _buy_in_correction(floor: Floor) -> Ask:
    table = floor.table()
    _seated(floor, table)
    taken = drop.buy_in_take(table_id=table.pk, seat=1, amount=25_000, by=floor.pit_boss)
    params: dict[str, Any] = {"entry_id": taken.entry_id, "reason": "the wrong seat"}
    return Ask(lambda: drop.buy_in_correct(**params, by=floor.pit_boss), drop.CORRECT_BUY_IN,
               params, floor.pit_boss, floor.second_pit_boss)


def _drop_count_correction(floor: Floor) -> Ask:
    table = floor.table()
    _seated(floor, table)
    drop.buy_in_take(table_id=table.pk, seat=1, amount=25_000, by=floor.pit_boss)
    count = drop.drop_count_record(table_id=table.pk, gaming_day=gaming_day_of(),
                                   counted=20_000, witness=floor.pit_boss.username,
                                   by=floor.counter)
    # posted once its witness, the pit boss, confirms it: only a posted count is corrected
    count = drop.drop_count_confirm(count_id=count.pk, by=floor.pit_boss)
    # counted again by the pit boss, the count room's counter witnessing
    params = {"count_id": count.pk, "counted_minor": 25_000,
              "witness": floor.counter.username, "reason": "a bundle missed"}
    return Ask(lambda: drop.drop_count_correct(count_id=count.pk, counted=25_000,
                                               witness=floor.counter.username,
                                               reason="a bundle missed", by=floor.pit_boss),
               drop.CORRECT_COUNT, params, floor.pit_boss, floor.second_pit_boss)


def _round_reversal(floor: Floor) -> Ask:
    table = floor.table()
    _seated(floor, table, funds=10_000)
    round_ = play.round_open(table_id=table.pk, by=floor.pit_boss)
    play.wager_place(round_id=round_.pk, seat=1, amount=5_000, by=floor.pit_boss)
    play.banker_set(round_id=round_.pk, house=True, by=floor.pit_boss)
    play.round_settle(round_id=round_.pk, outcomes={"1": "win"}, by=floor.pit_boss)
    params: dict[str, Any] = {"round_id": round_.pk, "reason": "the wrong outcome"}
    return Ask(lambda: play.round_reverse(**params, by=floor.pit_boss), "rounds.reverse",
               params, floor.pit_boss, floor.second_pit_boss)


SCENARIOS: dict[str, Callable[[Floor], Ask]] = {
    "ledger.services.entry_reverse": _plain_reversal,
    "casino.services.player_cage_correct": _cage_correction,
    "rounds.services.drop.buy_in_correct": _buy_in_correction,
    "rounds.services.drop.drop_count_correct": _drop_count_correction,
    "rounds.services.settling.round_reverse": _round_reversal,
}


def test_every_service_that_reverses_an_entry_has_its_scenario_here():
    found = reversing_services(project_functions())

    # the scan itself finds the ledger's reversal and a flow's, so it cannot go blind
    assert {"ledger.services.entry_reverse", "rounds.services.settling.round_reverse"} <= found
    assert found == set(SCENARIOS), (
        f"services that reverse an entry without a scenario here: "
        f"{sorted(found - set(SCENARIOS))} (give each one, and make it ask for a second "
        f"person's approval under dual control); scenarios of no such service: "
        f"{sorted(set(SCENARIOS) - found)}")


def test_the_scan_finds_a_new_service_that_reverses_around_the_others(tmp_path):
    source = ("def refund_quietly(*, entry_id, by):\n"
              "    return ledger.entry_reverse(entry_id=entry_id, reason='x', by=by,\n"
              "                                by_owner=True)\n"
              "def post_a_reversal(*, original):\n"
              "    return entry_post(kind='reversal', memo='', lines=[], by=None,\n"
              "                      reverses=original)\n"
              "def not_one(*, entry_id):\n"
              "    return entry_post(kind='x', memo='', lines=[], by=None, reverses=None)\n"
              "register(run=lambda p: entry_reverse(entry_id=p['entry_id']))\n")
    scan = _Scan("made.up")
    scan.visit(ast.parse(source))
    made_up = [*scan.found, Function("ledger.services.entry_reverse", {"entry_post"}, True)]

    assert reversing_services(made_up) == {"ledger.services.entry_reverse",
                                           "made.up.refund_quietly",
                                           "made.up.post_a_reversal"}


# --- each waits for a second person -----------------------------------------------------------

@pytest.fixture
def floor(db) -> Floor:
    def made(role: str, name: str) -> User:
        return staff_create(username=name, role=role)[0]

    return Floor(pit_boss=made(roles.PIT_BOSS, "petra"),
                 second_pit_boss=made(roles.PIT_BOSS, "paul"),
                 clerk=made(roles.CAGE, "carla"), second_clerk=made(roles.CAGE, "cees"),
                 counter=made(roles.COUNT, "koen"))


def what_moved() -> tuple[Any, ...]:
    """The ledger, every account's balances, the counts' and the rounds' states."""
    return (list(Entry.objects.order_by("pk").values_list("pk", "kind")),
            list(Account.objects.order_by("pk").values_list("pk", "posted", "held")),
            list(DropCount.objects.order_by("pk").values_list("pk", "status")),
            list(Round.objects.order_by("pk").values_list("pk", "state")))


@pytest.mark.parametrize("service", sorted(SCENARIOS))
def test_each_reversing_service_waits_for_a_second_person_under_dual_control(floor, service):
    ask = SCENARIOS[service](floor)
    before = what_moved()

    with override_settings(CASINO_DUAL_CONTROL=True):
        # called alone, by one person: refused, nothing moved
        with pytest.raises(Conflict) as refused:
            ask.call()
        assert refused.value.code == "approval_required", refused.value.message
        assert what_moved() == before

        # asked through the approval path: a pending request, nothing moved
        done = approvals.action_submit(action=ask.action, params=ask.params, by=ask.asker)
        assert done.approval is not None and done.result is None
        assert done.approval.status == approvals.Approval.Status.PENDING
        assert what_moved() == before
        # ...and the service alone is still refused while it waits
        with pytest.raises(Conflict) as again:
            ask.call()
        assert again.value.code == "approval_required"

        # approved by a second person with their own credentials: it reverses, once
        reversals = Entry.objects.filter(kind="reversal").count()
        decided = approvals.approval_decide(approval_id=done.approval.pk, approve=True,
                                            by=ask.approver)
    assert decided.status == approvals.Approval.Status.APPROVED
    assert Entry.objects.filter(kind="reversal").count() > reversals
    reversal = Entry.objects.filter(kind="reversal").order_by("-pk").first()
    assert reversal is not None and reversal.created_by == ask.asker


@pytest.mark.parametrize("service", sorted(SCENARIOS))
def test_without_dual_control_one_person_reverses_as_before(floor, service):
    ask = SCENARIOS[service](floor)
    reversals = Entry.objects.filter(kind="reversal").count()

    ask.call()

    assert Entry.objects.filter(kind="reversal").count() > reversals
    assert not approvals.Approval.objects.exists()
