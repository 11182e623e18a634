"""The casino floor: players, staff, and the currencies the floor accepts.

Design overview
- A ``Player`` is a person known to the cage. Their money lives in the ledger (one account
  per player and currency); this model only says who they are.
- ``Currency`` is shared: a player's account and a table (rounds.models.Table, beside its
  seats and rounds) are each in one of these currencies.
- An ``Exclusion`` keeps a player from play: self-excluded or barred, for a time or for
  good; every door that seats, takes a wager, a buy-in, a deposit or gives the bank asks
  casino.exclusions.player_exclusion_check.
- A ``PlayerLimit`` is a limit a player sets on their own play (a daily wager limit, a
  daily loss limit): append-only history, the row in force the latest one whose
  ``effective_from`` has come (casino.player_limits).
- Staff are Django users; their role is the Django group they belong to (casino.roles).
- Requests waiting for a second person, refused attempts and answers kept for retried POSTs
  are models of their own modules (casino.shared.approvals, casino.shared.refusals,
  casino.shared.idempotency), imported at the end of this one so Django finds them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Currency(models.TextChoices):
    """Currencies the floor accepts; each has two minor-unit digits."""

    EUR = "EUR", "Euro"
    USD = "USD", "US dollar"
    GBP = "GBP", "Pound sterling"
    CHF = "CHF", "Swiss franc"


class IdDocument(models.TextChoices):
    """The identity documents the cage accepts."""

    PASSPORT = "passport", "Passport"
    ID_CARD = "id_card", "Identity card"
    DRIVING_LICENCE = "driving_licence", "Driving licence"
    RESIDENCE_PERMIT = "residence_permit", "Residence permit"


# A document number as stored: capitals and digits, the spaces and dashes typed removed
# (casino.services.player_identity_check); empty for a player registered before the cage
# recorded identities.
ID_NUMBER_SHAPE = r"^[A-Z0-9]{5,20}$"


class Player(models.Model):
    """A person known to the cage. Two players may share a name: their identity (date of
    birth, identity document) is what tells them apart at the cage, their id everywhere.

    A third-party proposition player (``kind`` proposition) is a licensed business that
    banks card-room rounds from its own bankroll at the cage: it funds and withdraws like a
    player, is known by its licence, and never takes a seat (docs/rules.md, card room)."""

    class Kind(models.TextChoices):
        PLAYER = "player", "Player"
        PROPOSITION = "proposition", "Third-party proposition player"

    name = models.CharField(max_length=200)
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.EUR)
    date_of_birth = models.DateField(null=True, blank=True)
    id_document_kind = models.CharField(max_length=20, choices=IdDocument.choices, blank=True,
                                        default="", verbose_name="identity document")
    id_document_number = models.CharField(max_length=20, blank=True, default="",
                                          verbose_name="document number")
    # ISO 3166 alpha-2 codes (casino.countries): the state that issued the document, and
    # the player's nationality; empty when not recorded (players registered before).
    id_document_country = models.CharField(max_length=2, blank=True, default="",
                                           verbose_name="document's country")
    nationality = models.CharField(max_length=2, blank=True, default="")
    # Where the cage keeps the player's photo (a file name or a camera system's key): the
    # service stores the reference, never the picture.
    photo_ref = models.CharField(max_length=200, blank=True, default="",
                                 verbose_name="photo reference")
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.PLAYER)
    licence = models.CharField(max_length=60, blank=True, default="",
                               help_text="A proposition player's state licence.")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
        related_name="+",
    )
    # The player's own login, which the cage gives (casino.player_logins): a user in no
    # staff group and not staff, whose token and session reach only the player's own things
    # (casino.shared.player_scope). Empty for a player who plays only at live tables.
    user = models.OneToOneField(settings.AUTH_USER_MODEL, null=True, blank=True,
                                on_delete=models.PROTECT, related_name="player")

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["name"])]
        constraints = [
            # A proposition player is known by its licence; a player has none.
            models.CheckConstraint(
                condition=models.Q(kind="player", licence="")
                | (models.Q(kind="proposition") & ~models.Q(licence="")),
                name="player_kind_licence"),
            # A document is its kind and its number together, or none (older players).
            models.CheckConstraint(
                condition=(models.Q(id_document_kind="", id_document_number="")
                           | (~models.Q(id_document_kind="")
                              & models.Q(id_document_number__regex=ID_NUMBER_SHAPE))),
                name="player_id_document_whole"),
            models.CheckConstraint(condition=models.Q(id_document_country__regex=r"^([A-Z]{2})?$"),
                                   name="player_id_document_country_alpha2"),
            models.CheckConstraint(condition=models.Q(nationality__regex=r"^([A-Z]{2})?$"),
                                   name="player_nationality_alpha2"),
        ]
        permissions = [
            ("deposit_funds", "Can take a player's deposit at the cage"),
            ("withdraw_funds", "Can pay out a player's withdrawal at the cage"),
            ("correct_funds", "Can correct a deposit or withdrawal at the cage"),
            # A player's own login (casino.shared.api.permissions.PLAY_GAMES), never staff's.
            ("play_games", "Can play their own games at a self-service table"),
        ]

    def __str__(self) -> str:
        return f"{self.name} (#{self.pk})"

    @property
    def identity_on_file(self) -> bool:
        """Whether the cage has identified the player: a date of birth and a document (the
        cash rules' identity line asks for this; casino.cash). A third-party proposition
        player is a business the state licensed: its licence, required at registration
        (constraint player_kind_licence), is the identity the cage records for it."""
        if self.kind == Player.Kind.PROPOSITION:
            return bool(self.licence)
        return bool(self.date_of_birth and self.id_document_kind and self.id_document_number)


class CashReport(models.Model):
    """A cash transaction report: one player's gaming day whose cash in or cash out passed
    CASINO_CASH_REPORT_ABOVE, or whose movements look split to stay under a line
    (casino.cash). Written by casino.cash.cash_movement_record as each movement of the day
    comes in; ``history`` keeps every earlier version of the figures, appended, never
    rewritten. An auditor files it: each filing is a row of its own (CashReportFiling),
    kept whole, so a report whose figures changed after it was filed says so and is filed
    again as an amendment, the filing before it untouched."""

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="cash_reports")
    gaming_day = models.DateField()
    currency = models.CharField(max_length=3, choices=Currency.choices)
    # Who the player was on file when the figures were last written.
    identity = models.JSONField(default=dict)
    cash_in = models.BigIntegerField(default=0)
    cash_out = models.BigIntegerField(default=0)
    movements = models.JSONField(default=list, help_text="The day's ledger entry ids.")
    report_line_passed = models.BooleanField(default=False)
    splitting_suspected = models.BooleanField(default=False)
    reasons = models.JSONField(default=list, help_text="Why the report exists, in words.")
    history = models.JSONField(default=list, help_text="Earlier versions, oldest first.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["gaming_day", "player_id"]
        constraints = [
            models.UniqueConstraint(fields=["player", "gaming_day"],
                                    name="cash_report_one_per_player_day"),
            models.CheckConstraint(condition=models.Q(cash_in__gte=0, cash_out__gte=0),
                                   name="cash_report_totals_not_negative"),
        ]
        permissions = [
            ("view_cash_log", "Can read the multiple transaction log"),
            ("file_cashreport", "Can file a cash transaction report"),
        ]

    def __str__(self) -> str:
        return f"Cash report #{self.pk}: player #{self.player_id}, {self.gaming_day}"

    @property
    def last_filing(self) -> CashReportFiling | None:
        """The latest filing, or None: read from ``filings`` (prefetched by the selectors
        that list reports, casino.cash.cash_reports), so a page of reports is one query."""
        filings = list(self.filings.all())
        return max(filings, key=lambda f: f.pk) if filings else None

    @property
    def amended_since_filing(self) -> bool:
        """Filed, and the figures are no longer those of the last filing: the authority
        holds figures the day has since changed, so the report is to be filed again."""
        last = self.last_filing
        return last is not None and (last.cash_in, last.cash_out) != (self.cash_in,
                                                                       self.cash_out)


class CashReportFiling(models.Model):
    """One filing of a cash transaction report with the authority: who filed it, when, and
    the figures filed, kept whole. The first is the filing, each later one an amendment
    (casino.cash.cash_report_file files again only figures that changed). Append-only:
    PostgreSQL refuses to change or delete a filing (casino/migrations/0015), as the
    authority's copy cannot be changed either."""

    report = models.ForeignKey(CashReport, on_delete=models.PROTECT, related_name="filings")
    filed_at = models.DateTimeField()
    filed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                 related_name="+")
    cash_in = models.BigIntegerField()
    cash_out = models.BigIntegerField()

    class Meta:
        ordering = ["report_id", "id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(cash_in__gte=0, cash_out__gte=0),
                                   name="cash_report_filing_totals_not_negative"),
        ]

    def __str__(self) -> str:
        return f"Filing #{self.pk} of cash report #{self.report_id}"


