"""The floor and the dealer's table screen: one view per screen or step, each thin.

A step parses its form, calls one service and answers with the table screen: the
``screen`` partial for htmx (it swaps the part that changed), or a redirect to the screen
for a plain form post. A refused step is shown as a message in words (refusals.py); the
service refused it before writing anything, so nothing changed.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from casino.exclusions import exclusion_words, players_excluded
from casino.selectors import player_label
from casino.shared import approvals
from casino.shared.errors import DomainError
from casino.shared.gaming_day import gaming_day_of
from casino.shared.guards import staff_may, staff_user
from casino.shared.idempotency import form_once_claim, form_once_done, form_once_token
from casino.shared.money import amount_show, to_minor
from casino.shared.refusals import refusal_trace_request
from rounds import services
from rounds.approvals import REVERSE as REVERSE_ACTION
from rounds.approvals import SETTLE_RESULTS
from rounds.models import POSITIONS, Round, Table
from rounds.round_view import round_for
from rounds.screens import deal_picker, selectors
from rounds.screens.forms import (
    BankerForm,
    BuyInForm,
    HandForm,
    ReasonForm,
    SeatForm,
    SeatOnlyForm,
    TableSettingsForm,
    WagerForm,
    WagerLowerForm,
)
from rounds.screens.refusals import refusal_text
from rounds.selectors import dealers_to_sign_in, table_run_by
from rounds.services import deal_draft
from rounds.services.drop import TAKE_BUY_IN, buy_in_submit
from rounds.services.variance import EXPLAIN_VARIANCE, variance_explain
from rounds.variance import floor_variance, min_rounds

VIEW = "rounds.view_round"
RUN = "rounds.run_rounds"
PIT = "rounds.change_table"  # seating and table settings are the pit's
VOID = "rounds.void_round"
REVERSE = "rounds.reverse_round"

TEMPLATE = "rounds/screens/table.html"


def _round(round_id: int) -> Round:
    round_ = Round.objects.select_related("table", "banker_player").filter(pk=round_id).first()
    if round_ is None:
        raise Http404("no such round")
    return round_


def _table(table_id: int) -> Table:
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise Http404("no such table")
    return table


def _context(request: HttpRequest, table_id: int, **extra: Any) -> dict[str, Any]:
    screen = selectors.table_screen(table_id=table_id, viewer=staff_user(request))
    user = request.user
    round_ = screen.round
    context: dict[str, Any] = {
        "screen": screen, "table": screen.table, "round": round_,
        "currency": screen.currency,
        "can_run": user.has_perm(RUN), "can_pit": user.has_perm(PIT),
        "can_void": user.has_perm(VOID), "can_reverse": user.has_perm(REVERSE),
        "can_buy_in": user.has_perm(TAKE_BUY_IN),
        # Buy-ins past the line waiting for a pit boss: shown at their seat's form, with
        # the request, until decided (nothing is credited before).
        "buy_ins_waiting": selectors.buy_ins_waiting(table_id=table_id),
        # The buy-in forms' form-once token (a seat's form adds its number to it).
        "once_buy_in": form_once_token(),
        "positions": POSITIONS,
        # A card room: the house never banks; player-dealers and proposition players do.
        "card_room": (round_.table_rules.card_room if round_ is not None
                      else screen.table.bank_mode == Table.BankMode.CARD_ROOM),
        # Least privilege: a dealer sees the funds of the players at a table they run
        # (as GET /tables/{id}/players answers), not of every table they may look at.
        "show_balances": user.has_perm("casino.view_player") or table_run_by(
            table_id=table_id, user=staff_user(request)),
    }
    if round_ is not None:
        # A chip outside the round's limits is shown but cannot be pressed (the service
        # refuses such a wager anyway).
        context["chips"] = [{"value": c, "ok": round_.table_rules.wager_allowed(
            to_minor(c, round_.currency))} for c in selectors.CHIPS]
    if round_ is not None and round_.state in (Round.State.BETTING, Round.State.BANKER_SET):
        context["offer"] = selectors.banker_offer(round_)
        # Wagers come down (Clear, Lower) until the deal, also once the banker is set
        # (services.wager_clear, wager_lower): an insolvent bank is resolved at the table.
        context["wagers_open"] = context["can_run"]
    if round_ is not None:
        # Only the deals the table allows are offered (rules: deal modes); the services
        # refuse the others anyway.
        context["deal_modes"] = [m.value for m in round_.table_rules.deal_modes]
    if round_ is not None and round_.state == Round.State.BANKER_SET:
        # The physical deal's picks so far, as the server keeps them (deal_picker.py).
        context["picker"] = deal_picker.picker_context(round_, screen)
        if "results" in context["deal_modes"]:
            names = {str(row.number): row.player.name for row in screen.seats if row.player}
            context["result_positions"] = [
                {"position": p, "label": selectors.position_label(p, names)}
                for p in selectors.outcome_positions(round_)]
    # A player excluded while seated stays in the seat but places no wager, buys in nothing
    # and takes no bank (casino.exclusions): the screen says so before anyone tries.
    seated = [row for row in screen.seats if row.player is not None]
    excluded = players_excluded(player_ids=[row.player.pk for row in seated
                                            if row.player is not None])
    context["excluded_seated"] = [
        f"{row.player.name} (seat {row.number}) {exclusion_words(excluded[row.player.pk])}: "
        "no further wager, buy-in or bank; a pit boss unseats them."
        for row in seated if row.player is not None and row.player.pk in excluded]
    if user.has_perm(PIT):
        context["seatable"] = selectors.seatable_players(table=screen.table)
    # The dealer's panel: who deals, and what this person may do about it (the service
    # refuses anything else anyway).
    shift = screen.dealer_shift
    context["dealer_is_me"] = shift is not None and shift.dealer_id == user.pk
    context["can_relieve"] = shift is not None and (context["dealer_is_me"] or
                                                    user.has_perm(PIT))
    if user.has_perm(PIT) and context["can_run"]:
        context["dealers"] = [u.get_username() for u in dealers_to_sign_in()
                              if shift is None or u.pk != shift.dealer_id]
    context["focus"], context["focus_at"] = (_next_focus(context) if context["can_run"]
                                             else ("", ""))
    context.update(extra)
    return context


def _next_focus(context: dict[str, Any]) -> tuple[str, str]:
    """The control of the next thing to do, which the screen marks ``autofocus`` (htmx
    focuses it after each swap), so a dealer on the keyboard goes on where the table is:
    the next seat without a wager, the banker, Deal, the next hand to set, Settle, New Game.
    It only points; every step is the service's to allow."""
    screen, round_ = context["screen"], context["round"]
    state = round_.state if round_ is not None else ""
    if state == Round.State.BETTING:
        for seat in screen.seats:
            if seat.player is not None and seat.wager is None:
                return "amount", str(seat.number)
        offer = context.get("offer")
        if offer is not None and offer.card_room and not offer.seat:
            return "bank-alone", ""
        return ("bank-offer" if offer is not None and offer.seat else "bank-house"), ""
    if state == Round.State.BANKER_SET:
        covered = not (screen.exposure and screen.exposure.shortfall)
        return ("deal" if covered and "electronic" in context.get("deal_modes", []) else ""), ""
    if state == Round.State.DEALT:
        for hand in screen.hands:  # the next hand not set yet (a set one may be re-set)
            if hand.can_set and not (hand.hand and hand.hand.set_by):
                return "hand", hand.position
        return "settle", ""
    return "new-game", ""


