"""`manage.py paigow`: the game engine from the command line.

    paigow rank CARDS
    paigow houseway CARDS [--way W] [--wheel W]
    paigow showdown PLAYER_HIGH PLAYER_LOW BANKER_HIGH BANKER_LOW
    paigow simulate --hands N [--way W] [--wheel W] [--workers K] [--seed S] [--celery]
    paigow edges [--hands N] [--default-hands N] [--workers K] [--file PATH]
    paigow edges --verify [--runs WAY/WHEEL ...] [--file PATH]

CARDS may be one quoted string ("AS KD JK ...") or separate words (AS KD JK ...).
"""

from __future__ import annotations

import secrets
import sys
import time
from argparse import ArgumentParser
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from rounds.paigow import (
    HOUSE_WAYS,
    WHEEL_RULES,
    PaiGowError,
    evaluate_high,
    evaluate_low,
    explain_house_way,
    format_cards,
    parse_cards,
    showdown,
    validate_setting,
)
from rounds.paigow.edge import (
    COUNTS_FILE,
    changed_sources,
    long_runs,
    read_counts_file,
    verify_run,
    write_runs,
)
from rounds.paigow.evaluate import DEFAULT_WHEEL
from rounds.paigow.houseway import DEFAULT_WAY
from rounds.paigow.simulate import SimulationResult, simulate, summarize


