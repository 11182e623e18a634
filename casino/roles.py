"""Staff roles: each is a Django group holding exactly the permissions listed here.

The groups are created by a data migration (casino/migrations/0002_staff_roles.py); their
permissions are (re)synchronised after every migrate, because Django creates permissions
only once migrations have run. The API and admin check permissions, never role names, so
this module is the one place that says what a role may do.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps as global_apps
from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS

DEALER = "dealer"
PIT_BOSS = "pit_boss"
CAGE = "cage"
AUDITOR = "auditor"
COUNT = "count"
ROLES = (DEALER, PIT_BOSS, CAGE, AUDITOR, COUNT)
# A player's own login (casino.player_logins): a group like the roles, synced with them,
# but no staff role: it is not in ROLES, so staff_create and create_staff never make one.
PLAYER = "player"
GROUPS = (*ROLES, PLAYER)
# How a role is named on screens.
LABELS = {DEALER: "dealer", PIT_BOSS: "pit boss", CAGE: "cage", AUDITOR: "auditor",
          COUNT: "count room"}

# Runs rounds at tables. Not every player and balance: a dealer sees the players seated at
# the tables they run (GET /api/v1/tables/{id}/players, rounds.selectors).
_DEALER = {
    "rounds.view_table",
    "rounds.run_rounds",
    "rounds.view_round",
    "rounds.view_seat",
    # Their own requests waiting for a second person (a results-only settlement).
    "casino.view_approval",
    # Cash a seated player hands over at the table goes into the drop box.
    "rounds.take_buy_in",
    # Who deals where: a dealer signs in at a table and is relieved (rounds.services.dealers).
    "rounds.view_dealershift",
}
# Everything a dealer can, plus every player, table settings, voids, reversals, the daily
# reports, the second signature on what waits for one, and the refusals' trace.
_PIT_BOSS = _DEALER | {
    "casino.view_player",
    "casino.approve_results",
    "casino.approve_cage_movement",
    # A buy-in past CASINO_BUY_IN_APPROVAL_ABOVE: another pit boss than the one who took it.
    "casino.approve_buy_in",
    "casino.view_refusal",
    "casino.view_all_approvals",
    # The cash rules (casino.cash): the multiple transaction log and the day's reports.
    "casino.view_cash_log",
    "casino.view_cashreport",
    # Exclusions: record one, lift a barring, lift a self-exclusion (asking or approving:
    # never both for one request, casino.exclusions).
    "casino.view_exclusion",
    "casino.add_exclusion",
    "casino.lift_exclusion",
    "casino.lift_barring",
    "rounds.add_table",
    "rounds.change_table",
    "rounds.void_round",
    "rounds.reverse_round",
    "rounds.run_reports",
    # A table's day outside its expected band is explained by a pit boss, signed in as
    # themselves (rounds/services/variance.py).
    "rounds.explain_variance",
    "reports.close_gaming_day",
    # The ledger: read it, and correct it with a reversing entry.
    "ledger.view_account",
    "ledger.view_entry",
    "ledger.view_hold",
    "ledger.view_house_accounts",
    "ledger.reverse_entry",
    # A drop count is counted by the cage or the count room; the pit boss may witness one
    # and corrects one that was wrong.
    "rounds.witness_drop",
    "rounds.correct_drop_count",
    "rounds.view_dropcount",
}
# Player deposits and withdrawals.
_CAGE = {
    "casino.view_player",
    "casino.add_player",
    "casino.change_player",
    "casino.deposit_funds",
    "casino.withdraw_funds",
    # A deposit or withdrawal is corrected only at the cage, with a reason.
    "casino.correct_funds",
    "casino.view_approval",
    # The multiple transaction log, which the cage keeps (not the cash reports).
    "casino.view_cash_log",
    # Exclusions: record one; ask for, or approve, lifting a self-exclusion (a barring is
    # the pit boss's to lift).
    "casino.view_exclusion",
    "casino.add_exclusion",
    "casino.lift_exclusion",
    # A player's history at the cage (players' accounts only, not the house's).
    "ledger.view_account",
    "ledger.view_entry",
    # The drop boxes' cash comes to the cage: the cage counts them or witnesses a count.
    "rounds.view_table",
    "rounds.count_drop",
    "rounds.witness_drop",
    "rounds.view_dropcount",
}
# The count room: counts the tables' drop boxes, two people at a time (one counts, one
# witnesses); sees the tables and the counts, nothing of players or play.
_COUNT = {
    "rounds.view_table",
    "rounds.count_drop",
    "rounds.witness_drop",
    "rounds.view_dropcount",
}
# Reads everything and runs reports; changes nothing. Every view_* permission of these
# apps is granted automatically, so a new model is readable by auditors from day one.
AUDITED_APPS = ("casino", "ledger", "rounds", "reports")
# Filing a cash transaction report records that it went to the authority; it moves
# nothing.
_AUDITOR_EXTRA = {"auth.view_user", "auth.view_group", "rounds.run_reports",
                  "casino.file_cashreport"}

# Plays their own self-service games and reaches their own account, limits and games
# (casino.shared.api.permissions.PLAY_GAMES): nothing else, no view_* of anything.
_PLAYER = {"casino.play_games"}

EXPLICIT: dict[str, set[str]] = {
    DEALER: _DEALER,
    PIT_BOSS: _PIT_BOSS,
    CAGE: _CAGE,
    AUDITOR: _AUDITOR_EXTRA,
    COUNT: _COUNT,
    PLAYER: _PLAYER,
}


def intended_permissions(role: str, permission_model: Any = None) -> set[str]:
    """The 'app_label.codename' permissions the role's (or the player's) group must hold."""
    if role not in EXPLICIT:
        raise ValueError(f"unknown role {role!r}; roles are {', '.join(GROUPS)}")
    perms = set(EXPLICIT[role])
    if role == AUDITOR:
        Permission = permission_model or global_apps.get_model("auth", "Permission")
        for app_label, codename in Permission.objects.filter(
            content_type__app_label__in=AUDITED_APPS, codename__startswith="view_"
        ).values_list("content_type__app_label", "codename"):
            perms.add(f"{app_label}.{codename}")
    return perms


def sync_roles(using: str = DEFAULT_DB_ALIAS) -> None:
    """Create the groups (the staff roles' and the players') if needed and give each
    exactly its intended permissions."""
    Group = global_apps.get_model("auth", "Group")
    Permission = global_apps.get_model("auth", "Permission")
    for role in GROUPS:
        wanted = intended_permissions(role)
        found = {}
        for perm in Permission.objects.using(using).filter(
            content_type__app_label__in={p.split(".")[0] for p in wanted}
        ).select_related("content_type"):
            key = f"{perm.content_type.app_label}.{perm.codename}"
            if key in wanted:
                found[key] = perm
        missing = wanted - found.keys()
        if missing:
            raise ImproperlyConfigured(
                f"role {role!r} names permissions that do not exist: {sorted(missing)}"
            )
        group, _ = Group.objects.using(using).get_or_create(name=role)
        group.permissions.set(found.values())


def sync_on_migrate(sender: Any, using: str = DEFAULT_DB_ALIAS, **kwargs: Any) -> None:
    # post_migrate is sent once per app with models; wait for the last one, when every
    # app's permissions exist (an app without models is sent none).
    if sender.label != [a for a in global_apps.get_app_configs()
                        if a.models_module is not None][-1].label:
        return
    sync_roles(using=using)
