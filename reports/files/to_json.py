"""JSON: the title block and every section as a list of records, amounts as decimal
strings (never floats: a JSON number would lose cents in some readers)."""

from __future__ import annotations

import json

from reports.files.document import Document
from reports.files.to_csv import cell_text


def render_json(document: Document) -> bytes:
    body = {
        "kind": document.kind,
        "title": document.title,
        "casino": document.casino,
        "period": document.period,
        "parameters": document.parameters,
        "made_at": cell_text(document.made_at),
        "made_by": document.made_by,
        "chain_head": {"seq": document.chain_seq, "hash": document.chain_hash},
        "read_from": document.read_from.as_dict(),
        "notes": document.notes,
        "sections": [
            {"title": s.title, "columns": s.columns,
             "rows": [{c: (v if isinstance(v, bool | int) or v is None else cell_text(v))
                       for c, v in record.items()} for record in s.records()]}
            for s in document.sections],
    }
    return json.dumps(body, indent=2, ensure_ascii=False).encode("utf-8")
