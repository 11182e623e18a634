"""The OpenAPI schema's error answers: every operation documents the one error shape.

drf-spectacular documents the success answer of each view; this post-processing hook adds
the error answers every operation can give (and the 409/422 of writes), all in the shape
``{"error": {"code", "message", "detail"}}``, so clients see every failure in the schema.
"""

from __future__ import annotations

from typing import Any

ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "detail"],
            "properties": {
                "code": {"type": "string", "example": "insufficient_funds"},
                "message": {"type": "string"},
                "detail": {"type": "object", "additionalProperties": True,
                           "example": {"required": "260.00", "available": "200.00"}},
            },
        }
    },
}

COMMON = {
    "400": "Invalid input (`invalid`, `parse_error`, ...); nothing changed.",
    "401": "No valid token (`not_authenticated`, `authentication_failed`).",
    "403": "The token's user lacks the permission (`permission_denied`).",
    "404": "No such resource (`not_found`).",
    "405": "Method not allowed here (`method_not_allowed`).",
}
WRITES = {
    "409": "The current state refuses the operation (e.g. `wrong_state`, "
           "`insufficient_funds`, `banker_insolvent`); nothing changed.",
    "422": "The `Idempotency-Key` was already used with a different body.",
}
OPEN_PATHS = ("/api/v1/health", "/api/v1/auth/token")
# Ids are PostgreSQL bigints (seat numbers are small positive integers): a client can read
# what the server accepts from the schema, and a generator sends nothing else.
ID_SCHEMA = {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}
# Every API POST may carry one (casino/shared/idempotency.py refuses others with 400).
IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "1 to 255 printable characters, not all blank; a retry with the same key "
                   "and body replays the first answer instead of repeating the operation.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": r"\S"},
}


def add_error_responses(result: dict[str, Any], generator: Any, request: Any,
                        public: bool) -> dict[str, Any]:
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    ref = {"$ref": "#/components/schemas/Error"}
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            _bound_parameters(operation, method)
            errors = dict(COMMON)
            if path in OPEN_PATHS:
                errors.pop("401")
                errors.pop("403")
            if method != "get":
                errors.update(WRITES)
            responses = operation.setdefault("responses", {})
            for status, description in errors.items():
                responses.setdefault(status, {
                    "description": description,
                    "content": {"application/json": {"schema": ref}},
                })
    return result


def _bound_parameters(operation: dict[str, Any], method: str) -> None:
    """Path ids with their range; the Idempotency-Key header, with its length, on writes."""
    parameters = operation.setdefault("parameters", [])
    for parameter in parameters:
        if parameter.get("in") == "path" and parameter.get("schema", {}).get("type") == "integer":
            parameter["schema"] = dict(ID_SCHEMA)
    parameters[:] = [p for p in parameters
                     if not (p.get("in") == "header" and p.get("name") == "Idempotency-Key")]
    if method == "post":
        parameters.append(dict(IDEMPOTENCY_KEY))
    if not parameters:
        del operation["parameters"]
