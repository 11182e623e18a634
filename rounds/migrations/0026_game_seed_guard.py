"""A game's seeds are part of its record (``sql/0026_game_seed_guard.pg.sql``, with its way
back): the server seed and commitment never change, the client seed only while the game
takes the bet, and no seed is deleted, for every role."""

from pathlib import Path

from django.db import migrations

from ledger.sqlfiles import migration_operations


class Migration(migrations.Migration):

    dependencies = [
        ('rounds', '0025_self_service'),
    ]

    operations = [
        *migration_operations("0026_game_seed_guard", Path(__file__).resolve().parent / "sql"),
    ]
