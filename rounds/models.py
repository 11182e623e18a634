"""Play at the tables: tables, seats, rounds, wagers, hands and the round's story.

Design overview
- A ``Table`` is a Pai Gow Poker table with its currency (casino.models.Currency, shared
  with players' accounts), limits and every table setting of the rules page
  (docs/rules.md), each a field with the rules' default. Amounts are integers in the
  currency's minor unit (cents for EUR). Settings change only between rounds, through a
  service that records each change (``TableSettingsChange``, rounds.services).
- A table's ``deal_modes`` say how its rounds may be dealt: electronically (the service
  shuffles and rolls), by recording a physical table's cards, or results only (the dealer
  records each position's outcome). Choosing cards or outcomes decides the money, so a
  table allows results only when a pit boss says it deals that way.
- A ``Seat`` is one of a table's six player seats (1-6); the dealer's position is not a
  seat. One player per seat, and a player in one seat of one table at a time.
- A ``Round`` moves through ``betting -> banker_set -> dealt -> settled`` (or ``voided``
  before settlement, or ``reversed`` after it). Each step is a service in rounds.services
  that locks the round row first, refuses to run out of order, and appends a ``RoundEvent``
  (who, when, what). The round copies the table's settings when it opens, so a later
  change of settings never rewrites a round's story.
- A ``Wager`` is a seat's bet against the bank. Its money is held on the player's ledger
  account at once (``hold_id``); clearing the wager releases the hold, settlement captures
  it. At most one active wager per seat and round.
- A ``Hand`` is one position's seven cards and how they were set ("dealer" or "1"-"6"),
  and after settlement its outcome and money: the wager, the amount won (+) or lost (-)
  from the position's point of view, and the commission it paid.
- The banker is the house or a seated player. A player-banker's cover (every wager against
  the bank plus the house stake) is held on their account at the deal, after the solvency
  check, until the round is settled or voided.
- Money moves only through the ledger: the settlement is ONE entry (``entry_id``), and a
  reversal is another (``reversal_entry_id``). Amounts here are integers in minor units.
- ``RoundEvent`` rows are append-only; PostgreSQL refuses to update or delete them.
- A ``DealerShift`` is a dealer signed in at a table, from sign-in to relief (by
  themselves, a pit boss, or the next dealer signing in). One open shift per table and one
  per dealer. Each round records who dealt it (``Round.dealer``, and the shift it was dealt
  in): the table's dealer when it opened, else whoever opened it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, ClassVar

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.utils.functional import cached_property
from django.utils.timezone import localtime

from casino.models import Currency
from casino.shared.money import format_minor
from rounds.paigow.showdown import Result
from rounds.settlement import Role as PartyRole

if TYPE_CHECKING:
    # rounds.rules reads the Table model's choices and defaults, so it imports this module.
    from rounds.rules import TableRules

POSITIONS = ("dealer", "1", "2", "3", "4", "5", "6")
SEAT_NUMBERS = range(1, 7)


def default_deal_modes() -> list[str]:
    """Electronic and physical deals; results only is a pit boss's choice per table."""
    return [Table.DealMode.ELECTRONIC.value, Table.DealMode.PHYSICAL.value]


def default_collection_banker() -> list[dict[str, int | None]]:
    """The bank's collection fee in a card room, by the action covered against it (minor
    units): 1.00 up to 100.00, 3.00 up to 500.00, 5.00 above (docs/rules.md)."""
    return [{"up_to": 10_000, "fee": 100}, {"up_to": 50_000, "fee": 300},
            {"up_to": None, "fee": 500}]


