"""Cells of the CSV files the service writes, safe to open in a spreadsheet.

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read by
spreadsheet programs as a formula (``=HYPERLINK(...)`` in a player's name or a memo would run
in the cage's or an auditor's spreadsheet): such a cell gets a leading ``'``, which the
programs show as text (OWASP's advice on CSV injection). A plain number, a negative amount
such as ``-120.00`` included, stays a number.
"""

from __future__ import annotations

import re

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def safe_cell(text: str) -> str:
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text
