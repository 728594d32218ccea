"""Clauses of an English sentence: where a sentence splits, who each clause is about (the user, a
relative or nobody we track), and how a clause without a subject continues the one before."""

from __future__ import annotations

import re

from memory_core.extraction.rules.facts import USER, Who, _Clause, _Context, _relative
from memory_core.reading.normalise import OBJECT_PRONOUNS, PRONOUN_I, expand_negations, third_person
from memory_core.reading.words import ADV, HYPOTHETICAL, NAME, NOT_NAMES, REL_ALT, word_set

# Verbs and words that may open a clause that continues the subject of the one before.
_CONTINUE_VERBS = word_set(
    "work works worked live lives lived take takes took have has had use uses used need needs avoid "
    "avoids eat eats ate drink drinks drank cannot can't can do does don't never am is are was were "
    "moved joined started quit left got get gets became carry carries follow follows keep keeps kept "
    "suffer suffers love loves like likes prefer prefers hate hates enjoy enjoys go goes went play plays "
    "also now currently still just recently really usually always no must should stay stays relocated "
    "retired grew come comes came run runs ran"
)
_COMPLEMENT_WORDS = word_set(
    "allergic intolerant lactose gluten vegan vegetarian pescatarian diabetic asthmatic epileptic "
    "celiac coeliac pregnant severely very highly mildly deathly extremely seriously slightly not based "
    "married single divorced engaged kosher halal originally"
)
_FRAGMENT_VERBS = word_set(
    "works lives takes has is prefers likes loves enjoys hates dislikes uses avoids eats drinks suffers "
    "goes keeps follows carries needs joined moved started quit left relocated grew was became does "
    "cannot can't no adores detests favours favors resides got"
)
_SUBJECT_WORDS = word_set(
    "i i'm i've i'd i'll we we're we've our my you he she it they his her their this that there these "
    "those the user user's"
)
_CLAUSE_SPLIT = re.compile(
    r"(?P<sep>\s*[,;]\s*|\s+[\u2013\u2014-]\s+|\s*:\s+|"
    r"\s+(?=(?:and|but|so|because|although|though|whereas|while|plus|or|which|since)\s))"
)
_LIST_SEPARATORS = ("and", "or", "plus", ",", "&", "as well as")
_CONJUNCTION = re.compile(
    r"(?i)^(?P<conj>and|but|so|because|although|though|whereas|while|plus|or|which|since|also|yet)\s+"
)
_LEAD_WORDS = re.compile(
    r"(?i)^(?:(?:hi|hey|hello|oh|well|btw|also|actually|honestly|so|and|but|plus|now|ok|okay|yes|yeah|"
    r"anyway|fyi|ps|p\.s\.|note|please\s+note|just\s+so\s+you\s+know|for\s+the\s+record|by\s+the\s+way)"
    r"[\s,:!-]+)+"
)


def _split_clauses(sentence: str) -> list[tuple[str, str]]:
    """(separator before, clause) pairs; a comma between two capitalised words stays ("Lyon, France")."""
    parts: list[tuple[str, str]] = []
    position = 0
    separator = ""
    for match in _CLAUSE_SPLIT.finditer(sentence):
        piece = sentence[position : match.start()]
        nxt = sentence[match.end() : match.end() + 40]
        comma = match.group("sep").strip() == ","
        if (
            comma
            and re.search(r"[A-Z][\w.'-]*$", piece)
            and re.match(r"[A-Z][\w'-]*", nxt)
            and not re.match(r"(?:I|I'm|My|We|Our|The user)\b", nxt)
        ):
            continue
        if comma and re.match(r"\d{4}\b", nxt):  # "June 14, 2019"
            continue
        if match.group("sep").strip() == ":" and re.match(
            r"#?[A-Za-z0-9-]*\d", nxt
        ):  # "Ticket number: INC-1"
            continue
        parts.append((separator, piece))
        separator = match.group("sep").strip() or "and"
        position = match.end()
    parts.append((separator, sentence[position:]))
    out = []
    for sep, piece in parts:
        piece = piece.strip(" ,;:.!?")
        conj = _CONJUNCTION.match(piece)
        if conj:
            sep = conj.group("conj").lower()
            piece = piece[conj.end() :]
        if piece:
            out.append((sep, piece))
    return out


