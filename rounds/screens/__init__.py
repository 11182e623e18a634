"""The pit console's play screens: the floor and the dealer's table screen."""
