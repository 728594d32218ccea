"""The language-model client: the only module that imports `openai`.

`get_llm()` returns an `OpenAIProvider` when an API key is configured and an `OfflineProvider`
otherwise, so callers never branch on settings. Every failure leaves this module as an `LLMError`
(a `MemoryServiceError`) whose message can be shown to a person as it is.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import openai
import pydantic
from django.conf import settings
from django.utils.translation import gettext_lazy
from openai.types.chat import ChatCompletionMessageParam
from openai.types.shared_params import ResponseFormatJSONSchema

from config.tuning import tuned
from memory_core.errors import MemoryServiceError

ModelT = TypeVar("ModelT", bound=pydantic.BaseModel)

# A model that broke the schema is told what was wrong and asked once more; a second miss is an error.
LLM_JSON_ATTEMPTS = 2
MEMORIES_START = "<memories>"
MEMORIES_END = "</memories>"

# A recalled memory's prompt line (`memory_core.recall.prompt.memory_line`).
_LINE_LABEL = re.compile(r"^- \[[^\]]*?dated (?P<date>\d{4}-\d{2}-\d{2})[^\]]*\] (?P<text>.+)$")
_MEMORIES_BLOCK = re.compile(re.escape(MEMORIES_START) + r"(.*?)" + re.escape(MEMORIES_END), re.S)

# Said in the active language (locale/*/LC_MESSAGES/django.po); the chat activates the user's.
OFFLINE_PREAMBLE = gettext_lazy(
    "I am running without a language model (offline mode), so I cannot compose a real answer."
)
OFFLINE_WITH_MEMORIES = gettext_lazy("Here is what I remember that seems relevant:")
OFFLINE_WITHOUT_MEMORIES = gettext_lazy("I don't have any memories that seem relevant.")


class LLMError(MemoryServiceError):
    """The language model could not give a usable answer."""

    status_code = 502
    code = "llm_error"


class LLMTimeout(LLMError):
    status_code = 504
    code = "llm_timeout"


class LLMUnavailable(LLMError):
    """Rate-limited, failing (5xx) or unreachable, and the client's bounded retries ran out."""

    status_code = 503
    code = "llm_unavailable"


class LLMOutputError(LLMError):
    """The model answered, but not with JSON matching the requested schema, on every attempt."""

    status_code = 502
    code = "llm_bad_output"


class OfflineMode(LLMError):
    """No API key: the feature needs a language model; callers fall back to their offline path."""

    status_code = 503
    code = "offline"


@dataclass
class ChatResult:
    text: str
    model: str
    offline: bool
    usage: dict[str, Any] | None


