"""Whether a user's memories are in a language the configured embedding model serves poorly.

The default local model (all-MiniLM-L6-v2) was trained on English: Chinese, Japanese and Korean
text gets vectors that say little about its meaning, so recall by meaning falls back on words
alone. The pages say so and point at a multilingual model (docs/languages.md).
"""

from __future__ import annotations

from django.conf import settings

from memory_core.actors import Actor
from memory_core.choices import MemoryStatus
from memory_core.language import CJK_CLASS, is_cjk
from memory_core.models import MemoryEntry, Namespace


def local_model_serves_poorly(*, actor: Actor) -> bool:
    """True when the local English model is in use and the user has memories in CJK script.

    One EXISTS query over the user's own namespaces; it stops at the first such memory.
    """
    if settings.EMBEDDING_BACKEND != "local":
        return False
    own = Namespace.objects.owned_by(actor).values("id")
    return MemoryEntry.objects.filter(
        namespace_id__in=own, status=MemoryStatus.ACTIVE, content__regex=CJK_CLASS
    ).exists()


# The share of their weight that the similarity and context components keep for a mostly CJK query
# while the local English model embeds it: its cosines for any two Chinese texts lie within
# 0.5-0.9, so they rank by noise, and the words (keyword) carry the ranking. Measured in `python -m
# bench languages` (docs/languages.md): Chinese hybrid top-1 up, English unchanged (never applied).
CJK_LOCAL_EMBEDDING_SHARE = 1 / 3


def embedding_serves(query: str) -> bool:
    """Whether the configured embedding model reads `query`'s language: any model reads English;
    the local one (English-trained all-MiniLM-L6-v2) does not read Chinese, Japanese or Korean; a
    model behind EMBEDDING_BACKEND=openai is taken to be multilingual (docs/languages.md)."""
    return settings.EMBEDDING_BACKEND != "local" or not is_cjk(query)


def query_weights(weights: dict[str, float], query: str) -> dict[str, float]:
    """Recall's weights for this query: the embedding's components weigh less when the model in use
    does not read the query's language (`embedding_serves`); the breakdown's components stay as measured."""
    if embedding_serves(query):
        return weights
    return {
        **weights,
        "similarity": weights["similarity"] * CJK_LOCAL_EMBEDDING_SHARE,
        "context": weights["context"] * CJK_LOCAL_EMBEDDING_SHARE,
    }
