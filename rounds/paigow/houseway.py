"""The house way: how the dealer sets seven cards (rules section 9).

`foxwoods` follows the table of section 9 row by row. `bands` is the same except for two pair,
which it settles by the rank-band rule at the end of section 9. Every holding goes to exactly one
row, tried in the order of `_set_cards`; the rows are commented with their wording.

Interpretations (section 9 asks for them to be written down):

* The joker counts as an ace when holdings are named ("one pair", "three aces", "an ace can go
  in front"...), because outside straights and flushes it *is* an ace (section 2). "A straight or
  flush" means some five of the seven cards rank as a straight or better with the joker's help.
* Where a row leaves the exact cards open, the setting with the best front hand among those the
  row allows is taken, then the one with the best back hand; between settings still equal in
  value, the one whose front cards come first in canonical card order (joker, then aces S H D C,
  kings ...) is taken, so the result never depends on the order the cards were given in.
* "Four of a kind with a pair or three of a kind: a pair in front" means the pair made of the
  three cards other than the four of a kind (the published Foxwoods way says "play the pair in
  front"); it is more specific than the rows by rank of the four of a kind, so it wins over them.
  "A king or better can go in front" (four of a kind T-7) means a king or an ace among the cards
  that are not part of the four of a kind.
* "Full house: the highest pair that may go in front" counts pairs taken out of the three of a
  kind too; "may" means without fouling. With three kings and a pair of fives the kings may
  not go in front (the back would be one pair of fives), so the fives go; with three kings and
  two pairs the kings may (two pair stays in back), and they do.
* "Straight/flush with three of a kind": if no setting keeps a straight or better in back and a
  pair in front (only possible when the joker is both the third ace and the straight's missing
  card), the three-of-a-kind row applies as if there were no straight.
* "Straight/flush with one pair", exception: "holding an ace" includes the joker; the
  alternative is the one-pair row (pair in back, the two highest other cards in front) and it is
  taken only when its front hand is strictly better.
* Three pair with a straight (only possible with the joker) follows the three-pair row, like
  two pair does ("ignore the straight").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from .cards import ACE, Card, sort_cards
from .errors import UnknownOption
from .evaluate import (
    DEFAULT_WHEEL,
    HIGH_RANKS,
    STRAIGHT_FLOOR,
    LowRank,
    high_value,
    low_rank,
    tables_for,
)
from .setting import BACK_OF, FRONT_PAIRS, CardsIn, Setting, make_setting, seven_cards

KING: Final = 13
JACK: Final = 11
SEVEN: Final = 7

# A two-pair rule answers: keep both pairs in the back? (else split: the lower pair in front)
TwoPairRule = Callable[[int, int, list[int]], bool]


def _foxwoods_two_pair(high: int, low: int, singles: list[int]) -> bool:
    if high >= JACK:  # higher pair A, K, Q or J: split
        return False
    if high >= SEVEN:  # higher pair T, 9, 8 or 7: both in back if an ace can go in front
        return ACE in singles
    return max(singles) >= KING  # higher pair 6 to 3: both in back with a king or an ace


def _band(rank: int) -> int:
    # Section 9: low pairs 2-6, medium 7-T, high J-K; aces are a band of their own.
    return 0 if rank <= 6 else 1 if rank <= 10 else 2 if rank <= KING else 3


def _bands_two_pair(high: int, low: int, singles: list[int]) -> bool:
    top, bottom = _band(high), _band(low)
    if top == 3:  # aces with any pair: always split
        return False
    if top == 0 or (top == 1 and bottom == 0):  # low+low, low+medium: split unless K or better
        return max(singles) >= KING
    if (top == 2 and bottom == 0) or (top == 1 and bottom == 1):  # low+high, medium+medium
        return ACE in singles
    return False  # medium+high, high+high: always split


@dataclass(frozen=True)
class HouseWay:
    name: str
    description: str
    two_pair: TwoPairRule


HOUSE_WAYS: Final[dict[str, HouseWay]] = {
    "foxwoods": HouseWay(
        "foxwoods",
        "After the Foxwoods casino's published house way (rules section 9, the default).",
        _foxwoods_two_pair,
    ),
    "bands": HouseWay(
        "bands",
        "Foxwoods, except two pair by rank bands: low 2-6, medium 7-T, high J-K; split low+low "
        "and low+medium unless holding a king or better, low+high and medium+medium unless "
        "holding an ace; always split medium+high, high+high and aces with any pair.",
        _bands_two_pair,
    ),
}
DEFAULT_WAY: Final = "foxwoods"


def get_way(way: str) -> HouseWay:
    found = HOUSE_WAYS.get(way)
    if found is None:
        raise UnknownOption(f"unknown house way {way!r}: choose one of {', '.join(HOUSE_WAYS)}")
    return found


Hand = tuple[Card, ...]
Split = tuple[Hand, Hand, str]  # (front, back, the row of section 9 that decided it)
Accept = Callable[[LowRank, int], bool]


def _has_straight_or_flush(cards: Hand) -> bool:
    """Can five of these cards make a straight or a flush (the joker filling one gap)?"""
    joker = cards[0].is_joker  # the joker sorts first
    need = 5 - joker
    mask = 0
    suits: dict[str, int] = {}
    for card in cards[joker:]:
        mask |= 1 << card.rank
        suits[card.suit] = suits.get(card.suit, 0) + 1
    if max(suits.values()) >= need:
        return True
    if mask & (1 << ACE):
        mask |= 2  # the ace also plays low, in the wheel
    return any(((mask >> bottom) & 31).bit_count() >= need for bottom in range(1, 11))


def _choose(cards: Hand, plain: dict[int, int], suited: dict[int, int], accept: Accept
            ) -> tuple[Hand, Hand] | None:
    """The allowed split with the best front, then the best back; first in canonical order
    among equals (module docstring)."""
    best: tuple[int, int] | None = None
    chosen: tuple[Hand, Hand] | None = None
    for pair in FRONT_PAIRS:
        front = (cards[pair[0]], cards[pair[1]])
        back = tuple(cards[i] for i in BACK_OF[pair])
        front_rank = low_rank(*front)
        back_value = high_value(back, plain, suited)
        if not accept(front_rank, back_value):
            continue
        score = (front_rank.value, back_value)
        if best is None or score > best:
            best, chosen = score, (front, back)
    return chosen


def _straight_back(front: LowRank, back: int) -> bool:
    return back >= STRAIGHT_FLOOR


def _straight_back_pair_front(front: LowRank, back: int) -> bool:
    return back >= STRAIGHT_FLOOR and front.category == "one_pair"


def _pair_front_no_foul(front: LowRank, back: int) -> bool:
    return front.category == "one_pair" and not front > HIGH_RANKS[back]


def _groups(cards: Hand) -> list[list[Card]]:
    """Cards of equal rank (the joker with the aces), largest group first, then by rank."""
    groups: list[list[Card]] = []
    for card in cards:
        if groups and groups[-1][0].rank == card.rank:
            groups[-1].append(card)
        else:
            groups.append([card])
    groups.sort(key=len, reverse=True)  # stable: equal sizes stay highest rank first
    return groups


def set_cards(cards: Hand, way: HouseWay, plain: dict[int, int], suited: dict[int, int]) -> Split:
    """The house way for seven distinct cards already in canonical order."""
    groups = _groups(cards)
    sizes = [len(g) for g in groups]
    singles = [g[0] for g in groups if len(g) == 1]
    top = groups[0]

    if sizes[0] == 5:
        # Five aces: a pair of aces in front, unless a pair of kings can go in front.
        rest = [c for g in groups[1:] for c in g]
        if rest[0].rank == rest[1].rank == KING:
            return tuple(rest), tuple(top), "five aces, kings in front"
        return tuple(top[:2]), tuple(top[2:] + rest), "five aces"

    if sizes[0] == 4:
        rank = top[0].rank
        rest = [c for g in groups[1:] for c in g]
        if sizes[1] >= 2:
            # Four of a kind with a pair or three of a kind: the (other) pair in front.
            return tuple(groups[1][:2]), tuple(top + rest[2:]), "four of a kind with a pair"
        if rank >= JACK:
            return tuple(top[:2]), tuple(top[2:] + rest), "four of a kind A-J, split"
        if rank >= SEVEN and max(c.rank for c in rest) < KING:
            return tuple(top[:2]), tuple(top[2:] + rest), "four of a kind T-7, split"
        return tuple(rest[:2]), tuple(top + rest[2:]), "four of a kind in back"

    if sizes[0] == 3 and sizes[1] == 3:
        # Two sets of three: a pair from the higher set in front.
        return tuple(top[:2]), tuple(top[2:] + groups[1] + groups[2]), "two sets of three"

    if sizes[0] == 3 and sizes[1] == 2:
        # Full house: the highest pair that may go in front goes in front.
        found = _choose(cards, plain, suited, _pair_front_no_foul)
        assert found is not None  # the pair itself may always go in front
        return found[0], found[1], "full house"

    if sizes[0] == 3:
        if _has_straight_or_flush(cards):
            # Straight/flush with three of a kind: straight/flush in back, a pair in front.
            found = _choose(cards, plain, suited, _straight_back_pair_front)
            if found is not None:
                return found[0], found[1], "straight or flush with three of a kind"
        if top[0].rank == ACE:
            # Three aces: a pair of aces in back; one ace and the next-highest card in front.
            return (top[0], singles[0]), tuple(top[1:] + singles[1:]), "three aces"
        # Three of a kind, kings or lower: in back; the two highest other cards in front.
        return tuple(singles[:2]), tuple(top + singles[2:]), "three of a kind"

    if sizes[0] == 2 and sizes[2] == 2:
        # Three pair: the highest pair in front.
        return tuple(top), tuple(groups[1] + groups[2] + groups[3]), "three pair"

    if sizes[0] == 2 and sizes[1] == 2:
        # Two pair (a straight or flush is ignored): the way's two-pair rule.
        high, low = top, groups[1]
        if way.two_pair(high[0].rank, low[0].rank, [c.rank for c in singles]):
            return tuple(singles[:2]), tuple(high + low + singles[2:]), "two pair, both in back"
        return tuple(low), tuple(high + singles), "two pair, split"

    if sizes[0] == 2:
        one_pair: Split = (tuple(singles[:2]), tuple(top + singles[2:]), "one pair")
        if not _has_straight_or_flush(cards):
            return one_pair  # pair in back; the two highest other cards in front
        # Straight/flush with one pair: the best front that leaves a straight or better.
        found = _choose(cards, plain, suited, _straight_back)
        assert found is not None
        if (10 <= top[0].rank <= KING and singles[0].rank == ACE
                and low_rank(*one_pair[0]) > low_rank(*found[0])):
            # Exception: an ace and a pair of K, Q, J or T: the ace in front, pair in back,
            # when that makes the front hand better.
            return one_pair[0], one_pair[1], "straight or flush with one pair, ace in front"
        return found[0], found[1], "straight or flush with one pair"

    if _has_straight_or_flush(cards):
        # Straight, flush or straight flush, no pair: the two highest cards in front that
        # still leave a straight or better in back.
        found = _choose(cards, plain, suited, _straight_back)
        assert found is not None
        return found[0], found[1], "straight or flush, no pair"
    # No pair: the highest card in back; the 2nd and 3rd highest in front.
    return (singles[1], singles[2]), (singles[0], *singles[3:]), "no pair"


def explain_house_way(
    seven: CardsIn, way: str = DEFAULT_WAY, wheel: str = DEFAULT_WHEEL
) -> tuple[Setting, str]:
    """The house way's setting and the row of section 9 that decided it."""
    rule = get_way(way)
    plain, suited = tables_for(wheel)
    front, back, row = set_cards(sort_cards(seven_cards(seven)), rule, plain, suited)
    return make_setting(back, front), row


def house_way(seven: CardsIn, way: str = DEFAULT_WAY, wheel: str = DEFAULT_WHEEL) -> Setting:
    """Set seven cards the house way (rules section 9). Never fouls."""
    return explain_house_way(seven, way, wheel)[0]
