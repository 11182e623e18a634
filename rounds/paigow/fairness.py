"""A deal anyone can check afterwards: the published algorithm ``v1`` (docs/fairness.md).

Before a game, the service draws a 32-byte server seed and shows only its commitment,
``sha256(server_seed)``; the player may add a client seed. The deck (``DECK``'s order) is
shuffled by Fisher-Yates, from the last position down, with integers read from
``HMAC-SHA256(key=server_seed, msg="{client_seed}:{round_id}:{i}")`` blocks; the three dice
are the next three integers. Once the game settles the seed is shown, and the deal is
recomputed from it. Pure Python and the standard library only, so that a player can run the
same few lines (the docs give them) and get the same cards.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from .cards import DECK, Card
from .deal import Deal

ALGORITHM: Final = "v1"
SEED_BYTES: Final = 32
_SPAN: Final = 2**32


def server_seed_new() -> bytes:
    """A fresh server seed from the operating system's secure source."""
    return secrets.token_bytes(SEED_BYTES)


def commitment_of(server_seed: bytes) -> str:
    """What is shown before the game: ``sha256(server_seed)`` in lowercase hex."""
    return hashlib.sha256(server_seed).hexdigest()


def _integers(server_seed: bytes, client_seed: str, round_id: int) -> Iterator[int]:
    """4-byte big-endian unsigned integers, in order, from the blocks
    HMAC-SHA256(server_seed, "{client_seed}:{round_id}:{i}") for i = 0, 1, 2, ..."""
    i = 0
    while True:
        block = hmac.new(server_seed, f"{client_seed}:{round_id}:{i}".encode(),
                         hashlib.sha256).digest()
        for at in range(0, len(block), 4):
            yield int.from_bytes(block[at:at + 4], "big")
        i += 1


def _below(integers: Iterator[int], n: int) -> int:
    """The next integer drawn for ``n`` outcomes: those at or above the largest multiple
    of ``n`` are skipped, so every outcome is equally likely (no modulo bias)."""
    limit = _SPAN - (_SPAN % n)
    for u in integers:
        if u < limit:
            return u % n
    raise AssertionError("an endless stream ended")  # pragma: no cover


@dataclass(frozen=True)
class FairDeal:
    """The shuffled deck, the deal it makes (seven stacks of seven, four burnt) and the dice."""

    deck: tuple[Card, ...]
    deal: Deal
    dice: tuple[int, int, int]


def fair_deal(*, server_seed: bytes, client_seed: str, round_id: int) -> FairDeal:
    """The deal of ``round_id`` under algorithm v1: the same seeds give the same cards."""
    integers = _integers(server_seed, client_seed, round_id)
    deck = list(DECK)
    for i in range(len(deck) - 1, 0, -1):
        j = _below(integers, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    dice = (_below(integers, 6) + 1, _below(integers, 6) + 1, _below(integers, 6) + 1)
    stacks = tuple(tuple(deck[s * 7:(s + 1) * 7]) for s in range(7))
    return FairDeal(deck=tuple(deck), deal=Deal(stacks=stacks, burnt=tuple(deck[49:])),
                    dice=dice)
