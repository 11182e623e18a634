"""Play: rounds, seats, wagers, hands and banking; rounds.paigow is the game itself."""
