from django.apps import AppConfig
from django.db.models.signals import post_migrate


class CasinoConfig(AppConfig):
    name = "casino"
    verbose_name = "Casino floor"

    def ready(self) -> None:
        from casino import auth, roles

        del auth  # imported for its signal receivers: the log of refused logins

        # Permissions are created after migrations run, so the roles get theirs then.
        post_migrate.connect(roles.sync_on_migrate, dispatch_uid="casino.roles.sync")
