"""Every request example the API docs show works as written.

The examples are read from the generated OpenAPI schema (what Swagger UI offers under "Try it
out"), not from the modules that declare them, and sent through the API in the order a day
at the tables takes them: players registered and paid in, tables opened, rounds of every
kind (the house banks, a player banks, dealt by hand, results only, a card room's
player-dealer and proposition player), the drop box counted, requests decided, reports
asked for. Each must succeed (2xx). What a client always puts of its own is put here too:
the ids of what it made, and the dates, moved by the same number of days so that the
examples' gaming day is today's. At the end, every example the schema documents must have
been sent, so an example added without a place in the story fails here.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import override_settings
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from casino import roles
from casino.services import player_create, player_deposit, staff_create
from casino.shared.gaming_day import gaming_day_of
from ledger.models import Entry
from ledger.services import account_get_or_create, entry_post
from rounds import paigow, services
from rounds.models import Round, Table
from rounds.paigow import rotation
from rounds.selectors import round_bank_table
from tests.conftest import played_rounds_rewritten
from tests.players import make_player

pytestmark = pytest.mark.django_db

# The gaming day the examples are written for (casino.shared.api.examples).
EXAMPLES_DAY = date(2026, 12, 6)
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
OK = (200, 201, 202, 204)


def documented_examples() -> dict[tuple[str, str], dict[str, Any]]:
    """{(METHOD, path): {example name: body}} of every operation with request examples."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    found = {}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            examples = content.get("application/json", {}).get("examples")
            if examples:
                found[(method.upper(), path)] = {
                    name: e["value"] for name, e in examples.items()}
    return found


def moved(value: Any, days: int) -> Any:
    """The example's dates moved by ``days`` (its gaming day becomes today's)."""
    if isinstance(value, str) and DATE.match(value):
        return (date.fromisoformat(value) + timedelta(days=days)).isoformat()
    if isinstance(value, dict):
        return {k: moved(v, days) for k, v in value.items()}
    if isinstance(value, list):
        return [moved(v, days) for v in value]
    return value


class Story:
    def __init__(self, others: dict[str, APIClient] | None = None) -> None:
        self.examples = documented_examples()
        self.sent: set[tuple[str, str, str]] = set()
        self.days = (gaming_day_of() - EXAMPLES_DAY).days
        # When given: before each step, each of these callers tries it too (undone after).
        self.others = others or {}
        self.refusals: list[str] = []

    def body(self, method: str, path: str, name: str) -> dict[str, Any]:
        documented = self.examples.get((method, path), {})
        # The schema keys an example by its name run together ("TheHouseBanks").
        for key, value in documented.items():
            if plain(key) == plain(name):
                self.sent.add((method, path, key))
                return moved(copy.deepcopy(value), self.days)
        raise AssertionError(f"{method} {path} documents no example {name!r}: "
                             f"{sorted(documented)}")

    def send(self, client: APIClient, method: str, path: str, name: str | None = None,
             ids: dict[str, int] | None = None, own: dict[str, Any] | None = None,
             expect: tuple[int, ...] = OK) -> dict[str, Any]:
        body = self.body(method, path, name) if name else {}
        body.update(own or {})
        url = path.format(**(ids or {}))
        for who, other in self.others.items():
            if other is not client:
                self.try_as(who, other, method, url, body)
        answer = getattr(client, method.lower())(url, body, format="json")
        assert answer.status_code in expect, (method, url, name, body, answer.content[:2000])
        return answer.json() if answer.content else {}

    def try_as(self, who: str, client: APIClient, method: str, url: str,
               body: dict[str, Any]) -> None:
        """``who`` sends the step as written, then with a body that is no object; both are
        undone. Refused as written (401/403/404), they must be refused the same way whatever
        the body: who may is checked before what is sent."""
        answers = []
        for sent in (body, ["not", "an", "object"]):
            with transaction.atomic():
                answers.append(getattr(client, method.lower())(url, sent, format="json"))
                transaction.set_rollback(True)
        as_written, garbled = (a.status_code for a in answers)
        if as_written in (401, 403, 404) and garbled != as_written:
            self.refusals.append(f"{who} {method} {url}: {as_written} as written, "
                                 f"{garbled} with a bad body")

    def unsent(self) -> list[str]:
        return sorted(f"{m} {p} [{n}]" for (m, p), names in self.examples.items()
                      for n in names if (m, p, n) not in self.sent)


