"""Money: accounts, entries, holds, balances and audit reports (knows nothing of the game)."""
