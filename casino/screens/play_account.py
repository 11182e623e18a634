"""A player's own pages beside the game: signing in and out, and their account (balance,
limits, self-exclusion, the statement's latest lines). Each view is thin: parse a form,
call one service, render; a refusal is shown in words on the same page. Only a player's
login gets here (casino.shared.guards.player_only); the game screen at /play/ is
rounds.screens.play's.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from casino import exclusions, player_limits, selectors
from casino.models import Player, PlayerLimit
from casino.player_logins import SESSION_STARTED
from casino.shared.errors import DomainError
from casino.shared.forms import AmountField, CurrencyForm, PlayerAuthenticationForm
from casino.shared.gaming_day import gaming_day_of
from casino.shared.guards import player_only
from casino.shared.refusals import refusal_trace_request

TEMPLATES = "play/"
STATEMENT_LINES = 10


# --- signing in and out -----------------------------------------------------------------------

class PlayLoginView(LoginView):
    """The players' sign-in: Django's, with the players' form; the session remembers when it
    began, for the reminder of time played."""

    template_name = TEMPLATES + "login.html"
    authentication_form = PlayerAuthenticationForm
    redirect_authenticated_user = True

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        self.request.session[SESSION_STARTED] = timezone.now().isoformat()
        return response

    def get_default_redirect_url(self) -> str:
        return reverse("console:play-account")


play_login = PlayLoginView.as_view()


@require_POST
@player_only
def play_logout(request: HttpRequest) -> HttpResponse:
    logout(request)
    messages.success(request, "You are signed out.")
    return redirect("console:play-login")


# --- the account page ---------------------------------------------------------------------------

class LimitsForm(CurrencyForm):
    """The player's two limits, in their currency; empty: no limit."""

    wager_per_day = AmountField(required=False, label="Daily wager limit",
                                help_text="The most you wager in a gaming day; empty: none.")
    loss_per_day = AmountField(required=False, label="Daily loss limit",
                               help_text="The most you lose in a gaming day; empty: none.")


class SelfExclusionForm(forms.Form):
    period = forms.ChoiceField(choices=list(exclusions.SELF_PERIOD_WORDS.items()),
                               label="Keep me from play for")
    confirm = forms.BooleanField(
        label="I understand: from now on I cannot play, buy in or deposit, and I cannot lift "
              "it myself. Before its end only the cage can, with a second person's approval.")


def _account(request: HttpRequest, *, limits: LimitsForm | None = None,
             exclude: SelfExclusionForm | None = None, status: int = 200) -> HttpResponse:
    player = selectors.player_get(player_id=request.user.player.pk)  # type: ignore[union-attr]
    states = player_limits.player_limits(player_id=player.pk)
    statement = selectors.player_statement(player_id=player.pk, date_from=None,
                                           date_to=None).statement
    context = {
        "player": player,
        "balance": selectors.player_balance(player),
        "limits": [(PlayerLimit.Kind(kind).label, states[kind]) for kind in states],
        "played": player_limits.player_played_day(player=player,
                                                  gaming_day=gaming_day_of()),
        "limits_form": limits or _limits_form(player, states),
        "exclude_form": exclude or SelfExclusionForm(prefix="exclude"),
        "exclusion": exclusions.player_exclusion_on(player_id=player.pk),
        "lines": list(reversed(statement.lines[-STATEMENT_LINES:])),
        "raise_hours": player_limits.raise_wait().total_seconds() // 3600,
    }
    return render(request, TEMPLATES + "account.html", context, status=status)


def _limits_form(player: Player, states: dict[str, player_limits.LimitState],
                 data: Any = None) -> LimitsForm:
    # The amounts in force, so that only what the player changes is sent to the service: a
    # field left as it was changes nothing (a pending raise stays pending).
    return LimitsForm(data, currency=player.currency, prefix="limits",
                      initial={kind: state.amount for kind, state in states.items()})


@require_GET
@player_only
def play_account(request: HttpRequest) -> HttpResponse:
    return _account(request)


@require_POST
@player_only
def play_limits(request: HttpRequest) -> HttpResponse:
    player = selectors.player_get(player_id=request.user.player.pk)  # type: ignore[union-attr]
    form = _limits_form(player, player_limits.player_limits(player_id=player.pk), request.POST)
    if not form.is_valid():
        return _account(request, limits=form, status=400)
    changes = {kind: form.cleaned_data[kind] for kind in form.changed_data}
    try:
        player_limits.player_limits_set(player_id=player.pk, changes=changes,
                                        by=request.user)  # type: ignore[arg-type]
    except DomainError as exc:
        form.add_error(None, exc.message)
        refusal_trace_request(request, exc, action="player_limits_set")
        return _account(request, limits=form, status=exc.status)
    messages.success(request, "Your limits are saved." if changes else "Nothing changed.")
    return redirect("console:play-account")


@require_POST
@player_only
def play_exclude(request: HttpRequest) -> HttpResponse:
    form = SelfExclusionForm(request.POST, prefix="exclude")
    if not form.is_valid():
        return _account(request, exclude=form, status=400)
    try:
        exclusion = exclusions.exclusion_self_record(
            player_id=request.user.player.pk,  # type: ignore[union-attr]
            period=form.cleaned_data["period"], by=request.user)  # type: ignore[arg-type]
    except DomainError as exc:
        form.add_error(None, exc.message)
        refusal_trace_request(request, exc, action="exclusion.self_record")
        return _account(request, exclude=form, status=exc.status)
    words = exclusions.exclusion_words(exclusion).removeprefix("is ")
    messages.success(request, f"You are {words}. Take care.")
    return redirect("console:play-account")
