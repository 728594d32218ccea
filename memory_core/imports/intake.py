"""Reading what an import brings, and a large import read by its job instead of the request.

Checking each statement for secrets is most of what reading costs (a model scores each one), so
an import larger than IMPORT_JOB_THRESHOLD is read unchecked during the request — bad input is
still refused at once, and the count is known — and kept sealed (`memory_core.sealed`: encrypted,
since it may hold secrets) until its job reads it again, checking `WINDOW` statements (or
transcript messages) a step, as a small import's are checked during the request.
"""

from __future__ import annotations

import json
from typing import Any

from memory_core.choices import ImportFormat
from memory_core.imports.parsers import (
    Check,
    ImportItem,
    check_format,
    check_size,
    every,
    parse_mem0,
    parse_transcript,
)
from memory_core.imports.pasted import parse_text
from memory_core.models import ImportJob
from memory_core.sealed import reseal, seal, unseal

# Statements (or messages) checked for secrets in one step of a job: about two seconds of scoring
# on a loaded machine, while every step also opens and reads the whole input again.
WINDOW = 100


def read_input(
    format: Any, data: Any, check: Check = every
) -> tuple[str, list[ImportItem], list[dict[str, Any]]]:
    """(format, statements, transcript messages) of the input, or `ImportInputError`."""
    format = check_format(format)
    check_size(data)
    if format == ImportFormat.MEM0:
        return format, parse_mem0(data, check), []
    if format == ImportFormat.TEXT:
        return format, parse_text(data, check), []
    return format, [], parse_transcript(data, check)


def seal_input(data: Any) -> str:
    return seal(json.dumps({"data": data}, ensure_ascii=False))


def read_window(format: str, sealed: str, start: int) -> tuple[list[ImportItem], list[dict[str, Any]]]:
    """The statements (or messages) `start` to `start + WINDOW` of a sealed input, checked."""
    data = json.loads(unseal(sealed))["data"]
    _, items, messages = read_input(format, data, lambda position: start <= position < start + WINDOW)
    return items[start : start + WINDOW], messages[start : start + WINDOW]


def pending_inputs_reseal() -> int:
    """Seal the inputs still waiting for their jobs again under the first key (`reseal_secrets`,
    a step of a key rotation); an input its job finished reading meanwhile is left as it is."""
    count = 0
    for pk, sealed in ImportJob.objects.exclude(pending="").values_list("pk", "pending").iterator():
        count += ImportJob.objects.filter(pk=pk, pending=sealed).update(pending=reseal(sealed))
    return count
