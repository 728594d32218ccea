"""Pages of the chat app."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from memory_core.selectors import memory_list
from memory_core.services import namespace_for_user


@login_required
def home(request: HttpRequest) -> HttpResponse:
    namespace = namespace_for_user(user=request.user)
    current = memory_list(actor=request.user, current_only=True)
    return render(
        request,
        "chat/home.html",
        {
            "namespace": namespace,
            "memory_count": current.count(),
            "recent": current[:20],
            "offline_mode": not settings.OPENAI_API_KEY,
        },
    )
