"""Whose condition a statement tells when it names someone the user introduced before ("my
daughter is called Ella", later "Ella has epilepsy"): the write path's safety decision with the
user's graph read (`people_known`) against the same write path without it, in the same run.

Each user of the set is a REST user of its own; their turns are added one call per turn in order
(`POST /api/v1/memories/`, the public write path), so the people they introduce are in their graph
when their later turns are read. A labelled turn is scored by whether its entry (or the condition a
held rule kept, `also`) was pinned: recall over the user's and dependants' conditions, precision
over everything pinned (a turn with no health content in it included, labelled "null"), per
label and per language, as the add answered and as stored after the
user's last turn (a later turn may say who someone spoken of by name is: `people_reread`). The
baseline is the same path with the graph not consulted (`KNOWN_PERSON_SURE` above 1).

`python -m bench whose_named [--data PATH] [--errors]` (default: the first blind set,
memory_core/judgement/fresh/people-1.json)
"""

from __future__ import annotations

import argparse
import json
import os
import uuid
from pathlib import Path
from typing import Any

from bench import common

PINNED = ("user", "dependant")
DEFAULT_DATA = (
    Path(__file__).resolve().parent.parent / "memory_core" / "judgement" / "fresh" / "people-1.json"
)


Scored = list[tuple[str, str, bool, str]]


def _run(client: Any, users: list[dict[str, Any]]) -> tuple[Scored, Scored]:
    """(label, language, pinned, text) of every labelled turn: as the add answered, and as stored
    after the user's last turn (a later turn may say who the person is: `people_reread`)."""
    from memory_core.models import MemoryEntry

    at_add: Scored = []
    at_end: Scored = []
    for user in users:
        user_id = uuid.uuid4().hex
        kept: list[tuple[str, str, list[str]]] = []
        for turn in user["turns"]:
            body = client.post(
                "/api/v1/memories/", {"user_id": user_id, "content": turn["text"]}, format="json"
            ).json()
            entries = [body.get("entry") or {}, *[(a.get("entry") or {}) for a in body.get("also", [])]]
            # A turn with no health content at all ("null") counts too: pinned, it is a false pin.
            label = turn.get("label") or NO_HEALTH
            pinned = any(bool(e.get("pinned")) for e in entries)
            at_add.append((label, user.get("lang", "en"), pinned, turn["text"]))
            kept.append((label, turn["text"], [e["id"] for e in entries if e.get("id")]))
        for label, text, ids in kept:
            pinned = MemoryEntry.objects.filter(pk__in=ids, pinned=True).exists()
            at_end.append((label, user.get("lang", "en"), pinned, text))
    return at_add, at_end


NO_HEALTH = "null"


def _figures(scored: Scored) -> dict[str, str]:
    out = {}
    for lang in ("all", "en", "zh"):
        rows = [s for s in scored if lang == "all" or s[1] == lang]
        positives = [s for s in rows if s[0] in PINNED]
        pinned = [s for s in rows if s[2]]
        hits = sum(s[2] for s in positives)
        right = sum(s[0] in PINNED for s in pinned)
        out[f"{lang}: user's and dependants' pinned (recall)"] = f"{hits}/{len(positives)}"
        out[f"{lang}: pinned that are theirs (precision)"] = f"{right}/{len(pinned)}"
    for label in ("user", "dependant", "other", "none", NO_HEALTH):
        rows = [s for s in scored if s[0] == label]
        out[f"label {label}: pinned"] = f"{sum(s[2] for s in rows)}/{len(rows)}"
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench whose_named")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--errors", action="store_true", help="list the turns the graph reading got wrong")
    parser.add_argument(
        "--sure", type=float, default=None, help="KNOWN_PERSON_SURE with the graph (default: the code's)"
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("API_RATE_PER_KEY", "1000000/min")
    common.setup()
    common.truncate()
    from django.conf import settings

    from bench.judgement import _clients

    users = json.loads(args.data.read_text(encoding="utf-8"))["users"]
    common.header(f"Whose condition by name: {args.data.name}, {len(users)} users, one REST call per turn")
    client, _key = _clients()
    runs: dict[str, Scored] = {}
    for name, sure in (("without the graph (baseline)", 2.0), ("with the graph, at the add", args.sure)):
        if sure is None:
            if hasattr(settings, "KNOWN_PERSON_SURE"):
                delattr(settings, "KNOWN_PERSON_SURE")
        else:
            setattr(settings, "KNOWN_PERSON_SURE", sure)  # noqa: B010  # a setting of the bench's own
        runs[name], end = _run(client, users)
        common.truncate()
        client, _key = _clients()
    runs["with the graph, after the last turn"] = end  # what was said before, read again
    names = list(runs)
    figures = [_figures(runs[n]) for n in names]
    print(f"  {'':<48} " + " ".join(f"{n:>36}" for n in names))
    for label in figures[0]:
        print(f"  {label:<48} " + " ".join(f"{f[label]:>36}" for f in figures))
    if args.errors:
        for label, lang, pinned, text in runs[names[-1]]:
            if pinned != (label in PINNED):
                print(f"  {'pinned' if pinned else 'missed':<7} {label:<9} {lang} {text}")
