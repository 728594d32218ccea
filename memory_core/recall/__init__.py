"""Recall: the memories worth putting in front of the model for one query, within a token budget."""

from memory_core.recall.prompt import INSTRUCTION, estimate_tokens
from memory_core.recall.service import (
    CANDIDATES_PER_SOURCE,
    COMPONENTS,
    DEFAULT_WEIGHTS,
    EXACT_SCAN_MAX,
    MAX_LIMIT,
    MIN_KEYWORD,
    CandidateQuery,
    RecalledMemory,
    RecallResult,
    TsQuery,
    blend,
    memory_recall,
    prepare_search,
    recall_components,
    recall_weights,
)

__all__ = [
    "CANDIDATES_PER_SOURCE",
    "COMPONENTS",
    "DEFAULT_WEIGHTS",
    "EXACT_SCAN_MAX",
    "INSTRUCTION",
    "MAX_LIMIT",
    "MIN_KEYWORD",
    "CandidateQuery",
    "RecallResult",
    "RecalledMemory",
    "TsQuery",
    "blend",
    "estimate_tokens",
    "memory_recall",
    "prepare_search",
    "recall_components",
    "recall_weights",
]