def _screen(request: HttpRequest, table_id: int) -> HttpResponse:
    """After a step: the screen partial for htmx, else back to the screen (PRG)."""
    if request.htmx:  # type: ignore[attr-defined]  # django-htmx's middleware sets it
        return render(request, f"{TEMPLATE}#screen", _context(request, table_id))
    return redirect("console:table", table_id=table_id)


def _refused(request: HttpRequest, error: DomainError, *, currency: str = "",
             who: str = "", action: str = "") -> None:
    messages.error(request, refusal_text(error, currency=currency, who=who))
    # The same trace as the API's (casino.shared.refusals): the step named by its route.
    refusal_trace_request(request, error, action=action)


def _form_refused(request: HttpRequest, form: Any) -> None:
    for errors in form.errors.values():
        for error in errors:
            messages.error(request, error)


def _seat_name(round_: Round, seat: int | None) -> str:
    """The player in the seat as messages name them: "Anna #4 (seat 5)" when another
    player at the table has the same name (casino.selectors.player_label)."""
    seats = list(round_.table.seats.select_related("player"))
    found = next((s for s in seats if s.number == seat and s.player), None)
    if found is None or found.player is None:
        return ""
    return player_label(found.player, seat=found.number, among=[s.player for s in seats])


def _banker_name(round_: Round) -> str:
    if round_.banker_player is None:
        return ""
    return _seat_name(round_, round_.banker_seat) or round_.banker_player.name


