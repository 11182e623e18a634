"""Write services of the floor: staff users, players and their cage deposits and withdrawals."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q, Sum
from django.utils import timezone
from knox.models import AuthToken

from casino import cash, roles
from casino.countries import country_code
from casino.exclusions import player_exclusion_check
from casino.models import ID_NUMBER_SHAPE, Currency, IdDocument, Player
from casino.selectors import (
    namesake_text,
    player_account_ref,
    player_balance,
    player_get,
    player_namesakes,
)
from casino.shared import approvals
from casino.shared.approvals import Approval
from casino.shared.errors import Conflict, NotFound, ValidationFailed
from casino.shared.gaming_day import gaming_day_of, gaming_days_bounds
from casino.shared.money import format_minor, to_minor
from casino.shared.templatetags.money import money_text
from ledger.models import Account, Entry, Line
from ledger.selectors import account_find
from ledger.services import (
    REVERSAL,
    account_get_or_create,
    account_lock,
    entry_owner_rule,
    entry_post,
    entry_reverse,
    entry_reverse_check,
    insufficient_funds,
)


@transaction.atomic
def staff_create(*, username: str, role: str, password: str | None = None,
                 superuser: bool = False) -> tuple[User, str]:
    """Create a staff user in one role; returns the user and a fresh API token."""
    if role not in roles.ROLES:
        raise ValueError(f"unknown role {role!r}; choose one of {', '.join(roles.ROLES)}")
    User = get_user_model()
    if User.objects.filter(username=username).exists():
        raise ValueError(f"a user named {username!r} already exists")
    user = User(username=username, is_staff=True, is_superuser=superuser)
    if password:
        try:
            validate_password(password, user)
        except ValidationError as exc:
            raise ValueError(" ".join(exc.messages)) from exc
        user.set_password(password)
    else:
        user.set_unusable_password()
    user.save()
    user.groups.add(Group.objects.get(name=role))
    _, token = token_create(user=user)
    return user, token


class TooManyTokens(Conflict):
    code = "token_limit_reached"


def token_create(*, user: User) -> tuple[AuthToken, str]:
    """Issue an API token, refused past ``API_TOKEN_LIMIT_PER_USER`` live ones.

    A refusal rather than revoking the oldest: a token nobody revoked may be a device still
    in use at a table (or a shared login), which someone should look at, not a login
    silently end. Holds the user's row locked, so concurrent logins cannot pass the cap.
    """
    limit = settings.API_TOKEN_LIMIT_PER_USER
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        now = timezone.now()
        # knox deletes an expired token only when it is next presented; these never will be.
        AuthToken.objects.filter(user=user, expiry__lte=now).delete()
        live = AuthToken.objects.filter(user=user).count()
        if limit and live >= limit:
            raise TooManyTokens(
                f"{user.get_username()} already holds {live} live API tokens, the most allowed: "
                "revoke one (POST /api/v1/auth/token/revoke with it), wait until one expires, "
                "or ask an administrator to revoke them.",
                detail={"live_tokens": live, "limit": limit})
        return AuthToken.objects.create(user)


# --- players and the cage -------------------------------------------------------------------
# A player's money is a ledger account (kind "player", ref "player:<id>"); the cage's cash is
# the counter-side of every deposit and withdrawal (one "cage" account per currency).

@dataclass(frozen=True)
class Identity:
    """Who a player is, as the cage reads it from their identity document (all empty for a
    player registered without one)."""

    date_of_birth: date | None = None
    id_document_kind: str = ""
    id_document_number: str = ""
    photo_ref: str = ""
    # ISO 3166 alpha-2 (casino.countries): the document's issuing state, the nationality.
    id_document_country: str = ""
    nationality: str = ""


class Namesake(Conflict):
    code = "namesake"


def player_identity_check(*, identity: Identity, today: date | None = None) -> Identity:
    """The identity as stored, or a refusal in words: a date of birth in the past and at
    least ``CASINO_MIN_PLAYER_AGE`` years ago; a document's kind with its number (capitals
    and digits, 5 to 20 of them, the spaces and dashes typed removed). A date of birth and
    a document come together, or neither (a player registered by a system that has none).
    The document's country and the nationality, when given, are ISO 3166 alpha-2 codes
    (``"fr"`` is stored ``"FR"``)."""
    today = today or timezone.localdate()
    born = identity.date_of_birth
    kind = identity.id_document_kind.strip()
    number = "".join(identity.id_document_number.split()).replace("-", "").upper()
    photo = identity.photo_ref.strip()
    countries = {}
    for name, label in (("id_document_country", "The document's country"),
                        ("nationality", "The nationality")):
        try:
            countries[name] = country_code(getattr(identity, name))
        except ValueError:
            raise ValidationFailed(f"{label} is a country's ISO 3166 two-letter code, such as "
                                   f"FR or GB, not {getattr(identity, name)!r}.",
                                   code="invalid_country",
                                   detail={"field": name, "value": getattr(identity, name)},
                                   ) from None
    if not (born or kind or number or photo or countries["id_document_country"]):
        return Identity(nationality=countries["nationality"])
    missing = [label for label, value in (("the date of birth", born),
                                          ("the identity document's kind", kind),
                                          ("the document's number", number)) if not value]
    if missing:
        raise ValidationFailed(f"A player's identity needs {', '.join(missing)}.",
                               code="identity_incomplete", detail={"missing": missing})
    assert born is not None
    if kind not in IdDocument.values:
        raise ValidationFailed(f"The cage does not take {kind!r} as an identity document.",
                               code="invalid_id_document",
                               detail={"kind": kind, "known": list(IdDocument.values)})
    if not re.fullmatch(ID_NUMBER_SHAPE, number):
        raise ValidationFailed("A document number is 5 to 20 letters and digits "
                               "(spaces and dashes aside).", code="invalid_id_number",
                               detail={"number": identity.id_document_number})
    if born >= today or born.year < 1900:
        raise ValidationFailed("The date of birth must be a day in the past.",
                               code="invalid_date_of_birth",
                               detail={"date_of_birth": born.isoformat()})
    adult = settings.CASINO_MIN_PLAYER_AGE
    # The birthday of the year they come of age (29 February: 1 March in other years).
    try:
        of_age = born.replace(year=born.year + adult)
    except ValueError:
        of_age = date(born.year + adult, 3, 1)
    if of_age > today:
        raise ValidationFailed(f"A player must be at least {adult} years old; this date of "
                               f"birth makes them {adult} on {of_age.isoformat()}.",
                               code="under_age",
                               detail={"date_of_birth": born.isoformat(), "min_age": adult})
    return Identity(date_of_birth=born, id_document_kind=kind, id_document_number=number,
                    photo_ref=photo, **countries)


def player_create(*, name: str, currency: str, by: User | None,
                  identity: Identity | None = None, namesakes_seen: bool = True,
                  kind: str = Player.Kind.PLAYER, licence: str = "") -> Player:
    """Register a player and open their account in their currency.

    ``kind`` ``proposition``: a third-party proposition player, known by its ``licence``
    (required), which funds and withdraws at the cage like a player and banks card-room
    rounds, but never takes a seat (rounds.services.seat_take).

    ``namesakes_seen=False``: refused (409 ``namesake``, the players of that name in the
    detail) when a player of the same name (case aside) exists, so the cage looks at them
    first and registers again with ``namesakes_seen=True`` for a different person. The API
    registers namesakes and names them in its answer (casino.api.players)."""
    name = name.strip()
    if not name:
        raise ValidationFailed("A player needs a name.", code="invalid_name")
    if currency not in Currency.values:
        raise ValidationFailed(f"The floor does not take {currency!r}.", code="invalid_currency",
                               detail={"currency": currency, "known": list(Currency.values)})
    licence = licence.strip()
    if kind not in Player.Kind.values:
        raise ValidationFailed(f"A player's kind is one of {', '.join(Player.Kind.values)}.",
                               detail={"fields": {"kind": list(Player.Kind.values)}})
    if kind == Player.Kind.PROPOSITION and not licence:
        raise ValidationFailed("A third-party proposition player is registered with its "
                               "state licence.",
                               detail={"fields": {"licence": ["required for a proposition "
                                                              "player"]}})
    if kind == Player.Kind.PLAYER and licence:
        raise ValidationFailed("Only a third-party proposition player has a licence.",
                               detail={"fields": {"licence": ["only for kind proposition"]}})
    identity = player_identity_check(identity=identity or Identity())
    if not namesakes_seen:
        found = player_namesakes(name=name)
        if found:
            raise Namesake(
                f"{len(found)} player{'s' if len(found) > 1 else ''} already called {name}: "
                + "; ".join(namesake_text(p) for p in found)
                + ". Check the identity document: register only a different person.",
                detail={"players": [{"id": p.pk, "name": p.name} for p in found]})
    with transaction.atomic():
        player = Player.objects.create(
            name=name, currency=currency, created_by=by,
            date_of_birth=identity.date_of_birth, id_document_kind=identity.id_document_kind,
            id_document_number=identity.id_document_number, photo_ref=identity.photo_ref,
            id_document_country=identity.id_document_country,
            nationality=identity.nationality, kind=kind, licence=licence)
        player_account_open(player=player)
    return player


IDENTITY_FIELDS = ("date_of_birth", "id_document_kind", "id_document_number", "photo_ref",
                   "id_document_country", "nationality")


def player_identity_update(*, player_id: int, changes: Mapping[str, Any],
                           by: User | None) -> Player:
    """Record or correct a player's identity at the cage: the fields of ``Identity`` given
    in ``changes`` replace the stored ones, the others stay; the whole is checked again
    (player_identity_check). An identity on file is corrected, never removed: the cash
    rules (casino.cash) let the player's day pass the identity line because of it."""
    unknown = set(changes) - set(IDENTITY_FIELDS)
    if unknown:
        raise ValueError(f"not identity fields: {sorted(unknown)}")
    with transaction.atomic():
        player = Player.objects.select_for_update().filter(pk=player_id).first()
        if player is None:
            raise NotFound(f"There is no player #{player_id}.", detail={"player_id": player_id})
        merged = {name: getattr(player, name) for name in IDENTITY_FIELDS}
        merged.update({k: ("" if v is None and k != "date_of_birth" else v)
                       for k, v in changes.items()})
        if player.identity_on_file and not (merged["id_document_kind"]
                                            and merged["id_document_number"]
                                            and merged["date_of_birth"]):
            raise ValidationFailed(f"{player.name} #{player.pk} has an identity on file: it "
                                   "can be corrected, not removed.",
                                   code="identity_kept", detail={"player_id": player.pk})
        identity = player_identity_check(identity=Identity(**merged))
        for name in IDENTITY_FIELDS:
            setattr(player, name, getattr(identity, name))
        player.save(update_fields=list(IDENTITY_FIELDS))
    return player


