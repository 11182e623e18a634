"""``{{ entry.kind|entry_kind }}``: a ledger entry's kind as people say it ("Round
settlement", not ``round_settlement``); ``{{ n|sealed_through }}``: how far the ledger's
chain was sealed, in words."""

from __future__ import annotations

from django import template

register = template.Library()

# The kinds the floor posts; any other kind is shown with its underscores as spaces.
KINDS = {
    "deposit": "Deposit",
    "withdrawal": "Withdrawal",
    "round_settlement": "Round settlement",
    "reversal": "Reversal",
    "capture": "Capture",
}


def entry_kind_text(kind: str) -> str:
    return KINDS.get(kind) or kind.replace("_", " ").capitalize()


@register.filter
def entry_kind(kind: str) -> str:
    return entry_kind_text(kind)


def sentence_text(text: str) -> str:
    """``text`` ended by one full stop: what a person typed ("paid the wrong seat.") put at
    the end of a sentence of ours is not given a second one."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?", "…")) else text + "."


@register.filter
def sentence(text: str) -> str:
    return sentence_text(text)


def sealed_through_text(block: int | None) -> str:
    """The newest sealed block a figure was read with, as a reader understands it: before
    the first block, "block 0" and a hash of zeros would look like an empty ledger."""
    if not block:
        return ("no block yet (entries are sealed into blocks within a minute or so of being "
                "posted)")
    return f"block {block}"


@register.filter
def sealed_through(block: int | None) -> str:
    return sealed_through_text(block)