class Exclusion(models.Model):
    """A player kept from play: self-excluded (they asked) or barred (the casino decided),
    from ``starts`` until ``until`` (inclusive; null: for good), with a reason and who
    recorded it. A player is excluded on a gaming day when an exclusion not lifted covers
    it (casino.exclusions.player_exclusion_check, the one check every door calls).

    Append-only but for its lift, once: ``lifted_at``, ``lifted_by`` and ``lift_reason``
    (and ``lift_approved_by``, the second person, when a self-exclusion is lifted before
    its end) are the only columns that ever change, from empty to set; PostgreSQL holds it
    (casino/migrations/sql/0014_exclusions.pg.sql)."""

    class Kind(models.TextChoices):
        SELF = "self", "Self-excluded"
        BARRED = "barred", "Barred"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="exclusions")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    starts = models.DateField()
    until = models.DateField(null=True, blank=True, help_text="Inclusive; empty: for good.")
    reason = models.TextField()
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                    related_name="+")
    recorded_at = models.DateTimeField(auto_now_add=True)
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                  on_delete=models.PROTECT, related_name="+")
    lift_reason = models.TextField(blank=True, default="")
    lift_approved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                         on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["player", "lifted_at"])]
        constraints = [
            models.CheckConstraint(condition=models.Q(kind__in=["self", "barred"]),
                                   name="exclusion_kind_known"),
            models.CheckConstraint(condition=models.Q(until__isnull=True)
                                   | models.Q(until__gte=models.F("starts")),
                                   name="exclusion_ends_after_it_starts"),
            models.CheckConstraint(condition=~models.Q(reason=""),
                                   name="exclusion_has_a_reason"),
            # Lifted is who, when and why together; a second person never lifts alone.
            models.CheckConstraint(
                condition=models.Q(lifted_at__isnull=True, lifted_by__isnull=True,
                                   lift_reason="", lift_approved_by__isnull=True)
                | (models.Q(lifted_at__isnull=False, lifted_by__isnull=False)
                   & ~models.Q(lift_reason="")),
                name="exclusion_lifted_whole"),
            models.CheckConstraint(
                condition=models.Q(lift_approved_by__isnull=True)
                | ~models.Q(lift_approved_by=models.F("lifted_by")),
                name="exclusion_lift_approved_by_another_person"),
        ]
        permissions = [
            ("lift_exclusion", "Can lift a self-exclusion (or approve lifting one)"),
            ("lift_barring", "Can lift a barring"),
        ]

    def __str__(self) -> str:
        return f"Exclusion #{self.pk}: player #{self.player_id}, {self.kind}"


