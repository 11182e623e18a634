"""The end of a round: settling it (its money posted as one ledger entry), voiding it
before that, reversing it after.

The money itself — who wins what, the commission — is worked out by rounds.settlement,
pure arithmetic with no database; this module checks the round, feeds that arithmetic,
and writes its result: the entry, the hands, the round, the event."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from casino.shared import approvals
from casino.shared.errors import Conflict, ValidationFailed
from casino.shared.money import format_minor
from ledger import services as ledger
from rounds import accounts, paigow
from rounds.errors import HandsMissing, WrongState
from rounds.locks import round_lock
from rounds.models import Hand, Round, RoundParty, Wager
from rounds.selectors import round_active_wagers, round_positions_against_bank
from rounds.services.banking import banker_cover_hold, round_covers
from rounds.services.steps import (
    round_event_add,
    round_player_check,
    round_require_deal_mode,
    round_require_state,
)
from rounds.settlement import (
    Line,
    Outcome,
    Party,
    Plan,
    Position,
    PositionOutcome,
    Role,
    settlement_plan,
)

# --- settlement, void, reversal --------------------------------------------------------------

@transaction.atomic
def round_settle(*, round_id: int, by: User,
                 outcomes: Mapping[str, str] | None = None,
                 approved_by: approvals.Approval | None = None) -> Round:
    """Settle every hand against the bank and post the round as ONE ledger entry that
    resolves every hold (rules §5-§7), and store each party's figures (RoundParty): the
    record every report reads. Settling again, with no outcomes or the same ones, returns
    the first settlement (a client's retry); other outcomes are refused (409), as they would
    change a settlement already posted.

    Locks the round row first, so concurrent calls queue and the later ones find the round
    settled; then every account the settlement touches, in primary-key order, before any
    hold is placed or resolved (rounds.locks: accounts, holds, chain head).
    """
    round_ = round_lock(round_id)
    round_player_check(round_, by)
    if round_.state in Round.State.PLAYED:
        if outcomes is not None:
            _require_recorded_outcomes(round_, outcomes)
        return round_
    # In seat order (one active wager per seat), read under the round's lock: no step of
    # the round changes them meanwhile.
    wagers = round_active_wagers(round_)
    stakes = round_positions_against_bank(round_, wagers)
    hold_cover = False
    if outcomes is not None:
        # No cards prove these outcomes: under dual control a second person approves first,
        # whoever calls (casino.shared.approvals; rounds.approvals registers the operation).
        approvals.approval_required_check(action="rounds.settle_results",
                                          params={"round_id": round_id, "outcomes": outcomes},
                                          by=by, approved_by=approved_by)
        results = round_outcomes_check(round_, wagers, outcomes)
        # A results-only table settles straight after the banker is set; the solvency
        # check and the cover hold still come first, after the outcomes are checked.
        hold_cover = round_.state == Round.State.BANKER_SET
        hands: dict[str, Hand] = {}
    else:
        round_require_state(round_, Round.State.DEALT, doing="settle")
        if round_.deal_kind == Round.DealKind.RESULTS:
            raise ValidationFailed("a results-only round settles with the outcome of each "
                                   "position", detail={"fields": {"outcomes": ["required"]}})
        hands = {h.position: h for h in round_.hands.all()}
        results = _showdown_all(round_, stakes, hands)

    rules = round_.table_rules
    money = settlement_plan(
        stakes={Position(p): v for p, v in stakes.items()},
        outcomes={Position(p): r.outcome for p, r in results.items()},
        rules=rules, banker_is_house=bool(round_.banker_is_house),
        house_stake=round_.house_stake,
        covers=round_covers(round_, wagers) if rules.card_room else None,
        player_dealer=round_.banker_seat is not None,
        third_party=round_.third_party_id is not None,
    )
    party_accounts = accounts.settlement_accounts(round_, wagers)
    lines = _settlement_lines(money.lines, party_accounts)
    if hold_cover:
        # Placing the cover locks the banker's account; the entry then locks every account
        # of the round. Taking one account before the others would break the key order:
        # two such rounds whose players bank at each other's tables would deadlock. So
        # every account the cover, the entry and its holds touch is locked first, at once.
        ledger.account_lock(account_ids=party_accounts.values())
        banker_cover_hold(round_, wagers, by)
        round_.deal_kind = Round.DealKind.RESULTS
    entry_id = _post_settlement(round_, wagers, lines, by)

    shown = []
    for position, result in results.items():
        hand = hands.get(position) or Hand(round=round_, position=position)
        hand.outcome, hand.high_result, hand.low_result = result.outcome.value, result.high, \
            result.low
        shown.append(hand)
    Hand.objects.bulk_update([h for h in shown if h.pk],
                             ["outcome", "high_result", "low_result"])
    Hand.objects.bulk_create([h for h in shown if not h.pk])
    RoundParty.objects.bulk_create(_parties(round_, money, party_accounts, wagers))

    round_.entry_id = entry_id
    round_.settled_at = timezone.now()
    round_.state = Round.State.SETTLED
    round_.save(update_fields=["entry_id", "settled_at", "state", "deal_kind",
                               "solvency_required", "solvency_available", "banker_hold_id",
                               "third_party_hold_id", "fee_hold_ids"])
    cur = round_.currency
    bank = money.party(Party.BANK)
    round_event_add(round_, "settled", by, entry=entry_id,
                    outcomes={p: r.outcome.value for p, r in results.items()},
                    banker_net=format_minor(bank.net if bank else 0, cur),
                    banker_commission=format_minor(bank.commission if bank else 0, cur),
                    player_commission=format_minor(money.player_commission, cur),
                    **_card_room_event(money, cur) if rules.card_room else {})
    return round_


def _parties(round_: Round, money: Plan, party_accounts: Mapping[Party, int],
             wagers: Sequence[Wager]) -> list[RoundParty]:
    """The settlement's record: each party's figures as the plan worked them out, with who
    it is and the account its result moved."""
    players: dict[Party, int | None] = {Party.seat(w.seat): w.player_id for w in wagers}
    players[Party.BANK] = round_.banker_player_id
    players[Party.THIRD_PARTY] = round_.third_party_id
    card_room = round_.table_rules.card_room
    bank_position = round_.banker_position
    rows = []
    for figures in money.parties:
        party = figures.party
        role = Role.of(party, banker_is_house=bool(round_.banker_is_house),
                       card_room=card_room)
        # A seat's own hand; the house stake's "dealer"; a bank's (its half too) the bank's.
        position = party.value if party.seat_number is not None else (
            "dealer" if party is Party.HOUSE and figures.wager else bank_position)
        rows.append(RoundParty(
            round=round_, role=role.value, position=position,
            player_id=None if role is Role.HOUSE else players[party],
            account_id=party_accounts[party], wager=figures.wager, covered=figures.covered,
            covered_by_player_dealer=figures.covered_by_player_dealer, won=figures.won,
            paid=figures.paid, commission=figures.commission, fee=figures.fee))
    return rows


def _require_recorded_outcomes(round_: Round, outcomes: Mapping[str, str]) -> None:
    """A settled round answers a retry with its settlement, never a silent 200 to a request
    that asked for other outcomes: the dealer must learn the round was not settled so."""
    recorded = {h.position: h.outcome for h in round_.hands.all() if h.outcome}
    given = {str(k): v for k, v in outcomes.items()}
    if given != recorded:
        raise Conflict(
            f"round {round_.pk} is already {round_.get_state_display().lower()} with other "
            "outcomes; a reversal by a pit boss, then a new round, corrects it",
            code="already_settled", detail={"state": round_.state, "outcomes": recorded})


def round_outcomes_check(round_: Round, wagers: Sequence[Wager],
                         outcomes: Mapping[str, str]) -> dict[str, PositionOutcome]:
    """The one check of a results-only settlement, which the settlement runs and the
    request for a second person's approval runs first (rounds.approvals), so neither
    accepts what the other would refuse: the round waits for the deal at a table that
    records results, or was dealt results only; something plays against the bank; and
    there is an outcome for exactly each position playing against it, each a win, push
    or loss. Raises before anything is written."""
    round_require_state(round_, Round.State.BANKER_SET, Round.State.DEALT, doing="settle")
    if round_.state == Round.State.BANKER_SET:
        round_require_deal_mode(round_, Round.DealKind.RESULTS)
    elif round_.deal_kind != Round.DealKind.RESULTS:
        raise WrongState("this round was dealt with cards: settle it without outcomes")
    stakes = round_positions_against_bank(round_, wagers)
    if not stakes:
        raise Conflict("nothing to play: no wager against the bank", code="no_wagers")
    return _outcomes_checked(stakes, outcomes)


def _outcomes_checked(stakes: Mapping[str, int],
                      outcomes: Mapping[str, str]) -> dict[str, PositionOutcome]:
    expected = set(stakes)
    given = {str(k): v for k, v in outcomes.items()}
    if set(given) != expected:
        raise ValidationFailed(
            "give an outcome for exactly the positions playing against the bank: "
            f"{', '.join(sorted(expected)) or 'none'}",
            detail={"fields": {"outcomes": [f"positions {sorted(expected)}"]}},
        )
    known = {o.value for o in Outcome}
    bad = {p: v for p, v in given.items() if v not in known}
    if bad:
        raise ValidationFailed("an outcome is win, push or loss",
                               detail={"fields": {"outcomes": [f"{p}: {v!r}" for p, v in
                                                               bad.items()]}})
    return {p: PositionOutcome(Outcome(v)) for p, v in given.items()}


def _showdown_all(round_: Round, stakes: Mapping[str, int],
                  hands: Mapping[str, Hand]) -> dict[str, PositionOutcome]:
    """Each position against the banker's hand (rules §5)."""
    unset = sorted(p for p in [*stakes, round_.banker_position]
                   if p not in hands or not hands[p].set_by)
    if unset:
        raise HandsMissing(f"set these hands first: {', '.join(unset)}",
                           detail={"positions": unset})
    wheel = round_.table_rules.wheel
    banker = hands[round_.banker_position]
    results: dict[str, PositionOutcome] = {}
    for position in stakes:
        hand = hands[position]
        if hand.set_by == Hand.SetBy.FOUL_FORFEIT:  # a forfeited hand loses
            results[position] = PositionOutcome(Outcome.LOSS, Outcome.LOSS.value,
                                                Outcome.LOSS.value)
        elif banker.set_by == Hand.SetBy.FOUL_FORFEIT:
            results[position] = PositionOutcome(Outcome.WIN, Outcome.WIN.value,
                                                Outcome.WIN.value)
        else:
            shown = paigow.showdown(player=_setting(hand), banker=_setting(banker),
                                    wheel=wheel)
            results[position] = PositionOutcome(Outcome(shown.result), shown.high, shown.low)
    return results


def _setting(hand: Hand) -> paigow.Setting:
    return paigow.Setting(high=paigow.parse_cards(hand.high), low=paigow.parse_cards(hand.low))


def _card_room_event(money: Plan, cur: str) -> dict[str, object]:
    """What a card-room settlement adds to its event: each position's cover and fee, the
    proposition player's result and the collection, for the regulator's questions."""
    return {
        "cover": {p.position: {"player_dealer": format_minor(p.cover.player_dealer, cur),
                               "third_party": format_minor(p.cover.third_party, cur),
                               "uncovered": format_minor(p.cover.uncovered, cur),
                               "fee": format_minor(p.fee, cur)}
                  for p in money.positions if p.cover is not None},
        "third_party_net": format_minor(money.third_party_net, cur),
        "third_party_commission": format_minor(money.third_party_commission, cur),
        "collection_banker": format_minor(money.collection_banker, cur),
        "collection_players": format_minor(money.collection_players, cur),
        "collection_payer": money.collection_payer.value if money.collection_payer else None,
    }


def _settlement_lines(plan_lines: Sequence[Line],
                      party_accounts: Mapping[Party, int]) -> list[tuple[int, int]]:
    """The settlement entry's lines (account, amount) in account order; none when nothing
    moved (every hand a push). The plan's lines of one account (the house's bankroll as
    bank and as house; a player's win and fee) make one line."""
    lines: dict[int, int] = {}
    for line in plan_lines:
        account_id = party_accounts[line.party]
        lines[account_id] = lines.get(account_id, 0) + line.amount
    return [(a, v) for a, v in sorted(lines.items()) if v]


def _post_settlement(round_: Round, wagers: Sequence[Wager], lines: list[tuple[int, int]],
                     by: User) -> int | None:
    """The round's one ledger entry, resolving the wager holds and the banker's cover.
    A round where nothing moved (every hand a push) posts no entry; its holds are released."""
    holds = [*(w.hold_id for w in wagers), *round_extra_holds(round_)]
    # No savepoint for the ledger's call: a refusal leaves round_settle's atomic block,
    # which rolls back whole.
    if not lines:
        ledger.holds_release(hold_ids=holds, by=by, savepoint=False)
        return None
    entry = ledger.entry_post(
        kind="round_settlement", memo=f"{round_.table.name}, round {round_.number}",
        lines=lines, by=by, ref=f"round:{round_.pk}", settle_holds=holds, savepoint=False,
    )
    return entry.pk


def round_extra_holds(round_: Round) -> list[int]:
    """The round's holds beside its wagers': the banker's cover, and in a card room the
    proposition player's cover and each wager's collection fee."""
    holds = [h for h in (round_.banker_hold_id, round_.third_party_hold_id) if h is not None]
    return holds + list(round_.fee_hold_ids or [])


@transaction.atomic
def round_void(*, round_id: int, reason: str, by: User) -> Round:
    """Void a round before settlement: every hold is released, nothing else moves."""
    if not reason.strip():
        raise ValidationFailed("say why the round is voided",
                               detail={"fields": {"reason": ["required"]}})
    round_ = round_lock(round_id)
    round_require_state(round_, *Round.State.OPEN, doing="void")
    # Outcomes waiting for a pit boss are rejected first, not voided around.
    approvals.approval_pending_check(ref=f"round:{round_id}")
    released = [*(w.hold_id for w in round_active_wagers(round_)),
                *round_extra_holds(round_)]
    ledger.holds_release(hold_ids=released, by=by)
    round_.state = Round.State.VOIDED
    round_.closed_reason = reason
    round_.save(update_fields=["state", "closed_reason"])
    round_event_add(round_, "voided", by, reason=reason, released_holds=released)
    return round_


@transaction.atomic
def round_reverse(*, round_id: int, reason: str, by: User,
                  approved_by: approvals.Approval | None = None) -> Round:
    """Reverse a settled round with a reason: a new ledger entry that undoes the
    settlement's; the round keeps both. ``approved_by``: the second pit boss's approval it
    carries out, under dual control."""
    if not reason.strip():
        raise ValidationFailed("say why the round is reversed",
                               detail={"fields": {"reason": ["required"]}})
    round_ = round_lock(round_id)
    if round_.state == Round.State.REVERSED:
        return round_
    round_require_state(round_, Round.State.SETTLED, doing="reverse")
    approvals.approval_required_check(action="rounds.reverse",
                                      params={"round_id": round_id, "reason": reason},
                                      by=by, approved_by=approved_by)
    reversal_id = None
    if round_.entry_id is not None:
        reversal_id = ledger.entry_reverse(entry_id=round_.entry_id, reason=reason, by=by,
                                           by_owner=True, approved_by=approved_by).pk
    round_.reversal_entry_id = reversal_id
    round_.state = Round.State.REVERSED
    round_.closed_reason = reason
    round_.save(update_fields=["reversal_entry_id", "state", "closed_reason"])
    round_event_add(round_, "reversed", by, reason=reason, entry=reversal_id)
    return round_
