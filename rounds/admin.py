"""Rounds in the admin, for pit staff: each round's story and settlement, read-only.

Nothing about a round is added, changed or deleted here; play happens through
rounds.services (the API). The only writes are the void and reverse actions, which ask for
a reason and call the service for each selected round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import flatten_fieldsets
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from casino.shared import approvals
from casino.shared.admin import StyledAdmin
from casino.shared.errors import DomainError
from casino.shared.guards import staff_user
from casino.shared.refusals import refusal_trace_request
from casino.shared.templatetags.casino_time import casino_time_text
from casino.shared.templatetags.money import money_text
from rounds import paigow, services
from rounds.approvals import REVERSE
from rounds.models import Hand, Round, RoundParty
from rounds.round_view import RoundView, round_view, rounds_read
from rounds.templatetags.cards import cards_html

EMPTY = "—"

HIDDEN = "hidden until every player hand is set"
HIDDEN_IN_PLAY = "hidden while the round is in play"
# Money keys of an event's data: decimal strings in the round's currency (as the services
# write them with casino.shared.money.format_minor).
_MONEY_KEYS = {"amount", "required", "available", "house_stake", "banker_net",
               "banker_commission", "player_commission"}
# Keys whose number names a row of another model ("hold: #7").
_ID_KEYS = {"player", "hold", "entry"}


def cards_shown(cards: str | Iterable[str]) -> SafeString:
    """``"AS KH"`` -> the cards with suit symbols, hearts and diamonds in red; written by
    rounds.templatetags.cards, like every card on every screen."""
    parsed = paigow.parse_cards(cards)
    if not parsed:
        return format_html("{}", EMPTY)
    return cards_html([card.code for card in parsed])


def money_shown(amount: int | None, currency: str, *, signed: bool = False) -> str:
    if amount is None:
        return EMPTY
    text = money_text(amount, currency)
    return f"+{text}" if signed and amount > 0 else text


def _admin_link(viewname: str, pk: int, label: str) -> SafeString:
    return format_html('<a href="{}">{}</a>', reverse(viewname, args=[pk]), label)


def _html_table(headers: Iterable[str], rows: Iterable[Iterable[Any]]) -> SafeString:
    head = format_html_join("", "<th>{}</th>", ((h,) for h in headers))
    body = format_html_join(
        "", "<tr>{}</tr>",
        ((format_html_join("", "<td>{}</td>", ((cell,) for cell in row)),) for row in rows))
    # A wide table scrolls inside its own box, so a narrow screen (768 px) shows it whole.
    return format_html('<div class="scroll-x"><table><thead><tr>{}</tr></thead>'
                       "<tbody>{}</tbody></table></div>", head, body)


# Keys of an event's data that hold cards, shown with suit symbols like the hands.
_CARD_KEYS = {"high", "low", "burnt", "stacks", "hands"}


def _event_value(key: str, value: Any, currency: str) -> str | SafeString:
    if key in _CARD_KEYS and isinstance(value, str):
        return cards_shown(value) if value else EMPTY
    if key in _CARD_KEYS and isinstance(value, dict):
        return format_html_join(", ", "{}: {}", ((p, cards_shown(c)) for p, c in value.items()))
    if key in _MONEY_KEYS and isinstance(value, str | int):
        return f"{value} {currency}" if isinstance(value, str) else money_text(value, currency)
    if key in _ID_KEYS and isinstance(value, int):
        return f"#{value}"
    if key == "rules" and isinstance(value, dict):
        value = {k: money_text(v, currency) if k in ("min_bet", "max_bet") else v
                 for k, v in value.items()}
    if isinstance(value, dict):
        return ", ".join(f"{str(k).replace('_', ' ')} {v}" for k, v in value.items()) or EMPTY
    if isinstance(value, list):
        return " ".join(str(v) for v in value) or EMPTY
    return str(value)


def event_shown(data: dict[str, Any], currency: str) -> SafeString:
    """An event's data as one readable line: ``seat: 2; amount: 20.00 EUR; hold: #7``."""
    if not data:
        return format_html("{}", EMPTY)
    return format_html_join("; ", "{}: {}", ((key.replace("_", " "),
                                              _event_value(key, value, currency))
                                             for key, value in data.items()))


class ReasonForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
                             max_length=2000, help_text="Recorded with the round and its events.")


