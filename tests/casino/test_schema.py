import pytest
import yaml
from django.core.management import call_command
from django.urls import get_resolver

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema(tmp_path):
    out = tmp_path / "schema.yaml"
    # --fail-on-warn: a view the generator cannot describe fails the test
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    return yaml.safe_load(out.read_text())


def api_routes():
    """Every route under /api/v1/ that Django knows, in the schema's notation."""
    routes = set()

    def walk(patterns, prefix):
        for p in patterns:
            if hasattr(p, "url_patterns"):
                walk(p.url_patterns, prefix + str(p.pattern))
            else:
                routes.add(prefix + str(p.pattern))

    walk(get_resolver().url_patterns, "/")
    import re

    return {re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", r) for r in routes
            if r.startswith("/api/v1/")}


def test_the_schema_is_valid_and_names_every_endpoint(schema):
    assert set(schema["paths"]) == api_routes()


def test_every_operation_documents_the_error_shape(schema):
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            statuses = set(operation["responses"])
            assert {"400", "404"} <= statuses, (method, path)
            if method == "post" and path not in ("/api/v1/auth/token",):
                assert {"409", "422"} <= statuses, (method, path)
    error = schema["components"]["schemas"]["Error"]
    assert error["properties"]["error"]["required"] == ["code", "message", "detail"]


def test_the_api_docs_page_is_served_without_a_cdn(client):
    response = client.get("/api/docs/")

    assert response.status_code == 200
    assert b"cdn." not in response.content
    assert b"swagger-ui" in response.content


def test_lists_are_documented_as_pages(schema):
    for path, operations in schema["paths"].items():
        get = operations.get("get")
        if get is None or not any(p["name"] == "page" for p in get.get("parameters", [])):
            continue
        body = get["responses"]["200"]["content"]["application/json"]["schema"]
        ref = body["$ref"].rsplit("/", 1)[-1]
        page = schema["components"]["schemas"][ref]
        assert {"count", "next", "previous", "results"} <= set(page["properties"]), path
    tables = schema["paths"]["/api/v1/tables"]["get"]["responses"]["200"]["content"]
    assert tables["application/json"]["schema"]["$ref"].endswith("/PaginatedTableOutList")


def test_the_token_endpoint_documents_its_refusals(schema):
    responses = schema["paths"]["/api/v1/auth/token"]["post"]["responses"]

    assert {"200", "400", "401", "409", "429"} <= set(responses)


def test_path_ids_and_the_idempotency_key_have_bounds(schema):
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            parameters = operation.get("parameters", [])
            for p in parameters:
                if p["in"] == "path":
                    assert p["schema"] == {"type": "integer", "minimum": 1,
                                           "maximum": 2**63 - 1}, (path, p["name"])
            keys = [p for p in parameters if p["name"] == "Idempotency-Key"]
            if method == "post":
                assert len(keys) == 1, path
                assert keys[0]["schema"]["maxLength"] == 255
                assert keys[0]["schema"]["minLength"] == 1
            else:
                assert keys == [], path


def test_every_paginated_list_documents_one_page_shape_and_its_parameters(schema):
    # Every list answers a page one way (casino.shared.api.pagination.page_response): the
    # same four keys, always present, and the same two query parameters.
    components = schema["components"]["schemas"]
    pages = {}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            answer = operation["responses"].get("200", {}).get("content", {})
            ref = answer.get("application/json", {}).get("schema", {}).get("$ref", "")
            if ref.startswith("#/components/schemas/Paginated"):
                page = components[ref.rsplit("/", 1)[1]]
                pages[f"{method} {path}"] = (
                    sorted(page["required"]), sorted(page["properties"]),
                    {p["name"]: p.get("description") for p in operation["parameters"]
                     if p["name"] in ("page", "page_size")})
    assert len(pages) >= 11  # the walk found the lists
    shapes = {repr(shape) for shape in pages.values()}
    assert len(shapes) == 1, pages
    required, properties, parameters = next(iter(pages.values()))
    assert required == properties == ["count", "next", "previous", "results"]
    assert parameters == {"page": "A page number, from 1.",
                          "page_size": "Rows a page (at most 500)."}