def player_rename(*, player_id: int, name: str, by: User | None) -> Player:
    """Correct a player's name (a typo at registration); their account's display name
    follows. Money never moves here, and the player's id, which every entry names, stays."""
    name = name.strip()
    if not name:
        raise ValidationFailed("A player needs a name.", code="invalid_name")
    with transaction.atomic():
        player = Player.objects.select_for_update().filter(pk=player_id).first()
        if player is None:
            raise NotFound(f"There is no player #{player_id}.", detail={"player_id": player_id})
        player.name = name
        player.save(update_fields=["name"])
        Account.objects.filter(kind=Account.Kind.PLAYER,
                               ref=player_account_ref(player.pk)).update(name=name)
    return player


def player_account_open(*, player: Player) -> Account:
    """The player's ledger account, opened on first use (players created before the ledger)."""
    return account_get_or_create(kind=Account.Kind.PLAYER, currency=player.currency,
                                 ref=player_account_ref(player.pk), name=player.name)


def _cage_account(currency: str) -> Account:
    return account_get_or_create(kind=Account.Kind.CAGE, currency=currency,
                                 name=f"Cage ({currency})")


def player_deposit(*, player_id: int, amount: int, reference: str = "",
                   by: User | None, approved_by: Approval | None = None) -> Entry:
    """Cash bought in at the cage: the cage's account pays the player's. ``approved_by``:
    the pit boss's approval it carries out, when the day's cap needs one."""
    return _cage_move(player_id=player_id, amount=amount, to_player=True, kind="deposit",
                      memo=reference or "Deposit at the cage", by=by,
                      approved_by=approved_by)


