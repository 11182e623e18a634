"""The table screen's dealer: signing in and being relieved, one view per step, each thin
(rounds.services.dealers refuses what the floor cannot take; the screen says why in words).
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_POST

from casino.shared.errors import DomainError
from casino.shared.guards import staff_may, staff_user
from rounds.screens.views import RUN, _refused, _screen, _table
from rounds.services.dealers import dealer_shift_end, dealer_shift_start


@staff_may(RUN)
@require_POST
def dealer_sign_in(request: HttpRequest, table_id: int) -> HttpResponse:
    """The signed-in user deals at the table from now, or (a pit boss) the dealer picked."""
    table = _table(table_id)
    try:
        shift = dealer_shift_start(table_id=table_id, by=staff_user(request),
                                   dealer=request.POST.get("dealer", "").strip() or None)
        messages.success(request, f"{shift.dealer.get_username()} deals at {table.name} "
                                  "from now: the rounds opened here record them.")
    except DomainError as error:
        _refused(request, error)
    return _screen(request, table_id)


@staff_may(RUN)
@require_POST
def dealer_relieve(request: HttpRequest, table_id: int) -> HttpResponse:
    table = _table(table_id)
    try:
        shift = dealer_shift_end(table_id=table_id, by=staff_user(request))
        messages.success(request, f"{shift.dealer.get_username()} is relieved at {table.name}"
                                  ": nobody deals here until the next dealer signs in.")
    except DomainError as error:
        _refused(request, error)
    return _screen(request, table_id)
