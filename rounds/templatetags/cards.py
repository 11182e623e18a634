"""``{{ "AS KH JK"|cards }}``: cards in the rules' notation with suit symbols, hearts and
diamonds in red (a class the stylesheets colour), the one way a card is shown on a screen."""

from __future__ import annotations

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from rounds import paigow

register = template.Library()

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RED_SUITS = frozenset({"H", "D"})
JOKER_SHOWN = "JK★"


def card_label(code: str) -> str:
    """``"KH"`` -> ``"K♥"``; the joker -> ``"JK★"`` (plain text, for titles and CSV)."""
    card = paigow.parse_cards(code)[0]
    return JOKER_SHOWN if card.is_joker else card.code[:-1] + SUIT_SYMBOLS[card.suit]


def card_html(code: str) -> SafeString:
    card = paigow.parse_cards(code)[0]
    colour = "red" if card.suit in RED_SUITS else "black"
    return format_html('<span class="card card-{}" data-card="{}">{}</span>',
                       colour, card.code, card_label(code))


def cards_html(codes: str | list[str] | None) -> SafeString:
    if not codes:
        return format_html("{}", "")
    items = codes.split() if isinstance(codes, str) else list(codes)
    return format_html_join(" ", "{}", ((card_html(c),) for c in items))


@register.filter
def cards(codes: str | list[str] | None) -> SafeString:
    return cards_html(codes)


@register.filter
def card(code: str) -> SafeString:
    return card_html(code)
