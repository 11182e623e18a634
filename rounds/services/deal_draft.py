"""The physical deal as the dealer records it: a draft of picks kept on the server.

A physical table's deal is recorded card by card (the console's card picker, or a
card-reading shoe through the API). Each pick is written here at once, under the round's
lock, so a reload, a second screen or a lost click loses nothing, and two picks of one round
queue instead of racing. The rules a pick obeys are the deck's: each of the 53 cards once,
seven a position, only positions in play, only while the round waits for its deal. The deal
itself is posted by ``round_deal_from_draft`` (or rounds.services.play.round_deal with the
hands), which deletes the draft in the same transaction: the round's story keeps the deal as
posted (its "dealt" event), not the working state.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction

from casino.shared.errors import Conflict
from rounds import paigow
from rounds.errors import BadCards, RoundNotFound
from rounds.locks import round_lock
from rounds.models import DealDraft, Round
from rounds.selectors import (
    RoundBank,
    round_active_wagers,
    round_bank_positions,
    round_positions_in_play,
)
from rounds.services.play import round_deal
from rounds.services.steps import round_require_deal_mode, round_require_state

CARDS_A_HAND = 7


@dataclass(frozen=True)
class Draft:
    """The picks so far, each position's in the order picked (positions in play only)."""

    round_id: int
    positions: list[str]           # in play, in the table's order
    hands: dict[str, list[str]]    # position -> card codes
    last: tuple[str, str] | None   # (position, card) of the last pick: what undo takes back

    @property
    def used(self) -> set[str]:
        return {code for cards in self.hands.values() for code in cards}

    @property
    def complete(self) -> bool:
        return all(len(self.hands[p]) == CARDS_A_HAND for p in self.positions)


def deal_draft_get(*, round_id: int) -> tuple[Round, Draft]:
    """The round and its draft now (empty if nothing is picked). A read: it locks nothing."""
    round_ = Round.objects.filter(pk=round_id).first()
    if round_ is None:
        raise RoundNotFound(f"no round #{round_id}")
    row = DealDraft.objects.filter(round_id=round_id).first()
    return round_, _draft(round_, row.picks if row else [])


def deal_draft_hidden_positions(round_: RoundBank) -> set[str]:
    """Game protection (rules §4.1) applied to the draft: the bank's cards (the dealer's and
    a player-banker's) are shown to no one before every player's hand is set, and no hand is
    set before the deal is posted. Every door shows a draft through this."""
    return round_bank_positions(round_)


def _draft(round_: Round, picks: list[list[str]]) -> Draft:
    positions = round_positions_in_play(round_, round_active_wagers(round_))
    hands: dict[str, list[str]] = {p: [] for p in positions}
    for position, code in picks:
        # A position that left play (the banker changed) keeps its picks in the row, so an
        # undo still finds them, but the draft shows only what the deal would record.
        if position in hands:
            hands[position].append(code)
    last = (picks[-1][0], picks[-1][1]) if picks else None
    return Draft(round_id=round_.pk, positions=positions, hands=hands, last=last)


def _locked(round_id: int) -> tuple[Round, DealDraft | None]:
    """The round locked (every step of one round queues on its row), checked to be waiting
    for a physical deal, and its draft row."""
    round_ = round_lock(round_id)
    round_require_state(round_, Round.State.BANKER_SET, doing="record the deal's cards")
    round_require_deal_mode(round_, Round.DealKind.PHYSICAL)
    return round_, DealDraft.objects.filter(round_id=round_id).first()


def deal_draft_pick_check(draft: Draft, *, position: str | None, card: str,
                          hidden: AbstractSet[str] = frozenset()) -> str:
    """Refuse a pick that breaks the deck's rules; answer the position it goes to (the one
    given, else the first position in play with fewer than seven cards). ``hidden``: the
    positions whose picks are face down (deal_draft_hidden_positions)."""
    code = card_code(card)
    if position is None or position == "":
        free = [p for p in draft.positions if len(draft.hands[p]) < CARDS_A_HAND]
        if not free:
            raise Conflict("every position already has its seven cards: record the deal, "
                           "or take a card back", code="draft_full")
        position = free[0]
    if position not in draft.hands:
        raise BadCards(f"position {position} is not in play this round; the positions are "
                       f"{', '.join(draft.positions)}",
                       detail={"position": position, "positions": draft.positions})
    if code in draft.used:
        holder = next(p for p, cards in draft.hands.items() if code in cards)
        # A card of the bank's face-down picks is not named as the bank's (rules §4.1).
        shown = holder not in hidden
        raise Conflict(f"{code} is already picked"
                       + (f" (for {_words(holder)})" if shown else "")
                       + ": each card of the deck is dealt once", code="card_already_picked",
                       detail={"card": code, "position": holder if shown else None})
    if len(draft.hands[position]) >= CARDS_A_HAND:
        raise Conflict(f"{_words(position)} already has seven cards; take one back first",
                       code="hand_full", detail={"position": position})
    return position


