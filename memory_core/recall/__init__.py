"""Recall: the memories worth putting in front of the model for one query, within a token budget.

The public names, re-exported from the modules that define them (docs/architecture.md has the map).
"""

from memory_core.lexical import TsQuery
from memory_core.recall.candidates import (
    CANDIDATES_PER_SOURCE,
    EXACT_SCAN_MAX,
    CandidateQuery,
    prepare_search,
)
from memory_core.recall.prompt import INSTRUCTION, estimate_tokens
from memory_core.recall.scoring import (
    COMPONENTS,
    DEFAULT_WEIGHTS,
    MIN_KEYWORD,
    blend,
    recall_components,
    recall_weights,
)
from memory_core.recall.service import MAX_LIMIT, memory_recall
from memory_core.recall.types import RecalledMemory, RecallResult

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
