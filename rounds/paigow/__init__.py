"""Pai Gow Poker, the game itself: cards, hand ranking, setting, house way, showdown, deal
and the bank's rotation (``rounds.paigow.rotation``).

Pure Python with no Django import, so it can be used and tested on its own; the rules it
implements are in docs/rules.md (sections 1-5, 7.1, 8 and 9).
"""

from .cards import DECK, JOKER, Card, format_cards, parse_cards, sort_cards
from .deal import POSITIONS, Deal, DealOrder, deal, deal_order, roll_dice
from .errors import FoulSetting, InvalidCards, PaiGowError, UnknownOption
from .evaluate import CATEGORIES, WHEEL_RULES, HighRank, LowRank, evaluate_high, evaluate_low
from .houseway import HOUSE_WAYS, HouseWay, explain_house_way, house_way
from .setting import Setting, all_settings, validate_setting
from .showdown import Outcome, showdown

__all__ = [
    "CATEGORIES", "DECK", "HOUSE_WAYS", "JOKER", "POSITIONS", "WHEEL_RULES",
    "Card", "Deal", "DealOrder", "FoulSetting", "HighRank", "HouseWay", "InvalidCards",
    "LowRank", "Outcome", "PaiGowError", "Setting", "UnknownOption",
    "all_settings", "deal", "deal_order", "evaluate_high", "evaluate_low", "explain_house_way",
    "format_cards", "house_way", "parse_cards", "roll_dice", "showdown", "sort_cards",
    "validate_setting",
]
