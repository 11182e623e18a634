"""The bank's side of a round (rules §7): a player-banker's cover — the solvency check
before play (§7.4) and the hold that keeps the cover until the round is settled or voided.
Who plays against the bank is rounds.selectors.round_positions_against_bank."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from django.contrib.auth.models import User

from casino.player_limits import player_limits_check
from casino.shared.errors import Conflict
from casino.shared.money import format_minor
from ledger import services as ledger
from ledger.selectors import account_balance
from rounds import accounts
from rounds.errors import BankerInsolvent
from rounds.models import Round, Wager
from rounds.rules import TableRules
from rounds.selectors import WagerAmount
from rounds.services.steps import round_event_add
from rounds.settlement import (
    Position,
    PositionCover,
    banker_fee,
    banker_share,
    cover_wagers,
)


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
    if round_.table_rules.card_room:
        card_room_cover_hold(round_, wagers, by)
        return
    assert round_.banker_player is not None
    required = banker_cover_required(wagers=[w.amount for w in wagers],
                                     house_stake=round_.house_stake,
                                     co_banking=round_.table_rules.co_banking)
    # A player's own daily loss limit holds when they bank too: the cover is what the bank
    # may lose (casino.player_limits).
    player_limits_check(player=round_.banker_player, amount=required,
                        gaming_day=round_.gaming_day, banking=True)
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


# --- the card room's bank (docs/rules.md, card-room mode) ------------------------------------

class CoverSide(Protocol):
    """What the cover rule reads of a round: a round, or a round as rounds.round_view
    shows it."""

    @property
    def banker_seat(self) -> int | None: ...
    @property
    def banker_cover(self) -> int | None: ...
    @property
    def third_party_id(self) -> int | None: ...


class CardRoomRound(CoverSide, Protocol):
    @property
    def banker_player_id(self) -> int | None: ...
    @property
    def table_rules(self) -> TableRules: ...


def round_covers(round_: CoverSide,
                 wagers: Sequence[WagerAmount]) -> dict[Position, PositionCover]:
    """Who covers each wager of a card-room round: the player-dealer up to their cover in
    seat order from their left, the proposition player the rest (rounds.settlement)."""
    return cover_wagers(wagers={Position.seat(w.seat): w.amount for w in wagers},
                        banker_seat=round_.banker_seat, cover=round_.banker_cover,
                        third_party=round_.third_party_id is not None)


@dataclass(frozen=True)
class CardRoomBank:
    """A card room's bank before the deal (docs/rules.md §14.3): who covers each wager, what
    each bank covers, the bank's collection fee and who pays it, and each wager's fee. The
    one home of these figures: the solvency check holds them, the screen shows them."""

    covers: dict[Position, PositionCover]
    player_dealer: int    # the player-dealer's part of the action
    third_party: int      # the proposition player's
    fee: int              # the bank's fee, by the bands, on all the action covered
    player_fee: int       # each wager with action pays it
    alone: bool           # the proposition player banks alone, and pays the bank's fee

    @property
    def player_dealer_required(self) -> int:
        return self.player_dealer + (0 if self.alone else self.fee)

    @property
    def third_party_required(self) -> int:
        return self.third_party + (self.fee if self.alone else 0)


def card_room_bank(round_: CardRoomRound, wagers: Sequence[WagerAmount]) -> CardRoomBank:
    rules = round_.table_rules
    covers = round_covers(round_, wagers)
    player_dealer = sum(c.player_dealer for c in covers.values())
    third_party = sum(c.third_party for c in covers.values())
    return CardRoomBank(covers=covers, player_dealer=player_dealer, third_party=third_party,
                        fee=banker_fee(player_dealer + third_party, rules.collection_banker),
                        player_fee=rules.collection_player,
                        alone=round_.banker_player_id is None)


def card_room_cover_hold(round_: Round, wagers: Sequence[Wager], by: User) -> None:
    """The card room's solvency check before play: the player-dealer must have their share
    of the cover plus the bank's collection fee available, the proposition player its share
    (plus the fee when it banks alone), and each player with action the wager's fee. Each
    is held until settlement; refused with the figures, changing nothing (the caller's
    transaction rolls back). Holds are placed in account order (the ledger's lock order).
    The caller holds the round locked."""
    rules = round_.table_rules
    bank = card_room_bank(round_, wagers)
    covers, fee = bank.covers, bank.fee
    cur = round_.currency

    def money(amount: int) -> str:
        return format_minor(amount, cur)

    # (account, amount, memo, who in words, what the hold is for)
    wanted: list[tuple[int, int, str, str, str]] = []
    if round_.banker_player is not None:
        # The player-dealer's own daily loss limit holds on what their bank may lose.
        player_limits_check(player=round_.banker_player, amount=bank.player_dealer_required,
                            gaming_day=round_.gaming_day, banking=True)
        account = accounts.player_account(round_.banker_player)
        wanted.append((account.pk, bank.player_dealer_required,
                       "player-dealer's cover and fee", "the player-dealer", "bank"))
    if round_.third_party is not None:
        account = accounts.player_account(round_.third_party)
        wanted.append((account.pk, bank.third_party_required,
                       "proposition player's cover" + (" and fee" if bank.alone else ""),
                       "the proposition player", "third_party"))
    by_seat = {w.seat: w for w in wagers}
    if rules.collection_player:
        for position, cover in covers.items():
            if cover.action and position.seat_number is not None:
                wager = by_seat[position.seat_number]
                account = accounts.player_account(wager.player)
                wanted.append((account.pk, rules.collection_player,
                               f"collection fee, seat {wager.seat}",
                               f"seat {wager.seat}", f"fee:{wager.seat}"))
    fee_holds: list[int] = []
    checked: dict[str, str] = {}
    for account_id, amount, memo, who, role in sorted(wanted):
        if amount <= 0:
            continue
        available = account_balance(account_id=account_id).available
        if role == "bank" or (role == "third_party" and round_.banker_player is None):
            checked = {"required": money(amount), "available": money(available)}
        if available < amount:
            raise _card_room_refusal(who, amount, available, money)
        try:
            hold = ledger.hold_place(account_id=account_id, amount=amount, by=by,
                                     ref=f"round:{round_.pk}", memo=memo)
        except Conflict as exc:
            if exc.code != "insufficient_funds":
                raise
            raise _card_room_refusal(
                who, amount, account_balance(account_id=account_id).available, money) from exc
        if role == "bank":
            round_.solvency_required, round_.solvency_available = amount, available
            round_.banker_hold_id = hold.pk
        elif role == "third_party":
            round_.third_party_hold_id = hold.pk
            if round_.banker_player is None:
                round_.solvency_required, round_.solvency_available = amount, available
        else:
            fee_holds.append(hold.pk)
    round_.fee_hold_ids = fee_holds
    round_event_add(round_, "solvency_checked", by, **checked,
                    cover={p.value: {"player_dealer": money(c.player_dealer),
                                     "third_party": money(c.third_party),
                                     "uncovered": money(c.uncovered)}
                           for p, c in covers.items()},
                    banker_fee=money(fee), hold=round_.banker_hold_id,
                    third_party_hold=round_.third_party_hold_id, fee_holds=fee_holds)


def _card_room_refusal(who: str, required: int, available: int,
                       money: Callable[[int], str]) -> BankerInsolvent:
    what = "pay the collection fee" if who.startswith("seat") else "cover its share"
    if who == "the player-dealer":
        what = "cover their share and the bank's fee"
    return BankerInsolvent(
        f"{who} cannot {what}: {money(required)} required, {money(available)} available, "
        f"{money(required - available)} short",
        detail={"who": who, "required": money(required), "available": money(available),
                "shortfall": money(required - available)})
