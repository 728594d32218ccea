"""Choosing the weight of the pooled context vector (`CONTEXT_VECTOR = "pooled"`) on LoCoMo dev.

A turn's context vector is either the embedding of its context document (the turn before, then
the turn: a second transformer pass) or normalise(v(turn) + w·v(turn before)) from vectors already
computed. For each w this ranks every turn of a conversation by max(cos(q, v), cos(q, c)) — the two
vector searches recall runs — and prints evidence recall@5/10/20 against the document's, and the
mean cosine between the pooled and the document vector. Vectors only (no keywords, no database):
a proxy to choose w; the product's figure is `python -m bench locomo` on each setting.

`python -m bench context_pooling [--conversations N]`
"""

from __future__ import annotations

import argparse

import numpy as np

from bench import common
from bench.locomo_data import load_all

WEIGHTS = (0.0, 0.25, 0.4, 0.5, 0.6, 0.75, 1.0, 1.5)
KS = (5, 10, 20)


def _unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.linalg.norm(matrix, axis=-1, keepdims=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench context_pooling")
    parser.add_argument("--conversations", type=int, default=0)
    args = parser.parse_args(argv)
    common.setup()
    common.header("Pooled context vector: weight of the turn before (LoCoMo dev, vectors only)")
    from memory_core.embeddings import get_embedder
    from memory_core.search_context import clipped, context_document

    embedder = get_embedder()
    conversations = load_all()
    if args.conversations > 0:
        conversations = conversations[: args.conversations]
    rows: dict[str, list[tuple[float, ...]]] = {}
    agreement: dict[str, list[float]] = {}
    for conversation in conversations:
        turns = [turn.content for turn in conversation.turns]
        contexts = ["", *[clipped(turn) for turn in turns[:-1]]]  # the user path: the turn added before
        statements = np.asarray(embedder.embed(turns))
        documents = np.asarray(
            embedder.embed([context_document(c, t) for c, t in zip(contexts, turns, strict=True)])
        )
        previous = np.vstack([statements[:1] * 0.0, statements[:-1]])
        queries = np.asarray(embedder.embed([q.text for q in conversation.questions]))
        ids = [turn.dia_id for turn in conversation.turns]
        candidates = {"document": documents}
        for weight in WEIGHTS:
            candidates[f"pooled w={weight}"] = _unit(statements + weight * previous)
        for name, context in candidates.items():
            scores = np.maximum(queries @ statements.T, queries @ context.T)
            for question, row in zip(conversation.questions, scores, strict=True):
                order = [ids[i] for i in np.argsort(-row)[: max(KS)]]
                rows.setdefault(name, []).append(
                    tuple(len(question.evidence & set(order[:k])) / len(question.evidence) for k in KS)
                )
            agreement.setdefault(name, []).extend(np.sum(context[1:] * documents[1:], axis=1).tolist())
    base = np.mean(rows["document"], axis=0)
    print(f"{len(rows['document'])} questions; score = max(cos(q, statement), cos(q, context))")
    for name, values in rows.items():
        mean = np.mean(values, axis=0)
        recalls = " ".join(f"R@{k} {m:.3f}" for k, m in zip(KS, mean, strict=True))
        print(
            f"  {name:16} {recalls}  (R@10 {mean[1] - base[1]:+.3f} vs document)  "
            f"mean cos to the document vector {np.mean(agreement[name]):.3f}"
        )
