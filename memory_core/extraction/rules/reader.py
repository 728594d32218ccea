"""The English reader: a sentence into clauses, each clause through the rules by topic, one
statement per slot and sentence."""

from __future__ import annotations

import re
from datetime import date

from memory_core.extraction.rules.chinese import _read_chinese
from memory_core.extraction.rules.clauses import (
    _ANTECEDENT,
    _NOT_ANTECEDENT,
    _continuation,
    _pronoun_clause,
    _split_clauses,
    _subject,
)
from memory_core.extraction.rules.events import _event, _identifiers, _past_action
from memory_core.extraction.rules.facts import USER, Who, _Clause, _Context, _relative
from memory_core.extraction.rules.health import _health, _mentions, _subjectless
from memory_core.extraction.rules.home import _home
from memory_core.extraction.rules.people import (
    _RELATIVE_LIST,
    _birthday_of,
    _name_fact,
    _names,
    _personal,
    _possessions,
    _relative_names,
)
from memory_core.extraction.rules.preferences import _is_request, _preferences
from memory_core.extraction.rules.secrecy import names_secret
from memory_core.extraction.rules.work import _work
from memory_core.reading.normalise import normalise_spelling, split_sentences
from memory_core.reading.words import (
    CJK,
    HYPOTHETICAL,
    NAME,
    NOT_NAMES,
    PETS,
    QUESTION_START,
    Fact,
    word_set,
)


def _names_someone(raw: str, clause: _Clause) -> bool:
    """Whether a clause is only a person named or possessed ("Sami", "our contract falconer"): what
    a subjectless clause after it says is said of them."""
    bare = raw.strip()
    if clause.possessive and not clause.predicate:
        return True
    return (
        bool(re.fullmatch(NAME, bare))
        and bare.split()[0].lower() not in NOT_NAMES
        and bare.split()[0].lower() not in _OPENERS
    )


# Capitalised words that open a note or a reply, not a person ("Note: asthmatic, …", "Yes, actually
# pregnant").
_OPENERS = word_set(
    "note notes yes yeah yep no nope update reminder fyi ps also anyway actually honestly well so btw "
    "sorry thanks please hi hello hey oh ah wait right true sure agreed done today tonight tomorrow "
    "again correction edit plus"
)


