from django.apps import AppConfig
from django.db.models.signals import post_migrate


class CasinoConfig(AppConfig):
    name = "casino"
    verbose_name = "Casino floor"

    def ready(self) -> None:
        from casino import checks, db_roles, roles  # noqa: F401  (checks: registers them)

        # Permissions are created after migrations run, so the roles get theirs then.
        post_migrate.connect(roles.sync_on_migrate, dispatch_uid="casino.roles.sync")
        # New tables of the migration get the runtime roles' grants.
        post_migrate.connect(db_roles.runtime_roles_regrant,
                             dispatch_uid="casino.db_roles.regrant")
