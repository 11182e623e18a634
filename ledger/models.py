"""The ledger: double-entry accounts, entries and two-phase holds (see docs/ledger.md).

Design overview
- An ``Account`` holds money of one currency. It says whose it is with a plain ``ref``
  string ("player:12", "table:3"), so the ledger knows nothing of players, tables or the game.
  Its ``kind`` decides ``allow_negative``: a player's account may never go below zero counting
  what is held; the house's accounts (a table's bankroll, commission, the cage, a table's
  drop box and its count variance) may.
- An ``Entry`` is one movement of money: two or more ``Line`` rows whose amounts (signed
  changes to each account's balance, in integer minor units) sum to zero per currency. It
  records who, when, why (``kind`` and ``memo``) and what it belongs to (``ref``:
  "round:42", "player:12"). Entries are never edited or deleted; a correction is a new entry
  that ``reverses`` the original, with a reason.
- A ``Hold`` reserves part of an account's funds (TigerBeetle's pending transfer). It resolves
  exactly once: captured (all or part, into an entry) or released.
- Each account caches ``posted`` (sum of its lines) and ``held`` (sum of its open holds), so
  the balance rule is a plain CHECK constraint: ``allow_negative OR posted - held >= 0``.
  Triggers keep the cache (ledger/migrations/0002_database_guards.py): inserting lines adds
  to ``posted``, placing or resolving a hold moves ``held``.
- PostgreSQL is the last guard, below the services' readable checks: deferred constraint
  triggers refuse at commit an entry that is unbalanced or has fewer than two lines (once
  per entry, and once more for a line added to an entry that already existed); triggers
  refuse UPDATE and DELETE of entries and lines, any change to a resolved hold, and any
  change to an account's identity (kind, currency, ref, allow_negative).
- Tamper evidence: entries are sealed after commit, in numbered ``Block`` rows, by the
  sealer (``ledger_seal``): each block hashes its entries' canonical content (ledger.chain)
  in a gap-free order, ``(txid, id)``, with the previous block's hash. Posting takes no lock
  shared by unrelated accounts: an entry records only the transaction that posted it
  (``txid``), and the sealer seals only entries whose transactions can no longer be
  overtaken by an earlier one (PostgreSQL's snapshot ``xmin`` says which). The entries
  chained one at a time before blocks (each with its ``seq`` and ``hash``) are blocks of one
  entry each, numbered by their ``seq``. ``manage.py ledger_verify`` recomputes the blocks
  and every cached balance, from its last signed ``Checkpoint`` unless asked for all.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from casino.shared.money import format_minor


class Account(models.Model):
    class Kind(models.TextChoices):
        PLAYER = "player", "Player's funds"
        TABLE_BANKROLL = "table_bankroll", "Table's house bankroll"
        COMMISSION = "commission", "House commission income"
        CAGE = "cage", "Cash at the cage"
        # Cash taken at a table (a buy-in) until the count room moves it to the cage.
        DROP_BOX = "drop_box", "Table's drop box"
        # What the count found more (+) or less (-) than the buy-ins recorded, per table.
        DROP_VARIANCE = "drop_variance", "Drop count variance"
        # What a card room earns per hand, whatever its result (rounds: collection fees).
        COLLECTION = "collection", "Card-room collection fees"

    # Only players' money is bounded below: the house's accounts are counter-sides whose
    # balance is the house's position, which can be negative (the cage pays out more than it
    # took in; a bankroll loses a round).
    NON_NEGATIVE_KINDS = frozenset({Kind.PLAYER})

    kind = models.CharField(max_length=30, choices=Kind.choices)
    currency = models.CharField(max_length=3)
    ref = models.CharField(max_length=100, blank=True, default="",
                           help_text='Whose account this is, e.g. "player:12" or "table:3".')
    name = models.CharField(max_length=200, blank=True, default="")
    allow_negative = models.BooleanField()
    # Caches kept by triggers; ledger_verify compares them with the lines and holds.
    posted = models.BigIntegerField(default=0)
    held = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        # Without it a reader (the cage) sees players' accounts and their entries only.
        permissions = [("view_house_accounts",
                        "Can view the house's accounts (bankrolls, commission, the cage)")]
        constraints = [
            models.UniqueConstraint(fields=["kind", "currency", "ref"],
                                    name="ledger_account_one_per_kind_currency_ref"),
            models.CheckConstraint(condition=Q(held__gte=0),
                                   name="ledger_account_held_not_negative"),
            models.CheckConstraint(condition=Q(allow_negative=True) | Q(posted__gte=F("held")),
                                   name="ledger_account_available_not_negative"),
            # allow_negative follows the kind: a player's account never goes below zero.
            models.CheckConstraint(
                condition=Q(allow_negative=False) | ~Q(kind="player"),  # NON_NEGATIVE_KINDS
                name="ledger_account_players_never_negative"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.kind} {self.ref or '-'} {self.currency}"

    @property
    def available(self) -> int:
        return self.posted - self.held


class Entry(models.Model):
    kind = models.CharField(max_length=40, help_text='Why: "deposit", "wager", "reversal"...')
    memo = models.TextField(blank=True, default="")
    ref = models.CharField(max_length=100, blank=True, default="",
                           help_text='What it belongs to, e.g. "round:42".')
    created_at = models.DateTimeField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.PROTECT, related_name="+")
    # One-to-one: an entry is reversed at most once (also a unique index in PostgreSQL).
    reverses = models.OneToOneField("self", null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="reversed_by")
    reason = models.TextField(blank=True, default="")
    # The transaction that posted it (pg_current_xact_id(), set by ledger_entry_post and
    # checked by a trigger): with the id, its place in the sealed blocks. Null only for the
    # entries chained one at a time before blocks, which keep their place (seq) and hashes.
    txid = models.BigIntegerField(null=True, editable=False)
    seq = models.BigIntegerField(unique=True, null=True, editable=False)
    prev_hash = models.CharField(max_length=64, null=True, editable=False)  # noqa: DJ001
    hash = models.CharField(max_length=64, null=True, editable=False)  # noqa: DJ001

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "entries"
        # Few indexes: each is written by every posting. (txid, id): the sealer's and
        # ledger_verify's order, and what is left to seal. created_at: a period's entries
        # (statements, the trial balance as of a moment, a day's reversals in the day's
        # report) without reading the whole ledger. ref: a
        # round's or a player's entries, always by equality, so a plain index (db_index on a
        # CharField would add a second, LIKE-prefix one, which nothing uses).
        indexes = [models.Index(fields=["created_at"]), models.Index(fields=["ref"]),
                   models.Index(fields=["txid", "id"], name="ledger_entry_sealing_order")]
        permissions = [("reverse_entry", "Can reverse a ledger entry")]
        constraints = [
            models.CheckConstraint(condition=Q(reverses__isnull=True) | ~Q(reason=""),
                                   name="ledger_entry_reversal_has_reason"),
        ]

    def __str__(self) -> str:
        return f"entry #{self.pk} {self.kind} {self.ref}".rstrip()


class Line(models.Model):
    entry = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="lines")
    # Indexed by (account, entry) below, which also serves lookups by account alone.
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="lines",
                                db_index=False)
    # The signed change to the account's balance, in minor units.
    amount = models.BigIntegerField()

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["account", "entry"])]
        constraints = [
            models.CheckConstraint(condition=~Q(amount=0), name="ledger_line_amount_not_zero"),
        ]

    def __str__(self) -> str:
        # Read in the admin (an entry's lines): the amount in the currency's unit.
        sign = "+" if self.amount > 0 else ""
        return (f"{sign}{format_minor(self.amount, self.account.currency)} "
                f"{self.account.currency} on account #{self.account_id}")


class Hold(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Open"
        CAPTURED = "captured", "Captured"
        RELEASED = "released", "Released"

    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="holds")
    amount = models.BigIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    ref = models.CharField(max_length=100, blank=True, default="", db_index=True)
    memo = models.TextField(blank=True, default="")
    created_at = models.DateTimeField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.PROTECT, related_name="+")
    captured_amount = models.BigIntegerField(null=True, blank=True)
    # The entry that settled it (captured, or released by an entry that did not debit it).
    entry = models.ForeignKey(Entry, null=True, blank=True, on_delete=models.PROTECT,
                              related_name="settled_holds")
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                    on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["id"]
        # The open holds alone: ledger_verify sums them per account at every run, which
        # must cost what is open now, not every wager ever held.
        indexes = [models.Index(fields=["account", "status"]),
                   models.Index(fields=["account"], condition=Q(status="open"),
                                name="ledger_hold_open", include=["amount"])]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="ledger_hold_amount_positive"),
            models.CheckConstraint(
                condition=(Q(status="open") & Q(resolved_at__isnull=True)
                           & Q(captured_amount__isnull=True))
                | (Q(status="released") & Q(resolved_at__isnull=False)
                   & Q(captured_amount__isnull=True))
                | (Q(status="captured") & Q(resolved_at__isnull=False)
                   & Q(captured_amount__gt=0) & Q(captured_amount__lte=F("amount"))
                   & Q(entry__isnull=False)),
                name="ledger_hold_resolution_consistent",
            ),
        ]

    def __str__(self) -> str:
        return (f"hold #{self.pk} of {format_minor(self.amount, self.account.currency)} "
                f"{self.account.currency} on account #{self.account_id} ({self.status})")


class Block(models.Model):
    """A sealed block: the entries after the previous block's last one, up to and including
    ``(last_txid, last_entry_id)`` in ``(txid, id)`` order, hashed with the previous block's
    hash (ledger.chain.block_hash). Made only by ``ledger_seal``; its trigger
    (``ledger_guard_block``) computes ``entries``, ``prev_hash`` and ``hash`` itself, refuses
    a block that does not follow its predecessor or that reaches an entry whose transaction
    could still be overtaken, and refuses any change or deletion.

    A block with no ``last_txid`` is an entry of the chain kept before blocks: block ``n``
    is the entry whose ``seq`` was ``n``, with that entry's hash, so anchors written down
    then (``SEQ:HASH``) name the same point now.
    """

    n = models.BigIntegerField(primary_key=True)
    last_txid = models.BigIntegerField(null=True)
    last_entry_id = models.BigIntegerField()
    entries = models.IntegerField()
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)
    sealed_at = models.DateTimeField()

    class Meta:
        ordering = ["n"]
        constraints = [
            models.CheckConstraint(condition=Q(entries__gte=1), name="ledger_block_not_empty"),
            models.CheckConstraint(condition=Q(last_txid__isnull=False) | Q(entries=1),
                                   name="ledger_block_chained_entry_alone"),
        ]
        # The block that holds an entry: the first ending at or after it (ledger.selectors).
        indexes = [models.Index(fields=["last_txid", "last_entry_id"],
                                name="ledger_block_sealing_order")]

    def __str__(self) -> str:
        return f"block {self.n} ({self.entries} entries)"


class Checkpoint(models.Model):
    """A block ``ledger_verify`` checked, with every account's line total through it, signed
    with ``LEDGER_CHECKPOINT_KEY``: the next verify starts after it (ledger.verify). The
    signature is what makes it a starting point: a row written without the key is ignored."""

    block_n = models.BigIntegerField()
    hash = models.CharField(max_length=64)
    # {account id: the sum of its lines through the block}, as text keys (JSON).
    balances = models.JSONField()
    verified_at = models.DateTimeField()
    signature = models.CharField(max_length=64)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"checkpoint at block {self.block_n}"
