"""A form's or a button's target written once: ``{% post_to 'console:round-deal' r.pk %}``
gives ``action="/rounds/7/deal/" hx-post="/rounds/7/deal/"``, so a form works without the
script (a plain post) and with it (htmx swaps the screen), from one URL name."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()


@register.simple_tag
def post_to(view_name: str, *args: Any) -> SafeString:
    """On a ``<form>``: where it posts, as a page and for htmx."""
    return format_html('action="{0}" hx-post="{0}"', reverse(view_name, args=args))


@register.simple_tag
def button_post_to(view_name: str, *args: Any) -> SafeString:
    """On a submit button that posts its form elsewhere than the form's own target."""
    return format_html('formaction="{0}" hx-post="{0}"', reverse(view_name, args=args))