class Table(models.Model):
    """A table and its settings; every setting's default is the rules page's."""

    class DealMode(models.TextChoices):
        # The same words as a round's deal kind (Round.DealKind).
        ELECTRONIC = "electronic", "Electronic (the service shuffles and rolls the dice)"
        PHYSICAL = "physical", "Physical (the dealer records the cards dealt)"
        RESULTS = "results", "Results only (the dealer records each outcome)"

    class CommissionRounding(models.TextChoices):
        EXACT = "exact", "Exact to the minor unit, half up"
        UP_TO_QUARTER = "up_to_quarter", "Up to the next 0.25"
        DOWN_TO_UNIT = "down_to_unit", "Down to a whole unit"

    class Wheel(models.TextChoices):
        SECOND_HIGHEST = "second_highest", "A-2-3-4-5 is the second-highest straight"
        LOWEST = "lowest", "A-2-3-4-5 is the lowest straight"

    class BankRotation(models.TextChoices):
        ALTERNATE = "alternate", "House every other round, offered in seat order between"
        CIRCLE = "circle", "Each player in turn, then the house"
        OPEN = "open", "Any seated player may ask; pit staff decide"

    class HouseStakeCap(models.TextChoices):
        LAST_WAGER = "last_wager", "The banker's own last wager against the house"
        TABLE_MAX = "table_max", "The table maximum"

    class FoulPolicy(models.TextChoices):
        HOUSE_WAY = "house_way", "The dealer re-sets the hand the house way"
        FORFEIT = "forfeit", "The fouled hand loses"

    class FirstStack(models.TextChoices):
        AFTER_COUNTED = "after_counted", "Dealing starts after the counted position"
        COUNTED = "counted", "The counted position takes the first stack"

    class BankMode(models.TextChoices):
        CASINO = "casino", "Casino: the house or a player banks; commission"
        CARD_ROOM = "card_room", "Card room: player-dealers and proposition players bank; " \
                                 "collection fees"

    name = models.CharField(max_length=100, unique=True)
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.EUR)
    is_open = models.BooleanField(default=True)
    # Limits in minor units: 2 and 100 are the German seed's online table (rules §6).
    min_bet = models.BigIntegerField(default=200)
    max_bet = models.BigIntegerField(default=10_000)
    commission_rate = models.DecimalField(
        max_digits=5, decimal_places=4, default=Decimal("0.0500"),
        help_text="Fraction of a win taken as commission (0.0500 = 5%).",
    )
    commission_rounding = models.CharField(
        max_length=20, choices=CommissionRounding.choices, default=CommissionRounding.EXACT
    )
    wheel = models.CharField(max_length=20, choices=Wheel.choices, default=Wheel.SECOND_HIGHEST)
    house_way = models.CharField(max_length=30, default="foxwoods")
    bank_rotation = models.CharField(
        max_length=20, choices=BankRotation.choices, default=BankRotation.ALTERNATE
    )
    banker_must_have_played = models.BooleanField(default=True)
    house_stake_cap = models.CharField(
        max_length=20, choices=HouseStakeCap.choices, default=HouseStakeCap.LAST_WAGER
    )
    foul_policy = models.CharField(
        max_length=20, choices=FoulPolicy.choices, default=FoulPolicy.HOUSE_WAY
    )
    co_banking = models.BooleanField(default=False)
    first_stack = models.CharField(
        max_length=20, choices=FirstStack.choices, default=FirstStack.AFTER_COUNTED
    )
    deal_modes = ArrayField(
        models.CharField(max_length=20, choices=DealMode.choices), default=default_deal_modes,
        help_text="How this table's rounds may be dealt.",
    )
    # Card-room mode (docs/rules.md "Card-room mode"): who may bank and what the house earns.
    bank_mode = models.CharField(max_length=20, choices=BankMode.choices,
                                 default=BankMode.CASINO)
    collection_banker = models.JSONField(
        default=default_collection_banker,
        help_text='Card room: the bank\'s fee by the covered action, in minor units: '
                  '[{"up_to": 10000, "fee": 100}, ..., {"up_to": null, "fee": 500}].')
    collection_player = models.BigIntegerField(
        default=0, help_text="Card room: the flat fee of each wager with action.")
    max_consecutive_banks = models.PositiveSmallIntegerField(
        default=2, help_text="Card room: the most consecutive rounds one player may bank.")
    rotation_minutes = models.PositiveIntegerField(
        null=True, blank=True, default=None,
        help_text="Card room: the bank moves on after a player held it this long (empty: "
                  "no time limit).")
    # A self-service table (the German seed's electronic game): one player at a time plays
    # each game against the house, dealt electronically from a committed seed
    # (docs/fairness.md), the dealer's hand set by the house way. Many players may play at
    # once, each their own game (Round.player).
    self_service = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # Who opened the table (rules §10); empty for tables opened before it was recorded.
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["id"]
        permissions = [("run_rounds", "Can run rounds at a table (deal, wagers, settle)"),
                       ("take_buy_in", "Can take a player's cash at a table (a buy-in)")]
        constraints = [
            models.CheckConstraint(
                condition=Q(min_bet__gt=0) & Q(max_bet__gte=models.F("min_bet")),
                name="table_limits_positive_and_ordered",
            ),
            models.CheckConstraint(
                condition=Q(commission_rate__gte=0) & Q(commission_rate__lt=1),
                name="table_commission_rate_in_range",
            ),
            models.CheckConstraint(
                condition=Q(deal_modes__len__gte=1)
                & Q(deal_modes__contained_by=["electronic", "physical", "results"]),
                name="table_deal_modes_known_and_not_empty",
            ),
            models.CheckConstraint(condition=Q(bank_mode__in=["casino", "card_room"]),
                                   name="table_bank_mode_known"),
            models.CheckConstraint(
                condition=Q(collection_player__gte=0) & Q(max_consecutive_banks__gte=1)
                & (Q(rotation_minutes__isnull=True) | Q(rotation_minutes__gte=1)),
                name="table_card_room_settings_in_range"),
            # A self-service game is banked by the house and dealt by the service only.
            models.CheckConstraint(
                condition=Q(self_service=False)
                | Q(bank_mode="casino", deal_modes=["electronic"]),
                name="table_self_service_house_banked_electronic"),
        ]

    def __str__(self) -> str:
        return self.name


