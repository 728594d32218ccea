"""Extraction: turn a conversation range into candidate memories and write them through `memory_add`.

`extraction_enqueue` records one idempotent `ExtractionJob` per conversation range and queues
`memory_core.tasks.extract_job` after commit; `extraction_run` (the task's body) asks the extractor
for candidates — the language model, or regular expressions in offline mode — and reconciles each
one into the namespace. Only what the user said counts as evidence.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Iterator
from datetime import date, datetime, time, timedelta
from typing import Annotated, Any, Literal, Protocol

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, ValidationError

from memory_core.errors import MemoryServiceError
from memory_core.jobs import enqueue
from memory_core.llm import LLMError, OfflineMode, get_llm
from memory_core.models import (
    CONTENT_MAX_CHARS,
    ActorKind,
    ExtractionJob,
    ExtractionStatus,
    Namespace,
    SourceKind,
)

logger = logging.getLogger(__name__)

PROMPT_VERSION = "extract-v1"
RULES_VERSION = "rules-v1"
RULES_NAME = "rule-based"

MAX_MESSAGES = 500
MESSAGE_ID_MAX_CHARS = 64
CONVERSATION_MAX_CHARS = 64
EXCERPT_MAX_CHARS = 300
KEY_MAX_CHARS = 120  # Candidate.key
_IDEMPOTENCY_KEY_MAX_CHARS = 200  # ExtractionJob.idempotency_key
# A failing job is re-raised (so django-q hands the task out again) until it has run this often.
MAX_ATTEMPTS = 3
# Long tool dumps or pasted documents add cost, not memories.
_TRANSCRIPT_MESSAGE_MAX_CHARS = 4000

OUTCOME_ACTIONS = ("added", "merged", "superseded", "ignored", "pending_review", "rejected")
_CHANGING_ACTIONS = frozenset({"added", "merged", "superseded"})

CATEGORIES = ("profile", "preference", "safety", "event", "task_state", "sop", "relationship", "general")


# --- the candidate schema (also the structured-output schema sent to the model) -------------------


def _unit_interval(value: Any) -> Any:
    # A model saying 1.2 means "very": clamp instead of failing the whole answer.
    if isinstance(value, int | float) and not isinstance(value, bool):
        return min(1.0, max(0.0, float(value)))
    return value


def _string_list(value: Any) -> Any:
    if isinstance(value, list):
        return [str(item) for item in value if item is not None]
    return value


def _known_category(value: Any) -> Any:
    return value if value in CATEGORIES else "general"


Unit = Annotated[float, Field(ge=0, le=1), BeforeValidator(_unit_interval)]


class Candidate(BaseModel):
    """One memory the conversation supports, as a self-contained third-person statement."""

    model_config = ConfigDict(extra="ignore")

    content: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=CONTENT_MAX_CHARS)
    ] = Field(
        description='One self-contained statement about the user, e.g. "The user is allergic to peanuts."'
    )
    type: Literal["semantic", "episodic", "procedural"] = Field(
        default="semantic",
        description="semantic: a stable fact; episodic: something that happened at a time; "
        "procedural: a rule for how the assistant must do a task.",
    )
    category: Annotated[
        Literal["profile", "preference", "safety", "event", "task_state", "sop", "relationship", "general"],
        BeforeValidator(_known_category),
    ] = "general"
    key: Annotated[str, StringConstraints(strip_whitespace=True, max_length=KEY_MAX_CHARS)] = Field(
        default="",
        description='A stable slot a later update would replace, e.g. "home_city", "name", "job", '
        '"health.allergy.peanut", "preference.coffee"; "" when there is none.',
    )
    importance: Unit = 0.5
    confidence: Unit = 0.8
    message_ids: Annotated[list[str], BeforeValidator(_string_list)] = Field(
        default_factory=list, description="Ids of the user messages the statement rests on."
    )
    is_inference: bool = Field(
        default=False, description="True when inferred rather than stated by the user."
    )
    valid_from: str | None = Field(
        default=None,
        description="ISO date (YYYY-MM-DD) the fact or event starts, resolved against timestamps.",
    )
    pinned: bool = Field(default=False, description="True for safety facts: allergies, health constraints.")


def _shortened(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters at a word boundary, marked with an ellipsis."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    cut = head.rsplit(None, 1)[0] if re.search(r"\s", head) else head
    return cut.rstrip(" ,;:-\u2014") + "\u2026"


def _rule_candidate(message_id: str, fields: dict[str, Any]) -> Candidate | None:
    """A rule's statement as a Candidate, shortened to the schema's limits; None if still invalid.

    A long "remember that …" (a pasted list) must not fail the chat turn or the extraction job.
    """
    fields = {
        **fields,
        "content": _shortened(str(fields.get("content", "")), CONTENT_MAX_CHARS),
        "key": str(fields.get("key", ""))[:KEY_MAX_CHARS].strip(),
    }
    try:
        return Candidate(message_ids=[message_id], **fields)
    except ValidationError:
        return None


class ExtractionOutput(BaseModel):
    candidates: list[Candidate] = Field(default_factory=list)


class Extractor(Protocol):
    name: str
    prompt_version: str

    def extract(self, messages: list[dict[str, Any]]) -> list[Candidate]: ...


# --- the language-model extractor ----------------------------------------------------------------

SYSTEM_PROMPT = """\
You maintain the long-term memory of an AI assistant about one user. From the conversation \
below, extract the facts worth remembering across future conversations.

