"""The entries' hash chain: what is hashed, and how.

Each entry's ``hash`` is SHA-256 over the previous entry's hash and the entry's canonical
content: a compact, key-sorted JSON of every field that means something (id, time, who, why,
what for, what it reverses, and its lines sorted). Changing any of them, or removing or
reordering entries, breaks the chain from that entry on; ``ledger_verify`` recomputes it.
The services compute the hash (they already hold every value); PostgreSQL only stores it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime

GENESIS = "0" * 64


def canonical(*, entry_id: int, created_at: datetime, kind: str, memo: str, ref: str,
              created_by_id: int | None, reverses_id: int | None, reason: str,
              lines: Iterable[tuple[int, int]]) -> bytes:
    content = {
        "id": entry_id,
        # UTC with microseconds: exactly what a timestamptz keeps, so it reads back equal.
        "at": created_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "kind": kind,
        "memo": memo,
        "ref": ref,
        "by": created_by_id,
        "reverses": reverses_id,
        "reason": reason,
        "lines": sorted([int(a), int(m)] for a, m in lines),
    }
    return json.dumps(content, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode()


def entry_hash(prev_hash: str, content: bytes) -> str:
    return hashlib.sha256(prev_hash.encode() + b"\n" + content).hexdigest()
