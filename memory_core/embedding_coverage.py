"""Whether a user's memories are in a language the configured embedding model serves poorly.

The default local model (all-MiniLM-L6-v2) was trained on English: Chinese, Japanese and Korean
text gets vectors that say little about its meaning, so recall by meaning falls back on words
alone. The pages say so and point at a multilingual model (docs/languages.md).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from memory_core.choices import MemoryStatus
from memory_core.models import MemoryEntry, Namespace
from memory_core.writing_systems import CJK_CLASS


def local_model_serves_poorly(*, actor: Any) -> bool:
    """True when the local English model is in use and the user has memories in CJK script.

    One EXISTS query over the user's own namespaces; it stops at the first such memory.
    """
    if settings.EMBEDDING_BACKEND != "local":
        return False
    own = Namespace.objects.owned_by(actor).values("id")
    return MemoryEntry.objects.filter(
        namespace_id__in=own, status=MemoryStatus.ACTIVE, content__regex=CJK_CLASS
    ).exists()