A memory IS:
- a stable fact about the user: name, preferred name, job, employer, where they live, family, \
pets, languages (semantic);
- a health or safety constraint: allergies, intolerances, conditions, diets (semantic, category \
"safety", pinned true, high importance);
- an explicit, lasting preference: how they like things or answers (semantic, category "preference");
- something that happened to the user at a known time, with its identifiers: orders, refunds, \
tickets, bookings, moves (episodic, category "event" or "task_state");
- a rule about how the assistant must do a task (procedural, category "sop");
- anything the user explicitly asks to be remembered ("remember that …", "don't forget …"): \
always capture it.

A memory is NOT: small talk and greetings; one-off questions or requests ("what's the weather?"); \
tool output, pasted documents or data dumps; the assistant's own statements, suggestions or \
speculation; guesses about the user; anything only the assistant said; secrets of any kind — \
passwords, API keys, access tokens, one-time or verification codes, card numbers, bank \
account or identity numbers. Never copy a secret into a memory.

Rules:
- Only user messages are evidence. List in message_ids the ids of the user messages a \
statement rests on; never cite assistant or tool messages.
- One statement per fact, self-contained, in the third person about the user: "The user is \
severely allergic to peanuts.", "The user lives in Shanghai." Keep names, identifiers and \
numbers verbatim (e.g. RF20260629001, order 88231).
- Give each fact a stable key when it fills a slot a later update would replace: "name", \
"preferred_name", "job", "employer", "home_city", "health.allergy.<allergen>", "diet", \
"family.<relation>", "preference.<topic>"; otherwise "".
- Resolve relative dates ("yesterday", "last Monday", "next week") against the message \
timestamps and write them as ISO dates (YYYY-MM-DD) in the statement and in valid_from.
- confidence: how sure you are the user meant it (1.0 for explicit "remember" requests); \
importance: how much it matters for future help (safety facts near 1.0). Set is_inference to \
true when the statement is inferred rather than said.
- If nothing is worth remembering, return an empty list.

Answer with only a JSON object: {"candidates": [...]}."""


def build_prompt(messages: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The chat messages sent to the model: the instructions, then a numbered JSON transcript."""
    lines = []
    for number, message in enumerate(messages, start=1):
        content = str(message.get("content", ""))
        if len(content) > _TRANSCRIPT_MESSAGE_MAX_CHARS:
            content = content[:_TRANSCRIPT_MESSAGE_MAX_CHARS] + " […truncated]"
        item = {"n": number, "id": message["id"], "role": message["role"], "time": message.get("created_at")}
        lines.append(json.dumps({**item, "content": content}, ensure_ascii=False))
    last = next((m.get("created_at") for m in reversed(messages) if m.get("created_at")), None)
    today = (_parse_when(last) or timezone.now()).date().isoformat()
    transcript = "\n".join(lines)
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {
            "role": "user",
            "content": f"Date of the last message: {today}.\nTranscript, one JSON object per message:\n"
            f"{transcript}",
        },
    ]


