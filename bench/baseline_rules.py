# ruff: noqa
# mypy: ignore-errors
"""BASELINE ONLY: a verbatim copy of memory_core/extraction/rules.py at commit ce8e8c4 (only its
docstring replaced by this one), the offline extractor before the widened rules.
`python -m bench offline_extraction` scores it next to the current one. Never imported by the
product; do not edit (the point is that it stays the old one)."""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from django.utils import timezone

from memory_core.extraction.schema import (
    RULES_NAME,
    RULES_VERSION,
    Candidate,
    rule_candidate,
)
from memory_core.extraction.schema import parse_when as _parse_when


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Where a first-person clause may start: the sentence start, after punctuation or a conjunction.
_LEAD = (
    r"(?:^|[,;:(\u2014-]\s*|"
    r"\b(?:and|but|so|also|actually|honestly|btw|oh|well|because|since|now|plus|hi|hey)\s+)"
)
_AM = r"(?:'m|\u2019m|\s+am)"
_NAME = r"[A-Z][\w'\u2019-]*(?:\s+[A-Z][\w'\u2019-]*){0,2}"
_PLACE = r"[A-Z][\w'\u2019.-]*(?:(?:\s+|,\s*)[A-Z][\w'\u2019.-]*){0,3}"
_ORG = r"[A-Z0-9][\w&'\u2019.-]*(?:\s+(?:&\s+)?[A-Z0-9][\w&'\u2019.-]*){0,4}"
# Where an open-ended object ("allergic to peanuts, so …") stops.
_OBJECT_END = re.compile(
    r"[,\s]+(?:so|but|because|which|when|if|since|though|although|while|and\s+(?:I|i|my|we|you)|"
    r"please|can|could|would|do)\b.*$",
    re.S,
)
_TRAILING_FILLER = re.compile(
    r"(?:\s+(?:too|as well|a lot|so much|very much|really|though|lol|haha))+$", re.I
)

