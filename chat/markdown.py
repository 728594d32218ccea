"""Replies rendered as safe markdown: markdown-it-py (CommonMark, raw HTML off) then nh3, which keeps
only the tags and attributes below and links to http(s) and mailto. The model's text is untrusted
(it may repeat what a web page or a user told it), so both steps apply to every reply."""

from __future__ import annotations

from functools import lru_cache

import nh3
from markdown_it import MarkdownIt

ALLOWED_TAGS = {
    "p", "br", "strong", "em", "del", "code", "pre", "blockquote", "ul", "ol", "li", "a",
    "h1", "h2", "h3", "h4", "h5", "h6", "hr", "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
# No style attributes: the Content-Security-Policy refuses inline styles.
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
URL_SCHEMES = {"http", "https", "mailto"}


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # "breaks": a single newline stays a line break, as people type in a chat.
    return MarkdownIt("commonmark", {"html": False, "breaks": True}).enable(["table", "strikethrough"])


def render_markdown(text: str) -> str:
    """Sanitised HTML for `text` (markdown): safe to insert into a page as is."""
    html = _parser().render(text or "")
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
    )
