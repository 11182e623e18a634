"""Page-numbered lists, and their shape in the schema for views that paginate by hand."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination


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
