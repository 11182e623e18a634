"""Dual control: an operation one person asks for takes effect when a second approves it.

Each app registers the operations that may need a second person (``action_register``): who
may ask, who may approve, when approval is needed, and the service that does the work. A
view (or admin action) calls ``action_submit``: when the operation needs no approval it runs
at once; otherwise an ``Approval`` is filed, pending, and nothing else changes.
``approval_decide`` by a different person holding the approving permission runs the
service inside the same transaction as the decision, as the person who asked (the ledger
records who asked; the approval records who allowed it), so the decision and its effect
commit together or not at all. A refused run (the state changed meanwhile) leaves the
approval pending; the approver may reject it.

The approval reaches the service as an explicit argument (``approved_by``), and the service
checks it (``approval_required_check``): without one, an operation that needs a second
person is refused, whoever calls. Approving checks the asker again: a request whose asker was
deactivated, or lost the right to ask, does not run (409 ``asker_not_allowed``; it stays
pending, to be rejected). While a request is pending, the step it waits for is refused to
everyone else (409 ``approval_pending``): one request per thing concerned (a round, an entry,
a player's cage movements), decided before anything else happens to it.

Which operations need approval:
- every reversal of a ledger entry, when ``CASINO_DUAL_CONTROL`` is on (off by default): a
  plain ledger reversal, a cage correction, a buy-in's correction, a drop count's
  correction, a round's reversal. Each asks for its own request, and the ledger's
  ``entry_reverse`` refuses a reversal that carries none (``approval_carried_check``), so a
  flow that forgot to ask cannot reverse on one person's word;
- results-only settlements, when ``CASINO_DUAL_CONTROL`` is on;
- a cage deposit, withdrawal or correction that brings what the cage credited to the player
  (or debited from them) in the gaming day above ``CASINO_CAGE_APPROVAL_ABOVE`` (always;
  casino.services), and a withdrawal that draws on the player's buy-ins of the day at a
  table whose box is not counted yet;
- a buy-in that brings the player's buy-ins at one table in the gaming day above
  ``CASINO_BUY_IN_APPROVAL_ABOVE`` (always; rounds.services.drop).

A movement measured against a line (``Action.queues``) waits alone: another one within
the line goes through beside it, and another past the line waits as a request of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import F, Q
from django.utils import timezone

from casino.shared.errors import Conflict, NotFound, PermissionRefused
from casino.shared.permissions import permission_refused

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class Approval(models.Model):
    """One request for an operation that waits for a second person's decision."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"

    action = models.CharField(max_length=60)
    params = models.JSONField(help_text="The service's arguments, as asked.")
    summary = models.CharField(max_length=300, help_text="What was asked, in words.")
    ref = models.CharField(max_length=100, blank=True, default="",
                           help_text='What it concerns: "entry:12", "round:4", "player:3".')
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                     related_name="+")
    requested_at = models.DateTimeField(default=timezone.now)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.PROTECT, related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True, default="", help_text="The decider's note.")
    result_ref = models.CharField(max_length=100, blank=True, default="",
                                  help_text='What approving made: "entry:13", "round:4".')

    class Meta:
        app_label = "casino"
        ordering = ["-id"]
        indexes = [models.Index(fields=["status", "action"])]
        permissions = [
            ("approve_results", "Can approve a results-only settlement"),
            ("approve_cage_movement", "Can approve a cage movement above the cap"),
            ("approve_buy_in", "Can approve a buy-in above the buy-in line"),
            # Oversight (pit bosses, auditors): every request, not only one's own.
            ("view_all_approvals", "Can view every request and its decision"),
        ]
        constraints = [
            # Dual control means two people; PostgreSQL holds it whatever the code does.
            models.CheckConstraint(
                condition=Q(decided_by__isnull=True) | ~Q(decided_by=F("requested_by")),
                name="approval_decided_by_another_person"),
            models.CheckConstraint(
                condition=(Q(status="pending", decided_by__isnull=True, decided_at__isnull=True)
                           | (Q(status__in=["approved", "rejected"], decided_by__isnull=False,
                                decided_at__isnull=False))),
                name="approval_decided_with_who_and_when"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.action} ({self.status})"


@dataclass(frozen=True)
class Action:
    """An operation that may wait for a second person."""

    name: str
    ask_permission: str
    approve_permission: str
    needs_approval: Callable[[Mapping[str, Any]], bool]
    # Runs the service as ``by`` (the person who asked), handing it the approval it carries
    # out (None when no approval is needed); returns what it made or changed.
    run: Callable[[Mapping[str, Any], User, Approval | None], Any]
    result_ref: Callable[[Any], str]
    summary: Callable[[Mapping[str, Any]], str]
    ref: Callable[[Mapping[str, Any]], str]
    # Refuses, before anything is filed, a request that could never be carried out.
    check: Callable[[Mapping[str, Any], User], None] | None = None
    # Who approves this request, when it depends on what is asked (a correction above the
    # cage's cap: a pit boss, not a second clerk); None: always ``approve_permission``.
    approve_permission_for: Callable[[Mapping[str, Any]], str] | None = None
    # The parameters as an edge shows them: amounts in the currency's unit ("10000.01"),
    # never the minor units the service takes; None: as asked.
    shown: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    # A movement measured against a line by itself (the cage's deposits and withdrawals, a
    # buy-in): one waiting for a pit boss blocks only what would pass the line again. Such
    # a call within the line goes through beside it (a payout from money already there),
    # and one past it is filed as a request of its own, decided on its own. False: one
    # request per thing concerned, which every other step on it waits for.
    queues: bool = False

    def approver_permission(self, params: Mapping[str, Any]) -> str:
        if self.approve_permission_for is not None:
            return self.approve_permission_for(params)
        return self.approve_permission


ACTIONS: dict[str, Action] = {}


def approval_params_shown(approval: Approval) -> dict[str, Any]:
    """What was asked, as the API and the screens show it (Action.shown)."""
    spec = ACTIONS.get(approval.action)
    if spec is not None and spec.shown is not None:
        return spec.shown(approval.params)
    return dict(approval.params)


def action_register(action: Action) -> None:
    ACTIONS[action.name] = action


def approval_required_check(*, action: str, params: Mapping[str, Any], by: User | None,
                            approved_by: Approval | None) -> None:
    """Called by the services themselves, so no screen, command or future caller can move
    money around dual control or the cage's cap by calling the service directly.

    ``approved_by``: the approval this call carries out, handed over explicitly by
    ``approval_decide`` (never read from the surroundings, so nothing else running at the
    same time can borrow it). Without one the service refuses (409 ``approval_required``)
    an operation that needs a second person, and any step on what a pending request
    concerns (409 ``approval_pending``): that request is decided first. With one, it must
    be this very operation, as asked, decided now by another person allowed to approve it,
    for someone still allowed to ask for it (``approval_run_check``)."""
    spec = _action(action)
    if approved_by is not None:
        approval_run_check(approval=approved_by, spec=spec, params=params, by=by)
        return
    if spec.needs_approval(params):
        raise Conflict(f"{spec.summary(params)} needs a second person's approval: ask for it "
                       "and a colleague with the right decides.", code="approval_required",
                       detail={"action": action})
    if not spec.queues:
        approval_pending_check(ref=spec.ref(params))


def approval_carried_check(*, approved_by: Approval | None, by: User | None,
                           what: str) -> None:
    """For a step that an operation with its own request takes inside it: the ledger's
    reversal of an entry a flow owns (a cage correction, a buy-in's or a drop count's
    correction, a round's reversal). The operation checked its request already
    (approval_required_check, its own action and arguments); this refuses the step to any
    caller that carries none, so no flow, present or future, reverses an entry on one
    person's word while dual control is on.

    Without ``approved_by``: refused (409 ``approval_required``) under dual control, let
    through otherwise. With one: it must be a request being carried out now (still pending
    in the database, approval_decide holding it), for ``by``, who asked, decided by another
    person allowed to approve it (approval_run_check, on the request's own action)."""
    if approved_by is None:
        if dual_control():
            raise Conflict(f"{what} needs a second person's approval: ask for it and a "
                           "colleague with the right decides.", code="approval_required",
                           detail={"action": "ledger.entry_reverse"})
        return
    spec = _action(approved_by.action)
    approval_run_check(approval=approved_by, spec=spec, params=approved_by.params, by=by)


def approval_pending_check(*, ref: str) -> None:
    """Refuses (409 ``approval_pending``) a step on what a pending request concerns (a
    round, a player's cage movements, an entry), unless the step carries out that request
    (approval_required_check): the step it waits for is not taken around it. The request
    is approved or rejected first."""
    pending = (Approval.objects.filter(ref=ref, status=Approval.Status.PENDING)
               .select_related("requested_by").order_by("id").first())
    if pending is not None:
        raise Conflict(f"Request #{pending.pk} ({pending.summary}), asked by "
                       f"{pending.requested_by.get_username()}, waits for a decision: it is "
                       "approved or rejected first.", code="approval_pending",
                       detail={"approval_id": pending.pk, "ref": ref,
                               "action": pending.action})


def approval_asker_check(*, approval: Approval, spec: Action) -> None:
    """The person who asked is still active and still holds the right to ask: a request
    outlives neither (409 ``asker_not_allowed``; the request stays pending, to be
    rejected)."""
    asker = approval.requested_by
    if asker.is_active and asker.has_perm(spec.ask_permission):
        return
    why = ("is no longer active" if not asker.is_active
           else f"no longer holds the {spec.ask_permission} permission")
    raise Conflict(f"Request #{approval.pk} cannot run: {asker.get_username()}, who asked for "
                   f"it, {why}. Reject it; someone allowed to ask may ask again.",
                   code="asker_not_allowed",
                   detail={"approval_id": approval.pk, "requested_by": asker.get_username(),
                           "reason": "inactive" if not asker.is_active else "permission"})


def approval_run_check(*, approval: Approval, spec: Action, params: Mapping[str, Any],
                       by: User | None) -> None:
    """``approval`` allows this call: the same operation with the same arguments, run as
    the person who asked, decided by another person who may approve it, and still pending
    in the database (approval_decide holds its row locked and records the decision after
    the operation ran), so an approval carries out one operation, once."""
    asked = approval.params
    if (approval.action != spec.name or any(asked.get(k) != v for k, v in params.items())
            or by is None or approval.requested_by_id != by.pk):
        raise Conflict(f"Request #{approval.pk} approved another operation than this one.",
                       code="approval_mismatch",
                       detail={"approval_id": approval.pk, "action": spec.name})
    decider = approval.decided_by
    if (decider is None or decider.pk == approval.requested_by_id
            or not decider.has_perm(spec.approver_permission(approval.params))):
        raise Conflict(f"Request #{approval.pk} is not approved by a second person allowed "
                       "to approve it.", code="approval_required",
                       detail={"action": spec.name, "approval_id": approval.pk})
    if not Approval.objects.filter(pk=approval.pk, action=spec.name,
                                   status=Approval.Status.PENDING).exists():
        raise Conflict(f"Request #{approval.pk} was already decided.", code="approval_decided",
                       detail={"approval_id": approval.pk})
    approval_asker_check(approval=approval, spec=spec)


def dual_control() -> bool:
    return bool(getattr(settings, "CASINO_DUAL_CONTROL", False))


def _action(name: str) -> Action:
    try:
        return ACTIONS[name]
    except KeyError:
        raise NotFound(f"No such operation: {name!r}.", detail={"action": name}) from None


@dataclass(frozen=True)
class Submitted:
    """What ``action_submit`` did: ran the operation (``result``) or filed ``approval``."""

    result: Any = None
    approval: Approval | None = None


def action_submit(*, action: str, params: Mapping[str, Any], by: User) -> Submitted:
    """Run the operation now, or file it for a second person when it needs one."""
    spec = _action(action)
    if not spec.needs_approval(params):
        try:
            return Submitted(result=spec.run(params, by, None))
        except Conflict as exc:
            # The service decides again under its locks (another movement of the same
            # player's day may have come in between): then it waits for a second person.
            if exc.code != "approval_required" or exc.detail.get("action") != action:
                raise
    return Submitted(approval=approval_request(action=action, params=params, by=by))


def approval_request(*, action: str, params: Mapping[str, Any], by: User) -> Approval:
    """File a pending request; nothing else changes until a second person approves it."""
    spec = _action(action)
    if by is None or not by.has_perm(spec.ask_permission):
        raise permission_refused(spec.ask_permission)
    if spec.check is not None:
        spec.check(params, by)
    ref = spec.ref(params)
    with transaction.atomic():
        # One pending request per thing concerned (an entry, a round, a player's cage
        # movements): two asked at once, the second waits on this lock until the first
        # commits, then finds it pending.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))",
                           [f"casino.approval:{ref}"])
        if not spec.queues:
            approval_pending_check(ref=ref)
        return Approval.objects.create(action=action, params=dict(params),
                                       summary=spec.summary(params)[:300], ref=ref,
                                       requested_by=by)


