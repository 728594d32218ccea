"""`config.server.Worker`: uvicorn on uvloop and httptools when they import, else on asyncio and h11."""

from __future__ import annotations

import sys

from config.server import Worker, compiled_kwargs


def test_the_compiled_loop_and_parser_when_installed():
    assert compiled_kwargs() == {"loop": "uvloop", "http": "httptools"}  # requirements.txt pins both
    assert Worker.CONFIG_KWARGS == {"loop": "uvloop", "http": "httptools", "lifespan": "on"}


def test_asyncio_and_h11_without_them(monkeypatch):
    monkeypatch.setitem(sys.modules, "uvloop", None)  # `import uvloop` then raises ImportError
    assert compiled_kwargs() == {"loop": "asyncio", "http": "httptools"}

    monkeypatch.setitem(sys.modules, "httptools", None)
    assert compiled_kwargs() == {"loop": "asyncio", "http": "h11"}
