"""FieldsOnceOut: an output serializer's fields built once per class and thread, each
instance rendering with its own context, methods and nested rows."""

from __future__ import annotations

import threading

import pytest
from rest_framework import serializers

from casino.shared.api.serializers import FieldsOnceOut


class LineOut(FieldsOnceOut):
    name = serializers.CharField()
    shown = serializers.SerializerMethodField()

    def get_shown(self, line: dict) -> str:
        # Reads the context through the field's parent, as MoneyOut reads the currency.
        return f"{line['name']} in {self.context['unit']}"


class SheetOut(FieldsOnceOut):
    title = serializers.CharField()
    lines = LineOut(many=True)
    unit = serializers.SerializerMethodField()

    def get_unit(self, sheet: dict) -> str:
        return self.context["unit"]


def sheet(title: str, *names: str) -> dict:
    return {"title": title, "lines": [{"name": n} for n in names]}


def test_each_instance_renders_with_its_own_context_though_the_fields_are_shared():
    # given two answers made before either renders, each with its own context
    first = SheetOut(sheet("one", "a", "b"), context={"unit": "EUR"})
    second = SheetOut(sheet("two", "c"), context={"unit": "JPY"})

    # when the second renders first, and then the first
    second_data, first_data = second.data, first.data

    # then each answer is its own, down to the nested rows' methods
    assert first_data == {"title": "one", "unit": "EUR",
                          "lines": [{"name": "a", "shown": "a in EUR"},
                                    {"name": "b", "shown": "b in EUR"}]}
    assert second_data == {"title": "two", "unit": "JPY",
                           "lines": [{"name": "c", "shown": "c in JPY"}]}
    # and the fields were built once for both
    assert first.fields["title"] is second.fields["title"]


def test_a_nested_class_rendered_on_its_own_in_between_does_not_disturb_the_next_answer():
    assert SheetOut(sheet("one", "a"), context={"unit": "EUR"}).data["unit"] == "EUR"
    assert LineOut({"name": "x"}, context={"unit": "GBP"}).data == {"name": "x",
                                                                    "shown": "x in GBP"}
    again = SheetOut(sheet("two", "b"), context={"unit": "USD"}).data
    assert again["lines"] == [{"name": "b", "shown": "b in USD"}]


def test_every_thread_builds_its_own_fields():
    here = SheetOut(sheet("one"), context={"unit": "EUR"}).fields["title"]
    there: list[object] = []
    thread = threading.Thread(target=lambda: there.append(
        SheetOut(sheet("two"), context={"unit": "EUR"}).fields["title"]))
    thread.start()
    thread.join()
    assert there and there[0] is not here


def test_an_output_serializer_validates_nothing():
    with pytest.raises(TypeError):
        SheetOut(data={"title": "x", "lines": []}).is_valid()