class Seat(models.Model):
    table = models.ForeignKey("rounds.Table", on_delete=models.PROTECT, related_name="seats")
    number = models.PositiveSmallIntegerField()
    player = models.ForeignKey(
        "casino.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="seats"
    )
    since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["table_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="seat_unique_number"),
            # A player sits at one table at a time, in one seat (rounds/migrations/0021).
            models.UniqueConstraint(
                fields=["player"], condition=Q(player__isnull=False),
                name="seat_one_per_player",
            ),
            models.CheckConstraint(condition=Q(number__gte=1, number__lte=6),
                                   name="seat_number_1_to_6"),
        ]

    def __str__(self) -> str:
        return f"{self.table} seat {self.number}"


class SeatChange(models.Model):
    """A player taking or leaving a seat, with who and when (rules §10: every step's who and
    when). Appended by the seat services, never changed (the runtime role may only insert)."""

    class Kind(models.TextChoices):
        TOOK = "took", "Took the seat"
        LEFT = "left", "Left the seat"

    table = models.ForeignKey("rounds.Table", on_delete=models.PROTECT,
                              related_name="seat_changes")
    number = models.PositiveSmallIntegerField()
    player = models.ForeignKey("casino.Player", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["table", "id"])]

    def __str__(self) -> str:
        return f"{self.table} seat {self.number}: {self.player} {self.kind}"


class TableSettingsChange(models.Model):
    """One recorded change of a table's settings (only ever between rounds)."""

    table = models.ForeignKey("rounds.Table", on_delete=models.PROTECT,
                              related_name="settings_changes")
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                   related_name="+")
    changed_at = models.DateTimeField(auto_now_add=True)
    changes = models.JSONField(help_text='{"field": [old, new], ...}')

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        # In the casino's zone, like every time shown (the stored value is UTC).
        return f"{self.table} settings changed at {localtime(self.changed_at):%Y-%m-%d %H:%M}"