# --- the floor ------------------------------------------------------------------------------

@staff_may()
@require_GET
def floor(request: HttpRequest) -> HttpResponse:
    """Every table at a glance; the live part refreshes itself (floor_live). The cage has
    no tables to see: its home is the cage's screen, where signing in (LOGIN_REDIRECT_URL,
    "/") takes it through here."""
    if not request.user.has_perm(VIEW) and request.user.has_perm("casino.deposit_funds"):
        return redirect("console:cage:find")
    if not request.user.has_perm(VIEW) and request.user.has_perm("rounds.count_drop"):
        return redirect("console:drop-count")  # the count room's home
    if not request.user.has_perm(VIEW):
        return render(request, "rounds/screens/floor.html", {"tables": None})
    return render(request, "rounds/screens/floor.html", {
        "tables": selectors.floor(staff_user(request)),
        # Today's house-banked play against its expected band, in words (rounds.variance):
        # what the pit manager looks into and explains.
        "variance": floor_variance(gaming_day=gaming_day_of(), when="today")
        if request.user.has_perm("rounds.run_reports") else [],
        "variance_min_rounds": min_rounds()})


class VarianceExplainForm(forms.Form):
    reason = forms.CharField(max_length=2000, error_messages={
        "required": "Say what explains the table's result.",
        "max_length": "Say it in 2,000 characters or fewer."})


@staff_may(EXPLAIN_VARIANCE)
@require_POST
def variance_explain_view(request: HttpRequest, table_id: int) -> HttpResponse:
    """A pit boss explains today's flagged result of a table (the service's rule:
    rounds.services.variance.variance_explain), back to the floor with what was done."""
    form = VarianceExplainForm(request.POST)
    back = redirect("console:floor")
    if not form.is_valid():
        messages.error(request, " ".join(str(e) for e in form.errors["reason"]))
        return back
    try:
        done = variance_explain(table_id=table_id, gaming_day=gaming_day_of(),
                                reason=form.cleaned_data["reason"], by=staff_user(request))
        messages.success(request, f"{done.table.name}'s result today is explained.")
    except DomainError as error:
        messages.error(request, refusal_text(error))
    return back


@staff_may(VIEW)
@require_GET
def floor_live(request: HttpRequest) -> HttpResponse:
    return render(request, "rounds/screens/floor.html#tables",
                  {"tables": selectors.floor(staff_user(request))})


# --- the table screen -----------------------------------------------------------------------

@staff_may(VIEW)
@require_GET
def table(request: HttpRequest, table_id: int) -> HttpResponse:
    found = _table(table_id)
    if found.self_service:
        # No seats, no dealer, no round of the table's own: each player's game, which only
        # its player plays (rounds.services.games); the pit watches and may void one.
        return render(request, "rounds/screens/self_service_table.html", {
            "table": found, "games": selectors.table_games_in_play(table_id=found.pk),
            "can_pit": request.user.has_perm(PIT), "can_void": request.user.has_perm(VOID)})
    context = _context(request, table_id)
    if request.htmx:  # type: ignore[attr-defined]  # django-htmx's middleware sets it
        return render(request, f"{TEMPLATE}#screen", context)
    return render(request, TEMPLATE, context)


@staff_may(RUN)
@require_POST
def round_open(request: HttpRequest, table_id: int) -> HttpResponse:
    _table(table_id)
    try:
        round_ = services.round_open(table_id=table_id, by=staff_user(request))
        messages.success(request, f"Round {round_.number} is open: place the wagers.")
    except DomainError as error:
        _refused(request, error)
    return _screen(request, table_id)


@staff_may(RUN)
@require_POST
def wager_place(request: HttpRequest, round_id: int) -> HttpResponse:
    round_ = _round(round_id)
    form = WagerForm(request.POST, currency=round_.currency)
    if not form.is_valid():
        _form_refused(request, form)
        return _screen(request, round_.table_id)
    seat = form.cleaned_data["seat"]
    try:
        services.wager_place(round_id=round_id, seat=seat, amount=form.cleaned_data["amount"],
                             by=staff_user(request))
    except DomainError as error:
        _refused(request, error, currency=round_.currency, who=_seat_name(round_, seat))
    return _screen(request, round_.table_id)


@staff_may(RUN)
@require_POST
def wager_clear(request: HttpRequest, round_id: int, seat: int) -> HttpResponse:
    round_ = _round(round_id)
    try:
        services.wager_clear(round_id=round_id, seat=seat, by=staff_user(request))
    except DomainError as error:
        _refused(request, error, currency=round_.currency)
    return _screen(request, round_.table_id)


