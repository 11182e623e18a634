from typing import ClassVar

from django.apps import AppConfig

from casino.shared.db_roles import APPEND_ONLY, Privileges


class RoundsConfig(AppConfig):
    name = "rounds"
    verbose_name = "Rounds"

    # What the service's database role may do to the rounds' tables (casino.shared.db_roles;
    # every table not named: read, insert, update, never delete).
    runtime_privileges: ClassVar[dict[str, Privileges]] = {
        # A round's story is append-only (rounds/migrations/0002).
        "rounds_roundevent": APPEND_ONLY,
        # Who took and left each seat, and when: appended by the seat services, never changed.
        "rounds_seatchange": APPEND_ONLY,
        # A settled round's parties are its record, written once (rounds/migrations/0018).
        "rounds_roundparty": APPEND_ONLY,
        # A physical deal's picks while the dealer keys them in: working state, deleted when
        # the deal is posted (rounds/services/deal_draft.py); the round's story keeps the deal.
        "rounds_dealdraft": Privileges(delete=True),
        # A rule set's edge figures are worked out once and kept as they are (rounds.edges).
        "rounds_edgefigures": APPEND_ONLY,
        # A drop count is confirmed (or refused) by its witness, explained after the count
        # or marked corrected, nothing else (rounds/services/drop.py; its trigger says how:
        # rounds/migrations/0024). What was counted, by whom, with which witness: never.
        "rounds_dropcount": Privileges(update=("status", "reason", "explained_by_id",
                                               "explained_at", "recorded", "variance",
                                               "witnessed_at", "entry_id",
                                               "variance_entry_id")),
        # A dealer's shift changes only by its end (rounds/services/dealers.py; its trigger:
        # rounds/migrations/0023).
        "rounds_dealershift": Privileges(update=("ended_at", "ended_by_id")),
        # A pit boss's explanation of a day outside its band is written once and kept
        # (rounds/services/variance.py; its trigger: rounds/migrations/0022).
        "rounds_varianceexplanation": APPEND_ONLY,
        # A self-service game's seeds: drawn when it opens and never changed; only the
        # player's client seed is written later, with the wager (rounds.games).
        "rounds_gameseed": Privileges(update=("client_seed",)),
    }

    def ready(self) -> None:
        from casino.services import Uncounted, uncounted_cash_register
        from ledger.services import entry_kind_register_owner
        from rounds.approvals import approval_actions_register
        from rounds.drop import player_uncounted_today
        from rounds.services.drop import drop_entry_owner

        # A round's settlement is reversed with the round, so the round records it.
        entry_kind_register_owner(
            kind="round_settlement",
            how_to_reverse="reverse it with its round (POST /api/v1/rounds/{id}/reverse)")
        for kind, how in drop_entry_owner():
            entry_kind_register_owner(kind=kind, how_to_reverse=how)
        approval_actions_register()
        # The cage pays out a buy-in's cash once its table's box is counted, or with a pit
        # boss's approval: it reads which buy-ins are not counted yet from here.
        uncounted_cash_register(lambda player: [
            Uncounted(where=u.table_name, amount=u.amount)
            for u in player_uncounted_today(player)])
        # A player's own limits (casino.player_limits) read their day at play from here.
        from casino.player_limits import played_day_register
        from rounds.limits import player_played_day

        played_day_register(player_played_day)
