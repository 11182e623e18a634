"""The bank's side of a round (rules §7): a player-banker's cover — the solvency check
before play (§7.4) and the hold that keeps the cover until the round is settled or voided.
Who plays against the bank is rounds.selectors.round_positions_against_bank."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import User

from casino.shared.errors import Conflict
from casino.shared.money import format_minor
from ledger import services as ledger
from ledger.selectors import account_balance
from rounds import accounts
from rounds.errors import BankerInsolvent
from rounds.models import Round, Wager
from rounds.services.steps import round_event_add
from rounds.settlement import banker_share


def banker_cover_required(*, wagers: Sequence[int], house_stake: int, co_banking: bool) -> int:
    """What a player-banker must cover (rules §7.4): every wager against the bank plus the
    house stake; under co-banking only its half of each wager (rules §7)."""
    share = banker_share if co_banking else (lambda amount: amount)
    return sum(share(amount) for amount in wagers) + house_stake


def banker_cover_hold(round_: Round, wagers: Sequence[Wager], by: User) -> None:
    """The solvency check before play (rules §7.4): the player-banker's available funds
    must cover every wager against the bank plus the house stake; that cover is then held
    until the round is settled or voided. Refused with the figures, changing nothing.
    The caller holds the round locked; the ledger locks the banker's account."""
    if round_.banker_is_house:
        return
    assert round_.banker_player is not None
    required = banker_cover_required(wagers=[w.amount for w in wagers],
                                     house_stake=round_.house_stake,
                                     co_banking=round_.table_rules.co_banking)
    account = accounts.player_account(round_.banker_player)
    available = account_balance(account_id=account.pk).available

    def money(amount: int) -> str:
        return format_minor(amount, round_.currency)

    def refuse(available: int) -> BankerInsolvent:
        shortfall = required - available
        return BankerInsolvent(
            f"the banker cannot cover the table: {money(required)} required, "
            f"{money(available)} available, {money(shortfall)} short",
            detail={"required": money(required), "available": money(available),
                    "shortfall": money(shortfall)},
        )

    if available < required:
        raise refuse(available)
    try:
        # The ledger locks the account and checks again, so money spent elsewhere since
        # the read above cannot slip through.
        hold = ledger.hold_place(account_id=account.pk, amount=required, by=by,
                                 ref=f"round:{round_.pk}", memo="banker's cover")
    except Conflict as exc:
        if exc.code != "insufficient_funds":
            raise
        raise refuse(account_balance(account_id=account.pk).available) from exc
    round_.solvency_required, round_.solvency_available = required, available
    round_.banker_hold_id = hold.pk
    round_event_add(round_, "solvency_checked", by, required=money(required),
                    available=money(available), hold=hold.pk)
