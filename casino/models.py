"""The casino floor: players, staff, and the currencies the floor accepts.

Design overview
- A ``Player`` is a person known to the cage. Their money lives in the ledger (one account
  per player and currency); this model only says who they are.
- ``Currency`` is shared: a player's account and a table (rounds.models.Table, beside its
  seats and rounds) are each in one of these currencies.
- Staff are Django users; their role is the Django group they belong to (casino.roles).
- Requests waiting for a second person, refused attempts and answers kept for retried POSTs
  are models of their own modules (casino.shared.approvals, casino.shared.refusals,
  casino.shared.idempotency), imported at the end of this one so Django finds them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


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
    """The deal modes casino migration 0006 gave every existing table, kept because that
    migration names this function; tables now live in rounds.models (its own
    ``default_deal_modes``)."""
    return ["electronic", "physical"]


# Answers to POSTs retried with an Idempotency-Key; the model lives beside its middleware.
# Requests waiting for a second person, and refused attempts, beside their services.
from casino.shared.approvals import Approval  # noqa: E402, F401
from casino.shared.idempotency import IdempotencyKey  # noqa: E402, F401
from casino.shared.refusals import Refusal  # noqa: E402, F401