class OpenAIProvider:
    """Chat, structured output and embeddings from any OpenAI-compatible endpoint."""

    offline = False

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None,
        timeout: float,
        max_retries: int,
        chat_model: str,
        extraction_model: str,
        json_attempts: int,
    ) -> None:
        self.timeout = timeout
        self.max_retries = max_retries
        self.chat_model = chat_model
        self.extraction_model = extraction_model
        # At least one attempt, whatever the setting says.
        self.json_attempts = max(1, json_attempts)
        self.client = _client(api_key, base_url, timeout, max_retries)

    @classmethod
    def from_settings(cls) -> OpenAIProvider:
        return cls(
            api_key=settings.OPENAI_API_KEY,
            base_url=settings.OPENAI_BASE_URL or None,
            timeout=float(settings.LLM_TIMEOUT_SECONDS),
            max_retries=int(settings.LLM_MAX_RETRIES),
            chat_model=settings.CHAT_MODEL,
            extraction_model=settings.EXTRACTION_MODEL,
            json_attempts=int(tuned("LLM_JSON_ATTEMPTS", LLM_JSON_ATTEMPTS)),
        )

    @property
    def name(self) -> str:
        return f"openai:{self.chat_model}"

    def chat(
        self, messages: list[dict[str, Any]], *, model: str | None = None, temperature: float = 0.3
    ) -> ChatResult:
        model = model or self.chat_model
        try:
            completion = self.client.chat.completions.create(
                model=model,
                messages=_as_params(messages),
                temperature=temperature,
            )
        except (openai.OpenAIError, ValueError) as exc:
            raise self._translate(exc) from exc
        if not completion.choices:
            raise LLMOutputError("The language model returned no answer.")
        return ChatResult(
            text=completion.choices[0].message.content or "",
            model=completion.model or model,
            offline=False,
            usage=completion.usage.model_dump(exclude_none=True) if completion.usage else None,
        )

    def stream_chat(self, messages: list[dict[str, Any]], *, model: str | None = None) -> Iterator[str]:
        model = model or self.chat_model
        try:
            stream = self.client.chat.completions.create(
                model=model,
                messages=_as_params(messages),
                stream=True,
            )
            # `with` closes the HTTP response even when the consumer stops early.
            with stream:
                for chunk in stream:
                    if chunk.choices and chunk.choices[0].delta.content:
                        yield chunk.choices[0].delta.content
        except (openai.OpenAIError, ValueError) as exc:
            raise self._translate(exc) from exc

    def complete_json(
        self,
        messages: list[dict[str, Any]],
        *,
        response_model: type[ModelT],
        model: str | None = None,
    ) -> ModelT:
        model = model or self.extraction_model
        schema_name = re.sub(r"[^a-zA-Z0-9_-]", "_", response_model.__name__)[:64]
        response_format: ResponseFormatJSONSchema = {
            "type": "json_schema",
            # Not strict: strict mode rejects common pydantic schemas (defaults, optional fields);
            # pydantic validates the answer below instead.
            "json_schema": {
                "name": schema_name,
                "schema": response_model.model_json_schema(),
                "strict": False,
            },
        }
        conversation = list(messages)
        problem = ""
        for attempt in range(1, self.json_attempts + 1):
            try:
                completion = self.client.chat.completions.create(
                    model=model,
                    messages=_as_params(conversation),
                    response_format=response_format,
                    temperature=0,
                )
            except (openai.OpenAIError, ValueError) as exc:
                raise self._translate(exc) from exc
            content = completion.choices[0].message.content if completion.choices else None
            try:
                return response_model.model_validate_json(_strip_code_fence(content or ""))
            except pydantic.ValidationError as exc:
                problem = _describe_validation_error(exc)
            if attempt < self.json_attempts:
                # Showing the model its own answer and what was wrong fixes most slips on one retry.
                conversation = [
                    *conversation,
                    {"role": "assistant", "content": content or ""},
                    {
                        "role": "user",
                        "content": f"That answer was not usable ({problem}). Reply again with only a JSON "
                        "object that matches the requested schema, with no other text.",
                    },
                ]
        raise LLMOutputError(
            f"The language model did not return usable {response_model.__name__} data after "
            f"{self.json_attempts} attempt{'s' if self.json_attempts != 1 else ''} ({problem})."
        )

    def embed(self, texts: list[str], *, model: str, dimensions: int) -> list[list[float]]:
        if not texts:
            return []
        try:
            response = self.client.embeddings.create(model=model, input=texts, dimensions=dimensions)
        except (openai.OpenAIError, ValueError) as exc:
            raise self._translate(exc) from exc
        items = sorted(response.data, key=lambda item: item.index)
        if len(items) != len(texts):
            raise LLMOutputError(
                f"The embedding endpoint returned {len(items)} vectors for {len(texts)} texts."
            )
        vectors = [[float(x) for x in item.embedding] for item in items]
        wrong = next((len(vector) for vector in vectors if len(vector) != dimensions), None)
        if wrong is not None:
            # Often a model with another native size on an endpoint that ignores `dimensions`.
            raise LLMOutputError(
                f"The embedding endpoint returned vectors that are not {dimensions} numbers long "
                f"for model {model!r} (got {wrong}): set EMBEDDING_MODEL to a model that gives "
                f"{dimensions} dimensions (see docs/languages.md)."
            )
        return vectors

    def _translate(self, exc: openai.OpenAIError | ValueError) -> LLMError:
        """One place that turns the openai package's exceptions into ours, after its retries ran out.

        A ValueError is the client failing to decode an HTTP 200 body (an HTML page from a proxy,
        a truncated answer): the service answered, but not in the protocol.
        """
        if not isinstance(exc, openai.OpenAIError):
            return LLMOutputError(
                "The language model service answered with something that is not a valid API response "
                "(not JSON); check OPENAI_BASE_URL and any proxy in between."
            )
        attempts = 1 + self.max_retries
        tried = f"{attempts} attempt{'s' if attempts != 1 else ''}"
        # APITimeoutError subclasses APIConnectionError, so it is checked first.
        if isinstance(exc, openai.APITimeoutError):
            return LLMTimeout(f"The language model did not answer within {self.timeout:g} s ({tried}).")
        if isinstance(exc, openai.APIConnectionError):
            return LLMUnavailable(f"The language model service could not be reached ({tried}).")
        if isinstance(exc, openai.RateLimitError):
            return LLMUnavailable(
                f"The language model service is rate-limiting requests (HTTP 429, {tried}); try again later."
            )
        if isinstance(exc, openai.APIStatusError):
            if exc.status_code >= 500:
                return LLMUnavailable(
                    f"The language model service is failing (HTTP {exc.status_code}, {tried}); "
                    "try again later."
                )
            return LLMError(
                f"The language model service refused the request (HTTP {exc.status_code}): "
                f"{_server_message(exc)}"
            )
        return LLMError(f"The language model client failed: {exc}")


