"""Django's PostgreSQL backend, with the pool's connection check of casino.shared.pool."""
