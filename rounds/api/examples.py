"""Request bodies of the tables', rounds' and drop box's operations, as a client sends them
(casino.shared.api.examples says why)."""

from __future__ import annotations

from casino.shared.api.examples import example

# Seat 1 against the dealer, dealt by hand (a physical deal): seven cards each, no card
# twice; seat 1's split below is one the house way accepts (aces high, five-three low).
DEALT = {"dealer": ["KS", "KH", "7D", "7C", "4S", "9H", "2C"],
         "1": ["AS", "AD", "QC", "JH", "TS", "3D", "5C"]}

TABLE_CREATE = [
    example("A casino table", {
        "name": "Table 7", "currency": "EUR", "min_bet": "10.00", "max_bet": "500.00",
        "commission_rate": "0.0500", "bank_rotation": "alternate",
        "deal_modes": ["electronic", "physical"]}, "The house banks; players may bank in turn"),
    example("A card-room table", {
        "name": "Card room 2", "currency": "EUR", "bank_mode": "card_room",
        "min_bet": "5.00", "max_bet": "300.00",
        "collection_banker": [{"up_to": "100.00", "fee": "1.00"},
                              {"up_to": None, "fee": "3.00"}],
        "collection_player": "1.00", "max_consecutive_banks": 2,
        "deal_modes": ["electronic", "physical", "results"]},
        "Player-dealers and proposition players bank; the house collects fees"),
    example("A self-service table", {
        "name": "Online 1", "currency": "EUR", "self_service": True, "min_bet": "2.00",
        "max_bet": "100.00", "deal_modes": ["electronic"]},
        "Each player plays their own game against the house (the German text's game)"),
]
TABLE_CHANGE = [
    example("Raise the maximum", {"max_bet": "1000.00"}),
    example("Deal modes", {"deal_modes": ["electronic", "physical", "results"]},
            "Let the dealer record cards dealt by hand, or outcomes only"),
]
DEALER_SIGN_IN = [
    example("The dealer signs in", {}, "The signed-in user deals at the table from now"),
    example("A pit boss signs in a dealer", {"dealer": "dealer"},
            "The dealer named by their username; the table's dealer until now is relieved"),
]
SEAT = [example("Seat a player", {"player": 1}, "The player's id")]
WAGER = [example("A wager", {"seat": 1, "amount": "25.00"})]
WAGER_LOWER = [example("Lower a wager", {"amount": "10.00"})]
SEAT_ONLY = [example("A seat", {"seat": 1})]
DECLINE = [example("The seat offered declines the bank", {"seat": 2})]
BANKER = [
    example("The house banks", {"house": True}),
    example("A player banks", {"seat": 2, "house_stake": "25.00"},
            "Seat 2 banks; the house stakes 25.00 against the bank (by default at most "
            "the banker's last wager against the house)"),
    example("Card room: a player-dealer", {"seat": 1, "cover": "150.00"},
            "Seat 1 covers up to 150.00 of the action, taken in seat order from their left"),
    example("Card room: a player-dealer and a proposition player",
            {"seat": 1, "cover": "20.00", "third_party": 9},
            "The proposition player (id 9) covers the rest"),
    example("Card room: the proposition player alone", {"third_party": 9},
            "Once every seated player declined the bank"),
]
DEAL = [
    example("Electronic", {}, "The service shuffles and deals"),
    example("Dealt by hand", {"hands": DEALT},
            "The cards of each position in play, as the dealer dealt them"),
    example("Results only", {"results_only": True},
            "No cards: the dealer records each position's outcome at the settlement"),
]
HAND = [
    example("By the house way", {"position": "1", "house_way": True}),
    example("The player's own split",
            {"position": "1", "high": ["AS", "AD", "QC", "JH", "TS"], "low": ["5C", "3D"]},
            "Five cards high, two low, of the position's seven"),
]
SETTLE = [
    example("With the cards", {}, "The hands decide"),
    example("Results only", {"outcomes": {"1": "win"}},
            "Each seat's outcome against the bank: win, loss or push"),
]
REASON_VOID = [example("Void", {"reason": "Misdeal: a card was exposed"})]
REASON_REVERSE = [example("Reverse", {"reason": "Seat 1's wager was keyed on seat 2"})]

# The physical deal's draft (rounds.api.deal_draft), one card at a time.
PICK = [
    example("The next card for a position", {"card": "AS", "position": "1"}),
    example("The next card, to the next position short of seven", {"card": "KD"}),
]
UNDO = [
    example("Take back the last card", {"card": "KD"},
            "Naming it makes a retried undo refuse instead of taking back a second card"),
    example("Take back whatever was last", {}),
]

# The drop box (rounds.api.drop).
BUY_IN = [
    example("Cash taken at a seat", {"seat": 1, "amount": "200.00"}),
    example("Past the buy-in line", {"seat": 1, "amount": "2500.00"},
            "Above CASINO_BUY_IN_APPROVAL_ABOVE (2,000.00) for the player's day at the "
            "table: 202 and a request a pit boss approves; nothing moves before"),
]
DROP_COUNT = [
    example("A count that agrees", {"gaming_day": "2026-12-06", "counted": "200.00",
                                    "witness": "pitboss"}),
    example("A count with the counter's note",
            {"gaming_day": "2026-12-06", "counted": "195.00", "witness": "pitboss",
             "note": "A 5.00 chip was found in the box's slot and sent to the cage"},
            "The note is the counter's: someone else explains the variance"),
]
# The named witness, signed in as themselves (rounds.api.drop.DropCountWitnessView).
DROP_WITNESS = [
    example("Confirm the count", {"confirm": True}, "The witness saw the cash counted so"),
    example("Refuse the count", {"confirm": False,
                                 "reason": "I saw 150.00 counted, not 195.00"},
            "Nothing is posted; the box is counted again"),
]
DROP_CORRECT = [example("Counted again", {"counted": "200.00", "witness": "count",
                                          "reason": "Two notes stuck together"})]
DROP_EXPLAIN = [example("Explain a variance",
                        {"reason": "A buy-in of 5.00 was keyed twice; corrected"})]
VARIANCE_EXPLAIN = [example(
    "Explain a day outside its band",
    {"gaming_day": "2026-12-06",
     "reason": "Seat 3 won eleven hands running at the maximum; the cards and the shoe were "
               "checked with surveillance, nothing wrong"},
    "The pit boss's own words, kept with who and when")]
BUY_IN_CORRECT = [example("Correct a buy-in", {"reason": "Keyed twice"})]