_USER_SUBJECT = re.compile(r"(?<![\w'])(?P<subj>I|[Ww]e)(?P<rest>(?:'m|'ve|'d|'ll|'re)?(?:\s.*)?)$", re.S)
_STATEMENT_SUBJECT = re.compile(
    r"^(?i:(?:the\s+)?user|this\s+user|the\s+customer)(?!'s)(?P<rest>\s.*)$", re.S
)
_RELATIVE_SUBJECT = re.compile(
    rf"^(?P<lead>.*?)(?<![\w'])(?i:my|our|(?:the\s+)?user's|his|her|their)\s+"
    rf"(?:(?i:older|younger|little|big|eldest|youngest|oldest|twin|baby|new|dear|late)\s+)?"
    rf"(?P<rel>(?i:{REL_ALT})|(?:(?<=little\s)|(?<=baby\s))(?i:boy|girl))(?![\w-])(?P<rest>.*)$",
    re.S,
)
# "I think I might be …", "I found out last week that I'm …": the fact is the second clause.
_REPORTING = re.compile(
    r"(?i)^(?:'m\s+|\s+am\s+|'ve\s+|\s+have\s+|\s+)?(?:just\s+|recently\s+)?(?:think|believe|guess|suspect|"
    r"found\s+out|learned|learnt|discovered|realized|realised|know|been\s+told|was\s+told|pretty\s+sure|sure|"
    r"feel\s+like|heard|read|noticed|forgot\s+to\s+mention|should\s+mention|should\s+say|want\s+to\s+say|"
    r"have\s+to\s+say|must\s+say)\b"
)
_POSSESSIVE_SUBJECT = re.compile(r"^(?i:my|our|(?:the\s+)?user's)\s+(?P<rest>.+)$", re.S)


def _we_to_i(text: str) -> str:
    text = re.sub(r"^[Ww]e're\b", "I'm", text)
    text = re.sub(r"^[Ww]e\s+are\b", "I am", text)
    text = re.sub(r"^[Ww]e've\b", "I've", text)
    text = re.sub(r"^[Ww]e\s+were\b", "I was", text)
    text = re.sub(r"^[Ww]e\b", "I", text)
    text = re.sub(r"\bour\b", "my", text)
    return re.sub(r"\bus\b", "me", text)


def _first_person_predicate(rest: str) -> str:
    """ "'m allergic to my meds" (after "I") -> "is allergic to their meds"; "you" stays "you"."""
    third = PRONOUN_I.sub(lambda m: third_person(m.group(0)), "I" + rest)
    for pattern, replacement in OBJECT_PRONOUNS[:4]:
        third = pattern.sub({"the user's": "their", "the user": "them"}.get(replacement, replacement), third)
    third = re.sub(r"^the user\s*", "", third)
    return expand_negations(third).strip()


def _subject(raw: str) -> _Clause:
    """Who the clause is about, and what it says of them in the third person.

    The user ("I …", "we …", "The user …", or a fragment such as "Allergic to nuts"), a relative
    ("my son …", "the user's wife …"), the user's possessions ("my ticket …"), or nobody we track.
    """
    text = raw
    lead_match = _LEAD_WORDS.match(text)
    if lead_match:
        text = text[lead_match.end() :]
    match = _STATEMENT_SUBJECT.match(text)
    if match:
        return _Clause(raw, USER, expand_negations(match.group("rest").strip()))
    relative = _RELATIVE_SUBJECT.match(text)
    user = _USER_SUBJECT.search(text)
    if user and _REPORTING.match(user.group("rest")):
        inner = _USER_SUBJECT.search(text, user.end("subj"))
        user = inner or user
    if user and (
        relative is None or user.start() < len(relative.group("lead")) or not _real_relative(relative)
    ):
        return _user_clause(raw, text, user)
    if relative and _real_relative(relative):
        return _relative_clause(raw, text, relative)
    return _fragment_clause(raw, text)


def _user_clause(raw: str, text: str, user: re.Match[str]) -> _Clause:
    """ "I …" / "we …", unless what leads to it makes it hypothetical or someone else's words."""
    lead = text[: user.start()].strip()
    if HYPOTHETICAL.search(lead) or len(lead.split()) > 8 or re.search(r"(?i)\byou\b\W*$", lead):
        return _Clause(raw, None, "")
    rest = user.group("rest")
    if user.group("subj").lower() == "we":
        rest = _we_to_i("we" + rest)[1:]
    return _Clause(raw, USER, _first_person_predicate(rest), lead=lead, first_person=True)


