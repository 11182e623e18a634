"""The Django project and the casino floor: tables, players and staff roles."""

from casino.celery import app as celery_app

__all__ = ["celery_app"]