def approval_check(*, approval: Approval, by: User) -> Action:
    """The decider is a different person with the permission, and it is still pending."""
    spec = _action(approval.action)
    if approval.requested_by_id == by.pk:
        raise PermissionRefused("A request is decided by a second person, not by the one "
                                "who asked.", code="own_request",
                                detail={"approval_id": approval.pk})
    permission = spec.approver_permission(approval.params)
    if not by.has_perm(permission):
        refused = permission_refused(permission)
        raise PermissionRefused(f"{refused.message[:-1]}, so it does not decide this request.",
                                detail={**refused.detail, "approval_id": approval.pk})
    if approval.status != Approval.Status.PENDING:
        raise Conflict(f"Request #{approval.pk} was already {approval.status}.",
                       code="approval_decided",
                       detail={"approval_id": approval.pk, "status": approval.status})
    return spec


def approval_decide(*, approval_id: int, approve: bool, by: User, note: str = "") -> Approval:
    """Approve (run the operation, in this transaction) or reject a pending request.

    Locks the approval row first, so two deciders queue and the second finds it decided;
    the operation then takes its own locks in its own order (no other path locks an
    approval after money rows).
    """
    with transaction.atomic():
        approval = (Approval.objects.select_for_update().select_related("requested_by")
                    .filter(pk=approval_id).first())
        if approval is None:
            raise NotFound(f"There is no request #{approval_id}.",
                           detail={"approval_id": approval_id})
        spec = approval_check(approval=approval, by=by)
        approval.decided_by = by
        approval.decided_at = timezone.now()
        if approve:
            # Before anything runs: a request outlives neither its asker's account nor
            # their right to ask (it stays pending; the approver may reject it).
            approval_asker_check(approval=approval, spec=spec)
            # The approval itself goes to the service, which checks it
            # (approval_required_check): nothing ambient lets the operation through.
            result = spec.run(approval.params, approval.requested_by, approval)
            approval.result_ref = spec.result_ref(result)
        approval.status = Approval.Status.APPROVED if approve else Approval.Status.REJECTED
        approval.note = note.strip()
        approval.save(update_fields=["status", "decided_by", "decided_at", "note",
                                     "result_ref"])
        return approval


