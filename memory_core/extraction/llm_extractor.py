"""The language-model extractor: a prompt, structured JSON output, and only user messages as evidence."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.utils import timezone

from memory_core.extraction.schema import (
    PROMPT_VERSION,
    Candidate,
    ExtractionOutput,
)
from memory_core.extraction.schema import parse_when as _parse_when
from memory_core.llm import get_llm

# Long tool dumps or pasted documents add cost, not memories.
_TRANSCRIPT_MESSAGE_MAX_CHARS = 4000

# --- the language-model extractor ----------------------------------------------------------------

SYSTEM_PROMPT = """\
You maintain the long-term memory of an AI assistant about one user. From the conversation \
below, extract the facts worth remembering across future conversations.

A memory IS:
- a stable fact about the user: name, preferred name, job, employer, where they live, family, \
pets, languages (semantic);
- a health or safety constraint: allergies, intolerances, conditions, diets (semantic, category \
"safety", pinned true, high importance);
- an explicit, lasting preference: how they like things or answers (semantic, category "preference");
- something that happened to the user at a known time, with its identifiers: orders, refunds, \
tickets, bookings, moves (episodic, category "event" or "task_state");
- a rule about how the assistant must do a task (procedural, category "sop");
- anything the user explicitly asks to be remembered ("remember that …", "don't forget …"): \
always capture it.

A memory is NOT: small talk and greetings; one-off questions or requests ("what's the weather?"); \
tool output, pasted documents or data dumps; the assistant's own statements, suggestions or \
speculation; guesses about the user; anything only the assistant said; secrets of any kind — \
passwords, API keys, access tokens, one-time or verification codes, card numbers, bank \
account or identity numbers. Never copy a secret into a memory.

Rules:
- Only user messages are evidence. List in message_ids the ids of the user messages a \
statement rests on; never cite assistant or tool messages.
- One statement per fact, self-contained, in the third person about the user: "The user is \
severely allergic to peanuts.", "The user lives in Shanghai." Keep names, identifiers and \
numbers verbatim (e.g. RF20260629001, order 88231).
- Give each fact a stable key when it fills a slot a later update would replace: "name", \
"preferred_name", "job", "employer", "home_city", "health.allergy.<allergen>", "diet", \
"family.<relation>", "preference.<topic>"; otherwise "".
- Resolve relative dates ("yesterday", "last Monday", "next week") against the message \
timestamps and write them as ISO dates (YYYY-MM-DD) in the statement and in valid_from.
- confidence: how sure you are the user meant it (1.0 for explicit "remember" requests); \
importance: how much it matters for future help (safety facts near 1.0). Set is_inference to \
true when the statement is inferred rather than said.
- For a statement about the people, organisations, places and pets in the user's life, list \
its relations: subject and object by name ("user" for the user), predicate a kinship or social \
word (sister, husband, mother, friend, colleague, boss, dog) or works_at, role (object: the job \
title, object_kind "value") or lives_in. "The user's sister Ana's husband Marc is a pilot." gives \
{"subject": "user", "predicate": "sister", "object": "Ana"}, {"subject": "Ana", "predicate": \
"husband", "object": "Marc"}, {"subject": "Marc", "predicate": "role", "object": "pilot", \
"object_kind": "value"}.
- If nothing is worth remembering, return an empty list.

Answer with only a JSON object: {"candidates": [...]}."""


def build_prompt(messages: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The chat messages sent to the model: the instructions, then a numbered JSON transcript."""
    lines = []
    for number, message in enumerate(messages, start=1):
        content = str(message.get("content", ""))
        if len(content) > _TRANSCRIPT_MESSAGE_MAX_CHARS:
            content = content[:_TRANSCRIPT_MESSAGE_MAX_CHARS] + " […truncated]"
        item = {"n": number, "id": message["id"], "role": message["role"], "time": message.get("created_at")}
        if message.get("name"):
            item["name"] = message["name"]  # a speaker of a conversation of several people
        lines.append(json.dumps({**item, "content": content}, ensure_ascii=False))
    last = next((m.get("created_at") for m in reversed(messages) if m.get("created_at")), None)
    today = (_parse_when(last) or timezone.now()).date().isoformat()
    transcript = "\n".join(lines)
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {
            "role": "user",
            "content": f"Date of the last message: {today}.\nTranscript, one JSON object per message:\n"
            f"{transcript}",
        },
    ]


class LLMExtractor:
    """Structured extraction by the language model named in `settings.EXTRACTION_MODEL`."""

    prompt_version = PROMPT_VERSION

    def __init__(self, *, model: str | None = None) -> None:
        self.name = model or settings.EXTRACTION_MODEL

    def extract(self, messages: list[dict[str, Any]]) -> list[Candidate]:
        output = get_llm().complete_json(
            build_prompt(messages), response_model=ExtractionOutput, model=self.name
        )
        return list(_grounded(output.candidates, messages))


def _grounded(candidates: list[Candidate], messages: list[dict[str, Any]]) -> Iterator[Candidate]:
    """Candidates resting on at least one user message; one citing an unknown id is dropped whole."""
    known = {str(m["id"]) for m in messages}
    from_user = {str(m["id"]) for m in messages if m["role"] == "user"}
    for candidate in candidates:
        cited = list(dict.fromkeys(candidate.message_ids))
        if not cited or any(message_id not in known for message_id in cited):
            continue  # a made-up id means the model is not quoting this conversation
        evidence = [message_id for message_id in cited if message_id in from_user]
        if evidence:
            yield candidate.model_copy(update={"message_ids": evidence})


# --- the offline extractor -----------------------------------------------------------------------