def player_withdraw(*, player_id: int, amount: int, reference: str = "",
                    by: User | None, approved_by: Approval | None = None) -> Entry:
    """Cash paid out at the cage; never more than the player's available balance (409)."""
    return _cage_move(player_id=player_id, amount=amount, to_player=False, kind="withdrawal",
                      memo=reference or "Withdrawal at the cage", by=by,
                      approved_by=approved_by)


def _cage_move(*, player_id: int, amount: int, to_player: bool, kind: str, memo: str,
               by: User | None, approved_by: Approval | None) -> Entry:
    """One entry between the cage's account and the player's (the ledger refuses a
    withdrawal beyond the player's available funds).

    Holds both accounts locked (primary-key order, as entry_post takes them) before the
    player's day at the cage is read: two clerks' movements for one player queue, so they
    cannot both pass the cap on the same reading."""
    if amount <= 0:
        raise ValidationFailed(f"A {kind} must be positive.", code="invalid_amount",
                               detail={"amount": amount})
    player = player_get(player_id=player_id)
    with transaction.atomic():
        account = player_account_open(player=player)
        cage = _cage_account(player.currency)
        account_lock(account_ids=[account.pk, cage.pk])
        if to_player:
            # Self-excluded or barred: no deposit (casino.exclusions); a withdrawal pays out
            # the player's own money and is never refused for it.
            player_exclusion_check(player=player, doing="deposit at the cage")
        # Without an identity on file, not past the identity line (casino.cash): refused
        # before anything waits for a pit boss.
        cash.cash_movement_check(player=player, direction="in" if to_player else "out",
                                 amount=amount)
        # Above the day's cap a pit boss approves first, whoever calls
        # (casino.shared.approvals).
        approvals.approval_required_check(
            action=f"cage.{kind}", params={"player_id": player_id, "amount_minor": amount},
            by=by, approved_by=approved_by)
        change = amount if to_player else -amount
        entry = entry_post(kind=kind, memo=memo,
                           lines=[(cage.pk, -change), (account.pk, change)], by=by,
                           ref=player_account_ref(player.pk))
        cash.cash_movement_record(player=player, entry=entry)
        return entry


