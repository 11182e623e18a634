"""The casino floor: players and tables.

Design overview
- A ``Player`` is a person known to the cage. Their money lives in the ledger (one account
  per player and currency); this model only says who they are.
- A ``Table`` is a Pai Gow Poker table with its currency, limits and every table setting of
  the rules page (docs/rules.md), each a field with the rules' default. Amounts are
  integers in the currency's minor unit (cents for EUR). Settings change only between
  rounds, through a service that records each change (rounds.services).
- A table's ``deal_modes`` say how its rounds may be dealt: electronically (the service
  shuffles and rolls), by recording a physical table's cards, or results only (the dealer
  records each position's outcome). Choosing cards or outcomes decides the money, so a
  table allows results only when a pit boss says it deals that way.
- Staff are Django users; their role is the Django group they belong to (casino.roles).
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q


class Currency(models.TextChoices):
    """Currencies the floor accepts; each has two minor-unit digits."""

    EUR = "EUR", "Euro"
    USD = "USD", "US dollar"
    GBP = "GBP", "Pound sterling"
    CHF = "CHF", "Swiss franc"


class Player(models.Model):
    name = models.CharField(max_length=200)
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.EUR)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
        related_name="+",
    )

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["name"])]
        permissions = [
            ("deposit_funds", "Can take a player's deposit at the cage"),
            ("withdraw_funds", "Can pay out a player's withdrawal at the cage"),
            ("correct_funds", "Can correct a deposit or withdrawal at the cage"),
        ]

    def __str__(self) -> str:
        return f"{self.name} (#{self.pk})"


def default_deal_modes() -> list[str]:
    """Electronic and physical deals; results only is a pit boss's choice per table."""
    return [Table.DealMode.ELECTRONIC.value, Table.DealMode.PHYSICAL.value]


class Table(models.Model):
    """A table and its settings; every setting's default is the rules page's."""

    class DealMode(models.TextChoices):
        # The same words as a round's deal kind (rounds.models.Round.DealKind).
        ELECTRONIC = "electronic", "Electronic (the service shuffles and rolls the dice)"
        PHYSICAL = "physical", "Physical (the dealer records the cards dealt)"
        RESULTS = "results", "Results only (the dealer records each outcome)"

    class CommissionRounding(models.TextChoices):
        EXACT = "exact", "Exact to the minor unit, half up"
        UP_TO_QUARTER = "up_to_quarter", "Up to the next 0.25"
        DOWN_TO_UNIT = "down_to_unit", "Down to a whole unit"

    class Wheel(models.TextChoices):
        SECOND_HIGHEST = "second_highest", "A-2-3-4-5 is the second-highest straight"
        LOWEST = "lowest", "A-2-3-4-5 is the lowest straight"

    class BankRotation(models.TextChoices):
        ALTERNATE = "alternate", "House every other round, offered in seat order between"
        CIRCLE = "circle", "Each player in turn, then the house"
        OPEN = "open", "Any seated player may ask; pit staff decide"

    class HouseStakeCap(models.TextChoices):
        LAST_WAGER = "last_wager", "The banker's own last wager against the house"
        TABLE_MAX = "table_max", "The table maximum"

    class FoulPolicy(models.TextChoices):
        HOUSE_WAY = "house_way", "The dealer re-sets the hand the house way"
        FORFEIT = "forfeit", "The fouled hand loses"

    class FirstStack(models.TextChoices):
        AFTER_COUNTED = "after_counted", "Dealing starts after the counted position"
        COUNTED = "counted", "The counted position takes the first stack"

    name = models.CharField(max_length=100, unique=True)
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.EUR)
    is_open = models.BooleanField(default=True)
    # Limits in minor units: 2 and 100 are the German seed's online table (rules §6).
    min_bet = models.BigIntegerField(default=200)
    max_bet = models.BigIntegerField(default=10_000)
    commission_rate = models.DecimalField(
        max_digits=5, decimal_places=4, default=Decimal("0.0500"),
        help_text="Fraction of a win taken as commission (0.0500 = 5%).",
    )
    commission_rounding = models.CharField(
        max_length=20, choices=CommissionRounding.choices, default=CommissionRounding.EXACT
    )
    wheel = models.CharField(max_length=20, choices=Wheel.choices, default=Wheel.SECOND_HIGHEST)
    house_way = models.CharField(max_length=30, default="foxwoods")
    bank_rotation = models.CharField(
        max_length=20, choices=BankRotation.choices, default=BankRotation.ALTERNATE
    )
    banker_must_have_played = models.BooleanField(default=True)
    house_stake_cap = models.CharField(
        max_length=20, choices=HouseStakeCap.choices, default=HouseStakeCap.LAST_WAGER
    )
    foul_policy = models.CharField(
        max_length=20, choices=FoulPolicy.choices, default=FoulPolicy.HOUSE_WAY
    )
    co_banking = models.BooleanField(default=False)
    first_stack = models.CharField(
        max_length=20, choices=FirstStack.choices, default=FirstStack.AFTER_COUNTED
    )
    deal_modes = ArrayField(
        models.CharField(max_length=20, choices=DealMode.choices), default=default_deal_modes,
        help_text="How this table's rounds may be dealt.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Who opened the table (rules §10); empty for tables opened before it was recorded.
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["id"]
        permissions = [("run_rounds", "Can run rounds at a table (deal, wagers, settle)")]
        constraints = [
            models.CheckConstraint(
                condition=Q(min_bet__gt=0) & Q(max_bet__gte=models.F("min_bet")),
                name="table_limits_positive_and_ordered",
            ),
            models.CheckConstraint(
                condition=Q(commission_rate__gte=0) & Q(commission_rate__lt=1),
                name="table_commission_rate_in_range",
            ),
            models.CheckConstraint(
                condition=Q(deal_modes__len__gte=1)
                & Q(deal_modes__contained_by=["electronic", "physical", "results"]),
                name="table_deal_modes_known_and_not_empty",
            ),
        ]

    def __str__(self) -> str:
        return self.name


# Answers to POSTs retried with an Idempotency-Key; the model lives beside its middleware.
# Requests waiting for a second person, and refused attempts, beside their services.
from casino.shared.approvals import Approval  # noqa: E402, F401
from casino.shared.idempotency import IdempotencyKey  # noqa: E402, F401
from casino.shared.refusals import Refusal  # noqa: E402, F401
