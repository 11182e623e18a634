"""Docker cannot run on every machine, so these tests check the files it would read."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
ENV_READ = re.compile(r"""env(?:\.\w+)?\(\s*["']([A-Z][A-Z0-9_]*)["']""")


def settings_variables() -> set[str]:
    """Every environment variable casino/settings.py reads through django-environ."""
    return set(ENV_READ.findall((ROOT / "casino" / "settings.py").read_text()))


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())


def test_the_compose_file_parses_and_has_every_service():
    services = compose()["services"]

    assert {"web", "worker", "beat", "postgres", "redis"} <= set(services)
    for name in ("web", "worker", "beat"):
        assert services[name]["build"]["dockerfile"] == "docker/Dockerfile"
        assert "command" in services[name]


def test_every_variable_the_compose_file_sets_for_the_app_is_read_by_the_settings():
    services = compose()["services"]
    known = settings_variables()

    for name in ("web", "worker", "beat"):
        unknown = set(services[name]["environment"]) - known
        assert not unknown, f"{name} sets variables the settings never read: {unknown}"


def test_every_variable_the_settings_read_is_documented_in_the_readme():
    readme = (ROOT / "README.md").read_text()

    missing = {name for name in settings_variables() if f"`{name}`" not in readme}
    assert not missing, f"README's configuration table lacks {sorted(missing)}"


def test_the_image_runs_as_a_non_root_user_with_gunicorn():
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()

    assert dockerfile.count("FROM ") >= 2  # multi-stage
    assert re.search(r"^USER (?!root)\w+", dockerfile, re.MULTILINE)
    assert "gunicorn" in dockerfile
    # only the lock, and without the dev tools or the embedded PostgreSQL server
    assert "uv sync --frozen --no-default-groups" in dockerfile


def test_the_service_connects_as_the_runtime_role_and_only_migrate_as_the_owner():
    services = compose()["services"]
    owner = services["postgres"]["environment"]["POSTGRES_USER"]
    migrate = services["migrate"]

    assert migrate["environment"]["DATABASE_OWNER_URL"].startswith(f"postgres://{owner}:")
    assert "manage.py migrate" in migrate["command"]
    assert "create_runtime_role casino_app" in migrate["command"]
    for name in ("web", "worker", "beat"):
        env = services[name]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://casino_app:")
        assert "DATABASE_OWNER_URL" not in env  # the owner's password stays out of them
        assert services[name]["depends_on"]["migrate"]["condition"] == (
            "service_completed_successfully")
        assert "migrate" not in services[name]["command"]
