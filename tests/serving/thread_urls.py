"""Views that tell which thread served them, for tests/serving/test_request_threads.py."""

from __future__ import annotations

import sys
import threading

from django.http import HttpRequest, JsonResponse
from django.urls import path

# Set by the tests: a view waits on it (a request whose work outlives it), or on the barrier (two
# requests at once, each on its own thread).
release = threading.Event()
held: list[int] = []  # the threads of the views waiting for `release`
pair = threading.Barrier(2, timeout=10)


def _thread(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"thread": threading.get_ident(), "middleware": request.middleware_thread})


def _stack(request: HttpRequest) -> JsonResponse:
    """The functions the view was called through, innermost first."""
    frame, names = sys._getframe(), []
    while frame is not None:
        names.append(frame.f_code.co_qualname)
        frame = frame.f_back
    return JsonResponse({"stack": names})


def _held(request: HttpRequest) -> JsonResponse:
    held.append(threading.get_ident())
    release.wait(timeout=30)
    return _thread(request)


def _paired(request: HttpRequest) -> JsonResponse:
    pair.wait()
    return _thread(request)


urlpatterns = [
    path("thread/", _thread),
    path("stack/", _stack),
    path("held/", _held),
    path("paired/", _paired),
]


class RecordThread:
    """Notes the thread the sync middleware ran on (it must be the view's)."""

    def __init__(self, get_response):  # type: ignore[no-untyped-def]
        self.get_response = get_response

    def __call__(self, request: HttpRequest):  # type: ignore[no-untyped-def]
        request.middleware_thread = threading.get_ident()  # type: ignore[attr-defined]
        return self.get_response(request)
