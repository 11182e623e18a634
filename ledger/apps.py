from typing import ClassVar

from django.apps import AppConfig

from casino.shared.db_roles import APPEND_ONLY, Privileges


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = "Ledger"

    # What the service's database role may do to the ledger's tables (casino.shared.db_roles).
    runtime_privileges: ClassVar[dict[str, Privileges]] = {
        # Entries and lines are appended; an account's cached posted and held are moved by
        # its triggers (SECURITY DEFINER), never by the service's own UPDATE.
        "ledger_entry": APPEND_ONLY,
        "ledger_line": APPEND_ONLY,
        # SELECT ... FOR UPDATE needs UPDATE on one column: the account's display name, the
        # one column outside every hash and balance (ledger_account_guard refuses the others).
        "ledger_account": Privileges(update=("name",)),
        # A hold only ever gets its resolution (ledger.services); the trigger says which.
        "ledger_hold": Privileges(update=("status", "captured_amount", "entry_id",
                                          "resolved_at", "resolved_by_id")),
        # Blocks are appended by the sealer (its trigger computes them), checkpoints by
        # ledger_verify; neither ever changes.
        "ledger_block": APPEND_ONLY,
        "ledger_checkpoint": APPEND_ONLY,
    }
    # The functions the service calls (ledger/migrations/0009), its only EXECUTE grants.
    runtime_functions: ClassVar[tuple[str, ...]] = (
        "ledger_entry_post", "ledger_hold_place", "ledger_holds_release", "ledger_seal")
