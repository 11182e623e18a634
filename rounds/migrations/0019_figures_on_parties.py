"""A settled round's figures live in its parties (RoundParty, migration 0018): the hands'
money columns and the round's figure columns go. Migrating back puts them back from the
parties."""

from django.db import migrations


def fill_columns(apps, schema_editor):
    """Back to the columns, as the settlement wrote them before: each seat's and the house
    stake's hand (before commission), the bank's hand (its net less its commission), the
    round's figures."""
    Round = apps.get_model("rounds", "Round")
    Hand = apps.get_model("rounds", "Hand")
    RoundParty = apps.get_model("rounds", "RoundParty")
    for round_ in Round.objects.filter(state__in=("settled", "reversed")).iterator():
        parties = list(RoundParty.objects.filter(round_id=round_.pk))
        rules = round_.rules or {}
        card_room = rules.get("bank_mode") == "card_room"
        co_banking = bool(rules.get("co_banking")) and round_.banker_is_house is False
        hands = {h.position: h for h in Hand.objects.filter(round_id=round_.pk)}
        seats = [p for p in parties if p.role == "seat"]
        for party in parties:
            if party.role == "seat" or (party.role == "house" and party.wager):
                hand = hands[party.position]
                hand.wager = party.wager
                hand.amount = party.won - party.paid
                hand.commission, hand.fee = party.commission, party.fee
                if party.role == "seat" and card_room:
                    hand.cover_banker = party.covered_by_player_dealer
                    hand.cover_third_party = party.covered - party.covered_by_player_dealer
                hand.save()
        if round_.banker_is_house:
            bank = next((p for p in parties if p.role == "house"), None)
        else:
            bank = next((p for p in parties if p.role in ("player_banker", "player_dealer")),
                        None)
        third = next((p for p in parties if p.role == "proposition"), None)
        house = next((p for p in parties if p.role == "house"
                      and not round_.banker_is_house), None)
        bank_position = ("dealer" if round_.banker_is_house or round_.banker_seat is None
                         else str(round_.banker_seat))
        if bank_position in hands:
            # The bank's own hand carried the bank's result after its commission (none when
            # a proposition player banked alone: the player-dealer's figures were the bank's).
            hand = hands[bank_position]
            hand.amount = bank.won - bank.paid - bank.commission if bank else 0
            hand.commission = bank.commission if bank else 0
            hand.save()
        round_.banker_net = bank.won - bank.paid if bank else 0
        round_.banker_commission = bank.commission if bank else 0
        round_.player_commission = sum(p.commission for p in seats)
        round_.house_stake_result = (house.won - house.paid) if house and house.wager else 0
        round_.house_bank_share = (house.won - house.paid) if house and co_banking else 0
        if card_room:
            round_.third_party_net = third.won - third.paid if third else 0
            round_.third_party_commission = third.commission if third else 0
            round_.collection_banker = sum(p.fee for p in parties if p.role != "seat")
            round_.collection_players = sum(p.fee for p in seats)
        round_.save()


class Migration(migrations.Migration):

    dependencies = [
        ('rounds', '0018_round_parties'),
    ]

    operations = [
        migrations.RunPython(migrations.RunPython.noop, fill_columns),
        migrations.RemoveConstraint(
            model_name='hand',
            name='hand_commission_not_negative',
        ),
        migrations.RemoveConstraint(
            model_name='hand',
            name='hand_cover_within_wager',
        ),
        migrations.RemoveField(
            model_name='hand',
            name='amount',
        ),
        migrations.RemoveField(
            model_name='hand',
            name='commission',
        ),
        migrations.RemoveField(
            model_name='hand',
            name='cover_banker',
        ),
        migrations.RemoveField(
            model_name='hand',
            name='cover_third_party',
        ),
        migrations.RemoveField(
            model_name='hand',
            name='fee',
        ),
        migrations.RemoveField(
            model_name='hand',
            name='wager',
        ),
        migrations.RemoveField(
            model_name='round',
            name='banker_commission',
        ),
        migrations.RemoveField(
            model_name='round',
            name='banker_net',
        ),
        migrations.RemoveField(
            model_name='round',
            name='collection_banker',
        ),
        migrations.RemoveField(
            model_name='round',
            name='collection_players',
        ),
        migrations.RemoveField(
            model_name='round',
            name='house_bank_share',
        ),
        migrations.RemoveField(
            model_name='round',
            name='house_stake_result',
        ),
        migrations.RemoveField(
            model_name='round',
            name='player_commission',
        ),
        migrations.RemoveField(
            model_name='round',
            name='third_party_commission',
        ),
        migrations.RemoveField(
            model_name='round',
            name='third_party_net',
        ),
    ]
