"""The cage's screens: find or create a player, deposit, withdraw, print the receipt, read
the statement (its CSV is the statement report's, made by reports.screens.statement_csv).
Each view parses its form, calls one service or selector and renders; a refusal is shown in
words on the same screen and changes nothing."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from casino import cash, player_logins, selectors, services
from casino.models import Player
from casino.screens.approvals import result_link
from casino.screens.exclusions import player_exclusions_context
from casino.screens.forms import (
    IdentityForm,
    MovementForm,
    PlayerForm,
    PlayerLoginForm,
    StatementForm,
)
from casino.shared import approvals
from casino.shared.errors import DomainError, NotFound
from casino.shared.gaming_day import gaming_day_of, gaming_day_start, gaming_days_bounds
from casino.shared.guards import staff_may
from casino.shared.idempotency import form_once_claim, form_once_done, form_once_token
from casino.shared.refusals import refusal_trace_request
from casino.shared.templatetags.money import money_said
from ledger.selectors import Statement, account_find, account_statement

TEMPLATES = "casino/screens/cage/"


def _where() -> dict[str, str]:
    """The casino's zone and gaming-day start, named beside the times a screen shows."""
    return {"zone": settings.TIME_ZONE, "day_start": f"{settings.GAMING_DAY_START_HOUR:02d}:00"}


def _player(player_id: int) -> Player:
    try:
        return selectors.player_get(player_id=player_id)
    except NotFound as exc:
        raise Http404(exc.message) from None


def refusal_text(exc: DomainError, player: Player) -> str:
    """A service's refusal as the cashier should read it."""
    if exc.code == "insufficient_funds":
        cur = exc.detail["currency"]
        return (f"{player.name} has {money_said(exc.detail['available'], cur)} available; "
                f"this needs {money_said(exc.detail['required'], cur)}.")
    return exc.message


# --- finding and creating players ----------------------------------------------------------

@require_GET
@staff_may("casino.view_player")
def cage_find(request: HttpRequest) -> HttpResponse:
    search = request.GET.get("q", "").strip()
    players = list(selectors.player_find(search=search)[:50]) if search else []
    context = {"search": search, "players": players,
               "namesakes": any(p.has_namesake for p in players)}  # type: ignore[attr-defined]
    template = TEMPLATES + "find.html"
    if request.htmx:  # type: ignore[attr-defined]  # django-htmx's middleware sets it
        template += "#results"
    return render(request, template, context)


@staff_may("casino.add_player")
def player_new(request: HttpRequest) -> HttpResponse:
    """Register a player. A name already on file is not registered at once: the cashier
    sees those players (id, date of birth, document) and ticks that this is a different
    person, or opens the existing player instead."""
    form = PlayerForm(request.POST or None)
    namesakes: list[Player] = []
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            player = services.player_create(
                name=form.cleaned_data["name"], currency=form.cleaned_data["currency"],
                identity=form.identity(), namesakes_seen=form.cleaned_data["namesakes_seen"],
                kind=form.cleaned_data["kind"], licence=form.cleaned_data["licence"],
                by=request.user)  # type: ignore[arg-type]
        except services.Namesake as exc:
            namesakes = selectors.player_namesakes(name=form.cleaned_data["name"])
            status = exc.status
        except DomainError as exc:
            form.add_error(None, exc.message)
            refusal_trace_request(request, exc, action="player_create")
        else:
            messages.success(request, f"{player.name} is registered as player #{player.pk}.")
            return redirect("console:cage:player", player_id=player.pk)
    if form.errors:
        status = 400
    return render(request, TEMPLATES + "player_new.html",
                  {"form": form, "namesakes": namesakes}, status=status)


# --- one player: balance, deposit, withdrawal ----------------------------------------------