# --- the cage's day: the cap counts a player's gaming day --------------------------------
# The cap is on what the cage does for one player in one gaming day, not on one slip:
# twelve deposits of 1,000.00 are 12,000.00 at the cage as much as one of 12,000.00 is. Two
# figures, each gross: what the cage credited to the player (deposits, and corrections of
# withdrawals) and what it debited (withdrawals, and corrections of deposits). A
# correction never lowers either: a clerk could otherwise pay out, "correct", and pay out
# again below the cap all day; it counts as a movement of its own, in the direction it
# moves the player's money.

@dataclass(frozen=True)
class CageDay:
    """A player's gaming day at the cage so far, in minor units."""

    credited: int
    debited: int


def cage_day_totals(*, player: Player) -> CageDay:
    """What the cage credited to and debited from ``player`` in the current gaming day."""
    account = account_find(kind=Account.Kind.PLAYER, currency=player.currency,
                           ref=player_account_ref(player.pk))
    if account is None:
        return CageDay(credited=0, debited=0)
    since, until = gaming_days_bounds(gaming_day_of(), gaming_day_of())
    totals = Line.objects.filter(
        Q(entry__kind__in=CAGE_KINDS)
        | Q(entry__kind=REVERSAL, entry__reverses__kind__in=CAGE_KINDS),
        account=account, entry__created_at__gte=since, entry__created_at__lt=until,
    ).aggregate(credited=Sum("amount", filter=Q(amount__gt=0), default=0),
                debited=Sum("amount", filter=Q(amount__lt=0), default=0))
    return CageDay(credited=totals["credited"], debited=-totals["debited"])