# "my brother's a teacher": the 's of "is", not of a possession ("my brother's wife"), which is
# followed by a noun, never by an article, an adverb or a state.
_CONTRACTED_IS = re.compile(
    r"^['\u2019]s\s+(?=(?:a|an|the|not|no|now|still|also|currently|just|really|very|so|always|never|"
    r"retired|married|single|divorced|engaged|allergic|intolerant|pregnant|diabetic|vegan|vegetarian|"
    r"working|living|studying|based|from|in|at|on|away|back|home|here|there)\b)",
    re.I,
)


def _relative_clause(raw: str, text: str, relative: re.Match[str]) -> _Clause:
    """ "my son …", "the user's wife Mei …": the relative, named when a name follows."""
    lead = relative.group("lead").strip()
    if HYPOTHETICAL.search(lead) or len(lead.split()) > 8:
        return _Clause(raw, None, "")
    rel = {"boy": "son", "girl": "daughter"}.get(relative.group("rel").lower(), relative.group("rel"))
    rest = _CONTRACTED_IS.sub(" is ", relative.group("rest"), count=1)
    name_match = re.match(rf"^\s+(?P<name>{NAME})(?=\s+[a-z]|\s*$|[.,;!?])", rest)
    name = ""
    if name_match and name_match.group("name").split()[0].lower() not in NOT_NAMES:
        name = name_match.group("name")
        rest = rest[name_match.end() :]
    who = _relative(rel, name)
    if not re.match(r"(?i)^(?:my|our|the\s+user's|user's)", text[len(relative.group("lead")) :].strip()):
        return _Clause(raw, None, "")
    return _Clause(raw, who, expand_negations(rest.strip()), lead=lead, possessive=rest.startswith("'s"))


def _fragment_clause(raw: str, text: str) -> _Clause:
    """No subject said: "my ticket …" (the user's possession), "Allergic to nuts" (the user), or nobody."""
    possessive = _POSSESSIVE_SUBJECT.match(text)
    if possessive:
        return _Clause(raw, USER, "", possessive=True)
    first = re.sub(rf"(?i)^{ADV}", "", text).split(" ", 1)[0].lower().strip(",.!") if text else ""
    if first in _FRAGMENT_VERBS:
        return _Clause(raw, USER, expand_negations(text[0].lower() + text[1:]), fragment=True)
    if first in _COMPLEMENT_WORDS:
        return _Clause(raw, USER, "is " + expand_negations(text[0].lower() + text[1:]), fragment=True)
    return _Clause(raw, None, "")


def _real_relative(match: re.Match[str]) -> bool:
    """ "my wife …", not "my wife's name" handled elsewhere, and not "his wife" (someone else's)."""
    prefix = match.group(0)[len(match.group("lead")) :].split()[0].lower()
    return prefix in ("my", "our", "user's", "the")


def _continuation(sep: str, raw: str, previous: _Clause, ctx: _Context) -> _Clause | None:
    """A clause without a subject of its own, read with the previous clause's subject or frame."""
    if previous.who is None or (previous.possessive and not previous.predicate):
        # After a bare "my …" / "our …" ("Sami, our contract falconer, is type 1 diabetic"), what
        # follows is said of the one possessed (or named before it), not of the user.
        return None
    text = raw.strip()
    first = text.split(" ", 1)[0].lower()
    # "it's serious", "that's why", "he'd …": a subject of its own, contracted with its verb.
    stem = re.split(r"['\u2019]", first, maxsplit=1)[0]
    if (
        first in _SUBJECT_WORDS
        or stem in _SUBJECT_WORDS
        or _USER_SUBJECT.match(text)
        or _RELATIVE_SUBJECT.match(text)
    ):
        return None
    who = previous.who
    contrast = re.match(r"(?i)^(?:just|only|but|except(?:\s+for)?)\s+", text)
    if (
        contrast
        and ctx.frame
        and ctx.frame[0] == who
        and re.search(r"(?i)\b(?:not|no\s+longer)\s+", ctx.frame[1])
    ):
        # "not allergic to shellfish, just iodine": the second item is the positive one.
        frame = re.sub(r"(?i)\b(?:not|no\s+longer)\s+", "", ctx.frame[1], count=1)
        return _Clause(raw, who, frame + text[contrast.end() :], first_person=previous.first_person)
    if first in _CONTINUE_VERBS or (first.endswith("ed") and len(first) > 3):
        if previous.first_person:
            return _Clause(raw, who, _first_person_predicate(" " + text), first_person=True)
        return _Clause(raw, who, expand_negations(text))
    if first in _COMPLEMENT_WORDS:
        return _Clause(raw, who, "is " + expand_negations(text), first_person=previous.first_person)
    if ctx.frame and sep in _LIST_SEPARATORS and ctx.frame[0] == who:
        if ctx.frame[2] == "preference":
            # One taste, one statement: "loves hiking and cooking".
            joined = f"{previous.predicate} {'and' if sep == ',' else sep} {text}"
            return _Clause(
                raw, who, joined, lead=previous.lead, first_person=previous.first_person, replaces=True
            )
        if _FINITE_VERB.search(text) or _REQUEST_OPENING.match(text):
            # A list continues a frame with more of its objects ("allergic to nuts, shellfish"); a
            # clause with a verb of its own, or a request ("…to latex, please use nitrile gloves"),
            # is a statement of its own, never the frame's object.
            return None
        return _Clause(raw, who, ctx.frame[1] + text, first_person=previous.first_person)
    return None


