"""The site's routes as the URLconf declares them, with the HTTP methods each one answers, so that
authorization matrices are checked against the routes that exist instead of a list kept by hand.

DRF views declare their methods (a handler per method); function views guarded by Django's
`require_GET` / `require_POST` / `require_http_methods` are asked: a method they refuse is a 405.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.urls.converters import IntConverter, StringConverter, UUIDConverter
from rest_framework.views import APIView

# What a route might answer; HEAD and OPTIONS follow GET and the framework, not the view.
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


@dataclass(frozen=True)
class Route:
    name: str  # the view name, namespaced ("privacy:index", "api-memories"); "" for an unnamed route
    route: str  # the full route, e.g. "me/memories/<uuid:memory_id>/correct/"
    callback: Any
    converters: dict[str, Any]

    @property
    def view_class(self) -> type | None:
        return getattr(self.callback, "cls", None) or getattr(self.callback, "view_class", None)

    def placeholder_url(self) -> str:
        """The route with made-up ids: a uuid, 1 or "x" for each parameter, by its converter."""
        kwargs = {name: _placeholder(converter) for name, converter in self.converters.items()}
        return reverse(self.name, kwargs=kwargs)


def _placeholder(converter: Any) -> Any:
    if isinstance(converter, UUIDConverter):
        return uuid.uuid4()
    if isinstance(converter, IntConverter):
        return 1
    if isinstance(converter, StringConverter):
        return "x"
    raise AssertionError(f"No placeholder for the converter {type(converter).__name__}: add one here.")


def routes() -> Iterator[Route]:
    """Every route of the root URLconf."""
    yield from _walk(get_resolver().url_patterns, prefix="", namespace="", converters={})


def _walk(patterns: list[Any], *, prefix: str, namespace: str, converters: dict[str, Any]) -> Iterator[Route]:
    for pattern in patterns:
        found = {**converters, **pattern.pattern.converters}
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from _walk(pattern.url_patterns, prefix=route, namespace=inner, converters=found)
        elif isinstance(pattern, URLPattern):
            yield Route(namespace + pattern.name if pattern.name else "", route, pattern.callback, found)


def declared_methods(view_class: type[APIView]) -> set[str]:
    """The methods a DRF view has a handler for."""
    return {
        method.upper()
        for method in view_class.http_method_names
        if method.upper() in METHODS and hasattr(view_class, method)
    }


def answered_methods(client: Client, route: Route) -> set[str]:
    """The methods a route's view does not refuse with 405, asked with `client` (signed in, so that
    `login_required` lets the request through to the method check)."""
    url = route.placeholder_url()
    return {method for method in METHODS if getattr(client, method.lower())(url).status_code != 405}
