"""Placeholder: replaced by the slot-inference module (see branch h/rules)."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Slot:
    key: str
    category: str
    type: str = "semantic"
    pinned: bool = False
    importance: float = 0.5


_EMPLOYER = re.compile(r"^(?:the user|user|i)\s+(?:now\s+)?works?\s+(?:at|for)\s+\S", re.I)
_HOME = re.compile(r"^(?:the user|user|i)\s+(?:now\s+)?lives?\s+in\s+\S", re.I)


def infer_slot(statement: str) -> Slot | None:
    if _EMPLOYER.search(statement.strip()):
        return Slot(key="employer", category="profile", importance=0.7)
    if _HOME.search(statement.strip()):
        return Slot(key="home_city", category="profile", importance=0.7)
    return None
