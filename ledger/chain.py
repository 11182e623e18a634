"""The ledger's hash chain: what is hashed, and how.

Entries are sealed after commit into numbered blocks (ledger_seal; docs/ledger.md). A block
hashes, in order, the previous block's hash, its number, how many entries it holds and one
digest per entry, the entries taken in ``(txid, id)`` order::

    block_hash = sha256(prev_hash "\nblock=" n "\nentries=" k "\n" digest_1 "\n" ... digest_k)
    digest     = sha256(entry_content)

where an entry's content is its header ``id``, ``txid`` and ``at`` then its body (below).
PostgreSQL computes both when a block is sealed (ledger_guard_block); ``ledger_verify``
recomputes them here from the stored rows. Changing any field of a sealed entry, removing
or inserting one, or changing, removing or reordering a block breaks the chain from that
block on.

Before blocks, each entry was chained as it was posted, and those entries are blocks of one
entry each, numbered by their ``seq``, whose hash is the entry's own, computed as follows.
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

``seq`` is the entry's place in that chain (and its block's number now).
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


def stamp(*, entry_id: int, txid: int, created_at: datetime) -> str:
    """A sealed entry's header: its transaction takes the place of the chain position."""
    at = created_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return f"id={entry_id}\ntxid={txid}\nat={at}\n"


def entry_digest(*, entry_id: int, txid: int, created_at: datetime, kind: str, memo: str,
                 ref: str, created_by_id: int | None, reverses_id: int | None, reason: str,
                 lines: Iterable[tuple[int, int]]) -> str:
    content = (stamp(entry_id=entry_id, txid=txid, created_at=created_at)
               + body(kind=kind, memo=memo, ref=ref, created_by_id=created_by_id,
                      reverses_id=reverses_id, reason=reason, lines=lines))
    return hashlib.sha256(content.encode()).hexdigest()


def block_hash(prev_hash: str, n: int, digests: list[str]) -> str:
    text = f"{prev_hash}\nblock={n}\nentries={len(digests)}\n" + "\n".join(digests)
    return hashlib.sha256(text.encode()).hexdigest()