@admin.register(Round)
class RoundAdmin(StyledAdmin):
    list_display = ["id", "table", "number", "state", "gaming_day", "banker", "house_stake_",
                    "settled_at"]
    list_display_links = ["id", "number"]
    list_filter = ["state", "table", "gaming_day"]
    search_fields = ["table__name", "banker_player__name", "closed_reason"]
    list_select_related = ["table", "banker_player"]
    actions = ["void_selected", "reverse_selected"]
    fieldsets = [
        (None, {"fields": ["table", "number", "state", "gaming_day", "currency", "opened_by",
                           "opened_at", "dealer", "settled_at", "closed_reason"]}),
        ("Bank", {"fields": ["banker", "house_stake_", "solvency"]}),
        ("Wagers", {"fields": ["wagers_"]}),
        ("Deal", {"fields": ["deal_kind", "dice_", "counted_position", "deal_order_",
                             "burnt_"]}),
        ("Hands", {"fields": ["hands_"]}),
        ("Settlement", {"fields": ["settlement_positions", "settlement_bank", "ledger_entries"]}),
        ("The round's story", {"fields": ["story"]}),
        ("Table settings for this round", {"fields": ["rules_"], "classes": ["collapse"]}),
    ]
    readonly_fields = flatten_fieldsets(fieldsets)

    # --- nothing is written here except through the actions ------------------------------

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_void_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("rounds.void_round")

    def has_reverse_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("rounds.reverse_round")

    def get_object(self, request: HttpRequest, object_id: str,
                   from_field: str | None = None) -> Round | None:
        """The round as the one reader reads it (rounds.round_view): every part of the page
        below shows ``round_view`` of it, game protection applied there."""
        try:
            return rounds_read(staff_user(request)).filter(pk=int(object_id)).first()
        except ValueError:
            return None

    # --- the list ------------------------------------------------------------------------

    @admin.display(description="banker")
    def banker(self, round_: Round) -> str:
        if round_.banker_is_house is None:
            return EMPTY
        if round_.banker_is_house:
            return "House"
        return f"Seat {round_.banker_seat}: {round_.banker_player}"

    @admin.display(description="house stake", ordering="house_stake")
    def house_stake_(self, round_: Round) -> str:
        if round_.banker_is_house is not False:
            return EMPTY
        return money_shown(round_.house_stake, round_.currency)

    # --- the story -----------------------------------------------------------------------

    @admin.display(description="solvency check")
    def solvency(self, round_: Round) -> str:
        if round_.solvency_required is None:
            return "none: the house banks" if round_.banker_is_house else EMPTY
        # The check records the cover's hold with its figures
        # (rounds.services.banking.banker_cover_hold).
        assert round_.banker_hold_id is not None
        text = (f"required {money_shown(round_.solvency_required, round_.currency)}, "
                f"available {money_shown(round_.solvency_available, round_.currency)}; "
                "cover held as ")
        return format_html("{}{}", text, _admin_link("admin:ledger_hold_change",
                                                     round_.banker_hold_id,
                                                     f"hold #{round_.banker_hold_id}"))

    @admin.display(description="wagers")
    def wagers_(self, round_: Round) -> str:
        shown = round_view(round_)
        if not shown.wagers:
            return EMPTY
        return _html_table(
            ["seat", "player", "amount", "state", "hold"],
            ([w.seat, w.player_name, money_shown(w.amount, shown.currency),
              w.state.capitalize(),
              _admin_link("admin:ledger_hold_change", w.hold_id, f"#{w.hold_id}")]
             for w in shown.wagers))

    @admin.display(description="dice")
    def dice_(self, round_: Round) -> str:
        if not round_.dice:
            return EMPTY
        return f"{' · '.join(str(d) for d in round_.dice)} (total {sum(round_.dice)})"

    @admin.display(description="deal order")
    def deal_order_(self, round_: Round) -> str:
        return " → ".join(round_.deal_order) if round_.deal_order else EMPTY

    @admin.display(description="burnt")
    def burnt_(self, round_: Round) -> SafeString | str:
        shown = round_view(round_)
        if shown.burnt is None:
            return HIDDEN_IN_PLAY if round_.deal_kind == Round.DealKind.ELECTRONIC else EMPTY
        return cards_shown(shown.burnt) if shown.burnt else EMPTY

    @admin.display(description="hands")
    def hands_(self, round_: Round) -> str:
        shown = round_view(round_)
        hands = [h for h in shown.hands if h.cards != ()]
        if not hands:
            return EMPTY
        return _html_table(
            ["position", "cards dealt", "high hand", "low hand", "set by"],
            ([self._position_label(shown, h.position), HIDDEN] + [""] * 3
             if h.hidden else
             [self._position_label(shown, h.position), cards_shown(h.cards or ()),
              cards_shown(h.high) if h.high else EMPTY, cards_shown(h.low) if h.low else EMPTY,
              h.set_by_words or EMPTY] for h in hands))

    def _position_label(self, shown: RoundView, position: str) -> str:
        label = "Dealer" if position == "dealer" else f"Seat {position}"
        return f"{label} (bank)" if position == shown.banker_position else label

    @admin.display(description="positions")
    def settlement_positions(self, round_: Round) -> str:
        shown = round_view(round_)
        settled = shown.settlement
        if settled is None:
            return "not settled"
        cur = shown.currency
        return _html_table(
            ["position", "wager", "outcome", "high / low", "won (+) or lost (-)", "commission",
             "fee", "net"],
            ([self._position_label(shown, p.position), money_shown(p.party.wager, cur),
              Hand.Outcome(p.outcome).label, f"{p.high} / {p.low}" if p.high else EMPTY,
              money_shown(p.party.net, cur, signed=True),
              money_shown(p.party.commission, cur), money_shown(p.party.fee, cur),
              money_shown(p.party.result, cur, signed=True)] for p in settled.positions))

    @admin.display(description="bank and house")
    def settlement_bank(self, round_: Round) -> str:
        shown = round_view(round_)
        settled = shown.settlement
        if settled is None:
            return EMPTY
        cur = shown.currency
        rows: list[list[Any]] = [
            [RoundParty.Role(p.role).label + (f": {p.player_name}" if p.player_name else ""),
             money_shown(p.covered, cur), money_shown(p.won, cur), money_shown(p.paid, cur),
             money_shown(p.net, cur, signed=True), money_shown(p.commission, cur),
             money_shown(p.fee, cur), money_shown(p.result, cur, signed=True)]
            for p in settled.parties if p.role != "seat"]
        rows.append([f"{RoundParty.Role.HOUSE.label}: commission income", EMPTY, EMPTY,
                     EMPTY, EMPTY, money_shown(settled.commission_income, cur), EMPTY, EMPTY])
        return _html_table(["", "covered", "won", "paid", "net", "commission", "fee",
                            "result"], rows)

    @admin.display(description="events")
    def story(self, round_: Round) -> str:
        shown = round_view(round_)
        if not shown.events:
            return EMPTY
        return _html_table(["at", "by", "what", ""],
                           ([casino_time_text(e.at), e.by, e.kind,
                             event_shown(e.data, shown.currency)] for e in shown.events))

    @admin.display(description="ledger entries")
    def ledger_entries(self, round_: Round) -> str:
        links = []
        if round_.entry_id is not None:
            links.append(_admin_link("admin:ledger_entry_change", round_.entry_id,
                                     f"settlement: entry #{round_.entry_id}"))
        if round_.reversal_entry_id is not None:
            links.append(_admin_link("admin:ledger_entry_change", round_.reversal_entry_id,
                                     f"reversal: entry #{round_.reversal_entry_id}"))
        if not links:
            settled = round_.state in Round.State.PLAYED
            return "none: every hand pushed, no money moved" if settled else EMPTY
        return format_html_join(", ", "{}", ((link,) for link in links))

    @admin.display(description="settings")
    def rules_(self, round_: Round) -> str:
        rules = dict(round_.rules)
        for limit in ("min_bet", "max_bet"):
            if limit in rules:
                rules[limit] = money_shown(rules[limit], round_.currency)
        return _html_table(["setting", "value"], sorted(rules.items()))

    # --- actions -------------------------------------------------------------------------

    @admin.action(description="Void selected rounds", permissions=["void"])
    def void_selected(self, request: HttpRequest,
                      queryset: QuerySet[Round]) -> HttpResponse | None:
        return self._with_reason(request, queryset, action="void_selected", verb="void",
                                 done="voided", service=services.round_void,
                                 trace="round_void")

    @admin.action(description="Reverse selected rounds", permissions=["reverse"])
    def reverse_selected(self, request: HttpRequest,
                         queryset: QuerySet[Round]) -> HttpResponse | None:
        return self._with_reason(request, queryset, action="reverse_selected", verb="reverse",
                                 done="reversed", service=_round_reverse_submit,
                                 trace="rounds.reverse")

    def _with_reason(self, request: HttpRequest, queryset: QuerySet[Round], *, action: str,
                     verb: str, done: str, service: Callable[..., Any],
                     trace: str) -> HttpResponse | None:
        """Ask for a reason on a confirmation page, then call the service for each round;
        a refusal (a round in the wrong state) is reported for that round and the others
        go on; each refusal is also recorded as a refusal of ``trace``
        (casino.shared.refusals). A request filed for a second person's approval is
        reported as waiting."""
        rounds = list(queryset.select_related("table").order_by("pk"))
        form = ReasonForm(request.POST if request.POST.get("post") == "yes" else None)
        if form.is_valid():
            reason = form.cleaned_data["reason"]
            for round_ in rounds:
                try:
                    result = service(round_id=round_.pk, reason=reason, by=staff_user(request))
                except DomainError as exc:
                    self.message_user(request, f"{round_} was not {done}: {exc.message}",
                                      messages.ERROR)
                    refusal_trace_request(request, exc, action=trace,
                                          ref=f"round:{round_.pk}")
                else:
                    approval = getattr(result, "approval", None)
                    if approval is not None:
                        self.message_user(request, f"{round_} waits for a second person's "
                                          f"approval (request #{approval.pk}).",
                                          messages.WARNING)
                    else:
                        self.message_user(request, f"{round_} {done}.", messages.SUCCESS)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": f"{verb.capitalize()} {len(rounds)} round{'s' if len(rounds) != 1 else ''}",
            "opts": self.model._meta,
            "rounds": rounds,
            "form": form,
            "action": action,
            "verb": verb,
            "done": done,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "media": self.media,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "admin/rounds/round/action_with_reason.html", context)


def _round_reverse_submit(*, round_id: int, reason: str, by: Any) -> approvals.Submitted:
    # The same dual control as the API's reversal (casino.shared.approvals).
    return approvals.action_submit(action=REVERSE, params={"round_id": round_id,
                                                           "reason": reason}, by=by)


# Tables' admin lives beside this one; importing it registers it with the site.
from rounds import admin_drop, admin_tables  # noqa: E402, F401
