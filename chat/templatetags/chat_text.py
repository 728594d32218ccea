"""Template filters of the chat: `markdown` renders a reply as sanitised HTML (chat.markdown);
`failure` says why a reply failed in the reader's language (chat.failures)."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from chat.failures import failure_label
from chat.markdown import render_markdown

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text: str) -> SafeString:
    # Safe: render_markdown escapes the text (raw HTML is off) and nh3 keeps only a short allow-list.
    return mark_safe(render_markdown(str(text)))  # noqa: S308


@register.filter(name="failure")
def failure_filter(reason: str) -> str:
    return failure_label(str(reason or ""))
