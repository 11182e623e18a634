"""Page-numbered lists, and their shape in the schema for views that paginate by hand."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


class Pagination(PageNumberPagination):
    """Page-numbered lists; clients may ask for up to 500 rows a page."""

    page_size_query_param = "page_size"
    max_page_size = 500


# What drf-spectacular documents by itself for a generic list view; an APIView that calls
# Pagination itself names these, or its schema would promise a bare array.
PAGE_PARAMETERS = [
    OpenApiParameter("page", OpenApiTypes.INT, description="A page number, from 1."),
    OpenApiParameter("page_size", OpenApiTypes.INT,
                     description=f"Rows a page (at most {Pagination.max_page_size})."),
]


def paginated(item: serializers.Serializer, name: str) -> serializers.Serializer:
    """The schema of one page of ``item`` rows: ``{"count", "next", "previous", "results"}``."""
    return inline_serializer(name, {
        "count": serializers.IntegerField(),
        "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True),
        "results": item,
    })


def page_response(request: Request, view: APIView, rows: QuerySet[Any],
                  render: Callable[[Any], Any]) -> Response:
    """The page of ``rows`` the request asks for, each row rendered by ``render`` (an
    output class with the row's own context: its currency, the request for links)."""
    paginator = Pagination()
    page = paginator.paginate_queryset(rows, request, view=view)
    assert page is not None  # Pagination always has a page size
    return paginator.get_paginated_response([render(row) for row in page])
