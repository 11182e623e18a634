"""A permission said in words, for the people refused it.

A screen never names a permission by its code (``rounds.reverse_round``): the 403 page and a
refusal's message say what the person may not do ("reverse a settled round"), from the
permission's own name (``Meta.permissions``, Django's "Can view round" for the defaults).
The code stays in a refusal's detail, for the API's readers and the refusals' trace.
"""

from __future__ import annotations

from django.contrib.auth.models import Permission
from django.core.exceptions import PermissionDenied

from casino.shared.errors import PermissionRefused

GENERIC = "Your role does not allow this."
ASK = "Ask a pit boss if you think it should."


# Django's own permissions ("Can view round"), said as people say them: "see the rounds".
_DEFAULT_ACTIONS = {"view": "see the", "add": "add", "change": "change the",
                    "delete": "delete the"}


def permission_words(permission: str) -> str:
    """``"rounds.reverse_round"`` -> ``"reverse a settled round"`` (its name without "Can"),
    ``"rounds.view_round"`` -> ``"see the rounds"``; a permission the database does not know
    -> ``"do this"``."""
    app_label, _, codename = permission.partition(".")
    found = (Permission.objects.filter(content_type__app_label=app_label, codename=codename)
             .select_related("content_type").first())
    if found is None:
        return "do this"
    action, _, model_name = codename.partition("_")
    model = found.content_type.model_class()
    if action in _DEFAULT_ACTIONS and model is not None and model_name == model._meta.model_name:
        return f"{_DEFAULT_ACTIONS[action]} {model._meta.verbose_name_plural}"
    name = found.name
    return (name[4:] if name.lower().startswith("can ") else name).rstrip(".")


class NotAllowed(PermissionDenied):
    """A permission a screen's guard refused, with what it allows in words: the 403 page
    (casino.shared.api.errors.permission_denied) shows ``words``, never the code."""

    def __init__(self, words: str, permission: str = "") -> None:
        super().__init__(words)
        self.words = words
        self.permission = permission


def not_allowed(permission: str) -> NotAllowed:
    return NotAllowed(f"{GENERIC[:-1]}: you may not {permission_words(permission)}. {ASK}",
                      permission=permission)


def permission_refused(permission: str, what: str = "") -> PermissionRefused:
    """A service's refusal for a missing permission, in words ("Your role may not reverse a
    ledger entry."), the permission's code in its detail for the API's readers."""
    words = what or f"Your role may not {permission_words(permission)}."
    return PermissionRefused(words, detail={"permission": permission})