class Command(BaseCommand):
    help = "Pai Gow Poker: rank a hand, set it the house way, play a showdown, simulate."

    def add_arguments(self, parser: ArgumentParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)

        rank = actions.add_parser("rank", help="rank a five-card or a two-card hand")
        rank.add_argument("cards", nargs="+")
        self._wheel(rank)

        way = actions.add_parser("houseway", help="set seven cards the house way")
        way.add_argument("cards", nargs="+")
        self._way(way)
        self._wheel(way)

        duel = actions.add_parser(
            "showdown", help="player against banker: four hands as quoted strings, "
                             "or fourteen cards in the order player high, low, banker high, low")
        duel.add_argument("hands", nargs="+")
        self._wheel(duel)

        sim = actions.add_parser("simulate", help="player against dealer, both by house way")
        sim.add_argument("--hands", type=int, required=True)
        sim.add_argument("--workers", type=int, default=None, help="default: all cores")
        sim.add_argument("--seed", type=int, default=None)
        sim.add_argument("--celery", action="store_true", help="run the chunks as a chord")
        sim.add_argument("--timeout", type=float, default=600.0,
                         help="with --celery: seconds to wait for the workers (default 600)")
        self._way(sim)
        self._wheel(sim)

        edges = actions.add_parser(
            "edges", help="remake the committed runs the house edges are taken from "
                          "(rounds/paigow/edge_counts.json), every house way and wheel")
        edges.add_argument("--hands", type=int, default=4_000_000,
                           help="hands per way and wheel (default 4,000,000)")
        edges.add_argument("--default-hands", type=int, default=10_000_000,
                           help="hands for the default rules (default 10,000,000)")
        edges.add_argument("--workers", type=int, default=None, help="default: all cores")
        edges.add_argument("--file", "--out", dest="file", default=str(COUNTS_FILE),
                           help="the file to remake or verify (default: the committed one)")
        edges.add_argument("--verify", action="store_true",
                           help="remake nothing: play each run's first chunk again and "
                                "compare its counts, and compare the digest of the game's "
                                "sources with the one the file was made with")
        edges.add_argument("--runs", nargs="+", metavar="WAY/WHEEL",
                           help="with --verify: only these runs (default: every run)")

    @staticmethod
    def _way(parser: ArgumentParser) -> None:
        parser.add_argument("--way", default="foxwoods", choices=sorted(HOUSE_WAYS))

    @staticmethod
    def _wheel(parser: ArgumentParser) -> None:
        parser.add_argument("--wheel", default="second_highest", choices=WHEEL_RULES)

    def handle(self, *args: Any, **options: Any) -> None:
        handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            "rank": self._rank, "houseway": self._houseway, "showdown": self._showdown,
            "simulate": self._simulate, "edges": self._edges,
        }
        try:
            handlers[options["action"]](options)
        except PaiGowError as error:
            raise CommandError(str(error)) from error

    def _rank(self, options: dict[str, Any]) -> None:
        cards = parse_cards(options["cards"])
        if len(cards) == 2:
            rank: Any = evaluate_low(cards)
        elif len(cards) == 5:
            rank = evaluate_high(cards, wheel=options["wheel"])
        else:
            raise CommandError(f"rank takes 5 cards (high hand) or 2 (low hand), "
                               f"got {len(cards)}: {format_cards(cards)}")
        ranks = " ".join(str(r) for r in rank.ranks)
        self.stdout.write(f"{format_cards(cards)}: {rank.category} ({ranks})")

    def _houseway(self, options: dict[str, Any]) -> None:
        setting, row = explain_house_way(options["cards"], way=options["way"],
                                         wheel=options["wheel"])
        self.stdout.write(f"high {format_cards(setting.high)}  low {format_cards(setting.low)}"
                          f"  ({options['way']}: {row})")

    def _showdown(self, options: dict[str, Any]) -> None:
        words = options["hands"]
        if len(words) == 4:
            groups = [parse_cards(w) for w in words]
        else:
            cards = parse_cards(words)
            if len(cards) != 14:
                raise CommandError("showdown takes four hands (PLAYER_HIGH PLAYER_LOW "
                                   "BANKER_HIGH BANKER_LOW) or fourteen cards in that order")
            groups = [cards[:5], cards[5:7], cards[7:12], cards[12:]]
        wheel = options["wheel"]
        player = validate_setting(high=groups[0], low=groups[1], wheel=wheel)
        banker = validate_setting(high=groups[2], low=groups[3], wheel=wheel)
        outcome = showdown(player=player, banker=banker, wheel=wheel)
        self.stdout.write(f"player {player}  banker {banker}")
        self.stdout.write(f"high {outcome.high}, low {outcome.low}: player {outcome.result}")

    def _edges(self, options: dict[str, Any]) -> None:
        if options["verify"]:
            self._verify_edges(Path(options["file"]), options["runs"])
            return
        if options["runs"]:
            raise CommandError("--runs goes with --verify")
        if options["hands"] < 1 or options["default_hands"] < 1:
            raise CommandError("--hands and --default-hands must be positive")
        plan = {(way, wheel): options["hands"] for way in HOUSE_WAYS for wheel in WHEEL_RULES}
        plan[(DEFAULT_WAY, DEFAULT_WHEEL)] = options["default_hands"]
        runs = long_runs(plan, workers=options["workers"])
        write_runs(runs, Path(options["file"]))
        for key, run in runs.items():
            self.stdout.write(f"{key}: {run['hands']:,} hands, {run['win']:,} won, "
                              f"{run['push']:,} pushed, {run['loss']:,} lost")

    def _verify_edges(self, path: Path, only: list[str] | None) -> None:
        """Fails, naming each, on a source changed since the file was made and on a run
        whose first chunk no longer gives its recorded counts."""
        data = read_counts_file(path)
        runs = data.get("runs", {})
        if not runs:
            raise CommandError(f"{path} holds no runs as manage.py paigow edges writes them "
                               "now: remake it with that command")
        unknown = sorted(set(only or ()) - set(runs))
        if unknown:
            raise CommandError(f"no run {', '.join(unknown)} in {path}: it has "
                               f"{', '.join(sorted(runs))}")
        failed = []
        changed = changed_sources(data.get("sources"))
        if changed:
            failed.append("the game's sources")
            self.stdout.write(f"sources: changed since the runs were made: {', '.join(changed)}"
                              " (remake them: manage.py paigow edges)")
        else:
            self.stdout.write("sources: as when the runs were made")
        for key in only or sorted(runs):
            started = time.perf_counter()
            problems = verify_run(runs[key])
            took = f"({time.perf_counter() - started:.1f} s)"
            if problems:
                failed.append(key)
                self.stdout.write(f"{key}: {'; '.join(problems)} {took}")
            else:
                first = runs[key]["first_chunk"]
                self.stdout.write(f"{key}: first chunk as recorded, {first['hands']:,} hands "
                                  f"{took}")
        if failed:
            raise CommandError(f"{path} is not what the game gives now: {', '.join(failed)}")
        self.stdout.write("OK")

    def _simulate(self, options: dict[str, Any]) -> None:
        hands, way, wheel = options["hands"], options["way"], options["wheel"]
        if hands < 1:
            raise CommandError("--hands must be positive")
        seed = options["seed"] if options["seed"] is not None else secrets.randbits(64)
        if options["celery"]:
            from celery.exceptions import TimeoutError as CeleryTimeout

            from rounds.tasks import simulate_on_workers

            started = time.perf_counter()
            try:
                counts = simulate_on_workers(hands=hands, way=way, wheel=wheel, seed=seed,
                                             timeout=options["timeout"])
            except CeleryTimeout:
                raise CommandError(
                    f"no answer from Celery workers within {options['timeout']:g} s: is one "
                    "running (make worker) on the broker CELERY_BROKER_URL names?") from None
            result: SimulationResult = summarize(
                counts, seconds=time.perf_counter() - started, seed=seed, way=way,
                wheel=wheel, workers="celery")
        else:
            with self._progress(hands) as progress:
                result = simulate(hands, way=way, wheel=wheel, seed=seed,
                                  workers=options["workers"], progress=progress)
        for line in result.lines():
            self.stdout.write(line)

    def _progress(self, total: int) -> Any:
        """A tqdm bar on a terminal; nothing when output goes to a file or a test."""
        try:
            from tqdm import tqdm
        except ImportError:
            tqdm = None
        if tqdm is None or not self.stdout.isatty():
            return _NoBar()
        return _Bar(tqdm(total=total, unit="hand", unit_scale=True, file=sys.stderr))


class _NoBar:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


class _Bar:
    def __init__(self, bar: Any) -> None:
        self.bar = bar

    def __enter__(self) -> Callable[[int, int], None]:
        def update(done: int, total: int) -> None:
            self.bar.update(done - self.bar.n)
        return update

    def __exit__(self, *exc: object) -> None:
        self.bar.close()
