"""Cross-language recall: the query translated into the other language of the user's memories.

Off by default (`RECALL_TRANSLATE_QUERY`); docs/languages.md has what it does and what it costs."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.conf import settings

from config.tuning import tuned
from memory_core import embedding_coverage, lexical, process_caches
from memory_core.language import CJK_CLASS, is_chinese
from memory_core.llm import LLMError, OpenAIProvider
from memory_core.models import MemoryEntry, MemoryStatus
from memory_core.recall import candidates, scoring
from memory_core.recall.types import QuerySignals, RecalledMemory

logger = logging.getLogger(__name__)

LANGUAGE_NAMES = {"zh": "Simplified Chinese", "en": "English"}
_PROMPT = (
    "Translate the user's message into {language}. It is a question or request to a personal "
    "assistant that is searching its memories of the user. Answer with the translation only: no "
    "quotes, no notes, no answer to the question."
)
_CACHE_SIZE = 1024


@dataclass(frozen=True)
class Translation:
    text: str
    embedding: list[float]
    language: str  # "zh" or "en"


class _Cache:
    """Translations by (model, target language, query): a repeated question costs no model call."""

    def __init__(self) -> None:
        self._items: OrderedDict[tuple[str, str, str], str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str, str]) -> str | None:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
            return self._items.get(key)

    def put(self, key: tuple[str, str, str], value: str) -> None:
        with self._lock:
            self._items[key] = value
            while len(self._items) > _CACHE_SIZE:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)


cache = _Cache()
process_caches.register(cache.clear, cache.__len__)


def enabled() -> bool:
    return bool(settings.RECALL_TRANSLATE_QUERY) and bool(settings.OPENAI_API_KEY)


def _languages_present(namespace_ids: list[int]) -> set[str]:
    """Which of Chinese / other the scope's current memories are written in (two EXISTS queries)."""
    scope = MemoryEntry.objects.filter(namespace_id__in=namespace_ids, status=MemoryStatus.ACTIVE)
    present = set()
    if scope.filter(content__regex=CJK_CLASS).exists():
        present.add("zh")
    if scope.exclude(content__regex=CJK_CLASS).exists():
        present.add("en")
    return present


# A recall waits this long for the translation at most, then goes on with the plain query.
RECALL_TRANSLATE_TIMEOUT_SECONDS = 3.0


def _provider() -> OpenAIProvider:
    # Its own short deadline and no retries: a slow model must not hold the recall up.
    return OpenAIProvider(
        api_key=settings.OPENAI_API_KEY,
        base_url=settings.OPENAI_BASE_URL or None,
        timeout=float(tuned("RECALL_TRANSLATE_TIMEOUT_SECONDS", RECALL_TRANSLATE_TIMEOUT_SECONDS)),
        max_retries=0,
        chat_model=settings.CHAT_MODEL,
        extraction_model=settings.EXTRACTION_MODEL,
        json_attempts=1,
    )


def translate(text: str, *, target: str) -> str:
    """`text` in `target` ("zh" or "en") by the language model; LLMError when it cannot."""
    key = (settings.CHAT_MODEL, target, text)
    cached = cache.get(key)
    if cached is not None:
        return cached
    messages = [
        {"role": "system", "content": _PROMPT.format(language=LANGUAGE_NAMES[target])},
        {"role": "user", "content": text},
    ]
    result = _provider().chat(messages, temperature=0.0)
    translated = " ".join(result.text.split()).strip().strip("\"'“”「」")
    if not translated:
        raise LLMError("The language model returned an empty translation.")
    cache.put(key, translated)
    return translated