class Round(models.Model):
    class State(models.TextChoices):
        BETTING = "betting", "Betting"
        BANKER_SET = "banker_set", "Banker set"
        DEALT = "dealt", "Dealt"
        SETTLED = "settled", "Settled"
        VOIDED = "voided", "Voided"
        REVERSED = "reversed", "Settled, then reversed"

        # Groups of states, filled in below the class: an enum's body cannot name its own
        # members, and a tuple written here would become a member itself.
        OPEN: ClassVar[tuple[str, ...]]      # in play: the table deals no other round
        PLAYED: ClassVar[tuple[str, ...]]    # dealt to the end and settled
        FINISHED: ClassVar[tuple[str, ...]]  # over, one way or another

    class DealKind(models.TextChoices):
        ELECTRONIC = "electronic", "Electronic deal"
        PHYSICAL = "physical", "Hands recorded from a physical table"
        RESULTS = "results", "Results only"

    table = models.ForeignKey("rounds.Table", on_delete=models.PROTECT, related_name="rounds")
    number = models.PositiveIntegerField(help_text="The round's number at its table.")
    state = models.CharField(max_length=20, choices=State.choices, default=State.BETTING)
    gaming_day = models.DateField()
    currency = models.CharField(max_length=3)
    # The table's settings when the round opened (rules §6-§9), as {"field": value}.
    rules = models.JSONField()

    # The bank: the house, or a seated player.
    banker_is_house = models.BooleanField(null=True)
    banker_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    banker_player = models.ForeignKey("casino.Player", null=True, blank=True,
                                      on_delete=models.PROTECT, related_name="banked_rounds")
    house_stake = models.BigIntegerField(default=0)
    # Card room: the most the player-dealer covers (empty: all the action), and the
    # proposition player covering the rest, or banking alone (no banker seat).
    banker_cover = models.BigIntegerField(null=True, blank=True)
    third_party = models.ForeignKey("casino.Player", null=True, blank=True,
                                    on_delete=models.PROTECT, related_name="+")
    third_party_hold_id = models.BigIntegerField(null=True, blank=True)
    # Each wager's collection fee held on its player at the deal (card room).
    fee_hold_ids = ArrayField(models.BigIntegerField(), default=list, blank=True)
    # Solvency check (rules §7.4), recorded when the deal starts.
    solvency_required = models.BigIntegerField(null=True, blank=True)
    solvency_available = models.BigIntegerField(null=True, blank=True)
    banker_hold_id = models.BigIntegerField(null=True, blank=True)

    # The deal (rules §8).
    deal_kind = models.CharField(max_length=20, choices=DealKind.choices, blank=True)
    dice = models.JSONField(null=True, blank=True)
    counted_position = models.CharField(max_length=10, blank=True)
    deal_order = models.JSONField(null=True, blank=True)
    burnt = models.CharField(max_length=20, blank=True)

    # Settlement: its one ledger entry (each party's figures are RoundParty rows).
    entry_id = models.BigIntegerField(null=True, blank=True, unique=True)
    reversal_entry_id = models.BigIntegerField(null=True, blank=True, unique=True)

    opened_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                  related_name="+")
    opened_at = models.DateTimeField(auto_now_add=True)
    # Who dealt it: the dealer signed in at the table when it opened (and that shift), else
    # whoever opened it (no shift). Empty for rounds opened before dealers signed in.
    dealer = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                               on_delete=models.PROTECT, related_name="+")
    dealer_shift = models.ForeignKey("rounds.DealerShift", null=True, blank=True,
                                     on_delete=models.PROTECT, related_name="rounds")
    settled_at = models.DateTimeField(null=True, blank=True)
    closed_reason = models.TextField(blank=True, help_text="Why it was voided or reversed.")
    # The player of a self-service game (Table.self_service), who opened it; empty at a live
    # table, where players take seats.
    player = models.ForeignKey("casino.Player", null=True, blank=True,
                               on_delete=models.PROTECT, related_name="games")

    class Meta:
        ordering = ["-id"]
        permissions = [
            ("void_round", "Can void a round before settlement"),
            ("reverse_round", "Can reverse a settled round"),
            ("run_reports", "Can run the tables' daily reports"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="round_unique_number"),
            # At most one round in play per live table: a table deals one round at a time.
            models.UniqueConstraint(
                fields=["table"],
                condition=Q(state__in=["betting", "banker_set", "dealt"],
                            player__isnull=True),
                name="round_one_open_per_table",
            ),
            # At a self-service table each player plays one game at a time, anywhere.
            models.UniqueConstraint(
                fields=["player"],
                condition=Q(state__in=["betting", "banker_set", "dealt"],
                            player__isnull=False),
                name="round_one_game_per_player",
            ),
            # A self-service game is the house's against its one player.
            models.CheckConstraint(
                condition=Q(player__isnull=True) | Q(banker_is_house__isnull=True)
                | Q(banker_is_house=True),
                name="round_game_house_banked",
            ),
            models.CheckConstraint(condition=Q(house_stake__gte=0),
                                   name="round_house_stake_not_negative"),
            models.CheckConstraint(
                condition=Q(banker_is_house=False, banker_seat__gte=1, banker_seat__lte=6,
                            banker_player__isnull=False)
                # a card room's proposition player banking alone: no seat, no player-dealer
                | Q(banker_is_house=False, banker_seat__isnull=True,
                    banker_player__isnull=True, third_party__isnull=False, house_stake=0)
                | Q(banker_is_house=True, banker_seat__isnull=True, house_stake=0,
                    third_party__isnull=True)
                | Q(banker_is_house__isnull=True, banker_seat__isnull=True),
                name="round_banker_consistent",
            ),
            # A round where every hand pushed moves no money and has no entry to reverse.
            models.CheckConstraint(
                condition=~Q(state="reversed") | Q(reversal_entry_id__isnull=False)
                | Q(entry_id__isnull=True),
                name="round_reversed_has_entry",
            ),
            models.CheckConstraint(condition=Q(banker_cover__isnull=True)
                                   | Q(banker_cover__gte=0),
                                   name="round_banker_cover_not_negative"),
        ]
        indexes = [# A table's day (reports.play.table_day_report): only that day's rows.
                   models.Index(fields=["table", "gaming_day"]),
                   # The floor's day and the bankers' date ranges cross every table: the
                   # day's (or the range's) rounds without reading the others.
                   models.Index(fields=["gaming_day", "table"],
                                name="rounds_round_day_table"),
                   models.Index(fields=["state"]),
                   # For the guard that keeps a live banker's cover held (migration 0005).
                   models.Index(fields=["banker_hold_id"], name="rounds_round_banker_hold",
                                condition=Q(banker_hold_id__isnull=False))]

    def __str__(self) -> str:
        return f"{self.table} round {self.number}"

    @cached_property
    def table_rules(self) -> TableRules:
        """The rules the round plays by, typed, read once from its copy (``rules``), which
        never changes once the round is open."""
        from rounds.rules import TableRules

        return TableRules.from_json(self.rules)

    @property
    def banker_position(self) -> str:
        return "dealer" if self.banker_is_house or self.banker_seat is None \
            else str(self.banker_seat)


Round.State.OPEN = (Round.State.BETTING, Round.State.BANKER_SET, Round.State.DEALT)
# A reversed round was still played: it counts for the rotation and eligibility rules, and
# for Re-Bet.
Round.State.PLAYED = (Round.State.SETTLED, Round.State.REVERSED)
Round.State.FINISHED = (Round.State.SETTLED, Round.State.VOIDED, Round.State.REVERSED)

# How a round's state reads in a refusal ("... while it is taking wagers").
STATE_WORDS = {
    Round.State.BETTING: "taking wagers",
    Round.State.BANKER_SET: "waiting for the deal",
    Round.State.DEALT: "dealt",
    Round.State.SETTLED: "settled",
    Round.State.VOIDED: "voided",
    Round.State.REVERSED: "settled and reversed",
}


