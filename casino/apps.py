from django.apps import AppConfig
from django.contrib.auth.signals import user_login_failed
from django.db.models.signals import post_migrate


class CasinoConfig(AppConfig):
    name = "casino"
    verbose_name = "Casino floor"

    def ready(self) -> None:
        # auth: its signal receivers log refused logins; checks: registers the deploy checks.
        from casino import roles
        from casino.services import approval_actions_register
        from casino.shared import auth, checks, db_roles, refusals  # noqa: F401
        from ledger.services import entry_kind_register_owner

        # The cage's movements are corrected at the cage, which counts the cash they moved.
        for kind in ("deposit", "withdrawal"):
            entry_kind_register_owner(
                kind=kind, how_to_reverse="correct it at the cage (POST "
                "/api/v1/players/{id}/corrections with the entry and a reason)")

        approval_actions_register()
        # Failed logins leave a trace, from the admin and the token endpoint alike.
        user_login_failed.connect(refusals.login_failed,
                                  dispatch_uid="casino.shared.refusals.login")
        # Permissions are created after migrations run, so the roles get theirs then.
        post_migrate.connect(roles.sync_on_migrate, dispatch_uid="casino.roles.sync")
        # New tables of the migration get the runtime roles' grants.
        post_migrate.connect(db_roles.runtime_roles_regrant,
                             dispatch_uid="casino.shared.db_roles.regrant")
