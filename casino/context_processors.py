"""What every console page shows in its header: the screens this person may open, and their
roles. One list, so a screen's link and the permission that guards it are written once.
A player's own pages (/play/, templates/play/base.html) show the player's name, balance
and how long this sign-in has lasted instead (``play``)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import reverse

from casino import roles
from casino.shared.api.permissions import is_player

# (label, url name, permission needed; "" = any signed-in staff member). A screen adds its line.
NAV: list[tuple[str, str, str]] = [
    ("Floor", "console:floor", "rounds.view_round"),
    ("Cage", "console:cage:find", "casino.view_player"),
    # Every staff member sees the requests they asked for; pit bosses decide them.
    ("Approvals", "console:approvals", ""),
    # The count room and the cage count; a pit boss may be the witness who signs a count.
    ("Drop count", "console:drop-count", "rounds.view_dropcount"),
    # The cash rules' records (casino.cash): the cage keeps the log; pit bosses and
    # auditors read the reports, which auditors file.
    ("Cash log", "console:cash-log", "casino.view_cash_log"),
    ("Cash reports", "console:cash-reports", "casino.view_cashreport"),
    ("Exclusions", "console:exclusions", "casino.view_exclusion"),
    ("Reports", "console:reports", "rounds.run_reports"),
    ("Admin", "admin:index", ""),
]


def console(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or is_player(user):
        return {}
    here = request.path
    items = []
    for label, url_name, permission in NAV:
        if permission and not user.has_perm(permission):
            continue
        url = reverse(url_name)
        current = here == url if url == "/" else here.startswith(url)
        items.append({"label": label, "url": url, "current": current})
    names = sorted(g.name for g in user.groups.all() if g.name in roles.ROLES)
    return {"console_nav": items,
            "console_roles": ", ".join(roles.LABELS.get(n, n) for n in names)}


def play(request: HttpRequest) -> dict[str, Any]:
    """A player's own pages' header: who is signed in, their balance, and when the sign-in
    began (the reminder of time played, casino/static/play/reminder.js, counts from it)."""
    user = getattr(request, "user", None)
    if not request.path.startswith("/play/") or not is_player(user):
        return {}
    from casino import selectors
    from casino.player_logins import REMINDER_EVERY_MINUTES, session_started_at

    player = selectors.player_get(player_id=user.player.pk)  # type: ignore[union-attr]
    return {"play_player": player, "play_balance": selectors.player_balance(player),
            "play_started_at": session_started_at(request),
            "play_reminder_minutes": REMINDER_EVERY_MINUTES}
