"""The /me/tokens/ page: a person makes, lists and revokes their own personal tokens (for an MCP
client, a script, mem0's client) without an operator. The secret is in the answer to the form
that made it, once, never stored or put in a session; the same services as `/api/v1/tokens/`."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from api.models import personal_scopes
from api.services import (
    MAX_ACTIVE_TOKENS,
    TOKEN_NAME_MAX_CHARS,
    IssuedToken,
    user_token_create,
    user_token_revoke_own,
    user_tokens_of,
)
from memory_core.errors import Conflict, MemoryServiceError, NotFound

# The expiries offered, in days (0: never), the first the default.
EXPIRIES = [
    (90, gettext_lazy("In 90 days")),
    (30, gettext_lazy("In 30 days")),
    (365, gettext_lazy("In a year")),
    (0, gettext_lazy("Never")),
]

# The scopes in the page's words (the table and the reasons a form is refused).
SCOPE_WORDS = {
    "read": pgettext_lazy("token scope", "read"),
    "write": pgettext_lazy("token scope", "write"),
    "erase": pgettext_lazy("token scope", "erase"),
}


def _error_text(exc: MemoryServiceError) -> str:
    """Why the form was refused, in the page's language. The services answer in English (as the
    REST API does); the reasons the page can meet are said again here, any other as it came."""
    if isinstance(exc, Conflict):
        return _("At most %(n)d active tokens: revoke one you no longer use.") % {"n": MAX_ACTIVE_TOKENS}
    if not exc.field_errors:
        return exc.message
    reasons = {
        "name": _("Give it a name of 1-%(n)d characters (the client using it).")
        % {"n": TOKEN_NAME_MAX_CHARS},
        "scopes": _("Choose among %(scopes)s.") % {"scopes": _scope_words(personal_scopes())},
        "expires_at": _("Must be in the future."),
    }
    details = [reasons.get(field, " ".join(errors)) for field, errors in exc.field_errors.items()]
    text = _("Invalid token request.")
    for detail in details:  # a space between sentences in English, none in Chinese
        then = pgettext("one sentence after another", "%(before)s %(after)s")
        text = then % {"before": text, "after": detail}
    return text


def _scope_words(scopes: list[str]) -> str:
    words = [str(SCOPE_WORDS.get(scope, scope)) for scope in scopes]
    return pgettext("between token scopes", ", ").join(words)


def _snippets(request: HttpRequest, issued: IssuedToken) -> dict[str, str]:
    """Configuration for common clients, ready to paste, with the new secret in it."""
    mcp = request.build_absolute_uri("/mcp/")
    site = request.build_absolute_uri("/").rstrip("/")
    bearer = f"Authorization: Bearer {issued.key}"
    headers = {"Authorization": f"Bearer {issued.key}"}
    cursor = {"mcpServers": {"memory": {"url": mcp, "headers": headers}}}
    vscode = {"servers": {"memory": {"type": "http", "url": mcp, "headers": headers}}}
    # Claude Desktop starts local servers only: `mcp-remote` bridges it to the HTTP endpoint.
    bridged = {"mcpServers": {"memory": {"command": "npx", "args": ["mcp-remote", mcp, "--header", bearer]}}}
    return {
        "Claude Code": f'claude mcp add --transport http memory {mcp} --header "{bearer}"',
        "Cursor (.cursor/mcp.json)": json.dumps(cursor, indent=2),
        "VS Code (.vscode/mcp.json)": json.dumps(vscode, indent=2),
        "Claude Desktop (claude_desktop_config.json)": json.dumps(bridged, indent=2),
        _("mem0's Python client"): (
            f'from mem0 import MemoryClient\nclient = MemoryClient(api_key="{issued.key}", host="{site}")'
        ),
    }


def _render(request: HttpRequest, **context: Any) -> HttpResponse:
    context = {
        "tokens": list(user_tokens_of(user=request.user)),
        "scopes": personal_scopes(),
        "expiries": EXPIRIES,
        "form": {"name": "", "scopes": ["read", "write"], "expires": EXPIRIES[0][0]},
        **context,
    }
    response = render(request, "api/tokens.html", context, status=context.pop("status", 200))
    response["Cache-Control"] = "no-store"  # the page may hold a secret
    return response


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return _render(request)
    name = request.POST.get("name", "")
    scopes = request.POST.getlist("scopes")
    try:
        days = int(request.POST.get("expires", EXPIRIES[0][0]))
    except ValueError:
        days = -1
    form = {"name": name, "scopes": scopes, "expires": days}
    if days not in {d for d, _label in EXPIRIES}:
        return _render(request, form=form, error=_("Choose when it expires."), status=400)
    expires_at = timezone.now() + timedelta(days=days) if days else None
    try:
        issued = user_token_create(user=request.user, name=name, scopes=scopes, expires_at=expires_at)
    except MemoryServiceError as exc:
        return _render(request, form=form, error=_error_text(exc), status=400)
    return _render(request, issued=issued, snippets=_snippets(request, issued), status=201)


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        token = user_token_revoke_own(user=request.user, token_id=token_id)
    except NotFound as exc:
        raise Http404(exc.message) from exc
    messages.success(
        request, _("Revoked %(name)s: it no longer works.") % {"name": token.name or token.prefix}
    )
    return redirect(reverse("api-pages:tokens"))
