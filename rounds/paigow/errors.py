"""The game's domain errors.

They subclass ValueError so code that only knows "bad input" still catches them, and they carry
a message fit to show a dealer or an API client as it is.
"""


class PaiGowError(ValueError):
    """Base of every error the game engine raises on purpose."""


class InvalidCards(PaiGowError):
    """Card notation that cannot be read, a card given twice, or the wrong number of cards."""


class FoulSetting(PaiGowError):
    """A setting whose two-card hand outranks its five-card hand (rules section 4)."""


class UnknownOption(PaiGowError):
    """A name of a house way, wheel rule or table setting the engine does not know."""
