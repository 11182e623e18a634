"""The domain's exceptions, shared by every app.

Services raise these; the API's one exception handler (casino.shared.api.errors) turns each into
the one error shape with its HTTP status, and the admin shows the message. A service
raises before it writes anything, or inside the transaction it runs in, so a refused
operation changes nothing.
"""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """A refused operation: a stable machine code, a sentence for people, and the figures."""

    code = "invalid"
    status = 400

    def __init__(self, message: str, *, detail: dict[str, Any] | None = None,
                 code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail or {}
        if code is not None:
            self.code = code


class ValidationFailed(DomainError):
    code = "invalid"
    status = 400


class NotFound(DomainError):
    code = "not_found"
    status = 404


class Conflict(DomainError):
    """The request is well-formed but the current state refuses it (409)."""

    code = "conflict"
    status = 409


class PermissionRefused(DomainError):
    code = "permission_denied"
    status = 403
