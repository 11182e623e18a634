"""Each party's figures of a settled round, stored once (RoundParty): the record every
report reads. The rounds settled before are filled in from what they stored (the hands' and
the round's figures), checked against the round's ledger entry, every line of it;
migration 0019 then drops those columns. PostgreSQL refuses UPDATE and DELETE of a party's
figures, as of a round's events, and a party added to a round already finished (the
settlement writes its parties before the round's state, in one transaction)."""

import django.db.models.deletion
import django.db.models.expressions
from django.db import migrations, models

FORWARD = """
CREATE FUNCTION rounds_refuse_party_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF EXISTS (SELECT 1 FROM rounds_round r WHERE r.id = NEW.round_id
                   AND r.state IN ('settled', 'reversed', 'voided')) THEN
            RAISE EXCEPTION 'a settled round''s figures never change: a party added to '
                'finished round % refused', NEW.round_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'a settled round''s figures never change: % refused on party %',
        TG_OP, OLD.id USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
CREATE TRIGGER rounds_roundparty_append_only
    BEFORE INSERT OR UPDATE OR DELETE ON rounds_roundparty
    FOR EACH ROW EXECUTE FUNCTION rounds_refuse_party_change();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS rounds_roundparty_append_only ON rounds_roundparty;
DROP FUNCTION IF EXISTS rounds_refuse_party_change();
"""

PLAYED = ("settled", "reversed")


def _share(amount, co_banking):
    """The player-banker's half under co-banking, rounded down (rules §7.8)."""
    return amount // 2 if co_banking else amount


def parties_of(round_, hands, wagers):
    """The parties of one settled round, from its stored figures: a list of dicts of
    RoundParty's fields (without the round and the account)."""
    rules = round_.rules or {}
    card_room = rules.get("bank_mode") == "card_room"
    co_banking = bool(rules.get("co_banking")) and round_.banker_is_house is False
    bank_position = ("dealer" if round_.banker_is_house or round_.banker_seat is None
                     else str(round_.banker_seat))
    zero = {"wager": 0, "covered": 0, "covered_by_player_dealer": 0, "won": 0, "paid": 0,
            "commission": 0, "fee": 0}
    bank, house, third = dict(zero), dict(zero), dict(zero)
    rows = []
    for hand in hands:
        if not hand.outcome or hand.position == bank_position:
            continue
        amount = hand.amount or 0
        won, paid = max(amount, 0), max(-amount, 0)
        if hand.position == "dealer":  # the house's stake against a player-bank
            rows.append({**zero, "role": "house", "position": "dealer", "player_id": None,
                         "wager": hand.wager, "covered": hand.wager, "won": won,
                         "paid": paid})
            bank["covered"] += hand.wager
            bank["won"] += paid
            bank["paid"] += won
            continue
        if card_room:
            action = hand.cover_banker + hand.cover_third_party
            for book, part in ((bank, hand.cover_banker), (third, hand.cover_third_party)):
                book["covered"] += part
                book["won"] += part if amount < 0 else 0
                book["paid"] += part if amount > 0 else 0
        else:
            action = hand.wager
            share = _share(hand.wager, co_banking)
            bank["covered"] += share
            bank["won"] += share if amount < 0 else 0
            bank["paid"] += share if amount > 0 else 0
            if co_banking:
                house["covered"] += hand.wager - share
                house["won"] += hand.wager - share if amount < 0 else 0
                house["paid"] += hand.wager - share if amount > 0 else 0
        rows.append({**zero, "role": "seat", "position": hand.position,
                     "player_id": wagers[hand.position], "wager": hand.wager,
                     "covered": action, "won": won, "paid": paid,
                     "covered_by_player_dealer": hand.cover_banker if card_room else 0,
                     "commission": hand.commission, "fee": hand.fee})
    bank_fee = round_.collection_banker or 0
    if round_.banker_is_house:
        rows.append({**bank, "role": "house", "position": "dealer", "player_id": None})
    elif round_.banker_player_id is not None:
        rows.append({**bank, "role": "player_dealer" if card_room else "player_banker",
                     "position": bank_position, "player_id": round_.banker_player_id,
                     "commission": round_.banker_commission or 0,
                     "fee": bank_fee if card_room else 0})
    if co_banking:
        rows.append({**house, "role": "house", "position": bank_position, "player_id": None})
    if card_room and round_.third_party_id is not None:
        alone = round_.banker_player_id is None
        rows.append({**third, "role": "proposition", "position": bank_position,
                     "player_id": round_.third_party_id,
                     "commission": round_.third_party_commission or 0,
                     "fee": bank_fee if alone else 0})
    return rows


