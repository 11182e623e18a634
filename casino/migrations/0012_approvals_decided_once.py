"""A request for a second person is decided once, and what was asked never changes.

Dual control (casino/shared/approvals.py) carries out a request as it was asked, for the
person who asked: were its action, parameters, what it concerns or its asker changed while
it waits, a second person would approve one thing and another would run. PostgreSQL now
holds it for every role, whatever path a change takes (``sql/0012_approvals_decided_once.pg.sql``,
a BEFORE INSERT OR UPDATE OR DELETE trigger, with its way back): a request is filed
pending; it moves once, to approved or rejected, with its decision (who, when, the note,
what approving made) and nothing else; a decided request never changes; none is deleted.
"""

from pathlib import Path

from django.db import migrations

from ledger.sqlfiles import migration_operations


class Migration(migrations.Migration):
    dependencies = [("casino", "0011_player_kind_licence")]

    operations = migration_operations("0012_approvals_decided_once",
                                      Path(__file__).resolve().parent / "sql")