class DealerShift(models.Model):
    """A dealer signed in at a table: from ``started_at`` until relieved (``ended_at``, by
    ``ended_by``: the dealer, a pit boss, or the next dealer signing in). The pit manager's
    first reading of a dealer's work is per shift (reports.dealers). Written by
    rounds.services.dealers; once ended, a shift never changes (rounds/migrations' guard)."""

    table = models.ForeignKey("rounds.Table", on_delete=models.PROTECT,
                              related_name="dealer_shifts")
    dealer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                               related_name="dealer_shifts")
    gaming_day = models.DateField(help_text="The gaming day the shift started in.")
    started_at = models.DateTimeField()
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                   related_name="+", help_text="The dealer, or a pit boss "
                                                               "who named them.")
    ended_at = models.DateTimeField(null=True, blank=True)
    ended_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                 on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["id"]
        constraints = [
            # A table has one dealer at a time, and a dealer deals at one table at a time.
            models.UniqueConstraint(fields=["table"], condition=Q(ended_at__isnull=True),
                                    name="dealer_shift_one_open_per_table"),
            models.UniqueConstraint(fields=["dealer"], condition=Q(ended_at__isnull=True),
                                    name="dealer_shift_one_open_per_dealer"),
            models.CheckConstraint(
                condition=(Q(ended_at__isnull=True) & Q(ended_by__isnull=True))
                | (Q(ended_at__gte=models.F("started_at")) & Q(ended_by__isnull=False)),
                name="dealer_shift_ends_after_it_starts"),
        ]
        indexes = [models.Index(fields=["gaming_day", "table"],
                                name="rounds_dealershift_day_table")]

    def __str__(self) -> str:
        return f"{self.dealer} at {self.table} from {localtime(self.started_at):%Y-%m-%d %H:%M}"


class Wager(models.Model):
    class State(models.TextChoices):
        ACTIVE = "active", "Active"
        CLEARED = "cleared", "Cleared before the deal"

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="wagers")
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey("casino.Player", on_delete=models.PROTECT,
                               related_name="wagers")
    amount = models.BigIntegerField()
    state = models.CharField(max_length=10, choices=State.choices, default=State.ACTIVE)
    hold_id = models.BigIntegerField(unique=True)
    placed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                  related_name="+")
    placed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["round_id", "seat", "id"]
        constraints = [
            models.UniqueConstraint(fields=["round", "seat"], condition=Q(state="active"),
                                    name="wager_one_active_per_seat"),
            models.CheckConstraint(condition=Q(amount__gt=0), name="wager_amount_positive"),
            models.CheckConstraint(condition=Q(seat__gte=1, seat__lte=6),
                                   name="wager_seat_1_to_6"),
        ]
        indexes = [models.Index(fields=["player", "-id"])]

    def __str__(self) -> str:
        return (f"seat {self.seat}: {format_minor(self.amount, self.round.currency)} "
                f"{self.round.currency} ({self.state})")


class Hand(models.Model):
    class SetBy(models.TextChoices):
        PLAYER = "player", "Set by the player"
        HOUSE_WAY = "house_way", "Set by the house way"
        FOUL_HOUSE_WAY = "foul_house_way", "Fouled, re-set by the house way"
        FOUL_FORFEIT = "foul_forfeit", "Fouled and forfeited"

    class Outcome(models.TextChoices):
        # The values of the one outcome type (rounds.paigow.showdown.Result), with labels.
        WIN = Result.WIN.value, "Win"
        PUSH = Result.PUSH.value, "Push"
        LOSS = Result.LOSS.value, "Loss"

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="hands")
    position = models.CharField(max_length=10)
    cards = models.CharField(max_length=30, blank=True, help_text="The seven cards dealt.")
    high = models.CharField(max_length=20, blank=True)
    low = models.CharField(max_length=10, blank=True)
    set_by = models.CharField(max_length=20, choices=SetBy.choices, blank=True)
    # Filled at settlement, from the position's point of view; empty for the banker. The
    # money is the parties' (RoundParty).
    high_result = models.CharField(max_length=10, blank=True)
    low_result = models.CharField(max_length=10, blank=True)
    outcome = models.CharField(max_length=10, choices=Outcome.choices, blank=True)

    class Meta:
        ordering = ["round_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["round", "position"], name="hand_unique_position"),
            models.CheckConstraint(condition=Q(position__in=POSITIONS),
                                   name="hand_position_known"),
        ]

    def __str__(self) -> str:
        return f"{self.position}: {self.cards}"


