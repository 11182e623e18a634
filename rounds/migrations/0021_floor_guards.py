"""The database defends the floor's records, for every role, whatever path a change takes.

- A player sits at one table at a time: ``seat_one_per_player`` (one seat per player across
  all tables) replaces ``seat_one_per_player_per_table``. Seating anyone twice is a fault
  the floor must look at, not one a migration settles: when existing seats break the rule,
  the migration stops and names who sits where, and unseats nobody.
- Finished records do not change (BEFORE UPDATE OR DELETE triggers, owned by the owner, in
  ``sql/0021_floor_guards.pg.sql`` with their way back): a finished round (settled,
  reversed, voided) but for a settled round's reversal; the hands of a finished round (none
  changed, none added); a drop count but
  for the two changes the service makes, explaining its variance and marking it corrected
  (with the count that corrects it, checked at COMMIT).
"""

from pathlib import Path
from typing import Any

from django.db import migrations, models

from ledger.sqlfiles import migration_operations


class PlayersSeatedTwice(Exception):
    """Existing seats break the one-seat rule; the message lists them."""


def seats_one_per_player_check(apps: Any, schema_editor: Any) -> None:
    Seat = apps.get_model("rounds", "Seat")
    twice = (Seat.objects.using(schema_editor.connection.alias)
             .filter(player__isnull=False)
             .values("player").annotate(seats=models.Count("id")).filter(seats__gt=1)
             .values_list("player", flat=True))
    seats = (Seat.objects.using(schema_editor.connection.alias)
             .filter(player__in=list(twice)).select_related("player", "table")
             .order_by("player_id", "table__name", "number"))
    where: dict[int, list[str]] = {}
    names: dict[int, str] = {}
    for seat in seats:
        names[seat.player_id] = f"{seat.player.name} #{seat.player_id}"
        where.setdefault(seat.player_id, []).append(f"{seat.table.name}, seat {seat.number}")
    if where:
        listed = "; ".join(f"{names[pk]} sits at {' and at '.join(at)}"
                           for pk, at in where.items())
        raise PlayersSeatedTwice(
            "A player now sits at one table at a time, and these players sit at more than "
            f"one: {listed}. Nobody was unseated: a pit boss frees the seats they are not "
            "playing at (seat_leave, the table screen or the API), then migrate again.")


class Migration(migrations.Migration):

    dependencies = [
        ("casino", "0011_player_kind_licence"),
        ("ledger", "0017_collection_account_kind"),
        ("rounds", "0020_reports_move_out"),
    ]

    operations = [
        migrations.RunPython(seats_one_per_player_check, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="seat",
            constraint=models.UniqueConstraint(condition=models.Q(("player__isnull", False)),
                                               fields=("player",), name="seat_one_per_player"),
        ),
        # Implied by the new one.
        migrations.RemoveConstraint(
            model_name="seat",
            name="seat_one_per_player_per_table",
        ),
        *migration_operations("0021_floor_guards", Path(__file__).resolve().parent / "sql"),
    ]
