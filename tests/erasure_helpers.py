"""Shared checks of the erasure tests: a canary nobody else writes, the every-column scan, and the
disk pass with a grep of the embedded server's files before and after it."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from pathlib import Path

from django.db import connection
from django_q.models import Schedule

from memory_core import judgement
from memory_core.compaction import VACUUM_SCHEDULE
from memory_core.models import ErasureReceipt
from memory_core.scan import data_directory, scan_database, scan_files, scan_job_queue, scan_statistics
from memory_core.tasks import run_erasure_vacuum

_CONSONANTS, _VOWELS = "bdfgklmnprstvz", "aeiou"


def canary(prefix: str = "Zanzibar") -> str:
    """A word found nowhere else, in this run or any other sharing the server's WAL. Syllables
    ("Zanzibarkodelumavi"), not random letters: a word with a hex or a random-letter tail reads as
    a generated token, which the write path may refuse as a secret ("my favourite café is
    Zanzibarjlhgoiochf" did, 0.70 sure, and the test that said it failed). Some syllable words
    still do (about 6 in 100 said in lower case, "my favourite café is Zanzibargorafozudino"): a
    word the secret decision refuses in any of a few plain sentences is drawn again, so a test of
    erasure never fails on a false refusal it is not about."""
    for _ in range(20):
        noise = uuid.uuid4().bytes
        tail = "".join(
            _CONSONANTS[noise[i] % len(_CONSONANTS)] + _VOWELS[noise[i + 1] % len(_VOWELS)]
            for i in range(0, 12, 2)
        )
        word = f"{prefix}{tail}"
        if not any(judgement.secrets(frame.format(word)).found for frame in _PLAIN_FRAMES):
            return word
    raise AssertionError("no canary the write path stores in 20 draws")


# The sentences a canary is said in across the tests, in the cases the chat and the API store them.
_PLAIN_FRAMES = (
    "{}",
    "my favourite café is {}",
    "My favourite café is {}.",
    "Remember that my favourite café is {}.",
    "I live in {}.",
    "my dog is called {}",
)


def server_root() -> Path:
    root = data_directory()
    assert root is not None, "the tests run on the embedded server, whose files are on this machine"
    return root


def files_with(marker: str) -> list[str]:
    """The server's files holding `marker`, after a CHECKPOINT wrote every dirty page to them."""
    with connection.cursor() as cursor:
        cursor.execute("CHECKPOINT")
    return scan_files(marker, server_root())


def analyze() -> None:
    """Fresh planner statistics, as autovacuum would take them: they sample the text columns."""
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def assert_nothing_in_sql(marker: str) -> None:
    assert scan_database(marker) == {}
    assert scan_job_queue(marker) == []


def disk_pass_leaves_nothing(
    markers: str | list[str], receipts: Iterable[ErasureReceipt]
) -> dict[str, object]:
    """The erased rows are still in the table files until the debounced pass runs (once for the
    whole burst); then neither the files, the WAL, nor the statistics hold the markers."""
    markers = [markers] if isinstance(markers, str) else markers
    for marker in markers:
        before = files_with(marker)
        assert any(path.startswith("base/") for path in before), before  # dead rows, not rewritten yet
    assert Schedule.objects.filter(name=VACUUM_SCHEDULE).count() == 1
    result = run_erasure_vacuum()  # what the cluster runs when the schedule is due
    for marker in markers:
        assert scan_statistics(marker) == []
        assert files_with(marker) == []
    for receipt in receipts:
        receipt.refresh_from_db()
        assert receipt.vacuumed_at is not None and receipt.rewritten_at is not None
    return result
