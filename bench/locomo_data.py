"""LoCoMo conversations as plain data: turns (future memories) and questions with evidence turn ids."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

DATA_DIR = Path("/work/shared/data/locomo")
# 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop; 5 (adversarial, unanswerable) is left out.
CATEGORIES = (1, 2, 3, 4)


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    said_at: datetime
    content: str


@dataclass(frozen=True)
class Question:
    text: str
    evidence: frozenset[str]
    category: int


@dataclass(frozen=True)
class Conversation:
    name: str
    turns: list[Turn]
    questions: list[Question]


def _session_time(raw: str) -> datetime:
    # "1:56 pm on 8 May, 2023"
    return datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def turn_text(speaker: str, said_at: datetime, text: str) -> str:
    """The memory a turn becomes. Photo captions are left out: the turn's words are what was said."""
    return f"{speaker} said, on {said_at.day} {said_at:%B %Y}: {text.strip()}"


def load(path: Path) -> Conversation:
    data = json.loads(path.read_text())
    turns: list[Turn] = []
    numbers = sorted(int(m.group(1)) for key in data if (m := re.fullmatch(r"session_(\d+)", key)))
    for number in numbers:
        said_at = _session_time(data[f"session_{number}_date_time"])
        for raw in data[f"session_{number}"]:
            content = turn_text(raw["speaker"], said_at, raw["text"])
            turns.append(Turn(dia_id=raw["dia_id"], speaker=raw["speaker"], said_at=said_at, content=content))
    known = {turn.dia_id for turn in turns}
    questions = []
    for qa in data["qa"]:
        if qa.get("category") not in CATEGORIES:
            continue
        # A few evidence entries hold two ids in one string ("D8:6; D9:17").
        evidence = frozenset(
            part.strip() for item in qa.get("evidence", []) for part in str(item).split(";") if part.strip()
        )
        evidence &= known
        if evidence:
            questions.append(
                Question(text=str(qa["question"]), evidence=evidence, category=int(qa["category"]))
            )
    return Conversation(name=path.stem, turns=turns, questions=questions)


def load_all(data_dir: Path = DATA_DIR) -> list[Conversation]:
    return [load(path) for path in sorted(data_dir.glob("*.json"))]
