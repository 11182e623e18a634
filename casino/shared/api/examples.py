"""Request bodies an integrator can send as written (the API docs' "Try it out").

Each operation that takes a body documents one or more examples, each a whole request of one
shape: a client picks the one that fits (the house banks, a player banks, a card room's
player-dealer) instead of the body Swagger UI would generate from the schema, which mixes
every optional field and fills maps with ``additionalProp1``. The ids (a player, an entry)
and the dates in them are the demo floor's kind: a client puts its own.
``tests/test_api_examples.py`` sends every example the schema documents, in the order a
day at the tables takes them, and each must succeed.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample


def example(name: str, value: object, summary: str = "") -> OpenApiExample:
    return OpenApiExample(name, value=value, summary=summary or name, request_only=True)


APPROVE = [example("Approve", {"note": "Checked the slip against the cash"},
                   "The note is optional")]
REJECT = [example("Reject", {"note": "The slip does not match the cash"},
                  "The note is optional")]
