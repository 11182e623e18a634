"""The exclusions' screens: the list (current or all, by kind), recording one (from the list
or from the cage's player page) and lifting one. Each view parses its form, calls one
service and shows its refusal in words; lifting a self-exclusion before its end goes
through the one approval path (casino.shared.approvals) and waits for a second person."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from casino import exclusions
from casino.models import Exclusion, Player
from casino.shared import approvals
from casino.shared.errors import DomainError
from casino.shared.gaming_day import gaming_day_of
from casino.shared.guards import staff_may, staff_user
from casino.shared.refusals import refusal_trace_request

TEMPLATES = "casino/screens/exclusions/"


class ExclusionForm(forms.Form):
    player = forms.IntegerField(min_value=1, label="Player number",
                                help_text="The number on the cage's player page (#12).")
    kind = forms.ChoiceField(choices=[("self", "Self-excluded: the player asked"),
                                      ("barred", "Barred: the casino decided")],
                             widget=forms.RadioSelect, initial="self", label="Kind")
    until = forms.DateField(required=False, label="Until (inclusive)",
                            widget=forms.DateInput(attrs={"type": "date"}),
                            help_text="The last gaming day it covers; empty: for good.")
    reason = forms.CharField(max_length=2000, label="Reason",
                             widget=forms.Textarea(attrs={"rows": 2}))


class LiftForm(forms.Form):
    reason = forms.CharField(max_length=2000, label="Why it is lifted")


def exclusions_shown(found: Any, user: Any) -> list[dict[str, Any]]:
    """Each exclusion as a screen shows it: in words, where it stands, whether this person
    may lift it, and a lift waiting for a second person."""
    rows = []
    for e in found:
        state = exclusions.exclusion_state(e)
        permission = (exclusions.LIFT_BARRING if e.kind == Exclusion.Kind.BARRED
                      else exclusions.LIFT_SELF)
        rows.append({
            "exclusion": e, "state": state, "state_words": exclusions.STATE_WORDS[state],
            # Beside the player's name (the list) or under it (their page): "Self-excluded
            # until 2027-06-01".
            "words": exclusions.exclusion_words(e).removeprefix("is ").capitalize(),
            "pending": approvals.approvals_pending(ref=f"exclusion:{e.pk}"),
            "may_lift": state != "lifted" and user.has_perm(permission),
            "needs_second": exclusions.exclusion_lift_needs_approval(e),
        })
    return rows


def player_exclusions_context(request: HttpRequest, player: Player) -> dict[str, Any]:
    """What the cage's player page shows of the player's exclusions."""
    if not request.user.has_perm("casino.view_exclusion"):
        return {}
    now = exclusions.player_exclusion_on(player_id=player.pk)
    return {
        "exclusion_rows": exclusions_shown(
            exclusions.exclusion_list(current=False, player_id=player.pk), request.user),
        "excluded_now": (f"{player.name} {exclusions.exclusion_words(now)}: no seat, wager, "
                         "buy-in, deposit or bank until it ends or is lifted."
                         if now is not None else ""),
        "exclusion_form": ExclusionForm(initial={"player": player.pk}, prefix="exclusion"),
        "may_exclude": request.user.has_perm(exclusions.RECORD),
    }


@require_GET
@staff_may("casino.view_exclusion")
def exclusion_list(request: HttpRequest) -> HttpResponse:
    return _list(request)


def _list(request: HttpRequest, *, form: ExclusionForm | None = None,
          status: int = 200) -> HttpResponse:
    show = request.GET.get("status", "current")
    kind = request.GET.get("kind", "")
    if show not in ("current", "all"):
        show = "current"
    if kind not in ("", *Exclusion.Kind.values):
        kind = ""
    found = exclusions.exclusion_list(current=show == "current", kind=kind)
    return render(request, TEMPLATES + "list.html", {
        "rows": exclusions_shown(found, request.user), "show": show, "kind": kind,
        "form": form or ExclusionForm(prefix="exclusion"),
        "may_exclude": request.user.has_perm(exclusions.RECORD),
        "today": gaming_day_of(),
    }, status=status)


def _back(request: HttpRequest, player_id: int | None) -> HttpResponse:
    """Back where the form was: the player's page, or the list."""
    if request.POST.get("from") == "player" and player_id:
        return redirect("console:cage:player", player_id=player_id)
    return redirect(reverse("console:exclusions"))


@require_POST
@staff_may(exclusions.RECORD)
def exclusion_record(request: HttpRequest) -> HttpResponse:
    form = ExclusionForm(request.POST, prefix="exclusion")
    from_player = request.POST.get("from") == "player"
    if not form.is_valid():
        if from_player and form["player"].value():
            for errors in form.errors.values():
                for error in errors:
                    messages.error(request, f"The exclusion was not recorded: {error}")
            return redirect("console:cage:player", player_id=form["player"].value())
        return _list(request, form=form, status=400)
    data = form.cleaned_data
    try:
        exclusion = exclusions.exclusion_record(
            player_id=data["player"], kind=data["kind"], until=data["until"],
            reason=data["reason"], by=staff_user(request))
    except DomainError as exc:
        refusal_trace_request(request, exc, action="exclusion.record")
        if from_player:
            messages.error(request, f"The exclusion was not recorded: {exc.message}")
            return redirect("console:cage:player", player_id=data["player"])
        form.add_error(None, exc.message)
        return _list(request, form=form, status=exc.status)
    messages.success(request, f"Recorded: {exclusion.player.name} "
                              f"{exclusions.exclusion_words(exclusion)}. Seats, wagers, "
                              "buy-ins, deposits and the bank are refused to them.")
    return _back(request, exclusion.player_id)


@require_POST
@staff_may(exclusions.LIFT_SELF)
def exclusion_lift(request: HttpRequest, exclusion_id: int) -> HttpResponse:
    form = LiftForm(request.POST)
    player_id = None
    try:
        exclusion = exclusions.exclusion_lift_allowed(exclusion_id=exclusion_id,
                                                      by=staff_user(request))
        player_id = exclusion.player_id
        if not form.is_valid():
            messages.error(request, "Nothing was lifted: say why it is lifted.")
            return _back(request, player_id)
        done = approvals.action_submit(
            action=exclusions.LIFT,
            params={"exclusion_id": exclusion_id, "reason": form.cleaned_data["reason"]},
            by=staff_user(request))
    except DomainError as exc:
        refusal_trace_request(request, exc, action=exclusions.LIFT)
        messages.error(request, f"Nothing was lifted: {exc.message}")
        return _back(request, player_id)
    if done.approval is not None:
        messages.warning(request, f"{done.approval.summary}: lifting a self-exclusion before "
                                  "its end needs a second person, another pit boss or the "
                                  f"cage (request #{done.approval.pk}). Until then it holds.")
    else:
        messages.success(request, f"Exclusion #{exclusion.pk} of {exclusion.player.name} is "
                                  "lifted.")
    return _back(request, player_id)
