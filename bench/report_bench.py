"""A day's report against the size of the whole ledger: `python bench/report_bench.py`.

Plays one gaming day (the Dutch seed's player-banked round at a table) through the
services, then grows the ledger around it to about 100,000 and then 1,000,000 lines of
other days and other players, and times one ``table_day`` report of the day and one
``player_statement`` of one of its players at each size. The aim: a day's report costs
about the same whatever the size of the ledger (ratio at most 1.5), because the indexes
let it read only the day's rows.

The background ledger is written in bulk, as the tables' owner, in transactions of
BATCH entries that the guards accept as they stand (nothing is disabled): each
transaction COPYs its entries (ids from the entries' sequence, seq and hashes computed
here with ledger.chain exactly as the appending statement computes them) and their lines,
then advances the chain head one entry at a time (its guard allows no bigger step). It
runs in a scratch database this script creates and drops (bench._scratch), and ends
with ``ledger_verify``, which must find nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
os.environ["DATABASE_POOL"] = "false"

import django  # noqa: E402

django.setup()

from django.db import connection, transaction  # noqa: E402

from bench._scratch import scratch_database  # noqa: E402
from casino import roles  # noqa: E402
from casino.models import Player  # noqa: E402
from casino.selectors import player_account_ref, player_statement  # noqa: E402
from casino.services import player_create, player_deposit, staff_create  # noqa: E402
from casino.shared.gaming_day import gaming_day_of  # noqa: E402
from ledger.models import Account  # noqa: E402
from ledger.services import entries_seal_all  # noqa: E402
from ledger.verify import ledger_verify  # noqa: E402
from reports.play import table_day_report  # noqa: E402
from rounds import services as round_services  # noqa: E402

# Entries per transaction (two lines each).
BATCH = 10_000
PLAYERS = 2_000         # background players the bulk deposits go to
DAYS = 720              # background entries spread over the previous days


def played_day() -> tuple[int, int]:
    """The Dutch seed's day at Table 1; returns (table id, a winning player's id)."""
    boss, _ = staff_create(username="bench-pit", role=roles.PIT_BOSS)
    table = round_services.table_create(by=boss, name="Table 1", deal_modes=["results"])
    seated = {}
    for seat, funds in ((1, 100_000), (2, 50_000), (3, 50_000), (4, 50_000), (5, 50_000)):
        p = player_create(name=f"Seat {seat}", currency="EUR", by=boss)
        player_deposit(player_id=p.pk, amount=funds, by=boss)
        round_services.seat_take(table_id=table.pk, number=seat, player_id=p.pk, by=boss)
        seated[seat] = p.pk
    warm = round_services.round_open(table_id=table.pk, by=boss)
    round_services.wager_place(round_id=warm.pk, seat=1, amount=10_000, by=boss)
    round_services.banker_set(round_id=warm.pk, house=True, by=boss)
    round_services.round_settle(round_id=warm.pk, outcomes={"1": "push"}, by=boss)
    banked = round_services.round_open(table_id=table.pk, by=boss)
    for seat, amount in ((2, 10_000), (5, 6_000), (3, 10_000), (4, 4_000)):
        round_services.wager_place(round_id=banked.pk, seat=seat, amount=amount, by=boss)
    round_services.banker_set(round_id=banked.pk, seat=1, house_stake=0, by=boss)
    round_services.round_settle(round_id=banked.pk,
                      outcomes={"2": "loss", "5": "loss", "3": "win", "4": "win"}, by=boss)
    return table.pk, seated[3]


def background_accounts() -> tuple[list[int], int]:
    players = Player.objects.bulk_create(
        [Player(name=f"Background {n}", currency="EUR") for n in range(PLAYERS)])
    Account.objects.bulk_create([
        Account(kind="player", currency="EUR", ref=player_account_ref(p.pk), name=p.name,
                allow_negative=False) for p in players])
    ids = list(Account.objects.filter(ref__in=[player_account_ref(p.pk) for p in players])
               .values_list("pk", flat=True))
    cage = Account.objects.get(kind="cage", currency="EUR").pk
    return ids, cage


def grow(entries: int, players: list[int], cage: int, start: datetime) -> None:
    """Append ``entries`` deposits (two lines each) dated over the DAYS before ``start``."""
    step = timedelta(days=DAYS) / max(entries, 1)
    done = 0
    while done < entries:
        n = min(BATCH, entries - done)
        with transaction.atomic(), connection.cursor() as cursor:
            # History dated over past days, which the service never writes (an entry is
            # dated when it is posted): written as the owner, that guard off, every other
            # guard judging it, then sealed into blocks like any entry.
            cursor.execute("ALTER TABLE ledger_entry DISABLE TRIGGER ledger_entry_stamped")
            cursor.execute("SELECT pg_current_xact_id()::text::bigint, nextval(pg_get_serial_"
                           "sequence('ledger_entry', 'id')) FROM generate_series(1, %s)", [n])
            rows = cursor.fetchall()
            entry_rows: list[tuple] = []
            line_rows: list[tuple[int, int, int]] = []
            for k, (txid, entry_id) in enumerate(rows):
                at = start - timedelta(days=DAYS) + step * (done + k)
                account = players[(done + k) % len(players)]
                amount = 100 + (done + k) % 5_000
                entry_rows.append((entry_id, "deposit", "bench", "", at, "", txid))
                line_rows += [(entry_id, account, amount), (entry_id, cage, -amount)]
            raw = cursor.cursor
            with raw.copy("COPY ledger_entry (id, kind, memo, ref, created_at, reason, txid)"
                          " FROM STDIN") as copy:
                for row in entry_rows:
                    copy.write_row(row)
            with raw.copy("COPY ledger_line (entry_id, account_id, amount) FROM STDIN") as copy:
                for line in line_rows:
                    copy.write_row(line)
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no ALTER with events pending
            cursor.execute("ALTER TABLE ledger_entry ENABLE TRIGGER ledger_entry_stamped")
        done += n
        print(f"  +{done:,} entries", file=sys.stderr, flush=True)
    entries_seal_all()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE ledger_entry; ANALYZE ledger_line; ANALYZE ledger_account")


def timed(fn, repeat: int = 7) -> float:
    fn()  # warm the caches: the same for every size
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000",
                        help="ledger sizes in lines, comma-separated")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with scratch_database(f"report_bench_{os.getpid()}"):
        table_id, player_id = played_day()
        day = gaming_day_of()
        players, cage = background_accounts()
        start = datetime.now(UTC) - timedelta(days=2)
        results = []
        lines_now = 0
        for size in sizes:
            with connection.cursor() as cursor:
                cursor.execute("SELECT count(*) FROM ledger_line")
                lines_now = cursor.fetchone()[0]
            grow(max(size - lines_now, 0) // 2, players, cage, start)
            with connection.cursor() as cursor:
                cursor.execute("SELECT count(*) FROM ledger_line")
                lines_now = cursor.fetchone()[0]
            day_report = table_day_report(table_id=table_id, gaming_day=day)
            assert day_report.commission_bankers == 100 and day_report.house_result == 800
            t_day = timed(lambda: table_day_report(table_id=table_id, gaming_day=day))
            t_statement = timed(lambda: player_statement(player_id=player_id, date_from=day,
                                                         date_to=day))
            results.append((lines_now, t_day, t_statement))
            print(f"{lines_now:>10,} lines: table_day {t_day * 1000:7.2f} ms, "
                  f"player_statement {t_statement * 1000:7.2f} ms", flush=True)
        if len(results) > 1:
            (_, d0, s0), (_, d1, s1) = results[0], results[-1]
            print(f"ratio largest/smallest: table_day {d1 / d0:.2f}, "
                  f"player_statement {s1 / s0:.2f} (aim: at most 1.5)")
        report = ledger_verify()
        print(f"ledger_verify: {'clean' if report.ok else report.problems[:5]} "
              f"({report.entries:,} entries, head {report.head_seq})")


if __name__ == "__main__":
    main()
