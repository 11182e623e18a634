"""The demo floor that `make run` loads (see the seed_demo command)."""

from __future__ import annotations

from casino import roles
from casino.models import Player, Table

# username -> (role, password). Public on purpose: development only.
DEMO_PASSWORDS: dict[str, tuple[str, str]] = {
    "admin": (roles.PIT_BOSS, "admin-demo-2026"),
    "dealer": (roles.DEALER, "dealer-demo-2026"),
    "pitboss": (roles.PIT_BOSS, "pitboss-demo-2026"),
    "cage": (roles.CAGE, "cage-demo-2026"),
    "auditor": (roles.AUDITOR, "auditor-demo-2026"),
}

DEMO_TABLE = "Demo table 1"
# name -> opening deposit in minor units
DEMO_PLAYERS: dict[str, int] = {"Anna": 50_000, "Bram": 30_000, "Chris": 20_000}


def seed_floor() -> list[str]:
    """Create what is missing of the demo floor; returns a line per thing it holds."""
    table, _ = Table.objects.get_or_create(name=DEMO_TABLE)
    lines = [f"table #{table.pk} {table.name} ({table.currency})"]
    for name in DEMO_PLAYERS:
        player = Player.objects.filter(name=name).order_by("id").first()
        if player is None:
            player = Player.objects.create(name=name, currency=table.currency)
        lines.append(f"player #{player.pk} {player.name}")
    return lines
