"""The card picker of a physical deal on the dealer's screen: each click is written at once
to the round's draft on the server (rounds.services.deal_draft), so a reload or a second
screen shows the same picks. The page's script (console/deal_picker.js) sends clicks in
order, one after the other, and shows how many are still being saved; without it each
button is a plain form post.

Which position a pick goes to is the page's choice (the one highlighted), sent with it;
without one, the service takes the first position not yet full.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from casino.shared.errors import DomainError
from casino.shared.guards import staff_may, staff_user
from rounds.models import Round
from rounds.round_view import RoundView
from rounds.screens import selectors
from rounds.screens.refusals import refusal_text
from rounds.services import deal_draft as drafts

PICKER = "rounds/screens/_deal_picker.html"
RUN = "rounds.run_rounds"


def picker_context(round_: Round | RoundView, screen: selectors.TableScreen, active: str = "",
                   draft: drafts.Draft | None = None) -> dict[str, Any]:
    """What the picker shows: each position's picks (the bank's face down, rules §4.1), the
    position being recorded, the deck with the cards already used greyed out."""
    if draft is None:
        _round, draft = drafts.deal_draft_get(round_id=round_.pk)
    hidden = drafts.deal_draft_hidden_positions(round_)
    positions = draft.positions
    full = {p: len(draft.hands[p]) >= drafts.CARDS_A_HAND for p in positions}
    if active not in positions or full[active]:
        active = next((p for p in positions if not full[p]), "")
    names = {str(s.number): s.player.name for s in screen.seats if s.player}
    labels = {p: selectors.position_label(p, names) for p in positions}
    # Greyed out: the cards picked for the positions shown. A face-down pick of the bank is
    # not greyed out (the deck would show it by its absence); picking it again is refused in
    # words that do not name its holder.
    shown_used = {code for p in positions if p not in hidden for code in draft.hands[p]}
    last = None
    if draft.last is not None:
        position, code = draft.last
        last = {"position": position, "label": labels.get(position, position),
                "code": "" if position in hidden else code}
    return {
        "rows": [{"position": p, "label": labels[p], "cards": draft.hands[p],
                  "count": len(draft.hands[p]), "hidden": p in hidden, "full": full[p]}
                 for p in positions],
        "active": active, "active_label": labels.get(active, ""),
        "deck": [{"code": c, "used": c in shown_used} for c in selectors.deck_codes()],
        "complete": draft.complete, "last": last, "used": len(draft.used),
        # A bank that cannot cover the wagers is not dealt, by hand or by machine: Record
        # the deal is not offered, like Deal (round_deal refuses it anyway).
        "short": screen.exposure.shortfall if screen.exposure else 0,
        "banker": screen.exposure.banker_name if screen.exposure else "",
        "currency": round_.currency,
    }


def _answer(request: HttpRequest, round_: Round, refusal: str = "") -> HttpResponse:
    """The picker alone for the page's script (or htmx), else back to the screen."""
    if not request.htmx:  # type: ignore[attr-defined]  # django-htmx's middleware sets it
        if refusal:
            messages.error(request, refusal)
        return redirect("console:table", table_id=round_.table_id)
    screen = selectors.table_screen(table_id=round_.table_id, viewer=staff_user(request))
    picker = picker_context(round_, screen, active=request.POST.get("active", ""))
    return render(request, PICKER, {"picker": picker, "round": round_, "refusal": refusal})


def _step(request: HttpRequest, round_id: int, write: Any) -> HttpResponse:
    round_ = Round.objects.filter(pk=round_id).first()
    if round_ is None:
        raise Http404("no such round")
    try:
        write(round_id)
    except DomainError as error:
        return _answer(request, round_, refusal_text(error, currency=round_.currency))
    return _answer(request, round_)


def _run(view: Any) -> Any:
    """Signed in, allowed to run rounds (else the 403 page in words), and a POST."""
    return staff_may(RUN)(require_POST(view))


@_run
def deal_pick(request: HttpRequest, round_id: int) -> HttpResponse:
    """One card picked, for the position sent (else the first not yet full)."""
    user = staff_user(request)
    return _step(request, round_id, lambda rid: drafts.deal_draft_pick(
        round_id=rid, card=request.POST.get("pick", ""),
        position=request.POST.get("position") or None, by=user))


@_run
def deal_undo(request: HttpRequest, round_id: int) -> HttpResponse:
    """The last card picked taken back (the one the page showed as last, if it sent it)."""
    user = staff_user(request)
    return _step(request, round_id, lambda rid: drafts.deal_draft_undo(
        round_id=rid, card=request.POST.get("card") or None, by=user))


@_run
def deal_clear(request: HttpRequest, round_id: int) -> HttpResponse:
    """Every card taken back: the recording starts again."""
    user = staff_user(request)
    return _step(request, round_id, lambda rid: drafts.deal_draft_clear(round_id=rid, by=user))
