"""``{{ entry.kind|entry_kind }}``: a ledger entry's kind as people say it ("Round
settlement", not ``round_settlement``)."""

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