class OfflineProvider:
    """Stands in when no API key is set: honest templated replies, no structured output."""

    offline = True
    name = "offline"

    def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        model: str | None = None,
        temperature: float = 0.3,
        notice: bool = True,
    ) -> ChatResult:
        """`notice`: open with the offline notice (a conversation says it once, on its first reply)."""
        return ChatResult(
            text=self._reply(messages, notice=notice), model="offline", offline=True, usage=None
        )

    def stream_chat(
        self, messages: list[dict[str, Any]], *, model: str | None = None, notice: bool = True
    ) -> Iterator[str]:
        # Line by line, so a streaming page behaves the same online and offline.
        yield from self._reply(messages, notice=notice).splitlines(keepends=True)

    def complete_json(
        self,
        messages: list[dict[str, Any]],
        *,
        response_model: type[ModelT],
        model: str | None = None,
    ) -> ModelT:
        raise OfflineMode(
            "Structured extraction needs a language model; the rule-based extractor is used offline."
        )

    def embed(self, texts: list[str], *, model: str, dimensions: int) -> list[list[float]]:
        raise OfflineMode(
            "Embeddings from the API need a language model key; use the local embedding backend offline."
        )

    @staticmethod
    def _reply(messages: list[dict[str, Any]], *, notice: bool = True) -> str:
        # The labels in front of each line are for a model ("[fact, dated …, source: …]"): a person
        # reads the statement and its date, in whatever language the reply is in.
        lines = [_LINE_LABEL.sub(r"- \g<text> (\g<date>)", line) for line in _memory_lines(messages)]
        preamble = f"{OFFLINE_PREAMBLE}\n\n" if notice else ""
        if not lines:
            return f"{preamble}{OFFLINE_WITHOUT_MEMORIES}"
        return f"{preamble}{OFFLINE_WITH_MEMORIES}\n" + "\n".join(lines)


LLMProvider = OpenAIProvider | OfflineProvider


def get_llm() -> LLMProvider:
    """The provider the current settings ask for; cheap, since the HTTP client itself is shared."""
    if settings.OPENAI_API_KEY:
        return OpenAIProvider.from_settings()
    return OfflineProvider()


@functools.lru_cache(maxsize=8)
def _client(api_key: str, base_url: str | None, timeout: float, max_retries: int) -> openai.OpenAI:
    # Shared per configuration so connections are pooled; keyed on every setting, so a change
    # (or a test's `settings` fixture) gets a fresh client. The package's own retries are
    # bounded by max_retries, back off exponentially (0.5 s doubling, at most 8 s, with jitter)
    # and honour retry-after-ms / Retry-After on 408/409/429/5xx, timeouts and connection errors.
    return openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries)


def _as_params(messages: list[dict[str, Any]]) -> list[ChatCompletionMessageParam]:
    # Callers build plain {"role": ..., "content": ...} dicts; the server validates them.
    return cast(list[ChatCompletionMessageParam], messages)


def _server_message(exc: openai.APIStatusError) -> str:
    # The client puts the body's "error" object in exc.body; its "message" is what the server meant.
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("message"), str) and body["message"]:
        return body["message"]
    if isinstance(body, str) and body.strip():
        return body.strip()[:300]
    return exc.message


def _strip_code_fence(content: str) -> str:
    # Some OpenAI-compatible servers wrap JSON in a Markdown fence despite response_format.
    match = re.fullmatch(r"\s*```(?:json)?\s*(.*?)\s*```\s*", content, re.S)
    return match.group(1) if match else content


def _describe_validation_error(exc: pydantic.ValidationError) -> str:
    errors = exc.errors(include_url=False)
    if errors and errors[0]["type"] == "json_invalid":
        return f"not valid JSON: {errors[0]['msg'].removeprefix('Invalid JSON: ')}"
    details = [
        f"{'.'.join(str(part) for part in error['loc']) or 'answer'}: {error['msg']}" for error in errors[:3]
    ]
    more = f" and {len(errors) - 3} more" if len(errors) > 3 else ""
    return "does not match the schema: " + "; ".join(details) + more


def _memory_lines(messages: list[dict[str, Any]]) -> list[str]:
    """The non-blank lines between <memories> and </memories> in the system messages."""
    lines: list[str] = []
    for message in messages:
        content = message.get("content")
        if message.get("role") != "system" or not isinstance(content, str):
            continue
        for block in _MEMORIES_BLOCK.findall(content):
            lines.extend(line.strip() for line in block.splitlines() if line.strip())
    return lines
