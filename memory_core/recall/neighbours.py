"""The turns said next to recall's best hits: in a conversation stored one turn per add, the
answer is often a turn or two away from the words that match the query ("It was made for a local
church" matches; the turn before, "I made this stained glass window", answers).

After the first ranking, the best `NEIGHBOUR_HITS` that are turns lift the turns said up to
`NEIGHBOUR_SPAN` before and after them in their namespace, in the order the client added them,
in the same sitting (recorded and said within `TURN_WINDOW` of the hit, the window that links a
turn to the one before it): component `neighbour` is the hit's score, times the turn's `names`
share when the query names someone (a turn by the other speaker is about someone else). A turn
not yet among the candidates is read and scored like them (one statement). docs/recall.md has
the figures."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from memory_core.recall.candidates import NEIGHBOUR_SOURCE, CandidateQuery, fetch_neighbours
from memory_core.recall.scoring import answers, blend, score_components
from memory_core.recall.signals import name_patterns
from memory_core.recall.types import Candidate, QuerySignals
from memory_core.tombstones import PREVIOUS_TURN_WINDOW

# Chosen on LoCoMo conversation 26 and checked on conversation 30 (docs/recall.md): the best
# three hits, two turns on each side (in a two-person exchange the second is the same speaker
# going on); more hits lift more noise than answers.
NEIGHBOUR_HITS = 3
NEIGHBOUR_SPAN = 2
TURN_WINDOW: timedelta = PREVIOUS_TURN_WINDOW

Scored = tuple[Candidate, float, dict[str, float]]


def with_neighbours(
    scored: list[Scored],
    *,
    scope_where: tuple[str, list[Any]] | None,
    search: CandidateQuery,
    signals: QuerySignals,
    weights: dict[str, float],
    half_life_days: float,
    now: datetime,
) -> list[Scored]:
    """`scored` (best first) with the turns next to its best hits lifted, and those not yet
    among them added; best first again. Unchanged when none of the best hits is a turn."""
    hits = [row for row in scored if answers(row[2])][:NEIGHBOUR_HITS]
    turns = [candidate for candidate, _, _ in hits if candidate.said_as_turn]
    if not turns:
        return scored
    found = fetch_neighbours(scope_where, search=search, hits=turns, span=NEIGHBOUR_SPAN, window=TURN_WINDOW)
    hit_scores = {candidate.pk: score for candidate, score, _ in hits}
    rows = {candidate.pk: (candidate, score, components) for candidate, score, components in scored}
    names = name_patterns(signals.names)
    for row in found:
        beside = [
            hit_scores[hit.pk]
            for index, hit in enumerate(turns)
            if NEIGHBOUR_SOURCE.format(index) in row.sources
            and abs(row.valid_from - hit.valid_from) <= TURN_WINDOW  # said in the same sitting
        ]
        if not beside:
            continue
        candidate, _, components = rows.get(row.pk) or (row, 0.0, {})
        if not components:  # found by no search: scored here, like the candidates
            candidate.sources = {"neighbour"}
            components = score_components(
                candidate, signals=signals, names=names, half_life_days=half_life_days, now=now
            )
        # A turn by someone other than the person asked about is not about them.
        lift = max(beside) * (components["names"] if signals.names else 1.0)
        if lift > components["neighbour"]:
            components["neighbour"] = lift
            rows[row.pk] = (candidate, round(blend(components, weights), 6), components)
    return sorted(rows.values(), key=lambda row: -row[1])