@staff_may(RUN)
@require_POST
def wager_lower(request: HttpRequest, round_id: int, seat: int) -> HttpResponse:
    """Bring a seat's wager down before the deal (what a player-banker covers)."""
    round_ = _round(round_id)
    form = WagerLowerForm(request.POST, currency=round_.currency)
    if not form.is_valid():
        _form_refused(request, form)
        return _screen(request, round_.table_id)
    try:
        services.wager_lower(round_id=round_id, seat=seat, amount=form.cleaned_data["amount"],
                             by=staff_user(request))
    except DomainError as error:
        _refused(request, error, currency=round_.currency, who=_seat_name(round_, seat))
    return _screen(request, round_.table_id)


@staff_may(RUN)
@require_POST
def wager_rebet(request: HttpRequest, round_id: int, seat: int) -> HttpResponse:
    round_ = _round(round_id)
    try:
        services.wager_rebet(round_id=round_id, seat=seat, by=staff_user(request))
    except DomainError as error:
        _refused(request, error, currency=round_.currency, who=_seat_name(round_, seat))
    return _screen(request, round_.table_id)


@staff_may(RUN)
@require_POST
def wager_clear_all(request: HttpRequest, round_id: int) -> HttpResponse:
    round_ = _round(round_id)
    try:
        cleared = services.wager_clear_all(round_id=round_id, by=staff_user(request))
        messages.success(request, f"Cleared {len(cleared)} wager{'s' * (len(cleared) != 1)}.")
    except DomainError as error:
        _refused(request, error, currency=round_.currency)
    return _screen(request, round_.table_id)


@staff_may(RUN)
@require_POST
def wager_rebet_all(request: HttpRequest, round_id: int) -> HttpResponse:
    round_ = _round(round_id)
    try:
        placed = services.wager_rebet_all(round_id=round_id, by=staff_user(request))
        messages.success(request, f"Re-Bet {len(placed)} seat{'s' * (len(placed) != 1)}.")
    except DomainError as error:
        _refused(request, error, currency=round_.currency)
    return _screen(request, round_.table_id)


@staff_may(RUN)
@require_POST
def banker_set(request: HttpRequest, round_id: int) -> HttpResponse:
    round_ = _round(round_id)
    form = BankerForm(request.POST, currency=round_.currency)
    if not form.is_valid():
        _form_refused(request, form)
        return _screen(request, round_.table_id)
    data = form.cleaned_data
    seat = None if data["house"] else data["seat"]
    try:
        if round_.table_rules.card_room:
            # The house never banks here: a player-dealer's seat with their cover, and the
            # proposition player covering the rest or banking alone.
            services.banker_set(round_id=round_id, by=staff_user(request), house=data["house"],
                                seat=seat, cover=data.get("cover"),
                                third_party=data.get("third_party"))
            return _screen(request, round_.table_id)
        services.banker_set(round_id=round_id, by=staff_user(request), house=data["house"],
                            seat=seat, house_stake=data.get("house_stake") or 0)
    except DomainError as error:
        _refused(request, error, currency=round_.currency,
                 who=_seat_name(round_, seat) if seat else "")
    return _screen(request, round_.table_id)


@staff_may(RUN)
@require_POST
def bank_decline(request: HttpRequest, round_id: int) -> HttpResponse:
    """The seat offered the bank declines it: a step of the round, so the offer stays
    passed on when the screen is read again."""
    round_ = _round(round_id)
    form = SeatOnlyForm(request.POST)
    if not form.is_valid():
        _form_refused(request, form)
        return _screen(request, round_.table_id)
    seat = form.cleaned_data["seat"]
    try:
        services.round_bank_decline(round_id=round_id, seat=seat, by=staff_user(request))
        messages.success(request, f"{_seat_name(round_, seat) or f'Seat {seat}'} declines "
                                  "the bank: it passes on.")
    except DomainError as error:
        _refused(request, error, currency=round_.currency, who=_seat_name(round_, seat))
    return _screen(request, round_.table_id)


@staff_may(RUN)
@require_POST
def round_deal(request: HttpRequest, round_id: int) -> HttpResponse:
    """The electronic deal: the solvency check, then shuffle and dice."""
    round_ = _round(round_id)
    try:
        services.round_deal(round_id=round_id, by=staff_user(request))
    except DomainError as error:
        _refused(request, error, currency=round_.currency,
                 who=_banker_name(round_))
    return _screen(request, round_.table_id)


