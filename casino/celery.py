"""The Celery application: configured from the CELERY_* Django settings.

With CELERY_BROKER_URL unset, settings turn on eager mode so tasks run in the calling
process (development, tests); with it set, `make worker` consumes them.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

app = Celery("casino")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
