"""Entries get their place in the chain (``seq``), given while the chain head is locked.

Posting now appends in a single statement that locks the chain head, computes the hash in
PostgreSQL and inserts the entry and its lines (ledger.services), so no client round trip
happens while the head is held. Entry ids are drawn before that lock, so the chain's order
is ``seq``, not ``id``, and the canonical content moved to a format PostgreSQL can write
(ledger.chain).

Entries posted before this migration are re-chained in the new format, in id order (their
chain order until now): the only time ledger rows are rewritten, before the service holds any
real money, with the immutability trigger switched off for the purpose and on again.
"""

import hashlib
from datetime import UTC

from django.db import migrations, models

GENESIS = "0" * 64


def _content(*, entry_id, seq, at, kind, memo, ref, by, reverses, reason, lines):
    """ledger.chain's canonical content as of this migration (frozen here on purpose)."""
    stamp = at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    text = [f"id={entry_id}", f"seq={seq}", f"at={stamp}", f"kind={len(kind)}:{kind}",
            f"memo={len(memo)}:{memo}", f"ref={len(ref)}:{ref}",
            f"by={'' if by is None else by}", f"reverses={'' if reverses is None else reverses}",
            f"reason={len(reason)}:{reason}",
            "lines=" + ",".join(f"{a}:{m}" for a, m in sorted(lines))]
    return "\n".join(text).encode()


def rechain(apps, schema_editor):
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("ALTER TABLE ledger_entry DISABLE TRIGGER ledger_entry_immutable")
        cursor.execute(
            "SELECT e.id, e.created_at, e.kind, e.memo, e.ref, e.created_by_id, e.reverses_id,"
            " e.reason, array_agg(l.account_id ORDER BY l.id), array_agg(l.amount ORDER BY l.id)"
            " FROM ledger_entry e JOIN ledger_line l ON l.entry_id = e.id"
            " GROUP BY e.id ORDER BY e.id")
        prev = GENESIS
        for seq, (entry_id, at, kind, memo, ref, by, reverses, reason, accounts,
                  amounts) in enumerate(cursor.fetchall(), start=1):
            content = _content(entry_id=entry_id, seq=seq, at=at, kind=kind, memo=memo,
                               ref=ref, by=by, reverses=reverses, reason=reason,
                               lines=zip(accounts, amounts, strict=True))
            new = hashlib.sha256(prev.encode() + b"\n" + content).hexdigest()
            with connection.cursor() as update:
                update.execute("UPDATE ledger_entry SET seq = %s, prev_hash = %s, hash = %s"
                               " WHERE id = %s", [seq, prev, new, entry_id])
            prev = new
        cursor.execute("ALTER TABLE ledger_entry ENABLE TRIGGER ledger_entry_immutable")
        # Made again on first use, from the newest entry.
        cursor.execute("DELETE FROM ledger_chainhead")


class Migration(migrations.Migration):
    dependencies = [("ledger", "0005_fewer_indexes")]

    operations = [
        migrations.AddField(model_name="entry", name="seq",
                            field=models.BigIntegerField(null=True)),
        migrations.AddField(model_name="chainhead", name="seq",
                            field=models.BigIntegerField(default=0)),
        migrations.AddField(model_name="chainhead", name="prev_hash",
                            field=models.CharField(default="", max_length=64)),
        migrations.RunPython(rechain, migrations.RunPython.noop, elidable=True),
        migrations.AlterField(model_name="entry", name="seq",
                              field=models.BigIntegerField(unique=True)),
    ]
