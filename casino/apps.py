from django.apps import AppConfig
from django.db.models.signals import post_migrate


class CasinoConfig(AppConfig):
    name = "casino"
    verbose_name = "Casino floor"

    def ready(self) -> None:
        from casino import roles
        from ledger.services import entry_kind_register_owner

        # The cage's movements are corrected at the cage, which counts the cash they moved.
        for kind in ("deposit", "withdrawal"):
            entry_kind_register_owner(
                kind=kind, how_to_reverse="correct it at the cage (POST "
                "/api/v1/players/{id}/corrections with the entry and a reason)")

        # Permissions are created after migrations run, so the roles get theirs then.
        post_migrate.connect(roles.sync_on_migrate, dispatch_uid="casino.roles.sync")