class RoundParty(models.Model):
    """One party's side of a settled round: the record every report, rating and screen reads.

    Written once, with the settlement's ledger entry (rounds.services.settling), from the
    settlement plan's figures (rounds.settlement.PartyFigures): each seat that played, the
    player-banker or player-dealer, the proposition player, and the house when it banked,
    staked or co-banked. ``wager`` it staked against a bank; ``covered`` the action its
    money met (a bank: the wagers it covered; a staker: the part of its wager a bank
    covered); ``won`` and ``paid`` on that action; the ``commission`` and collection ``fee``
    it paid; ``net`` = won - paid and ``result`` = net - commission - fee, computed by
    PostgreSQL. ``result`` is what the settlement moved on ``account``. The house's
    commission and collection income are the others' commission and fees. Append-only: a
    reversal moves the money back with a new entry and leaves these as they were played.
    """

    class Role(models.TextChoices):
        # The values of the one role type (rounds.settlement.Role), with labels.
        SEAT = PartyRole.SEAT.value, "Seat"
        PLAYER_BANKER = PartyRole.PLAYER_BANKER.value, "Player-banker"
        PLAYER_DEALER = PartyRole.PLAYER_DEALER.value, "Player-dealer"
        PROPOSITION = PartyRole.PROPOSITION.value, "Proposition player"
        HOUSE = PartyRole.HOUSE.value, "The house"

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="parties")
    role = models.CharField(max_length=20, choices=Role.choices)
    # The hand that decided its money: a seat's own; a bank's ("dealer" when the house or a
    # proposition player banks alone); the house stake's "dealer".
    position = models.CharField(max_length=10)
    player = models.ForeignKey("casino.Player", null=True, blank=True, on_delete=models.PROTECT,
                               related_name="round_parties")
    account = models.ForeignKey("ledger.Account", null=True, blank=True,
                                on_delete=models.PROTECT, related_name="+")
    wager = models.BigIntegerField(default=0)
    covered = models.BigIntegerField(default=0)
    # A card-room seat: the part of its covered action the player-dealer covered (the
    # proposition player covered the rest of it).
    covered_by_player_dealer = models.BigIntegerField(default=0)
    won = models.BigIntegerField(default=0)
    paid = models.BigIntegerField(default=0)
    commission = models.BigIntegerField(default=0)
    fee = models.BigIntegerField(default=0)
    net = models.GeneratedField(expression=models.F("won") - models.F("paid"),
                                output_field=models.BigIntegerField(), db_persist=True)
    result = models.GeneratedField(
        expression=models.F("won") - models.F("paid") - models.F("commission")
        - models.F("fee"), output_field=models.BigIntegerField(), db_persist=True)

    class Meta:
        ordering = ["round_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["round", "role", "position"],
                                    name="round_party_unique_role_position"),
            models.UniqueConstraint(fields=["round", "player"], condition=Q(player__isnull=False),
                                    name="round_party_one_per_player"),
            models.CheckConstraint(condition=Q(role__in=[r.value for r in PartyRole]),
                                   name="round_party_role_known"),
            models.CheckConstraint(
                condition=Q(wager__gte=0, covered__gte=0, won__gte=0, paid__gte=0,
                            commission__gte=0, fee__gte=0),
                name="round_party_figures_not_negative"),
            # The house is the table's; every other party is a player.
            models.CheckConstraint(condition=Q(role="house", player__isnull=True)
                                   | (~Q(role="house") & Q(player__isnull=False)),
                                   name="round_party_player_unless_house"),
            models.CheckConstraint(condition=~Q(role="seat") | Q(covered__lte=models.F("wager")),
                                   name="round_party_seat_action_within_wager"),
            models.CheckConstraint(
                condition=Q(covered_by_player_dealer__gte=0)
                & Q(covered_by_player_dealer__lte=models.F("covered")),
                name="round_party_player_dealers_part_within_covered"),
        ]
        indexes = [models.Index(fields=["player", "round"], name="rounds_party_player_round")]

    def __str__(self) -> str:
        return f"{self.get_role_display()} {self.position} of round #{self.round_id}"


class RoundEvent(models.Model):
    """One step of a round's story: append-only (PostgreSQL refuses UPDATE and DELETE)."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="events")
    kind = models.CharField(max_length=40)
    at = models.DateTimeField(auto_now_add=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                           related_name="+")
    data = models.JSONField(default=dict)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["round", "id"])]

    def __str__(self) -> str:
        return f"{self.kind} at {localtime(self.at):%H:%M:%S}"


# The player's seat at a self-service table: one position against the dealer.
GAME_SEAT = 1


class GameSeed(models.Model):
    """The seeds of a self-service game's deal (docs/fairness.md, algorithm ``v1``).

    The server seed is drawn when the game opens and is secret until the game is over: the
    only reader that shows it (rounds.games.game_for) shows it once the round is settled,
    voided or reversed; no admin page, event or report carries it. The commitment, its
    sha256, is what the player sees before betting; the client seed is the player's, given
    with the wager."""

    round = models.OneToOneField(Round, on_delete=models.PROTECT, primary_key=True,
                                 related_name="seed")
    algorithm = models.CharField(max_length=10, default="v1")
    server_seed = models.BinaryField()
    commitment = models.CharField(max_length=64)
    client_seed = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(commitment__regex=r"^[0-9a-f]{64}$"),
                                   name="game_seed_commitment_hex"),
            models.CheckConstraint(condition=Q(algorithm="v1"), name="game_seed_algorithm"),
        ]

    def __str__(self) -> str:
        return f"seed of round #{self.round_id} ({self.commitment[:12]}…)"


class DealDraft(models.Model):
    """A physical deal being recorded: the cards picked so far, in the order picked.

    The dealer's working state, not the round's story: it lives on the server so a reload or
    a second screen sees the same picks, and it is deleted in the transaction that posts the
    deal (the "dealt" event keeps the hands as posted). rounds.services.deal_draft writes it
    under the round's lock; each card once and at most seven a position are its rules."""

    round = models.OneToOneField(Round, on_delete=models.CASCADE, primary_key=True,
                                 related_name="deal_draft")
    # [[position, card code], ...] in the order picked: the last one is what undo takes back.
    picks = models.JSONField(default=list)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                   related_name="+")

    def __str__(self) -> str:
        return f"draft of round #{self.round_id}: {len(self.picks)} cards"