def _cage_day_exceeds(*, player: Player, credit: int = 0, debit: int = 0) -> bool:
    """Whether crediting or debiting the player this much more today passes the cap."""
    day, cap = cage_day_totals(player=player), cage_cap(player.currency)
    return (credit > 0 and day.credited + credit > cap) or \
        (debit > 0 and day.debited + debit > cap)


# --- corrections at the cage ----------------------------------------------------------------
# A deposit or withdrawal is corrected only here (the ledger's own reversal refuses it as an
# owned entry): the cage knows whether the cash was really counted in or handed out.
CAGE_KINDS = ("deposit", "withdrawal")
CORRECT = "casino.correct_funds"
APPROVE_CAGE = "casino.approve_cage_movement"


def _cage_entry(*, player_id: int, entry_id: int, by: User | None) -> Entry:
    player = player_get(player_id=player_id)
    entry = Entry.objects.filter(pk=entry_id, ref=player_account_ref(player.pk)).first()
    if entry is None:
        raise NotFound(f"Player #{player_id} has no entry #{entry_id}.",
                       detail={"player_id": player_id, "entry_id": entry_id})
    owner = entry_owner_rule(entry)
    if owner is None or owner[0] not in CAGE_KINDS:
        raise ValidationFailed(f"Entry #{entry_id} is a {entry.kind}, not a movement at the "
                               "cage.", code="not_a_cage_movement",
                               detail={"entry_id": entry_id, "kind": entry.kind})
    entry_reverse_check(entry_id=entry_id, by=by, by_owner=True, permission=CORRECT)
    return entry


def player_cage_correct(*, player_id: int, entry_id: int, reason: str, by: User,
                        approved_by: Approval | None = None) -> Entry:
    """Correct one of the player's deposits or withdrawals with a reason: its reversal.

    A correction that brings the player's day at the cage above the cap (a correction of a
    movement above it, always) waits for a pit boss, as the movement did; under dual
    control any other waits for a second clerk. A correction of a correction is refused (a
    reversal is never reversed): the cage posts a new deposit or withdrawal instead."""
    if not reason.strip():
        raise ValidationFailed("A correction needs a reason.", code="reason_required")
    player = player_get(player_id=player_id)
    with transaction.atomic():
        account = player_account_open(player=player)
        # The day's figures are read under the same locks as a movement's (_cage_move).
        account_lock(account_ids=[account.pk, _cage_account(player.currency).pk])
        approvals.approval_required_check(
            action="cage.correction",
            params={"player_id": player_id, "entry_id": entry_id, "reason": reason},
            by=by, approved_by=approved_by)
        _cage_entry(player_id=player_id, entry_id=entry_id, by=by)
        # A correction only lowers the day's cash in or out: nothing to refuse for the cash
        # rules, but the day's report follows it (casino.cash).
        correction = entry_reverse(entry_id=entry_id, reason=reason, by=by, by_owner=True,
                                   permission=CORRECT, approved_by=approved_by)
        cash.cash_movement_record(player=player, entry=correction)
        return correction


# --- operations that may wait for a second person (casino.shared.approvals) ---------------

def cage_cap(currency: str) -> int:
    """The largest deposit or withdrawal the cage makes alone, in minor units."""
    return to_minor(str(settings.CASINO_CAGE_APPROVAL_ABOVE), currency)


# --- cash not confirmed yet: buy-ins at tables whose box is not counted -------------------
# A buy-in credits the player on the dealer's word; the box's count confirms the cash went
# in. Until then, paying that money out at the cage needs a pit boss: otherwise a dealer
# credits a friend, who cashes out before anyone counts. Play registers the reader
# (rounds.apps): the cage does not read the tables.

@dataclass(frozen=True)
class Uncounted:
    """Cash on a player's account not confirmed yet, and where it came from (minor units)."""

    where: str      # "Table 1"
    amount: int


