"""Each round event records exactly its kind's payload (rounds/events.py): rounds of every
kind are played through the services, and every event they wrote is checked against it."""

from __future__ import annotations

import pytest

from rounds import events, services
from rounds.models import RoundEvent
from rounds.screens import selectors

pytestmark = pytest.mark.django_db


def _check_every_event() -> set[str]:
    seen = set()
    for event in RoundEvent.objects.all():
        required, allowed = events.payload_fields(event.kind)
        keys = set(event.data)
        assert required <= keys <= allowed, (event.kind, sorted(keys))
        seen.add(event.kind)
    return seen


def test_every_event_of_every_kind_of_round_records_its_payload(make_table, seat_player,
                                                                 pit_boss):
    table = make_table(bank_rotation="open", banker_must_have_played=False)
    for n, funds in ((1, 15_000), (2, 100_000), (3, 100_000)):
        seat_player(table, n, funds=funds)

    # a house-banked round recorded from its results, settled, then reversed
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    for seat in (1, 2):
        services.wager_place(round_id=round_.pk, seat=seat, amount=1_000, by=pit_boss)
    services.wager_clear(round_id=round_.pk, seat=2, by=pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)
    services.round_deal(round_id=round_.pk, results_only=True, by=pit_boss)
    services.round_settle(round_id=round_.pk, outcomes={"1": "push"}, by=pit_boss)
    services.round_reverse(round_id=round_.pk, reason="checked", by=pit_boss)

    # a player-banked round: a wager lowered, dealt by machine, a hand set, then voided
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=2, amount=10_000, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=3, amount=8_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, seat=1, house_stake=0, by=pit_boss)
    services.wager_lower(round_id=round_.pk, seat=2, amount=7_000, by=pit_boss)
    services.round_deal(round_id=round_.pk, by=pit_boss)
    services.hand_set(round_id=round_.pk, position="2", house_way=True, by=pit_boss)
    services.round_void(round_id=round_.pk, reason="a misdeal", by=pit_boss)

    # a physical deal, voided
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=2, amount=1_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)
    deck = selectors.deck_codes()
    services.round_deal(round_id=round_.pk, by=pit_boss,
                        hands={"dealer": deck[:7], "2": deck[7:14]})
    services.round_void(round_id=round_.pk, reason="a misdeal", by=pit_boss)

    seen = _check_every_event()
    # (a declined offer is played in tests/rounds/test_bank_decline.py, not here)
    assert seen >= set(events.PAYLOADS) - {"bank_declined"}
    assert set(RoundEvent.objects.values_list("kind", flat=True)) <= set(events.PAYLOADS)


def test_a_payload_that_lacks_a_field_or_has_one_more_is_caught(make_table, pit_boss):
    required, allowed = events.payload_fields("wager_placed")
    assert required == allowed == {"seat", "player", "amount", "hold"}
    required, allowed = events.payload_fields("banker_set")
    assert required == {"banker"} and "house_stake" in allowed


def test_a_lowered_wager_reads_in_the_story_in_the_casinos_writing(make_table, seat_player,
                                                                    pit_boss, settings):
    from rounds.screens import history_selectors

    settings.CASINO_LOCALE = "de"
    table = make_table(bank_rotation="open", banker_must_have_played=False)
    seat_player(table, 1, funds=15_000, name="Anna")
    seat_player(table, 2, funds=500_000, name="Bram")
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=2, amount=10_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, seat=1, house_stake=0, by=pit_boss)
    services.wager_lower(round_id=round_.pk, seat=2, amount=7_050, by=pit_boss)

    page = history_selectors.round_page(round_id=round_.pk, viewer=pit_boss)

    assert "Seat 2 · Bram's wager comes down from 100,00 EUR to 70,50 EUR." in [
        line.text for line in page.story]
