"""Request parsers of the API."""

from __future__ import annotations

from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, refusing bodies nested too deeply to read with a 400.

    The standard library's decoder recurses per level of nesting; DRF turns only its
    ValueError into a 400, so ``[[[[...`` 100,000 levels deep was a server error.
    """

    def parse(self, stream: Any, media_type: str | None = None,
              parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None