def _player_page(request: HttpRequest, player: Player, *, deposit: MovementForm | None = None,
                 withdraw: MovementForm | None = None, identity: IdentityForm | None = None,
                 login: PlayerLoginForm | None = None, status: int = 200) -> HttpResponse:
    context = {
        "player": player,
        # The cash rules (casino.cash): who the player is on file, and today's cash in and
        # out against the lines, so the clerk sees a refusal coming.
        "cash": cash.cash_day(player=player),
        "id_line": cash.IDENTITY_LINE.amount(player.currency),
        "identity": identity or IdentityForm(prefix="identity"),
        "may_identify": request.user.has_perm("casino.change_player"),
        # The player's own login (casino.player_logins): given, or its password reset.
        "login": login or PlayerLoginForm(
            prefix="login", initial={"username": player.user.get_username()
                                     if player.user else ""}),
        "balance": selectors.player_balance(player),
        "deposit": deposit or MovementForm(currency=player.currency, prefix="deposit"),
        "withdraw": withdraw or MovementForm(currency=player.currency, prefix="withdraw"),
        # A fresh token per form shown: the same form sent twice moves the money once.
        "once_deposit": form_once_token(), "once_withdraw": form_once_token(),
        "may_deposit": request.user.has_perm("casino.deposit_funds"),
        "may_withdraw": request.user.has_perm("casino.withdraw_funds"),
        # The player's gaming day at the cage against the cap, and what waits for a pit
        # boss: the clerk sees why a movement will wait before typing it.
        "day": services.cage_day_totals(player=player),
        "cap": services.cage_cap(player.currency),
        "pending": approvals.approvals_pending(ref=selectors.player_account_ref(player.pk)),
        # Today's movements a pit boss approved, each with its receipt one click away.
        "approved": [{"approval": a, "result": result_link(a)}
                     for a in approvals.approvals_approved_since(
                         ref=selectors.player_account_ref(player.pk),
                         since=gaming_day_start(gaming_day_of()))],
        # Today's buy-ins at tables not counted yet: paid out only with a pit boss's approval.
        "uncounted": services.player_uncounted(player=player),
        # Self-excluded or barred: shown, recorded and lifted here too.
        **player_exclusions_context(request, player),
    }
    return render(request, TEMPLATES + "player.html", context, status=status)


@require_GET
@staff_may("casino.view_player")
def player_page(request: HttpRequest, player_id: int) -> HttpResponse:
    return _player_page(request, _player(player_id))


def _movement(request: HttpRequest, player_id: int, *, kind: str) -> HttpResponse:
    player = _player(player_id)
    form = MovementForm(request.POST, currency=player.currency, prefix=kind)
    forms: dict[str, Any] = {kind: form}
    if not form.is_valid():
        return _player_page(request, player, **forms, status=400)
    # Through casino.shared.approvals: above the cage's cap the movement waits for a pit boss and
    # moves nothing until then (the service refuses it otherwise).
    action = "cage.deposit" if kind == "deposit" else "cage.withdrawal"
    params = {"player_id": player.pk, "amount_minor": form.cleaned_data["amount"],
              "reference": form.cleaned_data["reference"]}
    try:
        with transaction.atomic():
            # A double click, or the browser sending the form again, carries the same token:
            # the second waits on the first's key, then is shown what the first did.
            first = form_once_claim(request, params)
            if first is not None:
                return redirect(first or reverse("console:cage:player", args=[player.pk]))
            done = approvals.action_submit(action=action, params=params,
                                           by=request.user)  # type: ignore[arg-type]
            target = (reverse("console:cage:player", args=[player.pk])
                      if done.approval is not None
                      else reverse("console:cage:receipt", args=[done.result.pk]))
            form_once_done(request, target)
    except DomainError as exc:
        form.add_error(None, refusal_text(exc, player))
        # Noted for after the request: the movement's transaction has rolled back.
        refusal_trace_request(request, exc, action=action)
        return _player_page(request, player, **forms, status=exc.status)
    if done.approval is not None:
        # The request's own sentence says why it waits (the day's total against the line,
        # or buy-ins not counted yet): casino.services._cage_move_summary.
        messages.warning(request, f"{done.approval.summary}. It waits for a pit boss's "
                                  f"approval (request #{done.approval.pk}); no money has "
                                  "moved yet.")
        return redirect("console:cage:player", player_id=player.pk)
    return redirect("console:cage:receipt", entry_id=done.result.pk)