def translations(
    text: str, *, namespace_ids: list[int], embed: Callable[[str, None], list[float]]
) -> list[Translation]:
    """The query in the scope's other language, embedded; [] when off, not needed, or failed.

    Languages are told apart by script (memory_core.language): Chinese and everything else, which
    the translation calls English. One short model call per language, no retries, answers cached;
    any failure of the model leaves the plain query's results as they are."""
    if not text or not namespace_ids or not enabled():
        return []
    source = "zh" if is_chinese(text) else "en"
    targets = sorted(_languages_present(namespace_ids) - {source})
    found = []
    for target in targets:
        try:
            translated = translate(text, target=target)
        except LLMError as exc:
            # The plain query still answers; the failure is logged without the query's text.
            logger.warning("Query translation to %s failed; recalling with the query alone: %s", target, exc)
            continue
        if translated.casefold() != text.casefold():  # e.g. a name alone: nothing to translate
            found.append(Translation(translated, embed(translated, None), target))
    return found


def ranked_for(
    translation: Translation,
    *,
    scope_where: tuple[str, list[Any]] | None,
    scope_size: int,
    namespace_ids: list[int],
    k: int,
    components: frozenset[str],
    signals: QuerySignals,
    now: datetime,
) -> list[RecalledMemory]:
    """The candidates of one translation, searched and ranked as recall searches and ranks the
    query's. No always-recall search: `merge` keeps those entries as the query ranked them."""
    terms = candidates.prepare_search(translation.text)
    weights = lexical.NO_TERMS
    if "keyword" in components:
        weights = lexical.term_weights(namespace_ids=namespace_ids, terms=terms)
    search = candidates.CandidateQuery(embedding=translation.embedding, weights=weights)
    with_context = "context" in components
    found = candidates.fetch_candidates(
        scope_where, search=search, k=k, always_k=0, with_context=with_context, scope_size=scope_size
    )
    scored = scoring.score_candidates(
        found,
        # as the query's own ranking: the embedding weighs less for a language the model does not read
        weights=embedding_coverage.query_weights(scoring.recall_weights(), translation.text),
        half_life_days=scoring.recency_half_life_days(),
        now=now,
        signals=replace(signals, weights=search.weights),
    )
    entries = candidates.load_entries([candidate for candidate, _, _ in scored])
    return [
        scoring.recalled(candidate, score, parts, entry=lambda c: entries[c.pk])
        for candidate, score, parts in scored
        if candidate.pk in entries  # erased since it was found
    ]


def language_of(text: str) -> str:
    return "zh" if is_chinese(text) else "en"


def merge(
    ranked: list[RecalledMemory], extra: list[tuple[str, list[RecalledMemory]]]
) -> list[RecalledMemory]:
    """One ranking from the query's and its translations' (`(language, ranking)` pairs).

    Each memory is scored by the version of the question in its own language: a Chinese memory
    by the Chinese question, an English one by the English question, so that no memory is ranked
    by a comparison across scripts, which the default English-trained model cannot make. Pinned
    and always-recalled memories stay as the query ranked them; the order is recall's (pinned,
    other always-recalled, the rest, by score).
    """

    def tier(item: RecalledMemory) -> int:
        return 0 if item.entry.pinned else 1 if {"always", "pinned"} & set(item.reasons) else 2

    translated_into = {language for language, _ in extra}
    best: dict[Any, RecalledMemory] = {
        item.entry.pk: item
        for item in ranked
        if tier(item) < 2 or language_of(item.entry.content) not in translated_into
    }
    for language, items in extra:
        for item in items:
            if language_of(item.entry.content) != language:
                continue
            current = best.get(item.entry.pk)
            if current is None or (tier(current) == 2 and item.score > current.score):
                reasons = (*current.reasons, *item.reasons) if current is not None else item.reasons
                best[item.entry.pk] = replace(item, reasons=tuple(dict.fromkeys((*reasons, "translated"))))
    return sorted(best.values(), key=lambda item: (tier(item), -item.score))


def with_translations(
    ranked: list[RecalledMemory], translated: list[Translation], **search: Any
) -> list[RecalledMemory]:
    """`ranked` merged with each translation's ranking (`ranked_for`'s arguments in `search`)."""
    if not translated:
        return ranked
    return merge(ranked, [(t.language, ranked_for(t, **search)) for t in translated])
