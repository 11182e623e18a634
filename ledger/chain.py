"""The entries' hash chain: what is hashed, and how.

Each entry's ``hash`` is SHA-256 over the previous entry's hash, a newline, and the entry's
canonical content: one ``name=value`` line per field that means something, text fields
length-prefixed so no value can imitate the next field, lines sorted::

    id=42
    seq=41
    at=2026-05-01T20:15:03.123456Z
    kind=7:deposit
    memo=8:slip 113
    ref=8:player:3
    by=5
    reverses=
    reason=0:
    lines=1:-16000,7:16000

``seq`` is the entry's place in the chain. PostgreSQL computes the header (id, seq, time)
and the hash while it holds the chain head, from the body the service built here
(ledger.services); ``ledger_verify`` recomputes everything from the stored rows. Changing any
field, or removing, inserting or reordering entries, breaks the chain from that entry on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime

GENESIS = "0" * 64


def _text(value: str) -> str:
    return f"{len(value)}:{value}"


def body(*, kind: str, memo: str, ref: str, created_by_id: int | None,
         reverses_id: int | None, reason: str, lines: Iterable[tuple[int, int]]) -> str:
    """The content after the header: everything the service knows before it appends."""
    return "\n".join([
        f"kind={_text(kind)}",
        f"memo={_text(memo)}",
        f"ref={_text(ref)}",
        f"by={'' if created_by_id is None else created_by_id}",
        f"reverses={'' if reverses_id is None else reverses_id}",
        f"reason={_text(reason)}",
        "lines=" + ",".join(f"{a}:{m}" for a, m in sorted((int(a), int(m)) for a, m in lines)),
    ])


def header(*, entry_id: int, seq: int, created_at: datetime) -> str:
    # UTC to the microsecond: exactly what a timestamptz keeps (the SQL in ledger.services
    # writes the same with to_char).
    at = created_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return f"id={entry_id}\nseq={seq}\nat={at}\n"


def canonical(*, entry_id: int, seq: int, created_at: datetime, kind: str, memo: str,
              ref: str, created_by_id: int | None, reverses_id: int | None, reason: str,
              lines: Iterable[tuple[int, int]]) -> bytes:
    return (header(entry_id=entry_id, seq=seq, created_at=created_at)
            + body(kind=kind, memo=memo, ref=ref, created_by_id=created_by_id,
                   reverses_id=reverses_id, reason=reason, lines=lines)).encode()


def entry_hash(prev_hash: str, content: bytes) -> str:
    return hashlib.sha256(prev_hash.encode() + b"\n" + content).hexdigest()
