"""Entries are sealed after commit, in blocks: posting takes no lock shared by unrelated
accounts.

Every entry used to be chained as it was posted: ledger_entry_post locked the chain head,
one row, hashed the entry onto it and held it to commit, so every posting of the whole
casino waited for every other, whatever their accounts (docs/benchmarks.md: 99.5 % of
samples of eight tables posting on accounts of their own were waiting on a lock). Now:

- ``ledger_entry_post`` stamps the entry with the transaction that posts it
  (``txid``, ``pg_current_xact_id()``) and locks only the entry's accounts and holds; a
  trigger (``ledger_entry_stamped``) refuses an entry stamped otherwise, or given a chain
  position or hash of its own.
- ``ledger_seal`` (the sealer: ``manage.py ledger_seal``, beat task ``ledger.seal``) seals
  the entries whose transactions can no longer be overtaken by an earlier one (their txid
  is below the snapshot's ``xmin``: every transaction before it has ended) into numbered
  blocks, in ``(txid, id)`` order. ``ledger_block_guard`` computes each block's entry count
  and hash itself (ledger.chain.block_hash), and refuses a block that does not follow its
  predecessor, reaches an entry that could still be overtaken, or is changed or deleted.
- Today's chain moves into blocks with nothing lost: the entry at seq ``n`` becomes block
  ``n``, a block of that one entry with its hashes, so an anchor ``SEQ:HASH`` written down
  before (``ledger_verify --expect``) names the same point. The chain head goes.
- ``ledger_checkpoint``: what ledger_verify checked last, signed, so the next verify starts
  after it.
"""

from django.db import migrations, models

from ledger.sqlfiles import migration_operations

SQL = migration_operations("0018_sealed_blocks")


class Migration(migrations.Migration):
    dependencies = [("ledger", "0017_collection_account_kind")]

    operations = [
        migrations.AddField(
            model_name="entry", name="txid",
            field=models.BigIntegerField(editable=False, null=True)),
        migrations.AlterField(
            model_name="entry", name="seq",
            field=models.BigIntegerField(editable=False, null=True, unique=True)),
        migrations.AlterField(
            model_name="entry", name="prev_hash",
            field=models.CharField(editable=False, max_length=64, null=True)),
        migrations.AlterField(
            model_name="entry", name="hash",
            field=models.CharField(editable=False, max_length=64, null=True)),
        migrations.AddIndex(
            model_name="entry",
            index=models.Index(fields=["txid", "id"], name="ledger_entry_sealing_order")),
        # ledger_verify from a checkpoint sums the open holds: what is open, not history.
        migrations.AddIndex(
            model_name="hold",
            index=models.Index(condition=models.Q(status="open"), fields=["account"],
                               include=["amount"], name="ledger_hold_open")),
        migrations.CreateModel(
            name="Block",
            fields=[
                ("n", models.BigIntegerField(primary_key=True, serialize=False)),
                ("last_txid", models.BigIntegerField(null=True)),
                ("last_entry_id", models.BigIntegerField()),
                ("entries", models.IntegerField()),
                ("prev_hash", models.CharField(max_length=64)),
                ("hash", models.CharField(max_length=64)),
                ("sealed_at", models.DateTimeField()),
            ],
            options={
                "ordering": ["n"],
                "constraints": [
                    models.CheckConstraint(condition=models.Q(entries__gte=1),
                                           name="ledger_block_not_empty"),
                    models.CheckConstraint(
                        condition=models.Q(last_txid__isnull=False) | models.Q(entries=1),
                        name="ledger_block_chained_entry_alone"),
                ],
            },
        ),
        migrations.CreateModel(
            name="Checkpoint",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True,
                                           serialize=False, verbose_name="ID")),
                ("block_n", models.BigIntegerField()),
                ("hash", models.CharField(max_length=64)),
                ("balances", models.JSONField()),
                ("verified_at", models.DateTimeField()),
                ("signature", models.CharField(max_length=64)),
            ],
            options={"ordering": ["id"]},
        ),
        # The chain moves into blocks, then the posting function, the entry's stamp, the
        # blocks' guard and the sealer (ledger/migrations/sql/0018_sealed_blocks.pg.sql).
        *SQL[:6],
        # The chain head goes: its guards first (their way back makes them again).
        SQL[6],
        migrations.DeleteModel(name="ChainHead"),
        SQL[7],
    ]