class EdgeFigures(models.Model):
    """The house edge of one set of money rules (rounds.edges), worked out once and kept.

    ``key`` is a hash of exactly the settings that change the money of a hand (house way,
    wheel rule, commission rate and rounding, and the reference wager the rounding is taken
    on); a table's other settings share the row. Figures are per unit wagered, to five
    places, as the API shows them and as ratings and bands multiply them.
    """

    class How(models.TextChoices):
        EXACT = "exact", "Worked out exactly"
        SIMULATED = "simulated", "Estimated by simulation"

    key = models.CharField(max_length=64, unique=True)
    rules = models.JSONField(help_text="The money rules hashed into the key.")
    how = models.CharField(max_length=10, choices=How.choices)
    hands = models.BigIntegerField(help_text="Hands played to estimate the figures.")
    wins = models.BigIntegerField()
    pushes = models.BigIntegerField()
    losses = models.BigIntegerField()
    player = models.DecimalField(max_digits=8, decimal_places=5)
    banker = models.DecimalField(max_digits=8, decimal_places=5)
    confidence = models.DecimalField(max_digits=8, decimal_places=5,
                                     help_text="95 % half-width of the estimates.")
    player_variance = models.DecimalField(max_digits=8, decimal_places=5)
    banker_variance = models.DecimalField(max_digits=8, decimal_places=5)
    computed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=Q(how__in=["exact", "simulated"]),
                                   name="edge_figures_how_known"),
            models.CheckConstraint(
                condition=Q(hands__gt=0, wins__gte=0, pushes__gte=0, losses__gte=0)
                & Q(hands=models.F("wins") + models.F("pushes") + models.F("losses")),
                name="edge_figures_counts_add_up"),
            models.CheckConstraint(
                condition=Q(confidence__gte=0, player_variance__gte=0, banker_variance__gte=0),
                name="edge_figures_spreads_not_negative"),
        ]

    def __str__(self) -> str:
        return f"edge {self.player} / {self.banker} ({self.how}, {self.hands:,} hands)"