class LLMExtractor:
    """Structured extraction by the language model named in `settings.EXTRACTION_MODEL`."""

    prompt_version = PROMPT_VERSION

    def __init__(self, *, model: str | None = None) -> None:
        self.name = model or settings.EXTRACTION_MODEL

    def extract(self, messages: list[dict[str, Any]]) -> list[Candidate]:
        output = get_llm().complete_json(
            build_prompt(messages), response_model=ExtractionOutput, model=self.name
        )
        return list(_grounded(output.candidates, messages))


def _grounded(candidates: list[Candidate], messages: list[dict[str, Any]]) -> Iterator[Candidate]:
    """Candidates resting on at least one user message; one citing an unknown id is dropped whole."""
    known = {str(m["id"]) for m in messages}
    from_user = {str(m["id"]) for m in messages if m["role"] == "user"}
    for candidate in candidates:
        cited = list(dict.fromkeys(candidate.message_ids))
        if not cited or any(message_id not in known for message_id in cited):
            continue  # a made-up id means the model is not quoting this conversation
        evidence = [message_id for message_id in cited if message_id in from_user]
        if evidence:
            yield candidate.model_copy(update={"message_ids": evidence})


# --- the offline extractor -----------------------------------------------------------------------


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
                    candidate = _rule_candidate(str(message["id"]), fields)
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


def get_extractor() -> Extractor:
    """The language model when an API key is configured, the rules otherwise."""
    if settings.OPENAI_API_KEY:
        return LLMExtractor()
    return RuleBasedExtractor()


# --- services ------------------------------------------------------------------------------------


