import pytest
from django.core.management import call_command

from casino.models import Player
from casino.selectors import player_balance
from ledger.models import Entry
from rounds.models import Seat

pytestmark = pytest.mark.django_db


def test_the_demo_floor_seats_three_funded_players_and_loads_only_once(settings, capsys):
    settings.DEBUG = True

    call_command("seed_demo")
    first = capsys.readouterr().out
    call_command("seed_demo")

    seated = Seat.objects.filter(table__name="Demo table 1", player__isnull=False)
    assert list(seated.order_by("number").values_list("number", "player__name")) == [
        (1, "Anna"), (2, "Bram"), (3, "Chris")]
    assert [player_balance(p).available for p in Player.objects.order_by("id")] == [
        50_000, 30_000, 20_000]
    assert Entry.objects.filter(kind="deposit").count() == 3
    assert "dealer-demo-2026" in first


def test_the_demo_refuses_to_run_without_debug(settings):
    from django.core.management.base import CommandError

    settings.DEBUG = False
    with pytest.raises(CommandError, match="public passwords"):
        call_command("seed_demo")