_ALLERGY = re.compile(
    rf"(?i:{_LEAD}I{_AM}\s+(?:(?P<degree>very|severely|highly|deathly|mildly|extremely|seriously|slightly|"
    r"quite|super)\s+)?allergic\s+to\s+)(?P<what>[^.;!?]+)"
)
_ALLERGY_NOUN = re.compile(
    r"(?i:\bI\s+have\s+(?:an?\s+)?(?:(?P<degree>severe|mild|serious|bad|strong|life-threatening)\s+)?"
    r"(?P<what>[a-z][a-z -]{1,40}?)\s+allergy)"
)
_CANNOT_EAT = re.compile(
    r"(?i:\bI\s+(?:can't|can\u2019t|cannot|can\s+not|must\s+not|mustn't|mustn\u2019t|am\s+not\s+allowed\s+to|"
    r"'m\s+not\s+allowed\s+to)\s+(?P<verb>eat|drink|have|consume)\s+)(?P<what>[^.;!?]+)"
)
_DIETS = ("vegan", "vegetarian", "pescatarian", "halal", "kosher")
_CONDITION_AM = re.compile(
    rf"(?i:\bI{_AM}\s+(?:an?\s+)?(?:also\s+)?(?P<cond>(?:type[ -]?[12]\s+)?diabetic|pre-?diabetic|"
    r"vegan|vegetarian|pescatarian|halal|kosher|celiac|coeliac|lactose[ -]intolerant|"
    r"gluten[ -]intolerant|epileptic|asthmatic|pregnant|hypertensive|"
    r"on\s+a\s+[a-z-]+(?:\s+[a-z-]+)?\s+diet)\b)"
)
_CONDITION_HAVE = re.compile(
    r"(?i:\bI\s+have\s+(?P<cond>(?:type[ -]?[12]\s+)?diabetes|asthma|celiac\s+disease|coeliac\s+disease|"
    r"epilepsy|high\s+blood\s+pressure|hypertension|a\s+heart\s+condition|lactose\s+intolerance|gluten\s+intolerance|"
    r"a\s+pacemaker|kidney\s+disease|gout)\b)"
)
_MY_NAME = re.compile(rf"(?i:\bmy\s+name\s+is\s+|\bI{_AM}\s+called\s+)(?P<name>{_NAME})")
_CALL_ME = re.compile(rf"(?i:\b(?:please\s+)?call\s+me\s+)(?P<name>{_NAME})")
_JOB_WORDS = (
    r"engineer|developer|programmer|designer|teacher|professor|lecturer|nurse|doctor|physician|surgeon|"
    r"dentist|pharmacist|lawyer|attorney|accountant|consultant|architect|scientist|researcher|analyst|"
    r"manager|student|writer|journalist|editor|chef|cook|driver|pilot|mechanic|electrician|plumber|"
    r"farmer|artist|musician|photographer|librarian|translator|marketer|salesperson|recruiter|founder|"
    r"entrepreneur|freelancer|intern|officer|administrator|technician|therapist|psychologist|"
    r"veterinarian|vet|economist|banker|trader|paramedic|firefighter|carpenter|tutor|coach|clerk"
)
_JOB_AS = re.compile(
    rf"(?i:{_LEAD}I\s+(?:currently\s+|now\s+)?work\s+as\s+(?:an?\s+)?)(?P<job>[A-Za-z][\w -]{{1,60}}?)"
    rf"(?:\s+(?i:at|for|with)\s+(?P<org>{_ORG}))?(?=$|[.,;!?]|\s+(?:and|but|so|since|because)\b)"
)
_JOB_AM = re.compile(
    rf"(?i:{_LEAD}I{_AM}\s+(?:an?\s+)(?P<job>(?:[\w-]+\s+){{0,3}}?(?:{_JOB_WORDS})s?)\b)"
    rf"(?:\s+(?i:at|for|with)\s+(?P<org>{_ORG}))?"
)
_WORK_AT = re.compile(rf"(?i:{_LEAD}I\s+(?:currently\s+|now\s+)?work\s+(?:at|for)\s+)(?P<org>{_ORG})")
_LIVE_IN = re.compile(
    rf"(?i:{_LEAD}(?:I|we)\s+(?:currently\s+|now\s+|still\s+)?(?:live|reside)\s+in\s+(?:the\s+)?|"
    rf"{_LEAD}I{_AM}\s+(?:currently\s+|now\s+)?based\s+in\s+(?:the\s+)?)(?P<place>{_PLACE})"
)
_MOVED_TO = re.compile(
    rf"(?i:{_LEAD}(?:I|we)(?:'ve|\u2019ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+|now\s+)?"
    rf"(?:moved|relocated)\s+to\s+(?:the\s+)?)(?P<place>{_PLACE})"
)
_SPOUSES = ("wife", "husband", "partner", "spouse", "girlfriend", "boyfriend", "fiancee", "fiance")
_RELATIONS = (
    r"wife|husband|partner|spouse|girlfriend|boyfriend|fianc[e\u00e9]e?|son|daughter|child|kid|baby|"
    r"mother|mom|mum|father|dad|brother|sister|grandmother|grandma|grandfather|grandpa|dog|cat|boss"
)
_FAMILY = re.compile(
    rf"(?i:\bmy\s+(?:(?:older|younger|little|big|eldest|youngest|oldest|twin)\s+)?(?P<rel>{_RELATIONS})"
    r"(?:(?:'s|\u2019s)\s+name\s+is|\s+is\s+(?:called|named)|\s+(?:called|named)|\s+is)\s+)"
    rf"(?P<name>{_NAME})(?=$|[.,;!?)]|\s+(?:and|but|who|she|he|it)\b)"
)
# "My wife is Chinese" says nothing about her name.
_NOT_NAMES = _words(
    "american british english french german japanese chinese korean indian italian spanish "
    "canadian australian russian mexican brazilian dutch swiss swedish irish polish turkish "
    "vietnamese thai here there home away sick ill pregnant okay ok fine great"
)
_PREFERENCE = re.compile(
    rf"(?i:{_LEAD}I\s+(?:really\s+|absolutely\s+|generally\s+|usually\s+|much\s+|strongly\s+|also\s+|"
    r"definitely\s+|totally\s+|do\s+)?(?P<verb>prefer|like|love|enjoy|hate|dislike|detest|adore|"
    r"don't\s+like|don\u2019t\s+like|do\s+not\s+like|can't\s+stand|can\u2019t\s+stand|cannot\s+stand)\s+)"
    r"(?P<what>[^.;!?]+)"
)
_PREFERENCE_VERBS = {
    "prefer": "prefers",
    "like": "likes",
    "love": "loves",
    "enjoy": "enjoys",
    "hate": "hates",
    "dislike": "dislikes",
    "detest": "detests",
    "adore": "adores",
    "don't like": "does not like",
    "do not like": "does not like",
    "can't stand": "cannot stand",
    "cannot stand": "cannot stand",
}
_REMEMBER = re.compile(
    rf"(?i:{_LEAD}(?:(?:can|could|will|would)\s+you\s+)?(?:please\s+)?(?:remember|don't\s+forget|don\u2019t\s+forget|do\s+not\s+forget|"
    r"keep\s+in\s+mind)(?:\s+that\b|\s*[:,\u2014-])?\s*)(?!(?:when|what|who|where|how|why|if|whether|to|me|this|"
    r"it)\b)(?P<what>\S.*)"
)
_PROCEDURAL = re.compile(
    r"(?i)^(?:always|never|from now on|don't|do not|make sure|you should|you must|you need to|"
    r"stop|only)\b|\bno longer needs?\b|\bfrom now on\b|\b(?:should|must)\s+(?:always|never)\b|"
    r"\bwithout\s+(?:approval|asking|checking|confirmation)\b|\bdo(?:es)?n[o']t\s+need\s+(?:approval|to\s+be)\b"
)
_PAST_VERB = re.compile(
    r"\b[Ii]\s+(?:(?:just|already|finally|also|recently)\s+)?(?P<verb>[a-z]+ed(?<!eed)|had|got|went|made|paid|"
    r"sent|bought|took|left|met|gave|won|lost|sold|wrote|found|began|flew|ran|saw|spent|came|brought)\b"
)
_IDENTIFIER = re.compile(
    r"(?<![\w-])(?:#\d{3,}|(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9][A-Z0-9-]{3,}|\d{5,})\b"
)
_QUESTION_START = re.compile(
    r"(?i)^(?:what|who|where|when|why|how|which|can|could|would|should|do|does|did|is|are|will)(?:'s|\s)"
)

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE = re.compile(
    r"(?i)(?:\b(?:on|in)\s+)?"
    r"(?:\b(?P<iso>\d{4}[-/]\d{1,2}[-/]\d{1,2})\b"
    rf"|\b(?P<md_month>{_MONTH})\.?\s+(?P<md_day>\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(?P<md_year>\d{{4}}))?\b"
    rf"|\b(?P<dm_day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dm_month>{_MONTH})\.?(?:,?\s+(?P<dm_year>\d{{4}}))?\b"
    r"|\b(?P<rel>the\s+day\s+before\s+yesterday|yesterday|today|this\s+morning|tonight)\b"
    rf"|\blast\s+(?P<weekday>{'|'.join(_WEEKDAYS)})\b"
    r"|\b(?P<ago>\d{1,2}|a|one|two|three)\s+days?\s+ago\b)"
)

