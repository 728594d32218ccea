"""Reading a statement as its speaker's: a transcript's lines ("Ana: …", "Ana said, on …: …")
each as their speaker's, or a whole statement as the speaker its caller names (a message's
`name`), so that "I" and "my" are theirs, not the user's; and the English and Chinese readings of
one statement made one (`rules` reads each language).
"""

from __future__ import annotations

import re
from dataclasses import replace

from memory_core.entities.asides import read_asides, read_bare_kin
from memory_core.entities.care import read_care
from memory_core.entities.rules import (
    _NAME,
    Reading,
    Ref,
    _is_name,
    clean_name,
    read_english,
)
from memory_core.entities.rules_zh import read_chinese
from memory_core.entities.served import read_served
from memory_core.reading.words import word_set

_HAS_CJK = re.compile(r"[\u4e00-\u9fff]")


# A quoted turn of a transcript ("Melanie said, on 9 June 2023: my husband …", "Melanie: my
# husband …"): "I" and "my" are the speaker's, not the user's.
_SPEAKER = re.compile(rf"^\s*(?P<speaker>{_NAME})(?: (?:said|says|wrote)(?:,? on [^:\n]{{3,40}})?)?:[ \t]*")
# "Note: …", "User: …" open a line without naming someone else who speaks.
_NOT_SPEAKERS = word_set(
    "note update reminder todo fyi re ps summary question answer context fact memory tip edit"
)
_USER_SPEAKERS = word_set("user me human")
_BOT_SPEAKERS = word_set("assistant ai bot system tool")


def read(text: str, *, speaker: str = "") -> Reading:
    """The entities and relations one statement states (both languages: statements mix them);
    `speaker`, when a caller names who said it (a message's `name`), owns its "I" and "my". A
    transcript's lines ("Ana: …") are each read as their speaker's."""
    lines = [line for line in text.splitlines() if line.strip()] or [text]
    if len(lines) > 1 and sum(bool(_SPEAKER.match(line)) for line in lines) > 1:
        result = Reading()
        for line in lines:
            line_reading = _read_turn(line, speaker)
            for ref in line_reading.refs:
                result.add_ref(ref)
            for triple in line_reading.triples:
                result.add(triple)
        return result
    return _read_turn(text, speaker)


def _read_turn(text: str, speaker: str) -> Reading:
    quoted = _SPEAKER.match(text)
    said_by = clean_name(quoted.group("speaker")) if quoted else ""
    if said_by.lower() in _NOT_SPEAKERS or (not _is_name(said_by) and said_by.lower() not in _USER_SPEAKERS):
        quoted, said_by = None, ""
    if said_by.lower() in _BOT_SPEAKERS:
        return Reading()  # an assistant's "I" and "my" are no one's the graph knows
    body = text[quoted.end() :] if quoted else text
    who = speaker if not said_by else ("" if said_by.lower() in _USER_SPEAKERS else said_by)
    chinese = bool(_HAS_CJK.search(body))
    readings = [read_english(body), *([read_chinese(body)] if chinese else [])]
    reading = _unified(readings)
    read_bare_kin(body, reading, chinese=chinese)  # "Mum's moved in": before the care, which may be of her
    read_care(body, reading, chinese=chinese)
    read_served(body, reading, chinese=chinese)  # pupils, players, patients: someone else's
    read_asides(body, reading, chinese=chinese)  # after the care: it may name the one cared for
    who = clean_name(who)
    return _spoken_by(reading, Ref(name=who)) if who and who.lower() not in _USER_SPEAKERS else reading


def _spoken_by(reading: Reading, speaker: Ref) -> Reading:
    def sub(ref: Ref | None) -> Ref | None:
        if ref is None:
            return None
        if ref.is_self or (ref.name == speaker.name and ref.of is None):
            return speaker  # the speaker is nobody's kin by their own word ("my kids, Gina")
        if ref.kin and ref.of is None:
            return Ref(name=ref.name, kin=ref.kin, of=speaker, kind=ref.kind)
        return Ref(name=ref.name, kin=ref.kin, of=sub(ref.of), kind=ref.kind) if ref.of else ref

    result = Reading()
    result.add_ref(speaker)
    for ref in reading.refs:
        result.add_ref(sub(ref) or ref)
    for t in reading.triples:
        result.add(replace(t, subject=sub(t.subject) or speaker, object=sub(t.object)))
    return result


def _unified(readings: list[Reading]) -> Reading:
    """One reading in which "my sister" is the "my sister Ana" the same statement names."""
    named: dict[tuple[str, Ref | None], list[Ref]] = {}
    for reading in readings:
        for ref in reading.refs:
            if ref.name and ref.kin:
                named.setdefault((ref.kin, ref.of), []).append(ref)

    def same(ref: Ref | None) -> Ref | None:
        if ref is None or ref.name or ref.is_self:
            return ref
        candidates = named.get((ref.kin, ref.of), [])
        return candidates[0] if len(candidates) == 1 else ref

    result = Reading()
    for reading in readings:
        for ref in reading.refs:
            result.add_ref(same(ref) or ref)
        for t in reading.triples:
            result.add(replace(t, subject=same(t.subject) or t.subject, object=same(t.object)))
    return result