class PlayerLimit(models.Model):
    """A limit a player set on their own play, as of ``effective_from``: a daily wager
    limit or a daily loss limit, in minor units of the player's currency (``amount`` None:
    no limit). A lower (or first) limit takes effect when set; a higher one, or removing
    it, PLAYER_LIMIT_RAISE_HOURS later, so a player cannot lift their own limit in the heat
    of play (casino.player_limits). Append-only: a change is a new row, and the rows are
    the history a regulator asks for; PostgreSQL holds it
    (casino/migrations/sql/0018_player_limits.pg.sql)."""

    class Kind(models.TextChoices):
        WAGER_PER_DAY = "wager_per_day", "Daily wager limit"
        LOSS_PER_DAY = "loss_per_day", "Daily loss limit"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="limits")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    amount = models.BigIntegerField(null=True, blank=True,
                                    help_text="Minor units of the player's currency; empty: "
                                              "no limit.")
    effective_from = models.DateTimeField()
    set_at = models.DateTimeField()
    set_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                               related_name="+")

    class Meta:
        ordering = ["player_id", "kind", "effective_from", "id"]
        indexes = [models.Index(fields=["player", "kind", "effective_from"],
                                name="casino_limit_player_kind_from")]
        constraints = [
            models.CheckConstraint(condition=models.Q(amount__isnull=True)
                                   | models.Q(amount__gt=0),
                                   name="player_limit_amount_positive"),
            models.CheckConstraint(condition=models.Q(kind__in=["wager_per_day",
                                                                "loss_per_day"]),
                                   name="player_limit_kind_known"),
            models.CheckConstraint(condition=models.Q(effective_from__gte=models.F("set_at")),
                                   name="player_limit_not_in_the_past"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of player #{self.player_id}"


def default_deal_modes() -> list[str]:
    """The deal modes casino migration 0006 gave every existing table, kept because that
    migration names this function; tables now live in rounds.models (its own
    ``default_deal_modes``)."""
    return ["electronic", "physical"]


# Answers to POSTs retried with an Idempotency-Key; the model lives beside its middleware.
# Requests waiting for a second person, and refused attempts, beside their services.
from casino.shared.approvals import Approval  # noqa: E402, F401
from casino.shared.idempotency import IdempotencyKey  # noqa: E402, F401
from casino.shared.refusals import Refusal  # noqa: E402, F401
