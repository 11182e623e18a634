import pytest

from rounds import services

pytestmark = pytest.mark.django_db


def assert_error_shape(body, code):
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "detail"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert isinstance(body["error"]["detail"], dict)


def test_an_unknown_api_route_gets_404_in_the_error_shape(api_client):
    response = api_client.get("/api/v1/no-such-thing")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert_error_shape(response.json(), "not_found")


def test_an_unknown_method_gets_405_in_the_error_shape_with_the_allowed_ones(api_client):
    response = api_client.delete("/api/v1/health")

    assert response.status_code == 405
    body = response.json()
    assert_error_shape(body, "method_not_allowed")
    assert "GET" in body["error"]["detail"]["allowed"]


def test_malformed_json_gets_400_in_the_error_shape(api_client):
    response = api_client.post(
        "/api/v1/auth/token", data="{not json", content_type="application/json"
    )

    assert response.status_code == 400
    assert_error_shape(response.json(), "parse_error")


def test_a_deeply_nested_json_body_is_refused_not_a_server_error(table, pit_boss_client):
    round_ = services.round_open(table_id=table.pk, by=pit_boss_client.user)
    pit_boss_client.raise_request_exception = False

    response = pit_boss_client.post(f"/api/v1/rounds/{round_.pk}/wagers", "[" * 100_000,
                                    content_type="application/json")

    assert response.status_code == 400, response.status_code
