"""The demo floor's people that `make run` loads: staff and funded players (the table and
its seats come from rounds.demo, which may use the round services)."""

from __future__ import annotations

from casino import roles
from casino.models import Currency, Player
from casino.services import player_account_open, player_create, player_deposit
from casino.shared.money import format_minor
from ledger.models import Entry
from ledger.selectors import account_balance

# username -> (role, password). Public on purpose: development only.
DEMO_PASSWORDS: dict[str, tuple[str, str]] = {
    "admin": (roles.PIT_BOSS, "admin-demo-2026"),
    "dealer": (roles.DEALER, "dealer-demo-2026"),
    "pitboss": (roles.PIT_BOSS, "pitboss-demo-2026"),
    "cage": (roles.CAGE, "cage-demo-2026"),
    "auditor": (roles.AUDITOR, "auditor-demo-2026"),
    "count": (roles.COUNT, "count-demo-2026"),
}

# name -> opening deposit in minor units
DEMO_PLAYERS: dict[str, int] = {"Anna": 50_000, "Bram": 30_000, "Chris": 20_000}


def seed_players(currency: str = Currency.EUR) -> tuple[list[Player], list[str]]:
    """Create what is missing of the demo players; returns them and a line per player."""
    players, lines = [], []
    for name in DEMO_PLAYERS:
        player = Player.objects.filter(name=name).order_by("id").first()
        if player is None:
            player = player_create(name=name, currency=currency, by=None)
        players.append(player)
        account = player_account_open(player=player)
        # Only the first run deposits: a player with any deposit keeps what they have.
        if not Entry.objects.filter(kind="deposit", lines__account=account).exists():
            player_deposit(player_id=player.pk, amount=DEMO_PLAYERS[name],
                           reference="Demo opening deposit", by=None)
        balance = account_balance(account_id=account.pk)
        lines.append(f"player #{player.pk} {player.name}: "
                     f"{format_minor(balance.available, balance.currency)} {balance.currency}")
    return players, lines