UncountedReader = Callable[[Player], list[Uncounted]]
_UNCOUNTED: list[UncountedReader] = []


def uncounted_cash_register(reader: UncountedReader) -> None:
    _UNCOUNTED.append(reader)


def player_uncounted(*, player: Player) -> list[Uncounted]:
    """The player's cash of today not confirmed yet (buy-ins at tables not counted)."""
    return [found for reader in _UNCOUNTED for found in reader(player)]


def withdrawal_unconfirmed(*, player: Player, amount: int) -> int:
    """The part of a withdrawal of ``amount`` that would pay out cash not confirmed yet:
    what exceeds the available balance less today's uncounted buy-ins (0: none)."""
    uncounted = sum(u.amount for u in player_uncounted(player=player))
    if not uncounted:
        return 0
    confirmed = max(player_balance(player).available - uncounted, 0)
    return min(max(amount - confirmed, 0), uncounted)


def _deposit_needs_approval(params: Mapping[str, Any]) -> bool:
    return _cage_day_exceeds(player=player_get(player_id=params["player_id"]),
                            credit=int(params["amount_minor"]))


def _withdrawal_needs_approval(params: Mapping[str, Any]) -> bool:
    player = player_get(player_id=params["player_id"])
    amount = int(params["amount_minor"])
    return (_cage_day_exceeds(player=player, debit=amount)
            or withdrawal_unconfirmed(player=player, amount=amount) > 0)


def _correction_above_cap(params: Mapping[str, Any]) -> bool:
    """Whether the correction brings the player's day above the cap: it moves back the
    corrected movement's amount, the other way."""
    player = player_get(player_id=params["player_id"])
    moved = (Line.objects.filter(entry_id=params["entry_id"],
                                 account__ref=player_account_ref(player.pk),
                                 account__kind=Account.Kind.PLAYER)
             .values_list("amount", flat=True).first()) or 0
    return _cage_day_exceeds(player=player, credit=max(-moved, 0), debit=max(moved, 0))


def _correction_needs_approval(params: Mapping[str, Any]) -> bool:
    return approvals.dual_control() or _correction_above_cap(params)


def _correction_approver(params: Mapping[str, Any]) -> str:
    # Above the cap the pit boss signs, as for the movement; otherwise a second clerk.
    return APPROVE_CAGE if _correction_above_cap(params) else CORRECT


def _cage_move_summary(kind: str) -> Any:
    def summary(params: Mapping[str, Any]) -> str:
        """A sentence for the people who decide, amounts as the casino writes them, with
        why it waits: "Deposit of 1,500.00 EUR for Anna: brings today's deposits to
        10,500.00 EUR, above the cage's line of 10,000.00 EUR" (the line counts the day,
        not the slip), or "...: 3,000.00 EUR of Anna's balance came from buy-ins at Table 1
        not yet counted"."""
        player = player_get(player_id=params["player_id"])
        amount, cur = int(params["amount_minor"]), player.currency
        said = f"{kind} of {money_text(amount, cur)} for {player.name}"
        why = []
        day, cap = cage_day_totals(player=player), cage_cap(cur)
        total = (day.credited if kind == "Deposit" else day.debited) + amount
        if total > cap:
            why.append(f"brings today's {kind.lower()}s to {money_text(total, cur)}, above "
                       f"the cage's line of {money_text(cap, cur)}")
        if kind == "Withdrawal" and withdrawal_unconfirmed(player=player, amount=amount):
            part = withdrawal_unconfirmed(player=player, amount=amount)
            tables = ", ".join(u.where for u in player_uncounted(player=player))
            why.append(f"{money_text(part, cur)} of {player.name}'s balance came from "
                       f"buy-ins at {tables} not yet counted")
        return f"{said}: {'; '.join(why)}" if why else said
    return summary


def _deposit_check(params: Mapping[str, Any], by: User) -> None:
    # Refused now rather than after a pit boss's approval: the service checks again then.
    player = player_get(player_id=params["player_id"])
    player_exclusion_check(player=player, doing="deposit at the cage")
    cash.cash_movement_check(player=player, direction="in",
                             amount=int(params["amount_minor"]))


