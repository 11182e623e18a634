from django.apps import AppConfig


class RoundsConfig(AppConfig):
    name = "rounds"
    verbose_name = "Rounds"

    def ready(self) -> None:
        from ledger.services import entry_kind_register_owner
        from rounds.approvals import approval_actions_register
        from rounds.services.drop import drop_entry_owner

        # A round's settlement is reversed with the round, so the round records it.
        entry_kind_register_owner(
            kind="round_settlement",
            how_to_reverse="reverse it with its round (POST /api/v1/rounds/{id}/reverse)")
        for kind, how in drop_entry_owner():
            entry_kind_register_owner(kind=kind, how_to_reverse=how)
        approval_actions_register()
