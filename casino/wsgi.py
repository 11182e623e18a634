import os

from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

application = get_wsgi_application()

# Refuse to start rather than answer every page with a 500: the one startup check a server
# needs beyond what Django's own checks say (manage.py check --deploy runs it too).
from casino.shared.checks import static_manifest_problem  # noqa: E402

if (problem := static_manifest_problem()) is not None:
    raise ImproperlyConfigured(problem)