def _cage_move_shown(params: Mapping[str, Any]) -> dict[str, Any]:
    # The amount in the unit at every edge; the minor units stay the service's argument.
    currency = player_get(player_id=params["player_id"]).currency
    shown = {k: v for k, v in params.items() if k != "amount_minor"}
    return {**shown, "amount": format_minor(int(params["amount_minor"]), currency),
            "currency": currency}


def _withdrawal_check(params: Mapping[str, Any], by: User) -> None:
    # Refused now rather than after a pit boss's approval: the ledger checks again then.
    player = player_get(player_id=params["player_id"])
    cash.cash_movement_check(player=player, direction="out",
                             amount=int(params["amount_minor"]))
    available = player_balance(player).available
    amount = int(params["amount_minor"])
    if amount > available:
        account = player_account_open(player=player)
        raise insufficient_funds(account, required=amount, available=available)


def _correction_check(params: Mapping[str, Any], by: User) -> None:
    _cage_entry(player_id=params["player_id"], entry_id=params["entry_id"], by=by)


def _reversal_check(params: Mapping[str, Any], by: User) -> None:
    entry_reverse_check(entry_id=params["entry_id"], by=by)


def _entry_ref(entry: Entry) -> str:
    return f"entry:{entry.pk}"


def approval_actions_register() -> None:
    """The cage's and the ledger's operations that may wait for a second person."""
    approvals.action_register(approvals.Action(
        name="cage.deposit", ask_permission="casino.deposit_funds",
        approve_permission=APPROVE_CAGE, needs_approval=_deposit_needs_approval,
        run=lambda p, by, approved: player_deposit(
            player_id=p["player_id"], amount=int(p["amount_minor"]),
            reference=p.get("reference", ""), by=by, approved_by=approved),
        result_ref=_entry_ref, summary=_cage_move_summary("Deposit"), shown=_cage_move_shown,
        ref=lambda p: player_account_ref(p["player_id"]), check=_deposit_check,
        # Each movement is measured against the line by itself: one waiting blocks only
        # what would pass the line again (casino.shared.approvals).
        queues=True))
    approvals.action_register(approvals.Action(
        name="cage.withdrawal", ask_permission="casino.withdraw_funds",
        approve_permission=APPROVE_CAGE, needs_approval=_withdrawal_needs_approval,
        run=lambda p, by, approved: player_withdraw(
            player_id=p["player_id"], amount=int(p["amount_minor"]),
            reference=p.get("reference", ""), by=by, approved_by=approved),
        result_ref=_entry_ref, summary=_cage_move_summary("Withdrawal"),
        shown=_cage_move_shown,
        ref=lambda p: player_account_ref(p["player_id"]), check=_withdrawal_check,
        queues=True))
    approvals.action_register(approvals.Action(
        name="cage.correction", ask_permission=CORRECT, approve_permission=CORRECT,
        approve_permission_for=_correction_approver,
        needs_approval=_correction_needs_approval,
        run=lambda p, by, approved: player_cage_correct(
            player_id=p["player_id"], entry_id=p["entry_id"], reason=p["reason"], by=by,
            approved_by=approved),
        result_ref=_entry_ref,
        summary=lambda p: f"Correct entry #{p['entry_id']} of player #{p['player_id']}: "
                          f"{p['reason']}",
        ref=lambda p: f"entry:{p['entry_id']}",
        check=_correction_check))
    approvals.action_register(approvals.Action(
        name="ledger.entry_reverse", ask_permission="ledger.reverse_entry",
        approve_permission="ledger.reverse_entry",
        needs_approval=lambda p: approvals.dual_control(),
        run=lambda p, by, approved: entry_reverse(entry_id=p["entry_id"], reason=p["reason"],
                                                  by=by, approved_by=approved),
        result_ref=_entry_ref,
        summary=lambda p: f"Reverse entry #{p['entry_id']}: {p['reason']}",
        ref=lambda p: f"entry:{p['entry_id']}",
        check=_reversal_check))
