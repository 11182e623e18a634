"""Players and the cage: register players, read their balances, deposits and withdrawals.

Thin: parse the input (casino.shared.api.parse), call one service, render. The error
answers of every operation are in the schema by casino.shared.api.schema.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from casino import cash, player_logins, selectors, services
from casino.api import examples as ex
from casino.api.serializers import (
    CashInput,
    CorrectionInput,
    PlayerChangeInput,
    PlayerCreatedOutput,
    PlayerInput,
    PlayerLoginInput,
    PlayerLoginOutput,
    PlayerOutput,
    PlayerSearch,
)
from casino.shared import approvals
from casino.shared.api.approvals import approval_response
from casino.shared.api.pagination import PAGE_PARAMETERS, page_response, paginated
from casino.shared.api.parse import parse
from casino.shared.api.permissions import acting_user, requires
from casino.shared.api.serializers import ApprovalOutput
from casino.shared.api.views import ApiView
from casino.shared.errors import ValidationFailed
from ledger.api.serializers import EntryOutput
from ledger.selectors import entry_get


class PlayerListView(ApiView):
    query = PlayerSearch
    answers_pages = True
    permission_classes = [requires("casino.view_player", POST="casino.add_player")]

    @extend_schema(summary="List players with their balances", operation_id="players_list",
                   parameters=[PlayerSearch, *PAGE_PARAMETERS],
                   responses={200: paginated(PlayerOutput(many=True),
                                             "PaginatedPlayerOutputList")})
    def get(self, request: Request) -> Response:
        search = self.query_values(request)
        players = cash.with_cash_today(selectors.player_list(search=search["search"]))
        return page_response(request, self, players, lambda p: PlayerOutput(p).data)

    @extend_schema(
        summary="Register a player (opens their account)", request=PlayerInput,
        examples=ex.PLAYER_CREATE,
        description="A player of the same name as others is registered all the same: the "
                    "answer's `namesakes` lists the others (empty when none), so the caller "
                    "can check it registered a different person.",
        responses={201: PlayerCreatedOutput})
    def post(self, request: Request) -> Response:
        data = parse(PlayerInput, request.data)
        identity = services.Identity(**identity_changes(data))
        player = services.player_create(name=data["name"], currency=data["currency"],
                                        kind=data["kind"], licence=data["licence"],
                                        identity=identity, by=acting_user(request))
        shown = selectors.player_get(player_id=player.pk)
        shown.namesakes = selectors.player_namesakes(  # type: ignore[attr-defined]
            name=player.name, exclude_id=player.pk)
        return Response(PlayerCreatedOutput(shown).data, status=status.HTTP_201_CREATED)


def identity_changes(data: dict[str, Any]) -> dict[str, Any]:
    """The identity fields given, by the model's names: ``birth_date`` or its older name
    ``date_of_birth``, ``id_document`` or the flat ``id_document_*`` fields. The same value
    given under both names is taken; two different values are refused."""
    document = data.get("id_document") or {}
    pairs = {
        "date_of_birth": ("birth_date", "date_of_birth", data),
        "id_document_kind": ("kind", "id_document_kind", document),
        "id_document_number": ("number", "id_document_number", document),
        "id_document_country": ("country", "id_document_country", document),
    }
    changes: dict[str, Any] = {}
    clashes: dict[str, list[str]] = {}
    for field, (new, old, source) in pairs.items():
        given = [value for value in (source.get(new, ...), data.get(old, ...))
                 if value is not ...]
        if len(given) == 2 and given[0] != given[1]:
            clashes[old] = [f"differs from {'id_document.' if source is document else ''}"
                            f"{new}; give one of them"]
        if given:
            changes[field] = given[0]
    if "id_document" in data and data["id_document"] is None:
        # An explicit null: no document (refused for a player who has one on file).
        changes.update(id_document_kind="", id_document_number="", id_document_country="")
    if clashes:
        raise ValidationFailed("The same identity field was given twice with different "
                               "values.", code="invalid", detail={"fields": clashes})
    for field in ("nationality", "photo_ref"):
        if field in data:
            changes[field] = data[field]
    return {k: ("" if v is None and k != "date_of_birth" else v) for k, v in changes.items()}


class PlayerDetailView(ApiView):
    permission_classes = [requires("casino.view_player", PATCH="casino.change_player")]

    @extend_schema(summary="A player with their balance", responses={200: PlayerOutput})
    def get(self, request: Request, player_id: int) -> Response:
        return Response(PlayerOutput(selectors.player_get(player_id=player_id)).data)

    @extend_schema(
        summary="Record or correct a player's identity (or their name)",
        request=PlayerChangeInput, examples=ex.PLAYER_CHANGE, responses={200: PlayerOutput},
        description="Only the fields given change. The identity is checked whole again "
                    "(a date of birth and a document together, of age, countries as ISO "
                    "3166 alpha-2); an identity on file is corrected, never removed. Once "
                    "it is on file, a day's cash reaching CASINO_ID_REQUIRED_FROM is taken.")
    def patch(self, request: Request, player_id: int) -> Response:
        data = parse(PlayerChangeInput, request.data, partial=True)
        by = acting_user(request)
        changes = identity_changes(data)
        selectors.player_get(player_id=player_id)  # 404 before anything else
        with transaction.atomic():
            if "name" in data:
                services.player_rename(player_id=player_id, name=data["name"], by=by)
            if changes:
                services.player_identity_update(player_id=player_id, changes=changes, by=by)
        return Response(PlayerOutput(selectors.player_get(player_id=player_id)).data)


def _entry_or_approval(done: approvals.Submitted) -> Response:
    """201 with the entry the operation posted, or 202 with the request waiting for a
    second person."""
    if done.approval is not None:
        return approval_response(done.approval, status.HTTP_202_ACCEPTED)
    return Response(EntryOutput(entry_get(entry_id=done.result.pk)).data,
                    status=status.HTTP_201_CREATED)


def _cash_move(request: Request, player_id: int, action: str) -> Response:
    player = selectors.player_get(player_id=player_id)
    data = parse(CashInput, request.data, currency=player.currency)
    return _entry_or_approval(approvals.action_submit(
        action=action, params={"player_id": player.pk, "amount_minor": data["amount"],
                               "reference": data["reference"]},
        by=acting_user(request)))


ABOVE_CAP = ("Above CASINO_CAGE_APPROVAL_ABOVE (10,000.00 by default) nothing moves yet: "
             "the answer is 202 with a pending request that a pit boss approves "
             "(POST /api/v1/approvals/{id}/approve).")


class PlayerDepositView(ApiView):
    permission_classes = [requires("casino.deposit_funds")]
    # Named as the console's cage names it (casino.shared.refusals).
    refusal_action = "cage.deposit"

    @extend_schema(summary="Take a deposit at the cage", description=ABOVE_CAP,
                   request=CashInput,
                   examples=ex.DEPOSIT,
                   responses={201: EntryOutput, 202: ApprovalOutput})
    def post(self, request: Request, player_id: int) -> Response:
        return _cash_move(request, player_id, "cage.deposit")


class PlayerWithdrawalView(ApiView):
    permission_classes = [requires("casino.withdraw_funds")]
    refusal_action = "cage.withdrawal"

    @extend_schema(summary="Pay out a withdrawal at the cage",
                   description="Never more than the available balance (posted less held): "
                               "409 insufficient_funds with the available amount otherwise. "
                               + ABOVE_CAP,
                   request=CashInput,
                   examples=ex.WITHDRAWAL,
                   responses={201: EntryOutput, 202: ApprovalOutput})
    def post(self, request: Request, player_id: int) -> Response:
        return _cash_move(request, player_id, "cage.withdrawal")


class PlayerCorrectionView(ApiView):
    permission_classes = [requires(services.CORRECT)]
    # Every refused correction leaves a trace (casino.shared.refusals).
    refusal_action = "cage.correction"
    refusal_ref = "player:{player_id}"

    @extend_schema(
        summary="Correct a deposit or withdrawal at the cage (its reversal, with a reason)",
        description="The only way to reverse a cage movement (the ledger's own reversal "
                    "answers 409 `owned_entry`). A correction is never corrected "
                    "(409 `reversal_not_reversible`): post a new deposit or withdrawal. With "
                    "dual control on, the answer is 202 with a pending request.",
        request=CorrectionInput,
        examples=ex.CORRECTION,
        responses={201: EntryOutput, 202: ApprovalOutput})
    def post(self, request: Request, player_id: int) -> Response:
        data = parse(CorrectionInput, request.data)
        return _entry_or_approval(approvals.action_submit(
            action="cage.correction",
            params={"player_id": player_id, "entry_id": data["entry"],
                    "reason": data["reason"]},
            by=acting_user(request)))


class PlayerLoginView(ApiView):
    permission_classes = [requires(player_logins.GIVE_LOGIN)]

    @extend_schema(
        summary="Give a player their own login, or reset its password",
        description="The player signs in with it like staff (POST /api/v1/auth/token) and "
                    "reaches only their own things (/api/v1/me...). 201: a new login; 200: "
                    "the player had one and its password is reset (the same username, else "
                    "409 `username_mismatch`): every token and session of the old password "
                    "ends. 409 `username_taken`, `proposition_no_login` (a business plays "
                    "at no self-service table); 400 `invalid_password` (Django's password "
                    "validators).",
        request=PlayerLoginInput, examples=ex.PLAYER_LOGIN,
        responses={201: PlayerLoginOutput, 200: PlayerLoginOutput})
    def post(self, request: Request, player_id: int) -> Response:
        data = parse(PlayerLoginInput, request.data)
        given = player_logins.player_login_give(
            player_id=player_id, username=data["username"], password=data["password"],
            by=acting_user(request))
        return Response({"player": given.player.pk, "username": given.user.get_username()},
                        status=status.HTTP_201_CREATED if given.created else status.HTTP_200_OK)