def fill_parties(apps, schema_editor):
    Round = apps.get_model("rounds", "Round")
    Hand = apps.get_model("rounds", "Hand")
    Wager = apps.get_model("rounds", "Wager")
    RoundParty = apps.get_model("rounds", "RoundParty")
    Account = apps.get_model("ledger", "Account")
    Line = apps.get_model("ledger", "Line")
    for round_ in Round.objects.filter(state__in=PLAYED).order_by("id").iterator():
        hands = list(Hand.objects.filter(round_id=round_.pk).order_by("id"))
        wagers = {str(seat): player for seat, player in Wager.objects.filter(
            round_id=round_.pk, state="active").values_list("seat", "player_id")}
        accounts = {}
        for kind, ref, pk in Account.objects.filter(currency=round_.currency).filter(
                models.Q(kind="table_bankroll", ref=f"table:{round_.table_id}")
                | models.Q(kind="player", ref__in=[f"player:{p}" for p in {
                    *wagers.values(), round_.banker_player_id, round_.third_party_id}
                    if p is not None])).values_list("kind", "ref", "pk"):
            accounts[(kind, ref)] = pk
        lines = dict(Line.objects.filter(entry_id=round_.entry_id)
                     .values_list("account_id", "amount")) if round_.entry_id else {}
        income = dict(Account.objects.filter(
            currency=round_.currency, ref=f"table:{round_.table_id}",
            kind__in=["commission", "collection"]).values_list("kind", "pk"))
        made, told = [], {}
        for row in parties_of(round_, hands, wagers):
            key = (("table_bankroll", f"table:{round_.table_id}") if row["player_id"] is None
                   else ("player", f"player:{row['player_id']}"))
            account = accounts.get(key)
            result = row["won"] - row["paid"] - row["commission"] - row["fee"]
            told[account] = told.get(account, 0) + result
            for kind, name in (("commission", "commission"), ("collection", "fee")):
                if row[name]:
                    told[income.get(kind)] = told.get(income.get(kind), 0) + row[name]
            made.append(RoundParty(round_id=round_.pk, account_id=account, **row))
        # The parties tell the whole entry: each party's result on its account, and their
        # commission and fees on the table's income accounts; no line left over.
        told = {a: v for a, v in told.items() if v}
        if told != lines:
            raise RuntimeError(
                f"round #{round_.pk}: its parties come to {told} by account, but its entry "
                f"#{round_.entry_id} moved {lines}; nothing was migrated")
        RoundParty.objects.bulk_create(made)


class Migration(migrations.Migration):

    dependencies = [
        ('casino', '0011_player_kind_licence'),
        ('ledger', '0017_collection_account_kind'),
        ('rounds', '0017_drop_variance_explained_later'),
    ]

    operations = [
        migrations.CreateModel(
            name='RoundParty',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('role', models.CharField(choices=[('seat', 'Seat'), ('player_banker', 'Player-banker'), ('player_dealer', 'Player-dealer'), ('proposition', 'Proposition player'), ('house', 'The house')], max_length=20)),
                ('position', models.CharField(max_length=10)),
                ('wager', models.BigIntegerField(default=0)),
                ('covered', models.BigIntegerField(default=0)),
                ('covered_by_player_dealer', models.BigIntegerField(default=0)),
                ('won', models.BigIntegerField(default=0)),
                ('paid', models.BigIntegerField(default=0)),
                ('commission', models.BigIntegerField(default=0)),
                ('fee', models.BigIntegerField(default=0)),
                ('net', models.GeneratedField(db_persist=True, expression=django.db.models.expressions.CombinedExpression(models.F('won'), '-', models.F('paid')), output_field=models.BigIntegerField())),
                ('result', models.GeneratedField(db_persist=True, expression=django.db.models.expressions.CombinedExpression(django.db.models.expressions.CombinedExpression(django.db.models.expressions.CombinedExpression(models.F('won'), '-', models.F('paid')), '-', models.F('commission')), '-', models.F('fee')), output_field=models.BigIntegerField())),
            ],
            options={
                'ordering': ['round_id', 'id'],
            },
        ),
        migrations.AddField(
            model_name='roundparty',
            name='account',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='ledger.account'),
        ),
        migrations.AddField(
            model_name='roundparty',
            name='player',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='round_parties', to='casino.player'),
        ),
        migrations.AddField(
            model_name='roundparty',
            name='round',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='parties', to='rounds.round'),
        ),
        migrations.AddIndex(
            model_name='roundparty',
            index=models.Index(fields=['player', 'round'], name='rounds_party_player_round'),
        ),
        migrations.AddConstraint(
            model_name='roundparty',
            constraint=models.UniqueConstraint(fields=('round', 'role', 'position'), name='round_party_unique_role_position'),
        ),
        migrations.AddConstraint(
            model_name='roundparty',
            constraint=models.UniqueConstraint(condition=models.Q(('player__isnull', False)), fields=('round', 'player'), name='round_party_one_per_player'),
        ),
        migrations.AddConstraint(
            model_name='roundparty',
            constraint=models.CheckConstraint(condition=models.Q(('role__in', ['seat', 'player_banker', 'player_dealer', 'proposition', 'house'])), name='round_party_role_known'),
        ),
        migrations.AddConstraint(
            model_name='roundparty',
            constraint=models.CheckConstraint(condition=models.Q(('commission__gte', 0), ('covered__gte', 0), ('fee__gte', 0), ('paid__gte', 0), ('wager__gte', 0), ('won__gte', 0)), name='round_party_figures_not_negative'),
        ),
        migrations.AddConstraint(
            model_name='roundparty',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('player__isnull', True), ('role', 'house')), models.Q(models.Q(('role', 'house'), _negated=True), ('player__isnull', False)), _connector='OR'), name='round_party_player_unless_house'),
        ),
        migrations.AddConstraint(
            model_name='roundparty',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('role', 'seat'), _negated=True), ('covered__lte', models.F('wager')), _connector='OR'), name='round_party_seat_action_within_wager'),
        ),
        migrations.AddConstraint(
            model_name='roundparty',
            constraint=models.CheckConstraint(condition=models.Q(('covered_by_player_dealer__gte', 0), ('covered_by_player_dealer__lte', models.F('covered'))), name='round_party_player_dealers_part_within_covered'),
        ),
        # The rounds finished before are filled in first: the guard refuses a party added
        # to a finished round, so it is made once they have theirs.
        migrations.RunPython(fill_parties, migrations.RunPython.noop),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
