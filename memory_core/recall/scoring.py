"""How recall ranks a candidate: its 0..1 components, blended by weights (docs/recall.md has the formula)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from config.tuning import tuned
from memory_core import lexical
from memory_core.models import MemoryEntry
from memory_core.recall import signals as query_signals
from memory_core.recall.prompt import estimate_tokens, memory_line
from memory_core.recall.types import Candidate, QuerySignals, RecalledMemory

# Relevance: keyword 0.7, similarity 0.3, context 0.2, names 0.2 is the best R@10 + R@20 of a
# LoCoMo sweep (docs/recall.md); the neighbours (names 0.1 / 0.3, keyword 0.6 / 0.8) lose 0.004-0.006.
DEFAULT_WEIGHTS: dict[str, float] = {
    "similarity": 0.3,
    "context": 0.2,
    "keyword": 0.7,
    "time": 0.1,
    "names": 0.2,
    "recency": 0.05,
    "importance": 0.05,
    "confidence": 0.02,
    "graph": 0.2,
    # A turn said next to one of the best hits gets that hit's score as this component
    # (`recall.neighbours`): 0.3 lifts it by about 0.15 of the hit's score over the others.
    "neighbour": 0.3,
}
# Recency is a tie-breaker (weight 0.05): a month halves it, so last week's answer edges out last year's.
RECALL_RECENCY_HALF_LIFE_DAYS = 30.0

# Below both of these a candidate is noise, not a weak match.
MIN_SIMILARITY = 0.2
MIN_KEYWORD = 0.05
# The parts of the ranking that can be switched off (`RECALL_COMPONENTS`, for ablations).
COMPONENTS = ("context", "keyword", "time", "names", "graph", "neighbour", "related")


def recall_weights() -> dict[str, float]:
    configured: dict[str, float] = tuned("RECALL_WEIGHTS", {})  # benches and tests try other weights
    unknown = set(configured) - set(DEFAULT_WEIGHTS)
    if unknown:
        raise ImproperlyConfigured(
            f"RECALL_WEIGHTS has unknown keys {sorted(unknown)}; use {sorted(DEFAULT_WEIGHTS)}."
        )
    weights = {**DEFAULT_WEIGHTS, **{name: float(value) for name, value in configured.items()}}
    if any(value < 0 for value in weights.values()):
        raise ImproperlyConfigured("RECALL_WEIGHTS must not be negative.")
    return weights


def recall_components() -> frozenset[str]:
    """The optional parts of the ranking in use: `RECALL_COMPONENTS`, all of `COMPONENTS` by default."""
    configured = settings.RECALL_COMPONENTS
    enabled = frozenset(COMPONENTS if configured is None else configured)
    if enabled - set(COMPONENTS):
        raise ImproperlyConfigured(f"RECALL_COMPONENTS must be among {sorted(COMPONENTS)}.")
    return enabled


def recency_half_life_days() -> float:
    value = float(tuned("RECALL_RECENCY_HALF_LIFE_DAYS", RECALL_RECENCY_HALF_LIFE_DAYS))
    if value <= 0:
        raise ImproperlyConfigured("RECALL_RECENCY_HALF_LIFE_DAYS must be positive.")
    return value


def recency_score(*, last_seen: datetime, now: datetime, half_life_days: float) -> float:
    """1.0 for just now, 0.5 after one half-life, and so on; never above 1 for future dates."""
    age_days = max(0.0, (now - last_seen).total_seconds() / 86400)
    return 0.5 ** (age_days / half_life_days)


def blend(components: dict[str, float], weights: dict[str, float]) -> float:
    """The weighted sum divided by the sum of the weights: the same order, and a score that stays
    within 0..1 whatever the weights (mem0's `threshold` and API clients compare it to one)."""
    total = sum(weights.values()) or 1.0
    return sum(weights[name] * components.get(name, 0.0) for name in weights) / total


def is_relevant(*, similarity: float, keyword: float) -> bool:
    return similarity >= MIN_SIMILARITY or keyword >= MIN_KEYWORD


def score_components(
    candidate: Candidate,
    *,
    signals: QuerySignals,
    names: list[re.Pattern[str]],
    half_life_days: float,
    now: datetime,
) -> dict[str, float]:
    """The unweighted 0..1 components of a candidate's score."""
    last_seen = candidate.last_accessed_at or candidate.recorded_at
    return {
        "similarity": _similarity(candidate.distance),
        "context": _similarity(candidate.context_distance),
        "keyword": lexical.normalised(float(candidate.bm25 or 0.0), signals.weights),
        "time": query_signals.in_range((candidate.valid_from, candidate.recorded_at), signals.period),
        "names": query_signals.pattern_share(candidate.content, names),
        "recency": recency_score(last_seen=last_seen, now=now, half_life_days=half_life_days),
        "importance": float(candidate.importance),
        "confidence": float(candidate.confidence),
        "graph": signals.graph.get(candidate.pk, 0.0),
        "neighbour": 0.0,  # set after the first ranking (`recall.neighbours`)
    }


def _similarity(distance: float | None) -> float:
    return min(1.0, max(0.0, 1.0 - float(distance))) if distance is not None else 0.0


def score_candidates(
    candidates: list[Candidate],
    *,
    weights: dict[str, float],
    half_life_days: float,
    now: datetime,
    signals: QuerySignals,
) -> list[tuple[Candidate, float, dict[str, float]]]:
    """Score the candidates and drop the irrelevant (always-recall entries stay, relevant or not:
    `answers` tells them apart), best score first."""
    names = query_signals.name_patterns(signals.names)
    scored: list[tuple[int, float, Candidate, dict[str, float]]] = []
    for candidate in candidates:
        components = score_components(
            candidate, signals=signals, names=names, half_life_days=half_life_days, now=now
        )
        if "always" not in candidate.sources and not answers(components):
            continue
        scored.append((0, round(blend(components, weights), 6), candidate, components))
    scored.sort(key=lambda row: -row[1])
    return [(candidate, score, components) for _tier, score, candidate, components in scored]


def answers(components: dict[str, float]) -> bool:
    """Whether a scored candidate is relevant to the query (an always-recall entry may not be)."""
    similarity = max(components["similarity"], components["context"])
    if components["graph"] or components["neighbour"]:
        return True
    return is_relevant(similarity=similarity, keyword=components["keyword"])


def recalled(
    candidate: Candidate,
    score: float,
    components: dict[str, float],
    *,
    entry: Callable[[Candidate], MemoryEntry],
    line: str | None = None,
) -> RecalledMemory:
    """The recalled item for a scored candidate; `entry` turns the candidate into the model instance."""
    found = candidate.sources
    reasons = ["pinned" if candidate.pinned else "always"] if "always" in found else []
    reasons += [name for name in ("vector", "context") if name in found]
    reasons += [name for name in ("keyword", "time", "names", "graph", "neighbour") if components[name] > 0]
    line = memory_line(candidate) if line is None else line
    return RecalledMemory(
        entry=entry(candidate),
        score=score,
        breakdown={name: round(value, 6) for name, value in components.items()},
        reasons=tuple(reasons),
        line=line,
        tokens=estimate_tokens(line),
    )
