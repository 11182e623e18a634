"""Request bodies of the players', the cage's and the token's operations, as a client sends
them (casino.shared.api.examples says why)."""

from __future__ import annotations

from casino.shared.api.examples import example

TOKEN = [example("The demo dealer", {"username": "dealer", "password": "dealer-demo-2026"},
                 "make run's demo floor signs this dealer in")]
PLAYER_CREATE = [
    example("A player with their identity", {
        "name": "Anna Meyer", "currency": "EUR", "birth_date": "1990-04-12",
        "id_document": {"kind": "passport", "number": "C01X00T47", "country": "DE"},
        "nationality": "DE"}, "Identity on file: the cash rules' lines do not stop them"),
    example("A player without identity yet", {"name": "Bea Schmidt", "currency": "EUR"},
            "Cash up to the identity line only, until the cage records a document"),
    example("A proposition player", {
        "name": "Westside Props Ltd", "currency": "EUR", "kind": "proposition",
        "licence": "TPPP-2291"}, "A licensed business that banks card-room rounds"),
]
PLAYER_CHANGE = [
    example("Record an identity", {
        "birth_date": "1988-11-02",
        "id_document": {"kind": "id_card", "number": "L01X00T47", "country": "DE"}}),
    example("Correct a name", {"name": "Bea Schmitt"}, "A typo at registration"),
]
PLAYER_LOGIN = [example("A player's own login", {"username": "anna.meyer",
                                                "password": "felt-and-tiles-2026"},
                        "The same username again resets the password")]
DEPOSIT = [example("A deposit", {"amount": "500.00", "reference": "Slip 1042"})]
WITHDRAWAL = [example("A withdrawal", {"amount": "200.00", "reference": "Slip 1043"})]
CORRECTION = [example("Correct a movement", {"entry": 1, "reason": "Keyed twice"},
                      "The deposit's or withdrawal's entry id")]
EXCLUSION = [
    example("A self-exclusion for six months", {
        "kind": "self", "until": "2027-06-01",
        "reason": "Asked at the cage to be kept from play"},
        "Refused at every seat, wager, buy-in, deposit and bank until then"),
    example("A barring for good", {"kind": "barred", "until": None,
                                   "reason": "Caught marking cards at table 2"},
            "Only a pit boss lifts it"),
]
EXCLUSION_LIFT = [example("Lift an exclusion", {"reason": "Reviewed with the player"},
                          "A self-exclusion before its end waits for a second person")]
ME_LIMITS = [
    example("Lower the daily wager limit", {"wager_per_day": "50.00"}, "In force at once"),
    example("Both limits, the loss limit removed", {"wager_per_day": "50.00",
                                                    "loss_per_day": None},
            "The removal waits PLAYER_LIMIT_RAISE_HOURS, like a raise"),
]
ME_EXCLUSION = [example("Six months away", {"period": "six_months"},
                        "From today's gaming day; lifted only by staff before its end")]
