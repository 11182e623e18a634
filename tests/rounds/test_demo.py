import pytest
from django.core.management import call_command

from casino.models import Player
from casino.selectors import player_balance
from ledger.models import Entry
from rounds.models import Seat, Table

pytestmark = pytest.mark.django_db


def test_the_demo_floor_seats_three_funded_players_and_loads_only_once(settings, capsys):
    settings.DEBUG = True

    call_command("seed_demo")
    first = capsys.readouterr().out
    call_command("seed_demo")

    seated = Seat.objects.filter(table__name="Demo table 1", player__isnull=False)
    assert list(seated.order_by("number").values_list("number", "player__name")) == [
        (1, "Anna"), (2, "Bram"), (3, "Chris")]
    card_room = Seat.objects.filter(table__name="Card room 1", player__isnull=False)
    assert list(card_room.order_by("number").values_list("number", "player__name")) == [
        (1, "Dora"), (2, "Eli"), (3, "Femke")]
    assert Table.objects.get(name="Card room 1").bank_mode == "card_room"
    assert Table.objects.get(name="Online 1").self_service
    assert {p.name: player_balance(p).available for p in Player.objects.all()} == {
        "Anna": 50_000, "Bram": 30_000, "Chris": 20_000, "Dora": 60_000, "Eli": 40_000,
        "Femke": 30_000, "Golden Prop LLC": 500_000, "Lena": 20_000}
    prop = Player.objects.get(name="Golden Prop LLC")
    assert (prop.kind, prop.licence) == ("proposition", "GEGP-001234")
    assert Entry.objects.filter(kind="deposit").count() == 8
    lena = Player.objects.get(name="Lena")
    assert lena.user is not None and lena.user.check_password("lena-demo-2026")
    assert "dealer-demo-2026" in first
    assert "Card room 1" in first and "licence GEGP-001234" in first
    assert "Online 1" in first and "/play/" in first


def test_the_demo_refuses_to_run_without_debug(settings):
    from django.core.management.base import CommandError

    settings.DEBUG = False
    with pytest.raises(CommandError, match="public passwords"):
        call_command("seed_demo")