# --- the card picker of a physical deal ---------------------------------------------------------

@staff_may(RUN)
@require_POST
def round_deal_physical(request: HttpRequest, round_id: int) -> HttpResponse:
    """Record a physical table's deal: the seven cards picked for each position, as the
    draft on the server holds them (the page's copy may be stale; the server's is not)."""
    round_ = _round(round_id)
    try:
        deal_draft.round_deal_from_draft(round_id=round_id, by=staff_user(request))
        messages.success(request, "The deal is recorded: set the players' hands.")
    except DomainError as error:
        _refused(request, error, currency=round_.currency,
                 who=_banker_name(round_))
    return _screen(request, round_.table_id)


# --- hands, settlement ------------------------------------------------------------------------

@staff_may(RUN)
@require_POST
def hand_set(request: HttpRequest, round_id: int, position: str) -> HttpResponse:
    """House Way, or the two cards picked for the low hand: the service checks whose turn
    it is before it looks at the cards, so the answer never tells a hidden card."""
    round_ = _round(round_id)
    form = HandForm(request.POST)
    if not form.is_valid():
        _form_refused(request, form)
        return _screen(request, round_.table_id)
    try:
        if form.cleaned_data["house_way"]:
            services.hand_set(round_id=round_id, position=position, by=staff_user(request),
                              house_way=True)
        else:
            services.hand_set(round_id=round_id, position=position, by=staff_user(request),
                              low=form.cleaned_data["low"])
    except DomainError as error:
        _refused(request, error, currency=round_.currency)
    return _screen(request, round_.table_id)


@staff_may(RUN)
@require_POST
def round_settle(request: HttpRequest, round_id: int) -> HttpResponse:
    round_ = _round(round_id)
    try:
        settled = services.round_settle(round_id=round_id, by=staff_user(request))
        messages.success(request, f"Round {settled.number} is settled.")
    except DomainError as error:
        _refused(request, error, currency=round_.currency)
    return _screen(request, round_.table_id)


@staff_may(RUN)
@require_POST
def round_settle_results(request: HttpRequest, round_id: int) -> HttpResponse:
    """A results-only table: the dealer records each position's outcome. Under dual control
    the outcomes wait for a pit boss's approval (casino.shared.approvals), as in the API."""
    round_ = _round(round_id)
    shown = round_for(staff_user(request), round_id)
    outcomes = {p: request.POST.get(f"outcome_{p}", "")
                for p in selectors.outcome_positions(shown)}
    try:
        done = approvals.action_submit(action=SETTLE_RESULTS, by=staff_user(request),
                                       params={"round_id": round_id, "outcomes": outcomes})
        if done.approval is not None:
            messages.success(request, f"The outcomes of round {round_.number} wait for a pit "
                                      f"boss's approval (request #{done.approval.pk}).")
        else:
            messages.success(request, f"Round {round_.number} is settled from its outcomes.")
    except DomainError as error:
        _refused(request, error, currency=round_.currency)
    return _screen(request, round_.table_id)


@staff_may(TAKE_BUY_IN)
@require_POST
def buy_in(request: HttpRequest, table_id: int) -> HttpResponse:
    """Cash a seated player hands the dealer: credited to their account from the table's
    drop box (rounds.services.drop)."""
    table = _table(table_id)
    form = BuyInForm(request.POST, currency=table.currency)
    if not form.is_valid():
        _form_refused(request, form)
        return _screen(request, table_id)
    seat = form.cleaned_data["seat"]
    amount = form.cleaned_data["amount"]
    try:
        with transaction.atomic():
            # Cash moves: a double click, or the browser sending the form again, carries
            # the same token; the second is shown the screen the first led to, and the
            # player is credited once (casino.shared.idempotency).
            if form_once_claim(request, {"table": table_id, "seat": seat,
                                         "amount": amount}) is not None:
                return redirect("console:table", table_id)
            done = buy_in_submit(table_id=table_id, seat=seat, amount=amount,
                                 by=staff_user(request))
            form_once_done(request, reverse("console:table", args=[table_id]))
        if done.approval is not None:
            # Past the buy-in line: nothing credited until another pit boss approves.
            messages.warning(request, f"{done.approval.summary}. It is waiting for a pit "
                                      f"boss's approval (request #{done.approval.pk}): "
                                      "nothing is credited until then.")
        else:
            taken = done.result
            messages.success(request, f"{taken.player_name} (seat {seat}) bought in for "
                                      f"{amount_show(taken.amount, taken.currency)} "
                                      f"{taken.currency}: credited to their account.")
    except DomainError as error:
        _refused(request, error, currency=table.currency)
    return _screen(request, table_id)