_ADVERBS = (
    r"really|also|just|never|always|usually|still|often|only|actually|now|recently|currently|finally|"
    r"already|definitely|absolutely|generally|mostly|sometimes|rarely|even|totally|strongly|much|no\s+longer"
)
_PRONOUN_I = re.compile(
    rf"\b[Ii](?P<contraction>'m|\u2019m|'ve|\u2019ve|'ll|\u2019ll|'d|\u2019d)?\b(?P<adverbs>(?:\s+(?:{_ADVERBS}))*)"
    r"(?:\s+(?P<verb>[A-Za-z'\u2019]+))?"
)
_CONTRACTIONS = {"m": "is", "ve": "has", "ll": "will", "d": "would"}
_IRREGULAR = {
    "am": "is",
    "have": "has",
    "do": "does",
    "go": "goes",
    "don't": "doesn't",
    "haven't": "hasn't",
    "was": "was",
    "were": "was",
}
_UNCHANGED_AFTER_I = _words(
    "can could will would shall should may might must did was had used got went made paid sent "
    "bought took left met gave won lost sold wrote found began flew ran saw spent came brought "
    "and or but too"
)
_OBJECT_PRONOUNS = (
    (re.compile(r"\bmyself\b", re.I), "themselves"),
    (re.compile(r"\bmine\b", re.I), "the user's"),
    (re.compile(r"\bmy\b", re.I), "the user's"),
    (re.compile(r"\bme\b", re.I), "the user"),
    (re.compile(r"\byour\b", re.I), "the assistant's"),
    (re.compile(r"\byou\b", re.I), "the assistant"),
)
_TOPIC_STOPWORDS = _words(
    "a an the my your their our to it its of for with in on at and or when that this those these "
    "some very much really being be me i you them lot so by from as is are than over more most "
    "kind sort just all any having getting"
)
_NO_TOPIC_START = _words("it that this you them those these how what when where who why")


