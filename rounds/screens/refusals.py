"""A refused step in words for the person at the table.

The services' messages are written for the API's readers (``cannot deal: round 3 is
'betting'``); a dealer needs "Betting is still open: set the banker first". Codes whose
message already reads well are only given a capital letter and a full stop.
"""

from __future__ import annotations

import re

from casino.shared.errors import DomainError
from casino.shared.templatetags.money import money_said
from rounds.models import Round
from rounds.templatetags.cards import card_label

_STATE_WORDS = {
    Round.State.BETTING: "Betting is still open: the banker is not set yet.",
    Round.State.BANKER_SET: "The banker is set: betting is closed and the cards are not dealt yet.",
    Round.State.DEALT: "This round is already dealt.",
    Round.State.SETTLED: "This round is already settled.",
    Round.State.VOIDED: "This round was voided.",
    Round.State.REVERSED: "This round was settled and then reversed.",
}
_FIELD_WORDS = {
    "min_bet": "the minimum wager", "max_bet": "the maximum wager",
    "commission_rate": "the commission rate", "house_way": "the house way",
}
_CARD = re.compile(r"\b(?:[2-9TJQKA][SHDC]|JK)\b")


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return "The step was refused."
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _cards_in_words(text: str) -> str:
    return _CARD.sub(lambda m: card_label(m.group(0)), text)


def refusal_text(error: DomainError, *, currency: str = "", who: str = "") -> str:
    """The sentence a screen shows for a refused step; ``who`` names the person whose money
    it concerns (the banker at the deal, the seat's player for a wager)."""
    detail = error.detail or {}

    def money(name: str) -> str:  # the detail's "12379.50" as the casino writes it
        return money_said(detail.get(name), currency)

    if error.code == "wrong_state":
        state = detail.get("state")
        if state in _STATE_WORDS:
            return _STATE_WORDS[Round.State(state)] + " The step was not taken."
    if error.code == "banker_insolvent" and "who" in detail:
        # A card room names whose money is short: the player-dealer, the proposition
        # player, or a seat's collection fee (rounds.services.banking).
        said = error.message.split(":")[0]
        if who and detail["who"] == "the player-dealer":
            said = said.replace("the player-dealer", f"{who}, the player-dealer,", 1)
        return (f"{_sentence(said)[:-1]}: {money('shortfall')} "
                f"short ({money('required')} needed, {money('available')} "
                "available). Nothing was changed.")
    if error.code == "banker_insolvent" and "shortfall" in detail:
        return (f"{who or 'The banker'} cannot cover the wagers: {money('shortfall')} short "
                f"({money('required')} needed, {money('available')} "
                "available). Nothing was changed.")
    if error.code == "out_of_limits":
        low = money("min_bet" if "min_bet" in detail else "min")
        high = money("max_bet" if "max_bet" in detail else "max")
        if "wager" in detail:  # a wager brought down (services.wager_lower)
            return (f"A wager of {money('wager')} only comes down: to {low} or "
                    f"more, below {money('wager')}. Clear takes it back whole.")
        if "min_bet" in detail:
            return f"A wager at this table is from {low} to {high}."
        return (f"The house stake is 0 (the house sits out) or from {low} "
                f"to {high}.")
    if error.code == "foul_setting" and "high" in detail:
        return ("That split is a foul: the two-card hand "
                f"{_cards_in_words(detail['low'])} ranks above the five-card hand "
                f"{_cards_in_words(detail['high'])}. The five-card hand must be the "
                "higher one.")
    if error.code == "hands_not_set" and "positions" in detail:
        names = ", ".join("the dealer" if p == "dealer" else f"seat {p}"
                          for p in detail["positions"])
        return f"Set these hands first: {names}."
    if error.code == "insufficient_funds" and "required" in detail:
        currency = detail.get("currency", currency)
        return (f"{who or 'The player'} has {money('available')} available; this "
                f"needs {money('required')}. Nothing was changed.")
    text = error.message
    for name, words in _FIELD_WORDS.items():
        text = text.replace(name, words)
    return _sentence(_cards_in_words(text))
