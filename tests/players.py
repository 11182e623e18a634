"""Players as the tests make them: with an identity on file, unless a test asks for none.

The cash rules (casino.cash) refuse a player without an identity on file whose day's cash
passes the identity line, log every movement above the log line and make a cash report
above the report line. A registered regular has shown the cage a document, so the tests'
players have one too, and the cash rules run at their default lines in every test; a test
about a player without an identity says so (``make_player(..., identity=False)``, or a
registration without ``IDENTITY_FIELDS``).
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from casino.models import Player
from casino.services import Identity, player_create

if TYPE_CHECKING:
    from django.contrib.auth.models import User

IDENTITY = Identity(date_of_birth=date(1980, 5, 17), id_document_kind="passport",
                    id_document_number="NX4512873", id_document_country="NL")

# The same identity as the API's and the cage form's registration take it.
IDENTITY_FIELDS = {"date_of_birth": "1980-05-17", "id_document_kind": "passport",
                   "id_document_number": "NX4512873", "id_document_country": "NL"}


def make_player(*, name: str, currency: str = "EUR", by: User | None = None,
                identity: bool = True, **more: Any) -> Player:
    """Register a player (casino.services.player_create) with IDENTITY on file;
    ``identity=False``: without one. A proposition player's identity is its licence
    (``more``: ``kind``, ``licence``), so it gets no person's document."""
    person = more.get("kind", Player.Kind.PLAYER) == Player.Kind.PLAYER
    return player_create(name=name, currency=currency, by=by,
                         identity=IDENTITY if identity and person else None, **more)