class DropCount(models.Model):
    """The count of one table's drop box for one gaming day (docs/rules.md, "Drop and win").

    Two people count: the counter (``counted_by``) records what was found and names a
    witness, who confirms it with their own credentials (``witnessed_at``); until then the
    count is ``awaiting_witness`` and has moved nothing. At the confirmation ``recorded`` is
    read (what the day's buy-ins at the table put in the box, by the ledger, under the
    table's lock), ``variance`` is ``counted - recorded``, and the counted cash moves from
    the drop box to the cage (``entry``, none when nothing was counted) and the variance to
    the table's variance account (``variance_entry``, none when there is none). A witness
    who refuses leaves it ``refused`` (nothing posted, the box countable again).

    A variance is an exception that someone other than the counter explains (``reason``,
    ``explained_by``): what the counter says of it at the count is their ``note``. One
    posted count per table and gaming day; a corrected count stays, marked ``corrected``,
    beside the count that replaces it.
    """

    class Status(models.TextChoices):
        # Recorded by the counter; nothing posted until the named witness confirms it.
        AWAITING_WITNESS = "awaiting_witness", "Awaiting its witness"
        # The witness did not confirm it (``reason`` says why): nothing was posted.
        REFUSED = "refused", "Refused by its witness"
        BALANCED = "balanced", "Counted as recorded"
        # A variance is an exception someone other than its counter must explain
        # (rounds.services.drop.drop_count_explain); until then it is listed.
        UNEXPLAINED = "unexplained", "Variance to explain"
        EXPLAINED = "explained", "Variance explained"
        CORRECTED = "corrected", "Corrected by a later count"

    # What is not posted (yet, or ever): no figures from the ledger, no entries.
    UNPOSTED: ClassVar[tuple[str, ...]] = (Status.AWAITING_WITNESS, Status.REFUSED)

    table = models.ForeignKey("rounds.Table", on_delete=models.PROTECT,
                              related_name="drop_counts")
    gaming_day = models.DateField()
    currency = models.CharField(max_length=3)
    # Minor units. ``recorded`` and ``variance`` are read when the witness confirms.
    recorded = models.BigIntegerField(null=True, blank=True)
    counted = models.BigIntegerField()
    variance = models.BigIntegerField(null=True, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices)
    # The second person's words: the explanation of a variance, or why the witness refused.
    reason = models.TextField(blank=True, default="")
    # What the counter said of the count (a variance's likely cause, a correction's why):
    # their note, which closes nothing.
    note = models.TextField(blank=True, default="")
    # Who explained the variance and when (never the counter, since the witness signs).
    explained_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                     on_delete=models.PROTECT, related_name="+")
    explained_at = models.DateTimeField(null=True, blank=True)
    counted_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                   related_name="+")
    witness = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                related_name="+")
    counted_at = models.DateTimeField()
    # When the witness confirmed (or refused) the count, signed in as themselves.
    witnessed_at = models.DateTimeField(null=True, blank=True)
    entry = models.ForeignKey("ledger.Entry", null=True, blank=True, on_delete=models.PROTECT,
                              related_name="+")
    variance_entry = models.ForeignKey("ledger.Entry", null=True, blank=True,
                                       on_delete=models.PROTECT, related_name="+")
    # A correction: the count it replaces, and why.
    corrects = models.OneToOneField("self", null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="corrected_by")

    class Meta:
        ordering = ["id"]
        permissions = [("count_drop", "Can count a table's drop box"),
                       ("witness_drop", "Can witness a drop count"),
                       ("correct_drop_count", "Can correct a drop count")]
        constraints = [
            # One posted count per table and day, and one awaiting its witness: a
            # correction's recount waits beside the count it replaces.
            models.UniqueConstraint(
                fields=["table", "gaming_day"],
                condition=~Q(status__in=["corrected", "refused", "awaiting_witness"]),
                name="drop_count_one_per_table_and_day"),
            models.UniqueConstraint(fields=["table", "gaming_day"],
                                    condition=Q(status="awaiting_witness"),
                                    name="drop_count_one_awaiting_witness_per_table_and_day"),
            # Only the cash counted: a day's recorded figure can fall below zero when a
            # buy-in of an earlier day is reversed on it (rounds.drop).
            models.CheckConstraint(condition=Q(counted__gte=0),
                                   name="drop_count_counted_not_negative"),
            models.CheckConstraint(condition=Q(variance=models.F("counted")
                                               - models.F("recorded")),
                                   name="drop_count_variance_is_counted_minus_recorded"),
            models.CheckConstraint(condition=~Q(counted_by=models.F("witness")),
                                   name="drop_count_witness_is_another_person"),
            # Posted only once witnessed: a count awaiting its witness (or refused by them)
            # has no figures from the ledger and no entries; a posted one has its figures
            # and the time its witness confirmed it.
            models.CheckConstraint(
                condition=(Q(status="awaiting_witness", witnessed_at__isnull=True,
                             recorded__isnull=True, variance__isnull=True,
                             entry__isnull=True, variance_entry__isnull=True)
                           | Q(status="refused", witnessed_at__isnull=False,
                               recorded__isnull=True, variance__isnull=True,
                               entry__isnull=True, variance_entry__isnull=True)
                           | (~Q(status__in=["awaiting_witness", "refused"])
                              & Q(witnessed_at__isnull=False, recorded__isnull=False,
                                  variance__isnull=False))),
                name="drop_count_posted_when_witnessed"),
            # A variance is explained in words; a balanced count has none to explain; a
            # refusal says why.
            models.CheckConstraint(
                condition=Q(status="corrected")
                | Q(status="awaiting_witness", reason="")
                | (Q(status="refused") & ~Q(reason=""))
                | (Q(status="balanced") & Q(variance=0))
                | (Q(status="unexplained") & ~Q(variance=0) & Q(reason=""))
                | (Q(status="explained") & ~Q(variance=0) & ~Q(reason="")
                   & Q(explained_at__isnull=False)),
                name="drop_count_status_follows_variance"),
        ]

    def __str__(self) -> str:
        return f"drop count of {self.table} on {self.gaming_day}"


class VarianceExplanation(models.Model):
    """A pit boss's explanation of a table's day whose house-banked result lies outside
    its expected band (rounds.variance, docs/rules.md §12.3): what they found, who they
    are (their own login) and when. Append-only: an explanation is the record of what was
    said about the figures of that moment (``rounds`` and ``result``, the house's
    house-banked result then), never edited; one per table and gaming day."""

    table = models.ForeignKey("rounds.Table", on_delete=models.PROTECT,
                              related_name="variance_explanations")
    gaming_day = models.DateField()
    reason = models.TextField()
    # The day as it stood when explained: settled house-banked rounds, and the house's
    # result from them (minor units of the table's currency).
    rounds = models.PositiveIntegerField()
    result = models.BigIntegerField()
    explained_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                     related_name="+")
    explained_at = models.DateTimeField()

    class Meta:
        ordering = ["id"]
        permissions = [("explain_variance",
                        "Can explain a table's day outside its expected band")]
        constraints = [
            models.UniqueConstraint(fields=["table", "gaming_day"],
                                    name="variance_explanation_one_per_table_and_day"),
            models.CheckConstraint(condition=~Q(reason__regex=r"^\s*$"),
                                   name="variance_explanation_reason_in_words"),
            models.CheckConstraint(condition=Q(rounds__gte=1),
                                   name="variance_explanation_of_rounds_played"),
        ]

    def __str__(self) -> str:
        return f"variance of {self.table} on {self.gaming_day} explained"