@require_POST
@staff_may("casino.change_player")
def player_identity(request: HttpRequest, player_id: int) -> HttpResponse:
    """Record the identity of a player registered without one (casino.services
    .player_identity_update); refused in words on the player's page otherwise."""
    player = _player(player_id)
    form = IdentityForm(request.POST, prefix="identity")
    if not form.is_valid():
        return _player_page(request, player, identity=form, status=400)
    identity = form.identity()
    try:
        services.player_identity_update(
            player_id=player.pk, by=request.user,  # type: ignore[arg-type]
            changes={name: getattr(identity, name) for name in services.IDENTITY_FIELDS
                     if name != "photo_ref" or identity.photo_ref})
    except DomainError as exc:
        form.add_error(None, exc.message)
        refusal_trace_request(request, exc, action="player_identity")
        return _player_page(request, player, identity=form, status=exc.status)
    messages.success(request, f"{player.name}'s identity is on file.")
    return redirect("console:cage:player", player_id=player.pk)


@require_POST
@staff_may(player_logins.GIVE_LOGIN)
def player_login(request: HttpRequest, player_id: int) -> HttpResponse:
    """Give the player their own login, or reset its password; refused in words on the
    player's page (casino.player_logins.player_login_give)."""
    player = _player(player_id)
    form = PlayerLoginForm(request.POST, prefix="login")
    if not form.is_valid():
        return _player_page(request, player, login=form, status=400)
    try:
        given = player_logins.player_login_give(
            player_id=player.pk, username=form.cleaned_data["username"],
            password=form.cleaned_data["password"], by=request.user)  # type: ignore[arg-type]
    except DomainError as exc:
        form.add_error("password" if exc.code == "invalid_password" else None, exc.message)
        refusal_trace_request(request, exc, action="player_login_give")
        return _player_page(request, player, login=form, status=exc.status)
    if given.created:
        messages.success(request, f"{player.name} signs in as {given.user.get_username()}.")
    else:
        messages.success(request, f"{player.name}'s password is reset: the old one, and "
                                  "every sign-in made with it, no longer work.")
    return redirect("console:cage:player", player_id=player.pk)


@require_POST
@staff_may("casino.deposit_funds")
def player_deposit(request: HttpRequest, player_id: int) -> HttpResponse:
    return _movement(request, player_id, kind="deposit")


@require_POST
@staff_may("casino.withdraw_funds")
def player_withdraw(request: HttpRequest, player_id: int) -> HttpResponse:
    return _movement(request, player_id, kind="withdraw")


@require_GET
@staff_may("ledger.view_entry")
def receipt(request: HttpRequest, entry_id: int) -> HttpResponse:
    try:
        shown = selectors.cage_receipt(entry_id=entry_id)
    except NotFound as exc:
        raise Http404(exc.message) from None
    return render(request, TEMPLATES + "receipt.html",
                  {"receipt": shown, "casino": settings.CASINO_NAME, **_where()})


# --- the statement -------------------------------------------------------------------------

def _statement(request: HttpRequest, player: Player) -> tuple[StatementForm, Statement | None]:
    form = StatementForm(request.GET or None)
    if request.GET and not form.is_valid():
        return form, None
    period = form.cleaned_data if form.is_bound else {}
    since, until = gaming_days_bounds(period.get("date_from"), period.get("date_to"))
    account = account_find(kind="player", currency=player.currency,
                           ref=selectors.player_account_ref(player.pk))
    if account is None:  # registered before the ledger, never moved money: nothing to show
        account = services.player_account_open(player=player)
    return form, account_statement(account_id=account.pk, since=since, until=until)


@require_GET
@staff_may("ledger.view_entry")
def statement(request: HttpRequest, player_id: int) -> HttpResponse:
    player = _player(player_id)
    form, shown = _statement(request, player)
    return render(request, TEMPLATES + "statement.html",
                  {"player": player, "form": form, "statement": shown,
                   "query": request.GET.urlencode(), **_where()},
                  status=200 if shown is not None else 400)
