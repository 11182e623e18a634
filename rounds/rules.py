"""A round's rules as typed values: the table's settings as the round copied them when it
opened (``Round.rules``, rules §6-§9), read once into a frozen ``TableRules``.

The JSON stays the record (it is what the API shows and what the event log says the
round opened with); code reads the typed object, so a setting's values are the Table
model's choices, never string literals compared by hand. A setting missing from an older
round's copy (``deal_modes`` came later) takes the Table field's default, which is what
that round played by.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import models

from rounds.models import Table
from rounds.settlement import FeeBand


def _default(name: str) -> Any:
    field = Table._meta.get_field(name)
    assert isinstance(field, models.Field)  # a setting is a plain column of the table
    return field.get_default()


@dataclass(frozen=True)
class TableRules:
    min_bet: int                     # minor units
    max_bet: int
    commission_rate: Decimal         # fraction of a win: 0.05 is 5% (rules §6)
    commission_rounding: Table.CommissionRounding
    wheel: Table.Wheel
    house_way: str                   # a name of rounds.paigow.HOUSE_WAYS
    bank_rotation: Table.BankRotation
    banker_must_have_played: bool
    house_stake_cap: Table.HouseStakeCap
    foul_policy: Table.FoulPolicy
    co_banking: bool
    first_stack: Table.FirstStack
    deal_modes: tuple[Table.DealMode, ...]
    bank_mode: Table.BankMode = Table.BankMode.CASINO
    collection_banker: tuple[FeeBand, ...] = ()   # minor units
    collection_player: int = 0
    max_consecutive_banks: int = 2
    rotation_minutes: int | None = None

    @property
    def card_room(self) -> bool:
        return self.bank_mode == Table.BankMode.CARD_ROOM

    @property
    def co_banks(self) -> bool:
        """The house takes half of a player's bank (rules §7.8): a casino table's setting; a
        card room's banks are its player-dealer's and its proposition player's."""
        return self.co_banking and not self.card_room

    def wager_allowed(self, amount: int) -> bool:
        """A wager within the table's limits (rules §6): the service refuses any other, the
        screen greys out a chip outside them."""
        return self.min_bet <= amount <= self.max_bet

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TableRules:
        def get(name: str) -> Any:
            return data[name] if name in data else _default(name)

        return cls(
            min_bet=int(get("min_bet")),
            max_bet=int(get("max_bet")),
            commission_rate=Decimal(str(get("commission_rate"))),
            commission_rounding=Table.CommissionRounding(get("commission_rounding")),
            wheel=Table.Wheel(get("wheel")),
            house_way=str(get("house_way")),
            bank_rotation=Table.BankRotation(get("bank_rotation")),
            banker_must_have_played=bool(get("banker_must_have_played")),
            house_stake_cap=Table.HouseStakeCap(get("house_stake_cap")),
            foul_policy=Table.FoulPolicy(get("foul_policy")),
            co_banking=bool(get("co_banking")),
            first_stack=Table.FirstStack(get("first_stack")),
            deal_modes=tuple(Table.DealMode(m) for m in get("deal_modes")),
            bank_mode=Table.BankMode(get("bank_mode")),
            collection_banker=fee_bands(get("collection_banker")),
            collection_player=int(get("collection_player")),
            max_consecutive_banks=int(get("max_consecutive_banks")),
            rotation_minutes=None if get("rotation_minutes") is None
            else int(get("rotation_minutes")),
        )


def fee_bands(data: Any) -> tuple[FeeBand, ...]:
    """The bank's fee bands as stored (``Table.collection_banker``, minor units)."""
    return tuple(FeeBand(up_to=None if band["up_to"] is None else int(band["up_to"]),
                         fee=int(band["fee"])) for band in data)


def fee_bands_text(data: Any, currency: str) -> str:
    """The bank's fee bands in words, as the rules page and the admin show them:
    ``up to 100.00: 1.00; up to 500.00: 3.00; above: 5.00``."""
    from casino.shared.money import format_minor

    return "; ".join(
        ("above" if band.up_to is None else f"up to {format_minor(band.up_to, currency)}")
        + f": {format_minor(band.fee, currency)}" for band in fee_bands(data))