class _Reader:
    """Reads sentences into facts (see the module docstring)."""

    def __init__(self, today: date) -> None:
        self.today = today
        self.person: Who | None = None  # the relative last spoken of, in this text
        self.unread = 0  # clauses of more than a word read as no fact ("… and wears a pump")

    def read(self, text: str, *, remembered: bool = False) -> list[Fact]:
        found: list[Fact] = []
        for sentence in split_sentences(text):
            found += self.sentence(sentence, remembered=remembered)
        return found

    def sentence(self, sentence: str, *, remembered: bool = False) -> list[Fact]:
        if re.search(f"[{CJK}]", sentence):
            return self._mixed(sentence, remembered=remembered)
        return self._english(sentence, remembered=remembered)

    def _mixed(self, sentence: str, *, remembered: bool) -> list[Fact]:
        """A sentence with Chinese in it: the Chinese reader, and the English one for each part
        written in English only ("I'm allergic to peanuts" then "我老婆对芒果过敏")."""
        found = _read_chinese(sentence)
        for part in re.split(r"[\uff0c\uff1b,;]", sentence):
            if not re.search(f"[{CJK}]", part) and re.search(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}", part):
                found += self._english(part, remembered=remembered)
        keys = [fact.get("key") for fact in found]
        return [f for i, f in enumerate(found) if not f.get("key") or f.get("key") not in keys[:i]]

    def _english(self, sentence: str, *, remembered: bool) -> list[Fact]:
        sentence = normalise_spelling(sentence)
        question = sentence.rstrip().endswith("?")
        ctx = _Context(today=self.today, sentence=sentence)
        found, sentence = _listed_relatives(sentence)
        clauses = _split_clauses(sentence)
        if question:
            # "I'm vegan, can you suggest a recipe?": keep the statement, drop the question.
            clauses = clauses[:-1]
        previous: _Clause | None = None
        last: list[Fact] = []
        named = False  # the clause before is someone named or possessed: "Sami, our falconer, …"
        for index, (sep, raw) in enumerate(clauses):
            if _left_out(raw, question=question):
                previous, named = None, False
                continue
            if re.match(r"(?i)^(?:which|who|that)\b", raw) and index:
                continue
            clause = self._whose(sep, raw, previous, ctx, named=named)
            named = _names_someone(raw, clause)
            if clause.replaces:
                found = [f for f in found if all(f is not g for g in last)]
            ctx.frame = None  # a rule that reads a list object sets it again for the next clause
            facts = self._clause(clause, ctx, remembered=remembered)
            if len(raw.split()) > 1 and all(fact.get("incidental") for fact in facts):
                self.unread += 1
            found += facts
            last = facts
            ctx.antecedent = _antecedent(raw)
            if clause.who is not None:
                previous = clause
                if not clause.who.user and clause.who.relation not in PETS.values():
                    self.person = clause.who  # whom a later "she" / "he" may stand for
        # One statement per slot and sentence: "Penicillin gives me hives, I'm allergic to it."
        last_of = {f["key"]: index for index, f in enumerate(found) if f.get("key")}
        return [f for index, f in enumerate(found) if not f.get("key") or last_of[f["key"]] == index]

    def _whose(self, sep: str, raw: str, previous: _Clause | None, ctx: _Context, *, named: bool) -> _Clause:
        """The clause with whom it is about: its own subject, a pronoun's relative, or the subject
        of the clause before it continues."""
        clause = _subject(raw)
        if clause.who is None:
            clause = _pronoun_clause(raw, self.person) or clause
        if (clause.who is None or clause.fragment) and previous is not None:
            clause = _continuation(sep, raw, previous, ctx) or clause
        if clause.fragment and named and sep not in (":", ";"):  # "Note: asthmatic" is a label
            # "…, is type 1 diabetic": said of the one just named, not the user a note's
            # subjectless "Allergic to nuts" is.
            clause = _Clause(raw, None, "")
        return clause

    def _clause(self, clause: _Clause, ctx: _Context, *, remembered: bool) -> list[Fact]:
        if clause.lead and HYPOTHETICAL.search(clause.lead):
            return []
        found = _names(clause, ctx) + _mentions(clause)
        past_action = _past_action(clause, ctx.today)
        if not past_action:
            found += _facts(clause, ctx)
        stated = [fact for fact in found if not fact.get("incidental")]
        request = _is_request(clause)
        if not stated and not past_action and not request:
            found += _identifiers(clause)
            stated = [fact for fact in found if not fact.get("incidental")]
        if stated or request:
            return found
        event = _event(clause, ctx.today, past_action=past_action, remembered=remembered)
        return found + ([event] if event else [])


def _listed_relatives(sentence: str) -> tuple[list[Fact], str]:
    """ "I have two sons, Leo and Max": their names, and the sentence without the list."""
    listed = _RELATIVE_LIST.search(sentence)
    if not listed:
        return [], sentence
    found = [
        _name_fact(_relative(listed.group("rel"), ""), name)
        for name in re.split(r"\s*,\s*|\s+and\s+", listed.group("names"))
        if name and name.split()[0].lower() not in NOT_NAMES
    ]
    return found, (sentence[: listed.start()] + sentence[listed.end() :]).strip()


def _left_out(raw: str, *, question: bool) -> bool:
    """A clause naming a secret, or the question of a sentence: read nothing, continue nothing."""
    if names_secret(raw):
        return True
    return bool(QUESTION_START.match(raw) and (question or raw.rstrip().endswith("?")))


def _antecedent(raw: str) -> str:
    """The noun a later "it" in the sentence may stand for ("Penicillin gives me hives, …")."""
    antecedent = _ANTECEDENT.match(raw)
    if antecedent and antecedent.group("np").split()[0].lower() not in _NOT_ANTECEDENT:
        return antecedent.group("np")
    return ""


def _facts(clause: _Clause, ctx: _Context) -> list[Fact]:
    """The keyed facts of one clause, by whom it is about."""
    who, predicate, raw = clause.who, clause.predicate, clause.raw
    if who is not None and predicate:
        found = _health(who, predicate, ctx) or _work(who, predicate, ctx) or _home(who, predicate, ctx)
        found = found or _personal(who, predicate, ctx)
        if not found and who.user:
            found = _preferences(who, predicate, ctx, clause.lead)
        if not found and not who.user:
            found = _relative_names(who, predicate) or _birthday_of(who, predicate, ctx)
        return found
    if who is USER and clause.possessive:
        return _possessions(raw, ctx) or _subjectless(raw, ctx)
    if who is None:
        return _subjectless(raw, ctx)
    return []
