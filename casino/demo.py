"""The demo floor's people that `make run` loads: staff and funded players (the table and
its seats come from rounds.demo, which may use the round services)."""

from __future__ import annotations

from django.contrib.auth.models import User

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

# name -> opening deposit in minor units: the casino table's players, the card room's, and
# a licensed third-party proposition player who banks card-room rounds (never seated).
DEMO_PLAYERS: dict[str, int] = {"Anna": 50_000, "Bram": 30_000, "Chris": 20_000}
CARD_ROOM_PLAYERS: dict[str, int] = {"Dora": 60_000, "Eli": 40_000, "Femke": 30_000}
PROPOSITION_PLAYER = ("Golden Prop LLC", "GEGP-001234", 500_000)
# A player with a login of her own, who plays the self-service table at /play/: name,
# opening deposit, username, password (public on purpose: development only).
GAME_PLAYER = ("Lena", 20_000, "lena", "lena-demo-2026")


def seed_players(currency: str = Currency.EUR, players: dict[str, int] | None = None,
                 ) -> tuple[list[Player], list[str]]:
    """Create what is missing of the demo players (DEMO_PLAYERS unless given); returns them
    and a line per player."""
    wanted = DEMO_PLAYERS if players is None else players
    return _seeded([(name, "", amount) for name, amount in wanted.items()], currency)


def seed_proposition_player(currency: str = Currency.EUR) -> tuple[Player, str]:
    """The demo's proposition player, registered with its licence and funded."""
    (player,), (line,) = _seeded([PROPOSITION_PLAYER], currency)
    return player, line


def _seeded(wanted: list[tuple[str, str, int]], currency: str,
            ) -> tuple[list[Player], list[str]]:
    players, lines = [], []
    for name, licence, amount in wanted:
        player = Player.objects.filter(name=name).order_by("id").first()
        if player is None:
            player = player_create(
                name=name, currency=currency, by=None, licence=licence,
                kind=Player.Kind.PROPOSITION if licence else Player.Kind.PLAYER)
        players.append(player)
        account = player_account_open(player=player)
        # Only the first run deposits: a player with any deposit keeps what they have.
        if not Entry.objects.filter(kind="deposit", lines__account=account).exists():
            player_deposit(player_id=player.pk, amount=amount,
                           reference="Demo opening deposit", by=None)
        balance = account_balance(account_id=account.pk)
        kind = f" (proposition player, licence {licence})" if licence else ""
        lines.append(f"player #{player.pk} {player.name}{kind}: "
                     f"{format_minor(balance.available, balance.currency)} {balance.currency}")
    return players, lines


def seed_game_player(*, by: User) -> str:
    """The demo's player with her own login (given by ``by``, the cage), funded; a line."""
    from casino.player_logins import player_login_give

    name, amount, username, password = GAME_PLAYER
    (player,), (line,) = _seeded([(name, "", amount)], Currency.EUR)
    if player.user_id is None:
        player_login_give(player_id=player.pk, username=username, password=password, by=by)
    return f"{line}, her own login {username} / {password} (the game at /play/)"