def _parse_when(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        parsed: datetime | None = value
    elif isinstance(value, str) and value:
        parsed = parse_datetime(value)
        if parsed is None:
            day = parse_date(value)
            parsed = datetime.combine(day, time.min) if day else None
    else:
        return None
    if parsed is not None and timezone.is_naive(parsed):
        parsed = timezone.make_aware(parsed, timezone.get_default_timezone())
    return parsed


def _clean_messages(messages: Any) -> list[dict[str, Any]]:
    if not isinstance(messages, list) or not messages:
        raise MemoryServiceError("Nothing to extract from: the message list is empty.")
    if len(messages) > MAX_MESSAGES:
        raise MemoryServiceError(f"At most {MAX_MESSAGES} messages per extraction (got {len(messages)}).")
    clean = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise MemoryServiceError(f"Message {index} is not an object.")
        missing = [f for f in ("id", "role", "content") if message.get(f) in (None, "")]
        if missing:
            raise MemoryServiceError(f"Message {index} has no {', '.join(missing)}.")
        message_id = str(message["id"])
        if len(message_id) > MESSAGE_ID_MAX_CHARS:
            raise MemoryServiceError(f"Message {index}: ids are at most {MESSAGE_ID_MAX_CHARS} characters.")
        if not isinstance(message["content"], str):
            raise MemoryServiceError(f"Message {index}: content must be text.")
        created_at = message.get("created_at")
        parsed = _parse_when(created_at)
        if created_at not in (None, "") and parsed is None:
            raise MemoryServiceError(f"Message {index}: created_at is not an ISO date-time.")
        clean.append(
            {
                "id": message_id,
                "role": str(message["role"]).strip().lower(),
                "content": message["content"],
                "created_at": parsed.isoformat() if parsed else None,
            }
        )
    return clean


def _idempotency_key(namespace_id: int, conversation: str, messages: list[dict[str, Any]]) -> str:
    digest = hashlib.sha256(
        json.dumps([[m["id"], m["role"], m["content"]] for m in messages], ensure_ascii=False).encode()
    ).hexdigest()[:16]
    span = f"{messages[0]['id']}-{messages[-1]['id']}"
    key = f"{namespace_id}:{conversation}:{span}:{digest}"
    if len(key) > _IDEMPOTENCY_KEY_MAX_CHARS:
        # Long ids would overflow the column: the range is then named by its hash.
        key = f"{namespace_id}:{conversation}:{hashlib.sha256(span.encode()).hexdigest()[:32]}:{digest}"
    return key


def extraction_enqueue(
    *, namespace: Namespace, source_conversation: str, messages: list[dict[str, Any]], trigger: str = "manual"
) -> ExtractionJob | None:
    """One job per conversation range, queued after commit; `None` while the namespace's memory is paused.

    Pausing is an ordinary user choice, not an error, so callers need no try/except for it; nothing
    about the conversation is stored. Re-submitting the same range (same ids and contents) returns
    the same job: a finished one is not queued again, an unfinished one is (the run is idempotent,
    so a second task is a no-op, and a lost task is replaced).
    """
    if namespace.memory_paused:
        return None
    conversation = str(source_conversation or "")
    if len(conversation) > CONVERSATION_MAX_CHARS:
        raise MemoryServiceError(f"Conversation references are at most {CONVERSATION_MAX_CHARS} characters.")
    clean = _clean_messages(messages)
    key = _idempotency_key(namespace.pk, conversation, clean)
    with transaction.atomic():
        job, created = ExtractionJob.objects.get_or_create(
            idempotency_key=key,
            defaults={
                "namespace": namespace,
                "source_conversation": conversation,
                "messages": clean,
                "trigger": (trigger or "manual")[:20],
            },
        )
        if created or job.status != ExtractionStatus.DONE:
            # Failures are not acknowledged, so the broker hands the task out again (after
            # Q_CLUSTER["retry"] seconds, at most Q_CLUSTER["max_attempts"] times).
            enqueue(
                "memory_core.tasks.extract_job", job.pk, group="extraction", q_options={"ack_failure": False}
            )
    return job


def _empty_result() -> dict[str, Any]:
    return {**dict.fromkeys(OUTCOME_ACTIONS, 0), "entries": [], "changed": []}


def _valid_from(candidate: Candidate) -> tuple[datetime | None, dict[str, Any]]:
    """The candidate's start as an aware datetime; a future date is kept in metadata only."""
    if not candidate.valid_from:
        return None, {}
    when = _parse_when(candidate.valid_from.strip())
    if when is None:
        return None, {}
    metadata = {"event_date": when.date().isoformat()}
    return (when if when <= timezone.now() else None), metadata


def candidate_start(
    candidate: Candidate, *, said_at: datetime | None
) -> tuple[datetime | None, dict[str, Any]]:
    """When the candidate's fact starts (for `memory_add`'s `valid_from`), and its metadata.

    Its own past date if it has one, else when the user said it (`said_at`, never after now): a
    fact extracted late from an older message must not look newer than what was said since, so
    `memory_add` records it as history instead of letting it replace the current value.
    """
    start, metadata = _valid_from(candidate)
    if start is None and said_at is not None:
        start = min(said_at, timezone.now())
    return start, metadata


def _said_at(messages: list[dict[str, Any]], message_ids: list[str]) -> datetime | None:
    """The time of the latest of `message_ids` among the user messages of a job payload."""
    cited = set(message_ids)
    times = [
        when
        for m in messages
        if m["role"] == "user" and m["id"] in cited and (when := _parse_when(m.get("created_at")))
    ]
    return max(times, default=None)


def _write_candidates(
    job: ExtractionJob, extractor: Extractor, candidates: list[Candidate]
) -> dict[str, Any]:
    from memory_core.services import memory_add

    texts = {m["id"]: m["content"] for m in job.messages if m["role"] == "user"}
    result = _empty_result()
    for candidate in candidates:
        excerpt = "\n".join(texts[i] for i in candidate.message_ids if i in texts)[:EXCERPT_MAX_CHARS]
        valid_from, metadata = candidate_start(
            candidate, said_at=_said_at(job.messages, candidate.message_ids)
        )
        try:
            # A savepoint per candidate: one refused statement does not undo the others.
            with transaction.atomic():
                outcome = memory_add(
                    namespace=job.namespace,
                    content=candidate.content,
                    type=candidate.type,
                    category=candidate.category,
                    key=candidate.key,
                    source_kind=SourceKind.EXTRACTED,
                    source_conversation=job.source_conversation,
                    source_message_ids=candidate.message_ids,
                    confidence=candidate.confidence,
                    importance=candidate.importance,
                    pinned=candidate.pinned,
                    is_inference=candidate.is_inference,
                    valid_from=valid_from,
                    metadata=metadata or None,
                    extractor_model=extractor.name,
                    extractor_prompt_version=extractor.prompt_version,
                    actor_kind=ActorKind.EXTRACTION,
                    excerpt=excerpt,
                )
        except LLMError:
            raise  # e.g. the embedding endpoint failed: the whole run fails and is retried
        except MemoryServiceError:
            result["rejected"] += 1
            continue
        result[outcome.action] = result.get(outcome.action, 0) + 1
        if outcome.entry is not None:
            entry_id = str(outcome.entry.pk)
            if entry_id not in result["entries"]:
                result["entries"].append(entry_id)
            if outcome.action in _CHANGING_ACTIONS and entry_id not in result["changed"]:
                result["changed"].append(entry_id)
    return result


# How often the extractor is run again because the payload changed (an erasure scrubbed it) while
# it was running, before the job is failed (submitting the range again retries it).
_MAX_RERUNS = 3


def _claim_expiry() -> timedelta:
    """A claim older than the django-q task timeout belongs to a worker that was killed or lost."""
    cluster = getattr(settings, "Q_CLUSTER", None) or {}
    return timedelta(seconds=int(cluster.get("timeout") or 120))


def _claimed_elsewhere(job: ExtractionJob, now: datetime) -> bool:
    if job.status != ExtractionStatus.RUNNING:
        return False
    claimed_at = _parse_when((job.result or {}).get("claimed_at"))
    return claimed_at is not None and now - claimed_at < _claim_expiry()


def _ours(job: ExtractionJob, claim: str) -> bool:
    return job.status == ExtractionStatus.RUNNING and (job.result or {}).get("claimed_at") == claim


def _lock(job_id: int) -> ExtractionJob | None:
    return (
        ExtractionJob.objects.select_for_update(of=("self",))
        .select_related("namespace")
        .filter(pk=job_id)
        .first()
    )


def _finish(job: ExtractionJob, *, result: dict[str, Any], extractor: str | None = None) -> ExtractionJob:
    """Done: the transcript payload has served its purpose and is personal data, so it goes."""
    job.status, job.error, job.result, job.messages = ExtractionStatus.DONE, "", result, []
    job.finished_at = timezone.now()
    fields = ["status", "error", "result", "messages", "attempts", "finished_at"]
    if extractor is not None:
        job.extractor = extractor
        fields.append("extractor")
    job.save(update_fields=fields)
    return job


def _claim(job_id: int) -> tuple[ExtractionJob | None, str | None]:
    """Take the job for this worker, in a short transaction: (job, claim), or (job, None) when
    there is nothing for this worker to do (gone, done, paused, or another worker has it)."""
    now = timezone.now()
    with transaction.atomic():
        job = (
            ExtractionJob.objects.select_for_update(of=("self",), skip_locked=True)
            .select_related("namespace")
            .filter(pk=job_id)
            .first()
        )
        if job is None:  # erased, or another worker holds the row this instant
            return ExtractionJob.objects.filter(pk=job_id).first(), None
        if job.status == ExtractionStatus.DONE or _claimed_elsewhere(job, now):
            return job, None
        job.attempts += 1
        if job.namespace.memory_paused:
            # Paused after the job was queued: the conversation must not be written into memory.
            return _finish(job, result={**_empty_result(), "skipped": "paused"}), None
        claim = now.isoformat()
        job.status, job.error, job.result, job.finished_at = (
            ExtractionStatus.RUNNING,
            "",
            {"claimed_at": claim},
            None,
        )
        job.save(update_fields=["status", "error", "result", "attempts", "finished_at"])
    return job, claim


def _fail(job_id: int, claim: str, *, extractor: str, error: str) -> ExtractionJob | None:
    """Mark a claimed job failed (its payload kept for a retry); untouched if no longer ours."""
    with transaction.atomic():
        job = _lock(job_id)
        if job is None or not _ours(job, claim):
            return job
        job.status, job.error, job.result, job.extractor = ExtractionStatus.FAILED, error, {}, extractor
        job.finished_at = timezone.now()
        job.save(update_fields=["status", "error", "result", "extractor", "finished_at"])
    return job


def extraction_run(*, job_id: int) -> ExtractionJob | None:
    """Extract and reconcile one job; `None` if the job no longer exists (erased with its user or
    its conversation).

    Three steps, so no lock is held while the model answers (an erasure would wait on it):
    1. claim the job in a short transaction (running, one more attempt); a worker that cannot
       claim it (another one holds or runs it, or it is done) returns it as it is. A claim older
       than the django-q timeout (`result["claimed_at"]`) is a dead worker's and is taken over;
    2. run the extractor with no transaction open;
    3. in one transaction, re-read the job under its lock: erased meanwhile → nothing is written;
       payload scrubbed by an erasure meanwhile → the extractor runs again on what is left; else
       the candidates are written through `memory_add` (a failure leaves nothing half-written)
       and the job is done, its transcript payload dropped (the result stays).
    On an `LLMError`, or any unexpected error, the job is marked failed with the reason, and the
    error is re-raised while the job has run fewer than `MAX_ATTEMPTS` times, so django-q runs the
    task again (bounded as well by Q_CLUSTER["max_attempts"]); after that the task ends normally
    and the job stays failed until the range is submitted again.
    """
    job, claim = _claim(job_id)
    if job is None or claim is None:
        return job
    messages = list(job.messages)
    extractor: Extractor = get_extractor()
    try:
        for _ in range(_MAX_RERUNS + 1):
            try:
                candidates = extractor.extract(messages)
            except OfflineMode:
                extractor = RuleBasedExtractor()
                candidates = extractor.extract(messages)
            with transaction.atomic():
                current = _lock(job_id)
                if current is None or not _ours(current, claim):
                    return current  # erased, or finished by an erasure or another worker
                if current.namespace.memory_paused:
                    return _finish(current, result={**_empty_result(), "skipped": "paused"})
                if current.messages != messages:
                    messages = list(current.messages)  # scrubbed meanwhile: extract from what is left
                    continue
                return _finish(
                    current,
                    result=_write_candidates(current, extractor, candidates),
                    extractor=extractor.name,
                )
        failed = _fail(
            job_id,
            claim,
            extractor=extractor.name,
            error=f"Extraction with {extractor.name} gave up (attempt {job.attempts}): the conversation "
            "kept changing while it ran. Submit it again.",
        )
        return failed
    except LLMError as exc:
        failure: Exception = exc
        error = f"Extraction with {extractor.name} failed (attempt {job.attempts}): {exc.message}"
    except Exception as exc:
        # Never leave the job queued or running for ever. The message of an arbitrary exception
        # may quote the transcript, so only its type goes into the job; the details go to the log.
        logger.exception("extraction job %s failed unexpectedly", job_id)
        failure = exc
        error = (
            f"Extraction with {extractor.name} failed (attempt {job.attempts}): unexpected "
            f"{type(exc).__name__}; the details are in the server log."
        )
    failed = _fail(job_id, claim, extractor=extractor.name, error=error)
    if failed is not None and failed.status == ExtractionStatus.FAILED and failed.attempts < MAX_ATTEMPTS:
        raise failure
    return failed


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
                if (candidate := _rule_candidate(str(message["id"]), fields)) is not None
            ]
    return found
