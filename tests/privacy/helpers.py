"""The list at /me/ as a user sees it with its rows opened: a closed row carries only its statement
and tags, and opening it loads its body (source, use, history, actions) with htmx."""

from __future__ import annotations

import re

from django.test import Client

_ROW_BODY = re.compile(r'hx-get="(/me/memories/[0-9a-f-]+/row/)"')


def opened(client: Client, html: str) -> str:
    """`html` (a page of the list) followed by the body of each of its rows, fetched as htmx does."""
    bodies = [
        client.get(url, headers={"HX-Request": "true"}).content.decode() for url in _ROW_BODY.findall(html)
    ]
    return html + "".join(bodies)
