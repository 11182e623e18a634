"""A pit boss explains a table's day outside its expected band (rounds.variance): the floor's
flag then reads "explained by <who>: <reason>".

The explanation is the pit boss's own, signed in as themselves: ``by`` is the person the
request came from (a session or a token), never a name typed into a form. It is kept as it
was said, with the figures of that moment, and never changed (rounds/migrations/0022).
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from casino.shared.errors import Conflict, NotFound, PermissionRefused, ValidationFailed
from casino.shared.permissions import permission_refused
from rounds.locks import table_lock
from rounds.models import Round, Table, VarianceExplanation
from rounds.variance import (
    Band,
    day_said,
    house_banked_bands,
    min_rounds,
    variance_sentence,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User

EXPLAIN_VARIANCE = "rounds.explain_variance"


def variance_explainer_check(*, by: User | None) -> None:
    """Only a pit boss explains a day outside its band: checked before anything said about
    it is read, so a reader who may not gets 403 whatever they send."""
    if by is None or not by.has_perm(EXPLAIN_VARIANCE):
        raise permission_refused(EXPLAIN_VARIANCE)


def variance_explain_check(*, table_id: int, gaming_day: date, reason: str,
                           by: User | None) -> tuple[Table, str]:
    """What may refuse an explanation before anything is locked: who asks, a reason in
    words, the table, and never a pit boss who dealt the day's rounds there. Returns the
    table and the reason as it will be kept."""
    variance_explainer_check(by=by)
    reason = reason.strip()
    if not reason:
        raise ValidationFailed("Say what explains the table's result.",
                               code="reason_required",
                               detail={"fields": {"reason": ["a reason in words"]}})
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise NotFound(f"There is no table #{table_id}.", detail={"table_id": table_id})
    # Two people close an exception: a pit boss who dealt rounds of the day at the table
    # (opening them with nobody signed in records them as the dealer) does not explain the
    # result of that day, as a drop count's counter does not explain its variance.
    if Round.objects.filter(table=table, gaming_day=gaming_day, dealer=by).exists():
        raise PermissionRefused(
            f"You dealt rounds at {table.name} {day_said(gaming_day)}: its result is "
            "explained by another pit boss.", code="own_rounds",
            detail={"table_id": table.pk, "gaming_day": gaming_day.isoformat()})
    return table, reason


def variance_explanation_write(*, table: Table, gaming_day: date, band: Band, reason: str,
                               by: User) -> VarianceExplanation:
    """Store the explanation of a flagged day. The caller holds the table's row locked
    (rounds.locks.table_lock), so a second pit boss explaining the same day waits and then
    finds it explained."""
    if not band.flagged:
        words = variance_sentence(table_name=table.name, currency=table.currency, band=band,
                                  when=day_said(gaming_day))
        raise Conflict(f"There is nothing to explain: {words}", code="nothing_to_explain",
                       detail={"table_id": table.pk, "gaming_day": gaming_day.isoformat(),
                               "rounds": band.rounds, "min_rounds": min_rounds(),
                               "outside_band": band.outside_band})
    done = (VarianceExplanation.objects.select_related("explained_by")
            .filter(table=table, gaming_day=gaming_day).first())
    if done is not None:
        raise Conflict(f"{table.name}'s result {day_said(gaming_day)} is "
                       f"explained already, by {done.explained_by.username}: {done.reason}",
                       code="variance_explained",
                       detail={"table_id": table.pk, "gaming_day": gaming_day.isoformat(),
                               "explanation": done.pk})
    return VarianceExplanation.objects.create(
        table=table, gaming_day=gaming_day, reason=reason, rounds=band.rounds,
        result=band.result, explained_by=by, explained_at=timezone.now())


def variance_explain(*, table_id: int, gaming_day: date, reason: str,
                     by: User | None) -> VarianceExplanation:
    """Explain a table's day outside its expected band: validate, then, with the table's
    row locked, read the day's band as it stands and store the explanation. 409
    nothing_to_explain when the day is not flagged (within its band, or fewer rounds than
    the check starts at), variance_explained when it is explained already."""
    table, reason = variance_explain_check(table_id=table_id, gaming_day=gaming_day,
                                           reason=reason, by=by)
    assert by is not None
    with transaction.atomic():
        table = table_lock(table.pk)
        band = house_banked_bands(alias="default", gaming_day=gaming_day,
                                  table_ids=[table.pk])[table.pk]
        return variance_explanation_write(table=table, gaming_day=gaming_day, band=band,
                                          reason=reason, by=by)