VIEW_ALL = "casino.view_all_approvals"


def approval_may_decide(*, approval: Approval, by: User) -> bool:
    """Whether ``by`` may decide this request (a screen offers the buttons only then;
    approval_decide checks again)."""
    spec = ACTIONS.get(approval.action)
    return (spec is not None and approval.status == Approval.Status.PENDING
            and approval.requested_by_id != by.pk
            and by.has_perm(spec.approver_permission(approval.params)))


def approval_list(*, user: User, status: str | None = None) -> models.QuerySet[Approval]:
    """The requests ``user`` asked for or may decide (every one, for oversight), newest
    first."""
    if user.has_perm(VIEW_ALL):
        approvals = Approval.objects.all()
    else:
        decidable = [name for name, spec in ACTIONS.items()
                     if user.has_perm(spec.approve_permission)]
        approvals = Approval.objects.filter(Q(requested_by=user) | Q(action__in=decidable))
    if status:
        approvals = approvals.filter(status=status)
    return approvals.select_related("requested_by", "decided_by").order_by("-id")


def approvals_pending(*, ref: str) -> list[Approval]:
    """The requests about ``ref`` ("round:4", "player:3") waiting for a decision, oldest
    first: the screens show them where the step they wait for would be taken."""
    return list(Approval.objects.filter(ref=ref, status=Approval.Status.PENDING)
                .select_related("requested_by").order_by("id"))


def approvals_approved_since(*, ref: str, since: Any) -> list[Approval]:
    """The requests about ``ref`` approved since ``since``, newest first: a screen links each
    to what it made (the receipt of a movement approved while the person waited)."""
    return list(Approval.objects.filter(ref=ref, status=Approval.Status.APPROVED,
                                        decided_at__gte=since)
                .select_related("requested_by", "decided_by").order_by("-id"))


def approvals_pending_under(*, prefix: str, action: str) -> list[Approval]:
    """The pending requests of ``action`` whose ref starts with ``prefix`` ("table:1:": a
    table's buy-ins waiting, whoever they are for), oldest first."""
    return list(Approval.objects.filter(ref__startswith=prefix, action=action,
                                        status=Approval.Status.PENDING)
                .select_related("requested_by").order_by("id"))


def approval_get(*, approval_id: int, user: User) -> Approval:
    approval = approval_list(user=user).filter(pk=approval_id).first()
    if approval is None:
        raise NotFound(f"There is no request #{approval_id}.",
                       detail={"approval_id": approval_id})
    return approval