def _conjugate(verb: str) -> str:
    lower = verb.lower().replace("\u2019", "'")
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if lower in _UNCHANGED_AFTER_I or lower.endswith(("ed", "n't")):
        return verb
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if lower.endswith("y") and len(lower) > 1 and lower[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _third_person(text: str, *, possessive: str = "the user's") -> str:
    """First person to third ("I like my tea" -> "the user likes their tea" with possessive="their")."""

    def subject(match: re.Match[str]) -> str:
        adverbs = match.group("adverbs") or ""
        verb = match.group("verb")
        contraction = match.group("contraction")
        if contraction:
            head = f"the user {_CONTRACTIONS[contraction[1:].lower()]}"
            return head + adverbs + (f" {verb}" if verb else "")
        if verb is None:
            return "the user" + adverbs
        return f"the user{adverbs} {_conjugate(verb)}"

    out = _PRONOUN_I.sub(subject, text)
    for pattern, replacement in _OBJECT_PRONOUNS:
        value = possessive if replacement == "the user's" else replacement
        if replacement == "the user" and possessive != "the user's":
            value = "them"
        out = pattern.sub(value, out)
    return out


def _sentence(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip(" ,;:-\u2014")
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def _clean_object(text: str) -> str:
    text = _OBJECT_END.sub("", text.strip())
    text = _TRAILING_FILLER.sub("", text)
    return text.strip(" ,;:-\u2014.!?")


def _slug(text: str, *, words: int = 4) -> str:
    tokens = [t for t in re.findall(r"[a-z0-9]+", text.lower()) if t not in _TOPIC_STOPWORDS]
    singular = [t[:-1] if len(t) > 3 and t.endswith("s") and not t.endswith("ss") else t for t in tokens]
    return "_".join(singular[:words])


def _article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


def _to_date(match: re.Match[str], today: date) -> date | None:
    groups = match.groupdict()
    try:
        if groups["iso"]:
            year, month, day = (int(part) for part in re.split(r"[-/]", groups["iso"]))
            return date(year, month, day)
        if groups["md_month"] or groups["dm_month"]:
            month = _MONTHS[(groups["md_month"] or groups["dm_month"]).lower()]
            day = int(groups["md_day"] or groups["dm_day"])
            year_text = groups["md_year"] or groups["dm_year"]
            found = date(int(year_text) if year_text else today.year, month, day)
            # Without a year, a date after the message is last year's (people report the past).
            if not year_text and found > today:
                found = found.replace(year=found.year - 1)
            return found
    except ValueError:
        return None
    if groups["rel"]:
        relative = re.sub(r"\s+", " ", groups["rel"].lower())
        back = {"the day before yesterday": 2, "yesterday": 1}.get(relative, 0)
        return today - timedelta(days=back)
    if groups["weekday"]:
        back = (today.weekday() - _WEEKDAYS.index(groups["weekday"].lower())) % 7 or 7
        return today - timedelta(days=back)
    if groups["ago"]:
        words = {"a": 1, "one": 1, "two": 2, "three": 3}
        return today - timedelta(days=words.get(groups["ago"].lower()) or int(groups["ago"]))
    return None


def _find_date(text: str, today: date) -> tuple[date, re.Match[str]] | None:
    for match in _DATE.finditer(text):
        found = _to_date(match, today)
        if found is not None:
            return found, match
    return None


def _sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+|\s*\n+\s*", text)
    return [part.strip() for part in parts if part and part.strip()]


class RuleBasedExtractor:
    """Regular expressions over the user's own messages, for offline mode; explicit statements only."""

    name = RULES_NAME
    prompt_version = RULES_VERSION

    def extract(self, messages: list[dict[str, Any]]) -> list[Candidate]:
        candidates: list[Candidate] = []
        seen: set[tuple[str, str]] = set()
        for message in messages:
            if message["role"] != "user":
                continue
            when = _parse_when(message.get("created_at")) or timezone.now()
            today = timezone.localtime(when).date()
            for sentence in _sentences(str(message["content"])):
                for fields in self._from_sentence(sentence, today):
                    marker = (fields["content"].lower(), fields.get("key", ""))
                    if marker in seen:
                        continue
                    seen.add(marker)
                    candidate = rule_candidate(str(message["id"]), fields)
                    if candidate is not None:
                        candidates.append(candidate)
        return candidates

    def _from_sentence(self, sentence: str, today: date) -> list[dict[str, Any]]:
        remember = _REMEMBER.search(sentence)
        if remember:
            return self._remembered(remember.group("what"), today)
        if sentence.endswith("?"):
            # "I'm vegan, can you suggest a recipe?": keep the statement, drop the question.
            clauses = re.split(r",\s*|\s+(?:so|and|but)\s+", sentence)[:-1]
            sentence = ", ".join(c for c in clauses if not _QUESTION_START.match(c))
        if not sentence or _QUESTION_START.match(sentence):
            return []
        found = self._facts(sentence, today)
        if not found:
            event = self._event(sentence, today)
            found = [event] if event else []
        return found

    def _remembered(self, what: str, today: date) -> list[dict[str, Any]]:
        """ "Remember that …": said on purpose, so it is kept even when no finer pattern fits."""
        what = what.strip().rstrip(".!? ")
        if not what:
            return []
        if _PROCEDURAL.search(what):
            return [
                {
                    "content": _sentence(what),
                    "type": "procedural",
                    "category": "sop",
                    "importance": 0.7,
                    "confidence": 1.0,
                }
            ]
        specific = self._facts(what, today) or [e for e in [self._event(what, today)] if e]
        if specific:
            return [
                {**fields, "confidence": 1.0, "importance": max(fields.get("importance", 0.5), 0.7)}
                for fields in specific
            ]
        return [{"content": _sentence(_third_person(what)), "importance": 0.7, "confidence": 1.0}]

    def _facts(self, text: str, today: date) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        found += self._health(text)
        found += self._identity(text)
        found += self._home(text, today)
        found += self._family(text)
        found += self._preferences(text)
        return found

    @staticmethod
    def _health(text: str) -> list[dict[str, Any]]:
        safety = {
            "type": "semantic",
            "category": "safety",
            "pinned": True,
            "importance": 0.95,
            "confidence": 0.9,
        }
        found = []
        for match in _ALLERGY.finditer(text):
            what = _third_person(_clean_object(match.group("what")), possessive="their")
            if what:
                degree = f"{match.group('degree').lower()} " if match.group("degree") else ""
                statement = f"The user is {degree}allergic to {what}."
                found.append({**safety, "content": statement, "key": f"health.allergy.{_slug(what)}"})
        for match in _ALLERGY_NOUN.finditer(text):
            what = _clean_object(match.group("what"))
            if what:
                degree = f"{match.group('degree').lower()} " if match.group("degree") else ""
                statement = f"The user has {_article(degree or what)} {degree}{what} allergy."
                found.append({**safety, "content": statement, "key": f"health.allergy.{_slug(what)}"})
        for match in _CANNOT_EAT.finditer(text):
            what = _third_person(_clean_object(match.group("what")), possessive="their")
            if what:
                statement = f"The user cannot {match.group('verb').lower()} {what}."
                found.append({**safety, "content": statement, "key": f"diet.avoid.{_slug(what)}"})
        for match in _CONDITION_AM.finditer(text):
            condition = re.sub(r"\s+", " ", match.group("cond").lower())
            diet = condition in _DIETS or condition.endswith(" diet")
            key = "diet" if diet else f"health.{_slug(condition)}"
            found.append({**safety, "content": f"The user is {condition}.", "key": key, "importance": 0.9})
        for match in _CONDITION_HAVE.finditer(text):
            condition = re.sub(r"\s+", " ", match.group("cond").lower())
            found.append(
                {**safety, "content": f"The user has {condition}.", "key": f"health.{_slug(condition)}"}
            )
        return found

    @staticmethod
    def _identity(text: str) -> list[dict[str, Any]]:
        profile = {"type": "semantic", "category": "profile", "importance": 0.8, "confidence": 0.9}
        found = []
        for match in _MY_NAME.finditer(text):
            found.append({**profile, "content": f"The user's name is {match.group('name')}.", "key": "name"})
        for match in _CALL_ME.finditer(text):
            statement = f"The user prefers to be called {match.group('name')}."
            found.append({**profile, "content": statement, "key": "preferred_name"})
        job_matches = list(_JOB_AS.finditer(text)) or list(_JOB_AM.finditer(text))
        for match in job_matches:
            job = _clean_object(match.group("job"))
            if not job or len(job.split()) > 6:
                continue
            org = (match.group("org") or "").rstrip(".")
            at = f" at {org}" if org else ""
            statement = f"The user works as {_article(job)} {job}{at}."
            found.append({**profile, "content": statement, "key": "job", "importance": 0.7})
        if not job_matches:
            for match in _WORK_AT.finditer(text):
                org = match.group("org").rstrip(".")
                found.append(
                    {**profile, "content": f"The user works at {org}.", "key": "employer", "importance": 0.7}
                )
        return found

    @staticmethod
    def _home(text: str, today: date) -> list[dict[str, Any]]:
        profile = {
            "type": "semantic",
            "category": "profile",
            "importance": 0.7,
            "confidence": 0.9,
            "key": "home_city",
        }
        found = []
        for match in _MOVED_TO.finditer(text):
            place = match.group("place").rstrip(".")
            dated = _find_date(text[match.end() :], today) or _find_date(text[: match.start()], today)
            if dated:
                moved_on = dated[0].isoformat()
                statement = f"The user lives in {place} (moved there on {moved_on})."
                found.append({**profile, "content": statement, "valid_from": moved_on})
            else:
                found.append({**profile, "content": f"The user moved to {place} and lives there now."})
        if not found:
            for match in _LIVE_IN.finditer(text):
                place = match.group("place").rstrip(".")
                found.append({**profile, "content": f"The user lives in {place}."})
        return found

    @staticmethod
    def _family(text: str) -> list[dict[str, Any]]:
        found = []
        for match in _FAMILY.finditer(text):
            name = match.group("name")
            if name.split()[0].lower() in _NOT_NAMES:
                continue
            relation = match.group("rel").lower().replace("\u00e9", "e")
            if relation in _SPOUSES:
                key = f"family.{relation}"
            elif relation in ("dog", "cat"):
                key = f"pet.{relation}.{_slug(name)}"
            else:
                key = f"family.{relation}.{_slug(name)}"
            found.append(
                {
                    "type": "semantic",
                    "category": "relationship",
                    "content": f"The user's {match.group('rel').lower()} is named {name}.",
                    "key": key,
                    "importance": 0.6,
                    "confidence": 0.9,
                }
            )
        return found

    @staticmethod
    def _preferences(text: str) -> list[dict[str, Any]]:
        found = []
        for match in _PREFERENCE.finditer(text):
            what = _clean_object(match.group("what"))
            first = what.split()[0].lower() if what else ""
            topic = _slug(what, words=3)
            if not topic or first in _NO_TOPIC_START:
                continue
            verb = re.sub(r"\s+", " ", match.group("verb").lower().replace("\u2019", "'"))
            statement = f"The user {_PREFERENCE_VERBS[verb]} {_third_person(what, possessive='their')}."
            found.append(
                {
                    "type": "semantic",
                    "category": "preference",
                    "content": statement,
                    "key": f"preference.{topic}",
                    "importance": 0.5,
                    "confidence": 0.9,
                }
            )
        return found

    @staticmethod
    def _event(text: str, today: date) -> dict[str, Any] | None:
        """A first-person past event with a date or an identifier ("on 2026-06-29 I filed refund RF…")."""
        if not _PAST_VERB.search(text):
            return None
        dated = _find_date(text, today)
        if dated is None and not _IDENTIFIER.search(text):
            return None
        when = dated[0] if dated else today
        rest = text
        if dated:
            span = dated[1].span()
            rest = text[: span[0]] + " " + text[span[1] :]
        rest = re.sub(r"^\W*(?:(?:also|so|and|oh|btw|well|then|anyway)\b\W*)*", "", rest.strip())
        rest = _third_person(rest.strip(" ,;:.!")).strip()
        if not rest:
            return None
        return {
            "type": "episodic",
            "category": "event",
            "content": f"On {when.isoformat()} {rest}.",
            "valid_from": when.isoformat(),
            "importance": 0.6,
            "confidence": 0.9,
        }


def remember_requests(message: dict[str, Any]) -> list[Candidate]:
    """The statements of an explicit "remember that …" in one user message (written at once by chat).

    Empty when the message asks nothing to be remembered; the rest of the message is left to the
    background extraction of the conversation.
    """
    if message.get("role") != "user":
        return []
    when = _parse_when(message.get("created_at")) or timezone.now()
    today = timezone.localtime(when).date()
    rules = RuleBasedExtractor()
    found: list[Candidate] = []
    for sentence in _sentences(str(message.get("content", ""))):
        match = _REMEMBER.search(sentence)
        if match:
            found += [
                candidate
                for fields in rules._remembered(match.group("what"), today)
                if (candidate := rule_candidate(str(message["id"]), fields)) is not None
            ]
    return found
