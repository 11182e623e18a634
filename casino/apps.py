from typing import ClassVar

from django.apps import AppConfig
from django.contrib.auth.signals import user_login_failed
from django.db.models.signals import post_migrate

from casino.shared.db_roles import APPEND_ONLY, READ_ONLY, Privileges


class CasinoConfig(AppConfig):
    name = "casino"
    verbose_name = "Casino floor"

    # What the service's database role may do to the casino's tables, and to the tables of
    # the third-party apps the project runs its auth, sessions and migrations with
    # (casino.shared.db_roles; every table not named: read, insert, update, never delete).
    runtime_privileges: ClassVar[dict[str, Privileges]] = {
        # Written by migrations only (the owner): the roles' permissions, content types.
        "django_migrations": READ_ONLY,
        "django_content_type": READ_ONLY,
        "auth_permission": READ_ONLY,
        "auth_group": READ_ONLY,
        "auth_group_permissions": READ_ONLY,
        # A user's role and permissions change with the admin (rows removed from the set).
        "auth_user_groups": Privileges(delete=True),
        "auth_user_user_permissions": Privileges(delete=True),
        # Logging out, expired tokens and sessions, and the hourly purge of Idempotency-Keys.
        "knox_authtoken": Privileges(delete=True),
        "django_session": Privileges(delete=True),
        "casino_idempotencykey": Privileges(delete=True),
        # Failed logins: a success or an admin's reset deletes the username's attempts
        # (casino/shared/auth.py); logging out stamps the access log.
        "axes_accessattempt": Privileges(delete=True),
        "axes_accessfailurelog": Privileges(delete=True),
        # Refused attempts are evidence: written once, never changed (casino/migrations/0004).
        "casino_refusal": APPEND_ONLY,
        # What went to the authority: each filing of a cash report, never changed; an
        # amendment is a filing of its own (casino/migrations/0015).
        "casino_cashreportfiling": APPEND_ONLY,
        # A player's own limits are their history: a change is a new row
        # (casino/migrations/0018).
        "casino_playerlimit": APPEND_ONLY,
        # A request is decided once, its decision the only columns that change
        # (casino/shared/approvals.py; its trigger says how: casino/migrations/0012).
        "casino_approval": Privileges(update=("status", "decided_by_id", "decided_at", "note",
                                              "result_ref")),
        # An exclusion changes only by its lift, once (casino/migrations/0014).
        "casino_exclusion": Privileges(update=("lifted_at", "lifted_by_id", "lift_reason",
                                               "lift_approved_by_id")),
    }

    def ready(self) -> None:
        # auth: its signal receivers log refused logins; checks: registers the deploy checks.
        from casino import exclusions, roles
        from casino.services import approval_actions_register
        from casino.shared import auth, checks, db_roles, refusals  # noqa: F401
        from ledger.services import entry_kind_register_owner

        # The cage's movements are corrected at the cage, which counts the cash they moved.
        for kind in ("deposit", "withdrawal"):
            entry_kind_register_owner(
                kind=kind, how_to_reverse="correct it at the cage (POST "
                "/api/v1/players/{id}/corrections with the entry and a reason)")

        approval_actions_register()
        exclusions.approval_actions_register()
        # Failed logins leave a trace, from the admin and the token endpoint alike.
        user_login_failed.connect(refusals.login_failed,
                                  dispatch_uid="casino.shared.refusals.login")
        # Permissions are created after migrations run, so the roles get theirs then.
        post_migrate.connect(roles.sync_on_migrate, dispatch_uid="casino.roles.sync")
        # New tables of the migration get the runtime roles' grants.
        post_migrate.connect(db_roles.runtime_roles_regrant,
                             dispatch_uid="casino.shared.db_roles.regrant")
