from django.apps import AppConfig


class RoundsConfig(AppConfig):
    name = "rounds"
    verbose_name = "Rounds"

    def ready(self) -> None:
        from ledger.services import entry_kind_register_owner
        from rounds.approvals import approval_actions_register

        # A round's settlement is reversed with the round, so the round records it.
        entry_kind_register_owner(
            kind="round_settlement",
            how_to_reverse="reverse it with its round (POST /api/v1/rounds/{id}/reverse)")
        approval_actions_register()
