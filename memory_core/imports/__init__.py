"""Imports: memories brought from elsewhere — a mem0 export, a saved-memories list (ChatGPT,
Claude), a timestamped transcript — written through the same pipeline as every other write.

- `parsers`: read each format into statements (or transcript messages), refusing bad input;
  `pasted` reads a saved-memories list and what surrounds it, `preview` a dry run's first part;
- `intake`: reading an input, and a large one read (and checked for secrets) by its job;
- `statements`: a transcript read into statements, each statement through the write pipeline;
- `run`: the dry run, the import (at once or as a django-q2 job with progress), the job runner;
- `selectors`: a user's import jobs and their results.
"""

from memory_core.imports.parsers import ImportInputError, ImportItem
from memory_core.imports.pasted import SkippedLine
from memory_core.imports.run import (
    Preview,
    import_create,
    import_preview,
    import_reap,
    import_retry,
    import_run,
    import_start,
    job_threshold,
    preview_limit,
)
from memory_core.imports.selectors import ImportResult, import_job_for, import_jobs, import_results
from memory_core.imports.statements import ImportRow

__all__ = [
    "ImportInputError",
    "ImportItem",
    "ImportResult",
    "ImportRow",
    "Preview",
    "SkippedLine",
    "import_create",
    "import_job_for",
    "import_jobs",
    "import_preview",
    "import_reap",
    "import_results",
    "import_retry",
    "import_run",
    "import_start",
    "job_threshold",
    "preview_limit",
]
