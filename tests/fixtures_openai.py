"""The `openai_server` fixture: a scripted OpenAI-protocol server the app's settings point at."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.openai_server import ScriptedOpenAIServer


@pytest.fixture
def openai_server(settings) -> Iterator[ScriptedOpenAIServer]:
    """Starts a fresh server and points the LLM settings at it; short timeout, two retries."""
    server = ScriptedOpenAIServer().start()
    settings.OPENAI_API_KEY = "test-key"
    settings.OPENAI_BASE_URL = server.base_url
    settings.LLM_TIMEOUT_SECONDS = 1.0
    settings.LLM_MAX_RETRIES = 2
    try:
        yield server
    finally:
        server.stop()