_SHE = word_set(
    "wife girlfriend fiancee daughter mother sister grandmother aunt niece granddaughter stepdaughter "
    "stepmother mother_in_law"
)
_HE = word_set(
    "husband boyfriend fiance son father brother grandfather uncle nephew grandson stepson stepfather "
    "father_in_law"
)
_PRONOUN_SUBJECT = re.compile(
    r"(?i)^(?P<pronoun>she|he|they)(?:(?P<contracted>['\u2019](?:s|re))|\s+(?P<verb>is|are|was|were|has|have|had|"
    r"takes|take|uses|use|needs|need|carries|carry|cannot|can't|can|does|do|doesn't|don't|gets|get|"
    r"suffers|suffer|wears|wear|relies|rely|became|got|reacts|react))(?P<rest>\s.*)$",
    re.S,
)


def _pronoun_clause(raw: str, person: Who | None) -> _Clause | None:
    """ "she has a peanut allergy" after "my daughter is seven": the relative the sentence (or
    the one before) spoke of, when the pronoun can be theirs; a health fact told that way was
    read of nobody and lost."""
    if person is None:
        return None
    match = _PRONOUN_SUBJECT.match(raw.strip())
    if not match:
        return None
    pronoun = match.group("pronoun").lower()
    if (pronoun == "she" and person.relation in _HE) or (pronoun == "he" and person.relation in _SHE):
        return None
    contracted = (match.group("contracted") or "").lower()
    verb = {"'s": "is", "\u2019s": "is", "'re": "is", "\u2019re": "is"}.get(contracted, "")
    verb = verb or match.group("verb").lower()
    if pronoun == "they":
        verb = {"are": "is", "were": "was", "have": "has", "do": "does", "don't": "doesn't"}.get(
            verb, verb if verb in ("cannot", "can't", "can", "had", "got", "became") else _third(verb)
        )
    rest = match.group("rest")
    if contracted and verb == "is" and pronoun != "they" and re.match(r"\s+(?:got|been)\b", rest):
        # "she's got a nut allergy" (has), "he's been on insulin since May" (has been)
        verb, rest = ("has", rest.strip()[3:]) if rest.strip().startswith("got") else ("has", rest)
    return _Clause(raw, person, expand_negations(f"{verb}{rest}".strip()))


def _third(verb: str) -> str:
    """ "take" -> "takes", "carry" -> "carries" (they of one person)."""
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + ("es" if verb.endswith(("s", "sh", "ch", "x")) else "s")


# A clause that asks for something: a word of request or an instruction's verb first.
_REQUEST_OPENING = re.compile(
    r"(?i)^(?:please|pls|plz|kindly|thanks|thank\s+you|so|can\s+you|could\s+you|would\s+you|don't|do\s+not|"
    r"never|always|make\s+sure|be\s+sure|use|give|keep|check|avoid|bring|call|ring|tell|let|ask|note|send|"
    r"put|take|remember|stop|swap|skip|add|leave|serve|cook|prepare|wear|change|wash)\b"
)
_FINITE_VERB = re.compile(
    r"(?i)['\u2019](?:s|re|m|ll|d|ve)\b|\b(?:is|are|was|were|am|be|been|being|isn't|aren't|wasn't|"
    r"makes?|made|gets?|got|feels?|felt|seems?|seemed|happens?|happened|goes|went|causes?|caused)\b"
)


_ANTECEDENT = re.compile(
    r"(?i)^(?P<np>(?:[a-z-]+\s+){0,2}?[a-z-]+)\s+(?:could|can|will|would|may|might|gives?|gave|makes?|made|"
    r"causes?|caused|triggers?|triggered|does|do|is|are|was|were|sends?|sent|puts?)\b"
)
_NOT_ANTECEDENT = word_set(
    "i my it this that we you he she they there what which who the a an some his her our"
)
