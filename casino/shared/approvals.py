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

Which operations need approval:
- reversals (ledger entries, cage corrections, rounds) and results-only settlements, when
  ``CASINO_DUAL_CONTROL`` is on (off by default);
- a cage deposit or withdrawal above ``CASINO_CAGE_APPROVAL_ABOVE`` (always).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
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
    # Runs the service as ``by`` (the person who asked); returns what it made or changed.
    run: Callable[[Mapping[str, Any], User], Any]
    result_ref: Callable[[Any], str]
    summary: Callable[[Mapping[str, Any]], str]
    ref: Callable[[Mapping[str, Any]], str]
    # Refuses, before anything is filed, a request that could never be carried out.
    check: Callable[[Mapping[str, Any], User], None] | None = None
    # One pending request per thing concerned (a reversal), or any number (deposits).
    one_pending_per_ref: bool = True


ACTIONS: dict[str, Action] = {}


def action_register(action: Action) -> None:
    ACTIONS[action.name] = action


# The operation action_submit or approval_decide is running right now: the services that may
# need a second person (approval_required_check) let exactly that one through. A context
# variable, so one thread's approval never lets another thread's call pass.
_RUNNING: ContextVar[str | None] = ContextVar("casino_approved_action", default=None)


@contextmanager
def _running(action: str) -> Iterator[None]:
    token = _RUNNING.set(action)
    try:
        yield
    finally:
        _RUNNING.reset(token)


def approval_required_check(*, action: str, params: Mapping[str, Any]) -> None:
    """Called by the services themselves, so no screen, command or future caller can move
    money around dual control or the cage's cap by calling the service directly: refuses
    (409 ``approval_required``) when the operation needs a second person and this call did
    not come through ``action_submit`` or an approved ``approval_decide``."""
    if _RUNNING.get() == action:
        return
    spec = _action(action)
    if spec.needs_approval(params):
        raise Conflict(f"{spec.summary(params)} needs a second person's approval: ask for it "
                       "and a colleague with the right decides.", code="approval_required",
                       detail={"action": action})


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
    if spec.needs_approval(params):
        return Submitted(approval=approval_request(action=action, params=params, by=by))
    with _running(action):
        return Submitted(result=spec.run(params, by))


def approval_request(*, action: str, params: Mapping[str, Any], by: User) -> Approval:
    """File a pending request; nothing else changes until a second person approves it."""
    spec = _action(action)
    if by is None or not by.has_perm(spec.ask_permission):
        raise permission_refused(spec.ask_permission)
    if spec.check is not None:
        spec.check(params, by)
    ref = spec.ref(params)
    with transaction.atomic():
        if spec.one_pending_per_ref:
            # Two requests for the same entry or round at once: the second waits on this
            # lock until the first commits, then finds it pending.
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))",
                               [f"casino.approval:{action}:{ref}"])
            pending = Approval.objects.filter(action=action, ref=ref,
                                              status=Approval.Status.PENDING).first()
            if pending is not None:
                raise Conflict(f"Request #{pending.pk} for {ref} already waits for a "
                               "decision.", code="approval_pending",
                               detail={"approval_id": pending.pk, "ref": ref})
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
    if not by.has_perm(spec.approve_permission):
        refused = permission_refused(spec.approve_permission)
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
        if approve:
            with _running(approval.action):
                result = spec.run(approval.params, approval.requested_by)
            approval.result_ref = spec.result_ref(result)
        approval.status = Approval.Status.APPROVED if approve else Approval.Status.REJECTED
        approval.decided_by = by
        approval.decided_at = timezone.now()
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
            and approval.requested_by_id != by.pk and by.has_perm(spec.approve_permission))


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


def approval_get(*, approval_id: int, user: User) -> Approval:
    approval = approval_list(user=user).filter(pk=approval_id).first()
    if approval is None:
        raise NotFound(f"There is no request #{approval_id}.",
                       detail={"approval_id": approval_id})
    return approval
