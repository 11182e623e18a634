"""Algorithm v1 (docs/fairness.md): the deal recomputed from the page alone.

The page's own code block is run as a player would copy it, and must give the cards and dice
the service's implementation gives, for the page's worked example and for random seeds."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rounds.paigow.cards import DECK
from rounds.paigow.fairness import commitment_of, fair_deal, server_seed_new

PAGE = Path(__file__).resolve().parents[3] / "docs" / "fairness.md"


def _page() -> str:
    return PAGE.read_text(encoding="utf-8")


def _page_code() -> dict[str, Any]:
    """The page's Python block, run on its own: what a player would copy."""
    (code,) = re.findall(r"```python\n(.*?)```", _page(), re.S)
    scope: dict[str, Any] = {}
    exec(compile(code, str(PAGE), "exec"), scope)  # noqa: S102 - our own page, in a test
    return scope


def _codes(cards: Any) -> list[str]:
    return [card.code for card in cards]


@settings(max_examples=60, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), client=st.text(max_size=40),
       round_id=st.integers(min_value=1, max_value=2**63 - 1))
def test_the_pages_code_deals_what_the_service_deals(seed: bytes, client: str,
                                                     round_id: int) -> None:
    deck, dice = _page_code()["deal"](seed, client, round_id)

    dealt = fair_deal(server_seed=seed, client_seed=client, round_id=round_id)

    assert _codes(dealt.deck) == deck
    assert list(dealt.dice) == dice
    assert sorted(deck) == sorted(_codes(DECK))
    assert all(1 <= die <= 6 for die in dice)


def test_the_worked_example_is_what_both_compute() -> None:
    page = _page()
    seed = bytes(range(32))
    assert seed.hex() in page
    # the commitment as the page writes it, and as sha256 computes it
    assert commitment_of(seed) == hashlib.sha256(seed).hexdigest()
    assert f"`{commitment_of(seed)}`" in page

    deck, dice = _page_code()["deal"](seed, "", 1)
    (shown,) = re.findall(r"the deck is\n\n```\n(.*?)```", page, re.S)
    assert shown.split() == deck == _codes(fair_deal(server_seed=seed, client_seed="",
                                                      round_id=1).deck)
    assert f"the dice {dice[0]}, {dice[1]}, {dice[2]}." in page

    lucky = fair_deal(server_seed=seed, client_seed="lucky", round_id=1)
    assert f"`{' '.join(_codes(lucky.deal.stacks[0]))}`" in page
    assert "the dice {}, {}, {}:".format(*lucky.dice) in page


def test_the_deal_is_seven_stacks_of_seven_from_the_top_and_four_burnt() -> None:
    dealt = fair_deal(server_seed=bytes(32), client_seed="", round_id=7)
    assert [len(stack) for stack in dealt.deal.stacks] == [7] * 7
    assert sum(dealt.deal.stacks, ()) + dealt.deal.burnt == dealt.deck


@pytest.mark.parametrize("change", ["server", "client", "round"])
def test_each_input_changes_the_deal(change: str) -> None:
    seed, client, round_id = bytes(range(32)), "", 1
    before = fair_deal(server_seed=seed, client_seed=client, round_id=round_id).deck
    if change == "server":
        seed = bytes(range(1, 33))
    elif change == "client":
        client = "x"
    else:
        round_id = 2

    assert fair_deal(server_seed=seed, client_seed=client, round_id=round_id).deck != before


def test_a_server_seed_is_32_fresh_bytes_and_its_commitment_64_hex_digits() -> None:
    first, second = server_seed_new(), server_seed_new()
    assert len(first) == 32 and first != second
    assert re.fullmatch(r"[0-9a-f]{64}", commitment_of(first))
