"""Why a step of a round is refused: each maps to a 4xx in the API's one error shape."""

from __future__ import annotations

from casino.shared.errors import Conflict, NotFound, ValidationFailed


class WrongState(Conflict):
    """A step was asked for out of order (e.g. a wager after the deal)."""

    code = "wrong_state"


class BankerInsolvent(Conflict):
    """The player-banker cannot cover every wager plus the house stake (rules §7.4)."""

    code = "banker_insolvent"


class BankerNotAllowed(Conflict):
    """The table's rotation or eligibility settings refuse this banker (rules §7.1)."""

    code = "banker_not_allowed"


class BankNotOffered(Conflict):
    """Only the seat the rotation offers the bank to can decline it (rules §7.1)."""

    code = "bank_not_offered"


class DealModeNotAllowed(Conflict):
    """The table does not deal this way (its deal_modes setting, set by a pit boss)."""

    code = "deal_mode_not_allowed"


class SeatProblem(Conflict):
    code = "seat_unavailable"


class PlayerSeatedElsewhere(SeatProblem):
    """A player sits at one table at a time: they leave the seat they have first."""

    code = "player_seated_elsewhere"


class TableBusy(Conflict):
    """Table settings change only between rounds."""

    code = "round_in_progress"


class OutOfLimits(ValidationFailed):
    code = "out_of_limits"


class BadCards(ValidationFailed):
    code = "invalid_cards"


class FoulRefused(ValidationFailed):
    code = "foul_setting"


class HandsMissing(Conflict):
    code = "hands_not_set"


class RoundNotFound(NotFound):
    code = "not_found"