# --- the pit boss: seats, settings, void, reverse -------------------------------------------------

@staff_may(PIT)
@require_POST
def seat_take(request: HttpRequest, table_id: int) -> HttpResponse:
    _table(table_id)
    form = SeatForm(request.POST)
    if not form.is_valid():
        _form_refused(request, form)
        return _screen(request, table_id)
    try:
        seat = services.seat_take(table_id=table_id, number=form.cleaned_data["number"],
                                  player_id=form.cleaned_data["player"], by=staff_user(request))
        assert seat.player is not None
        seated = [s.player for s in seat.table.seats.select_related("player")]
        messages.success(request, f"{player_label(seat.player, among=seated)} sits at seat "
                                  f"{seat.number}.")
    except DomainError as error:
        _refused(request, error)
    return _screen(request, table_id)


@staff_may(PIT)
@require_POST
def seat_leave(request: HttpRequest, table_id: int, number: int) -> HttpResponse:
    _table(table_id)
    try:
        services.seat_leave(table_id=table_id, number=number, by=staff_user(request))
        messages.success(request, f"Seat {number} is free.")
    except DomainError as error:
        _refused(request, error)
    return _screen(request, table_id)


@staff_may(PIT)
@require_http_methods(["GET", "POST"])
def table_settings(request: HttpRequest, table_id: int) -> HttpResponse:
    table = _table(table_id)
    form = TableSettingsForm(request.POST or None, instance=table)
    if request.method == "POST" and form.is_valid():
        try:
            services.table_update(table_id=table_id, by=staff_user(request),
                                  changes=form.changes())
            messages.success(request, "The table's settings are saved.")
            return redirect("console:table", table_id=table_id)
        except DomainError as error:
            _refused(request, error, currency=table.currency)
    busy = Round.objects.filter(table=table, state__in=Round.State.OPEN).first()
    return render(request, "rounds/screens/settings.html",
                  {"table": table, "form": form, "busy": busy})


@staff_may(VOID)
@require_http_methods(["GET", "POST"])
def round_void(request: HttpRequest, round_id: int) -> HttpResponse:
    """Void before settlement: the page previews every hold the void releases."""
    round_ = _round(round_id)
    form = ReasonForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.round_void(round_id=round_id, reason=form.cleaned_data["reason"],
                                by=staff_user(request))
            messages.success(request, f"Round {round_.number} is voided; every hold is "
                                      "released.")
            return redirect("console:table", table_id=round_.table_id)
        except DomainError as error:
            _refused(request, error, currency=round_.currency)
    return render(request, "rounds/screens/correction.html", {
        "round": round_for(staff_user(request), round_id), "form": form, "verb": "Void",
        "lines": selectors.void_preview(round_id=round_id), "currency": round_.currency,
        "can_do": round_.state in Round.State.OPEN,
    })


@staff_may(REVERSE)
@require_http_methods(["GET", "POST"])
def round_reverse(request: HttpRequest, round_id: int) -> HttpResponse:
    """Reverse a settled round: the page previews every amount the reversal moves back."""
    round_ = _round(round_id)
    form = ReasonForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            # Under dual control a second pit boss approves first (casino.shared.approvals).
            done = approvals.action_submit(
                action=REVERSE_ACTION, by=staff_user(request),
                params={"round_id": round_id, "reason": form.cleaned_data["reason"]})
            if done.approval is not None:
                messages.success(request, f"The reversal of round {round_.number} waits for a "
                                          f"second pit boss's approval (request "
                                          f"#{done.approval.pk}); nothing has moved yet.")
            else:
                messages.success(request, f"Round {round_.number} is reversed; every amount "
                                          "of its settlement has moved back.")
            return redirect("console:table", table_id=round_.table_id)
        except DomainError as error:
            _refused(request, error, currency=round_.currency, action=REVERSE_ACTION)
    return render(request, "rounds/screens/correction.html", {
        "round": round_for(staff_user(request), round_id), "form": form, "verb": "Reverse",
        "lines": selectors.reverse_preview(entry_id=round_.entry_id),
        "currency": round_.currency,
        "can_do": round_.state == Round.State.SETTLED,
    })

