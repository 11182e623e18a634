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

# Everything a request needs is loaded here, as the server starts, not by the first request
# it answers: the URL configuration imports every app's views, and with them the report
# files' libraries (1.7 s of CPU, timed here). django.urls.resolve is the public way to load it.
# (Tests load the application with get_wsgi_application instead: no freeze in a test run.)
import contextlib  # noqa: E402
import gc  # noqa: E402

from django.urls import Resolver404, resolve  # noqa: E402

with contextlib.suppress(Resolver404):
    resolve("/")  # any path: resolving one loads the whole configuration, found or not

# Then the cycle collector leaves what is loaded alone (gc.freeze): the modules, classes and
# settings stay for the life of the process, and a full collection would walk its 200,000
# objects again. Collected first, so that no garbage is frozen with them. Each gunicorn
# worker imports this module after its fork, so each freezes its own.
gc.collect()
gc.freeze()
