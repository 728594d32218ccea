"""Extraction: what a conversation teaches, as candidate memories written through the write pipeline.

- `schema`: the candidate statement every extractor returns, and the shared limits;
- `llm_extractor`: the language model with structured output;
- `rules`: the offline regular-expression extractor and chat's "remember that …";
- `slots`: a statement's slot, read by the pipeline's screening and reconciliation;
- `jobs`: idempotent extraction jobs (enqueue, claim, run, write), imported from
  `memory_core.extraction.jobs`: they stand above the write pipeline, the rest below it, and
  importing any part of the package runs this module, so it re-exports only the floors below.
"""

from memory_core.extraction.llm_extractor import SYSTEM_PROMPT, LLMExtractor, build_prompt
from memory_core.extraction.rules import RuleBasedExtractor, overlong_remember, remember_requests
from memory_core.extraction.schema import (
    CATEGORIES,
    CONVERSATION_MAX_CHARS,
    EXCERPT_MAX_CHARS,
    KEY_MAX_CHARS,
    MAX_ATTEMPTS,
    MAX_MESSAGES,
    MESSAGE_ID_MAX_CHARS,
    OUTCOME_ACTIONS,
    PROMPT_VERSION,
    RULES_NAME,
    RULES_VERSION,
    Candidate,
    ExtractionOutput,
    Extractor,
)

__all__ = [
    "CATEGORIES",
    "CONVERSATION_MAX_CHARS",
    "EXCERPT_MAX_CHARS",
    "KEY_MAX_CHARS",
    "MAX_ATTEMPTS",
    "MAX_MESSAGES",
    "MESSAGE_ID_MAX_CHARS",
    "OUTCOME_ACTIONS",
    "PROMPT_VERSION",
    "RULES_NAME",
    "RULES_VERSION",
    "SYSTEM_PROMPT",
    "Candidate",
    "ExtractionOutput",
    "Extractor",
    "LLMExtractor",
    "RuleBasedExtractor",
    "build_prompt",
    "overlong_remember",
    "remember_requests",
]