def plain(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


@pytest.fixture
def clients() -> dict[str, APIClient]:
    made = {}
    for username, role in (("dealer", roles.DEALER), ("pitboss", roles.PIT_BOSS),
                           ("pitboss2", roles.PIT_BOSS), ("cage", roles.CAGE),
                           ("count", roles.COUNT), ("auditor", roles.AUDITOR)):
        _, token = staff_create(username=username, role=role,
                                password=f"{username}-demo-2026")
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        made[username] = client
    return made


def test_every_documented_example_succeeds_as_written(clients: dict[str, APIClient]) -> None:
    day_at_the_tables(Story(), clients)


@pytest.mark.slow
def test_who_may_is_checked_before_the_body_at_every_step(
        clients: dict[str, APIClient]) -> None:
    # Each step of the day is tried by every role (and by nobody signed in) first.
    story = Story(others={**clients, "nobody": APIClient()})
    day_at_the_tables(story, clients)
    assert len(story.refusals) + len(story.sent) > 50  # the probes ran
    assert story.refusals == []


def test_every_operation_that_takes_a_body_documents_an_example() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    missing = [f"{method.upper()} {path}" for path, operations in schema["paths"].items()
               for method, operation in operations.items()
               if "requestBody" in operation
               and not operation["requestBody"]["content"]["application/json"].get("examples")]
    assert missing == []


def day_at_the_tables(story: Story, clients: dict[str, APIClient]) -> None:
    dealer, boss, boss2 = clients["dealer"], clients["pitboss"], clients["pitboss2"]
    cage, count, auditor = clients["cage"], clients["count"], clients["auditor"]
    send: Callable[..., dict[str, Any]] = story.send

    # Sign in as the demo dealer.
    assert send(APIClient(), "POST", "/api/v1/auth/token", "The demo dealer")["token"]

    # The cage registers three players and moves their cash.
    anna = send(cage, "POST", "/api/v1/players", "A player with their identity")["id"]
    bea = send(cage, "POST", "/api/v1/players", "A player without identity yet")["id"]
    props = send(cage, "POST", "/api/v1/players", "A proposition player")["id"]
    for name in ("Record an identity", "Correct a name"):
        send(cage, "PATCH", "/api/v1/players/{player_id}", name, {"player_id": bea})
    send(cage, "POST", "/api/v1/players/{player_id}/deposits", "A deposit", {"player_id": anna})
    paid = send(cage, "POST", "/api/v1/players/{player_id}/withdrawals", "A withdrawal",
                {"player_id": anna})
    send(cage, "POST", "/api/v1/players/{player_id}/corrections", "Correct a movement",
         {"player_id": anna}, own={"entry": paid["id"]})
    for player in (anna, bea, props):
        player_deposit(player_id=player, amount=200_000, reference="float", by=None)
    # Anna gets her own login, to play and to see her account.
    send(cage, "POST", "/api/v1/players/{player_id}/login", "A player's own login",
         {"player_id": anna})

    # The pit opens a casino table and a card room's, and seats players.
    house = send(boss, "POST", "/api/v1/tables", "A casino table")["id"]
    room = send(boss, "POST", "/api/v1/tables", "A card-room table")["id"]
    for name in ("Raise the maximum", "Deal modes"):
        send(boss, "PATCH", "/api/v1/tables/{table_id}", name, {"table_id": house})
    seat = "/api/v1/tables/{table_id}/seats/{number}"
    send(boss, "PUT", seat, "Seat a player", {"table_id": house, "number": 1},
         own={"player": anna})
    send(boss, "PUT", seat, "Seat a player", {"table_id": house, "number": 2},
         own={"player": bea})

    rounds = "/api/v1/tables/{table_id}/rounds"
    wagers = "/api/v1/rounds/{round_id}/wagers"
    # The dealer signs in at the casino table: its rounds record who dealt them.
    send(dealer, "POST", "/api/v1/tables/{table_id}/dealer", "The dealer signs in",
         {"table_id": house})

    def open_round(table: int) -> int:
        return send(dealer, "POST", rounds, ids={"table_id": table})["id"]

    def play(path_end: str, name: str | None, round_id: int, client: APIClient = dealer,
             **own: Any) -> dict[str, Any]:
        return send(client, "POST", "/api/v1/rounds/{round_id}/" + path_end, name,
                    {"round_id": round_id}, own=own)

    # 1. The house banks two seats; a wager lowered; hands by the house way; settled.
    r1 = open_round(house)
    send(dealer, "POST", wagers, "A wager", {"round_id": r1})
    send(dealer, "POST", wagers, "A wager", {"round_id": r1}, own={"seat": 2})
    send(dealer, "PATCH", "/api/v1/rounds/{round_id}/wagers/{seat}", "Lower a wager",
         {"round_id": r1, "seat": 1})
    play("banker", "The house banks", r1)
    play("deal", "Electronic", r1)
    play("hands", "By the house way", r1)
    play("hands", "By the house way", r1, position="2")
    assert play("settle", "With the cards", r1)["state"] == "settled"

    # 2. Seat 1 re-bets; seat 2 banks with the house's stake against the bank.
    r2 = open_round(house)
    play("rebet", "A seat", r2)
    play("banker", "A player banks", r2)
    play("deal", "Electronic", r2)
    for position in ("1", "2"):
        play("hands", "By the house way", r2, position=position)
    assert play("settle", "With the cards", r2)["state"] == "settled"

    # 3. Dealt by hand; seat 1 sets their own split.
    r3 = open_round(house)
    send(dealer, "POST", wagers, "A wager", {"round_id": r3})
    play("banker", "The house banks", r3)
    play("deal", "Dealt by hand", r3)
    play("hands", "The player's own split", r3)
    assert play("settle", "With the cards", r3)["state"] == "settled"

    # 4. Results only (the table's deal modes now allow it).
    r4 = open_round(house)
    send(dealer, "POST", wagers, "A wager", {"round_id": r4})
    play("banker", "The house banks", r4)
    play("deal", "Results only", r4)
    assert play("settle", "Results only", r4)["state"] == "settled"

    # 5. The physical deal's draft, card by card, taken back; the round voided.
    r5 = open_round(house)
    send(dealer, "POST", wagers, "A wager", {"round_id": r5})
    play("banker", "The house banks", r5)
    draft = "/api/v1/rounds/{round_id}/deal/draft"
    for name in ("The next card for a position", "The next card, to the next position "
                 "short of seven"):
        send(dealer, "POST", draft, name, {"round_id": r5})
    for name in ("Take back the last card", "Take back whatever was last"):
        send(dealer, "POST", draft + "/undo", name, {"round_id": r5})
    assert play("void", "Void", r5, client=boss)["state"] == "voided"

    # A settled round reversed by the pit.
    assert play("reverse", "Reverse", r1, client=boss)["state"] == "reversed"

    # The drop box: cash taken at seat 1, one buy-in corrected, the box counted.
    buy_ins = "/api/v1/tables/{table_id}/buy-ins"
    wrong = send(dealer, "POST", buy_ins, "Cash taken at a seat", {"table_id": house})
    send(boss, "POST", "/api/v1/buy-ins/{entry_id}/correct", "Correct a buy-in",
         {"entry_id": wrong["id"]})
    send(dealer, "POST", buy_ins, "Cash taken at a seat", {"table_id": house})
    # Past the buy-in line: 202, a request the pit boss rejects here (the box's count
    # below finds the 200.00 taken, nothing more).
    waiting = send(dealer, "POST", buy_ins, "Past the buy-in line", {"table_id": house},
                   expect=(202,))
    assert boss.post(f"/api/v1/approvals/{waiting['id']}/reject", {},
                     format="json").status_code == 200
    # Each count waits for the witness it names, who signs in as themselves and confirms
    # it (or refuses it: the box is counted again); a variance is explained by someone
    # other than its counter.
    counts = "/api/v1/tables/{table_id}/drop-counts"
    witness = "/api/v1/drop-counts/{count_id}/witness"
    counted = send(count, "POST", counts, "A count that agrees", {"table_id": house})
    assert counted["status"] == "awaiting_witness"
    send(boss, "POST", witness, "Confirm the count", {"count_id": counted["id"]})
    recount = send(boss, "POST", "/api/v1/drop-counts/{count_id}/correct", "Counted again",
                   {"count_id": counted["id"]})
    assert send(count, "POST", witness, "Confirm the count",
                {"count_id": recount["id"]})["status"] == "balanced"
    noted = "A count with the counter's note"
    wrong = send(count, "POST", counts, noted, {"table_id": room})
    send(boss, "POST", witness, "Refuse the count", {"count_id": wrong["id"]})
    short = send(count, "POST", counts, noted, {"table_id": room})
    assert send(boss, "POST", witness, "Confirm the count",
                {"count_id": short["id"]})["status"] == "unexplained"
    send(boss, "POST", "/api/v1/drop-counts/{count_id}/explain", "Explain a variance",
         {"count_id": short["id"]})

    # A table's day outside its band, explained by a pit boss. Set-up only: four house
    # rounds lost by one seat, at a table of its own, where the check starts at four (30 by
    # default).
    with override_settings(CASINO_VARIANCE_MIN_ROUNDS=4):
        odd = services.table_create(by=_user("pitboss"), name="Table 8",
                                    deal_modes=list(Table.DealMode.values))
        lucky = make_player(name="Lucky Luuk", currency="EUR", by=None)
        player_deposit(player_id=lucky.pk, amount=100_000, reference="float", by=None)
        services.seat_take(table_id=odd.pk, number=1, player_id=lucky.pk, by=_user("pitboss"))
        for _ in range(4):
            _house_round_lost(odd.pk)
        send(boss, "POST", "/api/v1/tables/{table_id}/variance",
             "Explain a day outside its band", {"table_id": odd.pk})
        services.seat_leave(table_id=odd.pk, number=1, by=_user("pitboss"))

    # The dealer moves to the card room: relieved at the casino table, signed in there by
    # the pit boss.
    send(dealer, "POST", "/api/v1/tables/{table_id}/dealer/relieve", ids={"table_id": house})
    send(boss, "POST", "/api/v1/tables/{table_id}/dealer", "A pit boss signs in a dealer",
         {"table_id": room})
    # The card room: seats 1 and 2 (the house table's players leave it first).
    for number in (1, 2):
        send(dealer, "DELETE", seat, ids={"table_id": house, "number": number})
    for number, player in ((1, anna), (2, bea)):
        send(boss, "PUT", seat, "Seat a player", {"table_id": room, "number": number},
             own={"player": player})
    c1 = open_round(room)
    send(dealer, "POST", wagers, "A wager", {"round_id": c1}, own={"seat": 2})
    play("banker", "Card room: a player-dealer", c1)
    play("deal", "Electronic", c1)
    for position in ("2", "1"):  # the player-dealer's hand last
        play("hands", "By the house way", c1, position=position)
    assert play("settle", "With the cards", c1)["state"] == "settled"

    c2 = open_round(room)
    send(dealer, "POST", wagers, "A wager", {"round_id": c2}, own={"seat": 2})
    play("banker/decline", "The seat offered declines the bank", c2)
    play("banker", "Card room: a player-dealer and a proposition player", c2,
         third_party=props)
    play("deal", "Electronic", c2)
    for position in ("2", "1"):  # the player-dealer's hand last
        play("hands", "By the house way", c2, position=position)
    assert play("settle", "With the cards", c2)["state"] == "settled"

    c3 = open_round(room)
    send(dealer, "POST", wagers, "A wager", {"round_id": c3})
    send(dealer, "POST", wagers, "A wager", {"round_id": c3}, own={"seat": 2})
    while (offered := _offered(c3)) is not None:
        play("banker/decline", "The seat offered declines the bank", c3, seat=offered)
    play("banker", "Card room: the proposition player alone", c3, third_party=props)
    play("deal", "Electronic", c3)
    for position in ("1", "2"):
        play("hands", "By the house way", c3, position=position)
    assert play("settle", "With the cards", c3)["state"] == "settled"

    # Requests for a second person: one approved, one rejected.
    big = {"amount": "10000.01"}
    deposits = "/api/v1/players/{player_id}/deposits"
    asked = send(cage, "POST", deposits, "A deposit", {"player_id": anna}, own=big)
    assert asked["status"] == "pending"
    send(boss, "POST", "/api/v1/approvals/{approval_id}/approve", "Approve",
         {"approval_id": asked["id"]})
    second = send(cage, "POST", deposits, "A deposit", {"player_id": anna}, own=big)
    send(boss2, "POST", "/api/v1/approvals/{approval_id}/reject", "Reject",
         {"approval_id": second["id"]})

    # Exclusions: one player self-excluded, one barred; the pit lifts the barring, the
    # cage asks to lift the self-exclusion before its end and a pit boss approves it.
    cara = player_create(name="Cara Lind", currency="EUR", by=None).pk
    dan = player_create(name="Dan Roth", currency="EUR", by=None).pk
    exclusions = "/api/v1/players/{player_id}/exclusions"
    own = send(cage, "POST", exclusions, "A self-exclusion for six months",
               {"player_id": cara})
    barred = send(boss, "POST", exclusions, "A barring for good", {"player_id": dan})
    lift = "/api/v1/exclusions/{exclusion_id}/lift"
    assert send(boss, "POST", lift, "Lift an exclusion",
                {"exclusion_id": barred["id"]})["state"] == "lifted"
    asked = send(cage, "POST", lift, "Lift an exclusion", {"exclusion_id": own["id"]})
    assert asked["status"] == "pending"
    send(boss, "POST", "/api/v1/approvals/{approval_id}/approve", "Approve",
         {"approval_id": asked["id"]})

    # A ledger entry of no flow's, reversed.
    send(boss, "POST", "/api/v1/ledger/entries/{entry_id}/reverse", "Reverse an entry",
         {"entry_id": _free_entry().pk})

    # A player plays their own games at a self-service table: a setting of their own, one
    # of two cards low, then the house way.
    online = send(boss, "POST", "/api/v1/tables", "A self-service table")["id"]
    # Anna signs in with the login the cage gave her.
    signed_in = APIClient().post("/api/v1/auth/token", {"username": "anna.meyer",
                                                        "password": "felt-and-tiles-2026"},
                                 format="json")
    gamer = APIClient()
    gamer.credentials(HTTP_AUTHORIZATION=f"Token {signed_in.json()['token']}")
    assert gamer.get("/api/v1/me/tables").json()[0]["id"] == online
    game_path = "/api/v1/me/games/{game_id}"
    for bet, finish in (("Ten on the felt", "Both hands"), ("No client seed", "Two cards low"),
                        ("Ten on the felt", "The house way")):
        game = send(gamer, "POST", "/api/v1/me/games", "A game", own={"table": online})
        ids = {"game_id": game["id"]}
        cards = send(gamer, "POST", game_path + "/deal", bet, ids)["cards"]
        way = paigow.house_way(paigow.parse_cards(cards))
        own = {"Both hands": {"high": paigow.format_cards(way.high).split(),
                              "low": paigow.format_cards(way.low).split()},
               "Two cards low": {"low": paigow.format_cards(way.low).split()}}.get(finish, {})
        assert send(gamer, "POST", game_path + "/done", finish, ids, own=own)["state"] == \
            "settled"
    assert len(gamer.get("/api/v1/me/games").json()["results"]) == 3

    # Every report kind, and yesterday closed.
    for name in story.examples[("POST", "/api/v1/reports")]:
        own = {k: str(v) for k, v in (("table", house), ("player", anna))
               if k in story.examples[("POST", "/api/v1/reports")][name]}
        send(boss, "POST", "/api/v1/reports", name, own=own)
    # The casino played the day before (its first round moved there: set-up only).
    played_rounds_rewritten(Round.objects.filter(pk=r2),
                            gaming_day=gaming_day_of() - timedelta(days=1))
    send(boss, "POST", "/api/v1/gaming-days/close", "Close a gaming day")
    assert auditor.get("/api/v1/reports").status_code == 200

    # Anna sets her limits and excludes herself.
    player = gamer
    for name in ("Lower the daily wager limit", "Both limits, the loss limit removed"):
        send(player, "PUT", "/api/v1/me/limits", name)
    send(player, "POST", "/api/v1/me/exclusions", "Six months away")

    assert story.unsent() == []


def _house_round_lost(table_id: int) -> None:
    """A results-only round the house banks and seat 1 loses 100.00 in."""
    dealer = _user("dealer")
    round_ = services.round_open(table_id=table_id, by=dealer)
    services.wager_place(round_id=round_.pk, seat=1, amount=10_000, by=dealer)
    services.banker_set(round_id=round_.pk, house=True, by=dealer)
    services.round_settle(round_id=round_.pk, outcomes={"1": "loss"}, by=dealer)


def _user(username: str) -> Any:
    return get_user_model().objects.get(username=username)


def _offered(round_id: int) -> int | None:
    """The seat the bank is offered to now (None: every seat declined it)."""
    offer = rotation.bank_offer(round_bank_table(Round.objects.get(pk=round_id)))
    return offer.seat


def _free_entry() -> Entry:
    cage = account_get_or_create(kind="cage", currency="EUR")
    bankroll = account_get_or_create(kind="table_bankroll", currency="EUR", ref="table:9")
    return entry_post(kind="adjustment", memo="float to table 9", by=None,
                      lines=[(cage.pk, -1000), (bankroll.pk, 1000)])