def card_code(card: str) -> str:
    """One card's code as the deck writes it, or a refusal in words."""
    try:
        return paigow.parse_cards(card.strip(), count=1)[0].code
    except paigow.PaiGowError as exc:
        raise BadCards(f"{card!r} is not a card of the deck: {exc}",
                       detail={"card": card}) from exc


def _words(position: str) -> str:
    return "the dealer" if position == "dealer" else f"seat {position}"


@transaction.atomic
def deal_draft_pick(*, round_id: int, card: str, by: User,
                    position: str | None = None) -> Draft:
    """Pick one card for a position (the first not yet full if none is given). Locks the
    round, then writes the draft row."""
    round_, row = _locked(round_id)
    draft = _draft(round_, row.picks if row else [])
    position = deal_draft_pick_check(draft, position=position, card=card,
                                     hidden=deal_draft_hidden_positions(round_))
    code = card_code(card)
    picks = [*(row.picks if row else []), [position, code]]
    DealDraft.objects.update_or_create(round_id=round_id,
                                       defaults={"picks": picks, "updated_by": by})
    return _draft(round_, picks)


@transaction.atomic
def deal_draft_undo(*, round_id: int, by: User, card: str | None = None) -> Draft:
    """Take back the last pick. ``card``, if given, must be that last pick: a retried undo
    whose first answer was lost then refuses instead of taking back a second card."""
    round_, row = _locked(round_id)
    picks = list(row.picks) if row else []
    if not picks:
        raise Conflict("no card is picked: nothing to take back", code="draft_empty")
    last_position, last_code = picks[-1]
    if card and card_code(card) != last_code:
        # A face-down pick of the bank is not named (rules §4.1): only that it is not this.
        if last_position in deal_draft_hidden_positions(round_):
            raise Conflict(f"the last card picked is not {card}: it is one of "
                           f"{_words(last_position)}'s, face down", code="not_last_pick",
                           detail={"position": last_position})
        raise Conflict(f"the last card picked is {last_code} (for {_words(last_position)}), "
                       f"not {card}", code="not_last_pick",
                       detail={"card": last_code, "position": last_position})
    picks.pop()
    assert row is not None
    row.picks = picks
    row.updated_by = by
    row.save(update_fields=["picks", "updated_by", "updated_at"])
    return _draft(round_, picks)


@transaction.atomic
def deal_draft_clear(*, round_id: int, by: User) -> Draft:
    """Start the recording again: every pick taken back. Locks the round."""
    round_, _row = _locked(round_id)
    DealDraft.objects.filter(round_id=round_id).delete()
    return _draft(round_, [])


@transaction.atomic
def round_deal_from_draft(*, round_id: int, by: User) -> Round:
    """Post the physical deal the draft holds, and delete the draft, in one transaction:
    the deal posted is exactly the picks (round_deal checks and holds the banker's cover
    first, and refuses an incomplete draft in words)."""
    round_, row = _locked(round_id)
    draft = _draft(round_, row.picks if row else [])
    if not draft.complete:
        short = [f"{_words(p)} has {len(draft.hands[p])}" for p in draft.positions
                 if len(draft.hands[p]) != CARDS_A_HAND]
        # How many cards each position has, not which: the bank's are face down.
        raise Conflict("the deal is not complete: every position needs seven cards ("
                       + "; ".join(short) + ")", code="draft_incomplete",
                       detail={"counts": {p: len(draft.hands[p]) for p in draft.positions}})
    # round_deal locks the round again (the same row, already ours) and deletes the draft.
    return round_deal(round_id=round_id, by=by, hands=draft.hands)
