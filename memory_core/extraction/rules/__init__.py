"""The offline extractor: rules over the user's own messages, used without a model, and for
explicit "remember that …" requests in chat.

How a message is read: sentences, then clauses (split at commas and conjunctions; a clause naming
a secret is left out), then each clause as a subject (the user, a relative the user names, or
nobody we track) and a predicate in the third person ("I'm allergic to nuts" → the user + "is
allergic to nuts"), which the predicate rules read. A clause without a subject continues the one
before it: "… and allergic to nuts" borrows "is", "… and work as a pharmacist" the subject, and
"… penicillin and shellfish" the frame "is allergic to"; a clause with a subject of its own ("it's
serious", "that's why") or a verb of its own never does. `slots.infer_slot` reads already written
statements ("The user works at Fabrikam.", "Lives in Paris", "用户在腾讯工作") with these same
rules (`read_statement`), so both give one fact the same key.

Decisions (the labelled cases are in tests/data/extraction/):
- An ended fact keeps the slot of the fact it ends, so it supersedes it: "I'm not allergic to
  peanuts anymore" → "The user is no longer allergic to peanuts." (safety, health.allergy.peanut,
  not pinned). A plain denial ("I'm not allergic to penicillin") is kept without a slot, beside
  the fact rather than in its place: it may correct a mistake or concern someone else, and a
  pinned allergy should not vanish on a guess. "not allergic to anything" gives nothing.
- A one-off request ("I'd like X today", "this time", "I'll have …") is never a preference; "I'd
  like" / "I want" become one only with a standing marker ("from now on", "always", "in general").
- A clause naming a secret (password, PIN, code, card or account number …) is left out. An
  explicit "remember that …" of a secret is passed on whole instead, so that the write pipeline
  refuses it and flags the refusal where the user sees it.
- Chinese messages give Chinese statements ("用户对花生过敏。"): the user's own words, in the
  language the assistant answers in. Keys stay English (花生 → health.allergy.peanut), so an
  English and a Chinese statement of one fact share a slot. "记住…", "帮我记一下…", "别忘了…" are
  explicit requests like "remember that …" (`chinese.ZH_REMEMBER`); the Chinese rules are measured
  by `python -m bench zh_rules` on tests/data/zh_rules/.
- A relative's fact is scoped to the relative: family.<relation>[.<name>].<key> (a partner is
  unique, so family.wife needs no name); friends and strangers are not tracked.
- A role at an employer ("works as a nurse at Contoso") keeps the single `job` slot of v1 (a
  test pins it); "quit Contoso", "laid off from Contoso" end the `employer` slot.
- An order, ticket, case or booking named in any tense is a task state keyed by kind and
  identifier (order.88231); a first-person past action with a date or an identifier ("Yesterday
  I booked flight CA1234") is an event instead, without a key. Events carry resolved dates
  ("on 2026-10-03", "in September 2027") and a state of the moment ("I'm tired today") is none.
- A safety fact said in passing ("… because of my peanut allergy") is its own statement, but
  marked incidental: it is never the slot of the sentence that mentions it (`infer_slot`).
- Each message is also judged whole, as a direct write judges it (`RuleBasedExtractor._message`):
  a standing rule is held for an operator as said; a condition of the user or a dependant that no
  fact read from it keeps is kept whole (a sentence or the message, when the model is sure of it:
  `judgement.PART_SURE`), never a supposition. "She" / "he" are the relative last spoken of.

The package: `facts` (whose fact, a fact's fields, negation), `clauses` (splitting and
subjects), the English rules by topic (`health`, `work`, `home`, `people`, `preferences`,
`events`), `reader` (a sentence through them), `chinese` and `chinese_health`; this module is the
public API. The word lists, dates and text helpers they read with are the engine's reading floor
(`memory_core.reading`: `words`, `dates`, `normalise`).
"""

from __future__ import annotations

import itertools
import re
from datetime import date
from typing import Any

from django.utils import timezone

from memory_core import judgement
from memory_core.extraction.rules.chinese import ZH_REMEMBER, zh_statement
from memory_core.extraction.rules.facts import USER, Who
from memory_core.extraction.rules.reader import _Reader
from memory_core.extraction.rules.secrecy import statement_judged_whole
from memory_core.extraction.schema import RULES_NAME, RULES_VERSION, Candidate, rule_candidate
from memory_core.extraction.schema import parse_when as _parse_when
from memory_core.models import CONTENT_MAX_CHARS
from memory_core.reading.normalise import as_sentence, slug, split_sentences, third_person
from memory_core.reading.records import a_record_note
from memory_core.reading.words import CJK, SECRET_WORDS, ZH_SIMPLIFIED, Fact

__all__ = [
    "USER",
    "Fact",
    "RuleBasedExtractor",
    "Who",
    "overlong_remember",
    "read_statement",
    "remember_requests",
    "slug",
]

# "remember that …", "don't forget: …"; "this" or "the following" is what follows only before a
# colon or a dash ("Remember this: I'm allergic to latex"; "remember this place?" asks nothing).
# "Note that …" asks; "Note: …" is a notes label, read as a statement.
_REMEMBER = re.compile(
    r"(?i:(?:^|[,;:(\u2014-]\s*|\b(?:and|but|so|also|actually|honestly|btw|oh|well|because|since|now|plus|hi|hey)\s+)"
    r"(?:(?:can|could|will|would)\s+you\s+)?(?:please\s+)?(?:remember|memori[sz]e|don't\s+forget|don\u2019t\s+forget|"
    r"do\s+not\s+forget|keep\s+in\s+mind|keep\s+(?:this|these|the\s+following)\s+in\s+mind\s*[:\u2013\u2014-]|"
    r"(?:make\s+a\s+note|note\s+down)(?=\s+that\b|\s*[:\u2013\u2014-])|note(?=\s+that\b)|(?:save|store|log)\s+(?:this|that)(?=\s*[:\u2013\u2014-])|"
    r"for\s+the\s+record(?=\s*[:,\u2013\u2014-]))"
    r"(?:\s+(?:this|these|the\s+following)(?:\s+(?:please|for\s+me))?\s*[:\u2013\u2014-]|\s+that\b|\s*[:,\u2014-])?\s*)"
    r"(?!(?:when|what|who|where|how|why|if|whether|to|me|this|it)\b)(?P<what>\S.*)"
)


def read_statement(statement: str, today: date | None = None) -> list[Fact]:
    """The facts a written statement states, as the extractor would have keyed them (`infer_slot`).
    Its clauses are checked for secrets without the model, which judged it whole (`secrecy`)."""
    with statement_judged_whole():
        return _Reader(today or timezone.localdate()).read(statement)


class RuleBasedExtractor:
    """Rules over the user's own messages, for offline mode; explicit statements only."""

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
            found = self._message(str(message["content"]), today)
            for fields in found:
                marker = (fields["content"].lower(), fields.get("key", ""))
                if marker in seen:
                    continue
                seen.add(marker)
                candidate = rule_candidate(str(message["id"]), fields)
                if candidate is not None:
                    candidates.append(candidate)
        return candidates

    def _message(self, content: str, today: date) -> list[Fact]:
        """One user message: each sentence's facts, then what only the whole message tells. The
        whole is judged as a direct write judges it: a standing rule told in a conversation is
        held for an operator as said (the rules read no rules, and mem0's default add dropped
        every one), with the safety facts it states; a safety fact told over sentences none of
        which is sure alone ("My husband has Parkinson's now. I'm his main carer.") is kept whole."""
        whole = content.strip()
        if whole and len(whole) <= CONTENT_MAX_CHARS and a_record_note(whole):
            # A work record's note of someone served ("Table 7: pregnant, no raw fish"): nothing in
            # it is the user's, which is how the reader reads a condition said without a subject.
            # Kept as written, unpinned; a rule in it waits for an operator like any rule.
            return [_rule(whole, confidence=0.9) if judgement.policy(whole).is_rule else _as_noted(whole)]
        reader = _Reader(today)  # one a message: "My son is 12. He's got type 1 diabetes."
        sentences = split_sentences(content)
        found = [fields for sentence in sentences for fields in self._from_sentence(sentence, today, reader)]
        if not whole or len(whole) > CONTENT_MAX_CHARS or any(_remember(sentence) for sentence in sentences):
            return found  # what is asked to be kept was kept as asked
        read = [
            fields for fields in found if fields.get("category") != "safety" and not fields.get("incidental")
        ]
        check = judgement.policy(whole)
        # A relaxation is held whole whatever facts the reader found in it: read apart, "從下週起管理員
        # 可以直接送上樓, 不用住戶本人簽收" kept a misread fact active and lost the relaxation.
        if check.weakens or (not read and check.is_rule):  # "I'd like answers in bullet points" is a taste
            rule = _rule(whole, confidence=0.9)
            return [rule, *(fields for fields in found if fields.get("category") == "safety")]
        if len(sentences) > 1 and _safety_lost(whole, found, sure=judgement.PART_SURE):
            found.append(_kept_whole(whole))
        return found

    def _from_sentence(self, sentence: str, today: date, reader: _Reader) -> list[Fact]:
        remember = _remember(sentence)
        if remember:
            return self._remembered(remember, today)
        facts = reader.sentence(sentence)
        said = sentence.strip()
        if _safety_lost(said, facts, sure=judgement.PART_SURE):
            facts.append(_kept_whole(said))
        return facts

    def _remembered(self, what: str, today: date, whole_kept: bool = False) -> list[Fact]:
        """ "Remember that …": said on purpose, so it is kept even when no finer rule fits; with
        `whole_kept`, the words are kept whole beside the keyed facts the reader finds in them."""
        said = what.strip()
        what = said.rstrip(".!? \u3002\uff01\uff1f")
        if not what:
            return []
        chinese = bool(re.search(f"[{CJK}]", what))
        # A rule is kept as said, whole, and waits for an operator like any rule; the reader would
        # keep only the facts it knows ("I'm coeliac, so never order me anything from the shared
        # fryer" read as "The user is coeliac", the instruction lost). The model judges it as said:
        # with its question mark cut, a question ("… are we still allowed to keep CVs for a year?",
        # "有没有人知道…" with its full-width mark) read as the statement of a rule and was held.
        # The model alone decides: a list of openings ("always", "don't", "only", "stop" …) held
        # "Don't worry, …", "Only pretend ones." and "Always worth it for the whale" for review
        # and, over twelve fresh batches, held no rule the model missed.
        asked = said.endswith(("?", "\uff1f"))
        if judgement.policy(said).is_rule:
            return [_rule(said, confidence=1.0)]
        whole = {
            "content": _as_said(_statement(what, chinese), asked, chinese),
            "said": said,
            "importance": 0.7,
            "confidence": 1.0,
        }
        reader = _Reader(today)
        specific = [
            {**fields, "confidence": 1.0, "importance": max(fields.get("importance", 0.5), 0.7)}
            for fields in reader.read(what, remembered=True)
            if not fields.get("incidental")
        ]
        if specific and reader.unread and judgement.safety(said).pinned:
            # Part read, part not, of a safety fact asked to be kept: "My son Jonah starts swimming
            # lessons next week. He has type 1 diabetes and wears a pump." read as the diabetes
            # alone lost the pump; the words go on whole beside the keyed facts.
            whole_kept = True
        if whole_kept:
            return [*(fields for fields in specific if fields.get("key")), whole]
        if SECRET_WORDS.search(what) or judgement.secrets(what).found:
            # The reader leaves the secret's clause out and keeps the facts beside it; the secret
            # goes on whole as well, so the pipeline refuses it and flags it for operators.
            return [*specific, whole]
        if specific and _safety_lost(said, specific):
            return [*specific, whole]
        return specific or [whole]


def _safety_lost(said: str, facts: list[Fact], *, sure: float = 0.0) -> bool:
    """Whether the words tell a safety fact of the user or a dependant (at `sure` or more) that
    none of the facts read from them keeps: "Booking ref TKM-88412. I'm a wheelchair user, …" was
    read as the booking reference alone, and the condition, the one thing the assistant must not
    forget, was lost; the rules read few of the ways people tell one ("I'm a pharmacist with MS").
    Each is judged as the pipeline judges it (the words as said where a statement restates them).
    Never a supposition, a question whether one has a condition or a sentence cut short: the
    model alone pins "What if I'm allergic to the vaccine?". A request that tells one is kept ("I'm
    twenty weeks pregnant, so can you remind me …?"), as a direct write keeps it."""
    if not said or _UNSTATED.search(said):
        return False
    safety = judgement.safety(said)
    if not safety.pinned or safety.probability < sure:
        return False
    return not any(judgement.safety(str(fact.get("said") or fact["content"])).pinned for fact in facts)


_UNSTATED = re.compile(
    r"(?i)^\W*(?:if|suppose|supposing|imagine|pretend|what\s+if|in\s+case|do\s+i|am\s+i|could\s+i\s+be)\b"
    r"|\bwonder(?:ing)?\b|\b(?:to|of|the|a|an|and|with|for|my)\W*$|^\W*(?:如果|假如|要是|万一|萬一|假設|假设)"
)


def _kept_whole(said: str) -> Fact:
    """A statement kept as said, in the third person: what no finer rule reads."""
    chinese = _chinese(said)
    content = _statement(said.rstrip(".!? \u3002\uff01\uff1f"), chinese)
    content = _as_said(content, said.endswith(("?", "\uff1f")), chinese)  # a question stays one
    return {"content": content, "said": said, "category": "safety", "importance": 0.7, "confidence": 0.9}


def _as_noted(said: str) -> Fact:
    """A note kept as written, about whoever it names: not the user's."""
    return {"content": _as_written(said), "said": said, "importance": 0.5, "confidence": 0.9}


def _chinese(text: str) -> bool:
    return bool(re.search(f"[{CJK}]", text))


def _rule(said: str, *, confidence: float) -> Fact:
    """A rule kept as the user wrote it, a question kept a question, waiting for an operator."""
    asked = said.rstrip().endswith(("?", "\uff1f"))
    content = _as_said(_as_written(said), asked, _chinese(said))
    return {
        "content": content,
        "type": "procedural",
        "category": "sop",
        "importance": 0.7,
        "confidence": confidence,
    }


def _as_written(words: str) -> str:
    """A rule as the user wrote it, a sentence with its full stop (one in Chinese)."""
    words = words.rstrip(".!? \u3002\uff01\uff1f")
    return f"{words}\u3002" if _chinese(words) else as_sentence(words)


def _as_said(content: str, asked: bool, chinese: bool) -> str:
    """A question asked to be remembered is kept a question: with a full stop for its question
    mark it read as a claim, and the write path held "Do members need to book the sauna now." as
    a rule where the question itself is none."""
    if not asked:
        return content
    return content.rstrip(".\u3002") + ("\uff1f" if chinese else "?")


def _statement(what: str, chinese: bool) -> str:
    """What a "remember that …" is kept as when no finer rule reads it: the user's words, whole."""
    if chinese:
        return zh_statement(what)
    # Each sentence opens with a capital ("… at 7? The user is on …").
    return as_sentence(re.sub(r"([.!?]\s+)the user\b", r"\1The user", third_person(what)))


def _remember(sentence: str) -> str:
    """What an explicit "remember that …" / "记住…" sentence asks to keep; "" when it asks nothing."""
    if match := _REMEMBER.search(sentence):
        return match.group("what")
    # Matched on the simplified forms, the words kept are the user's own: "記住: 個女對蝦過敏" was
    # kept as "个女对虾过敏", half in the other script (the table maps one character to one).
    said = sentence.strip()
    match = ZH_REMEMBER.match(said.translate(ZH_SIMPLIFIED))
    return said[match.start("what") : match.end("what")] if match else ""


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
    return [
        candidate
        for what, whole_kept in _requests(str(message.get("content", "")))
        for fields in rules._remembered(what, today, whole_kept)
        if (candidate := rule_candidate(str(message["id"]), fields)) is not None
    ]


def _requests(content: str) -> list[tuple[str, bool]]:
    """What each explicit "remember that …" of a message asks to keep: the rest of its sentence,
    with the sentences after it when together they are a standing rule ("Remember that Theo has
    CAH. If he's floppy, give the Solu-Cortef and ring 999.": the instruction is what was asked to
    be kept; likewise a safety fact), up to a question or the next request. A rule is kept with
    what follows it, as a direct write keeps it: cut after its first sentence, "…we're dropping the
    pH check on every wheel. From now on it's one wheel per batch." lost the relaxation's terms
    and waited unflagged. Also with the sentences after it when it alone reads as a rule and
    together they do not, and then kept whole (the second of the pair: "Mole check list is up to
    340 referrals." read as a rule alone, and the remark was held, and the write path holds that
    sentence alone again, whoever keeps it)."""
    sentences = split_sentences(content)
    found: list[tuple[str, bool]] = []
    at = 0
    while at < len(sentences):
        what = _remember(sentences[at])
        at += 1
        if not what:
            continue
        following = list(itertools.takewhile(_continues, sentences[at:]))
        whole_kept = False
        if following:
            joined = _joined(what, following)
            alone, together = judgement.policy(what).is_rule, judgement.policy(joined).is_rule
            if alone or together or _safety_after(what, joined):
                what, at, whole_kept = joined, at + len(following), alone and not together
        # A condition told after a question, up to the next request ("… Can you remind me at 7?
        # I'm on the new epilepsy meds and mornings are a fog."): kept with it too, as a direct
        # write keeps the text whole; the question stopped the reading and the condition waited
        # for the background extraction.
        told = list(itertools.takewhile(lambda sentence: not _remember(sentence), sentences[at:]))
        if told and _safety_after(what, _joined(what, told)):
            what, at = _joined(what, told), at + len(told)
        found.append((what, whole_kept))
    return found


def _joined(what: str, sentences: list[str]) -> str:
    return ("" if re.search(f"[{CJK}]", what) else " ").join([what.strip(), *sentences])


def _safety_after(first: str, joined: str) -> bool:
    """Whether the sentences after a request's first one tell a safety fact of the user or a
    dependant that it does not: kept with it, as a direct write keeps the text whole, rather than
    left to the background extraction ("Remember that - can we ask about a gluten-free option?
    I'm coeliac": the condition the assistant must know next turn is in the second)."""
    return not judgement.safety(first).pinned and judgement.safety(joined).pinned


def _continues(sentence: str) -> bool:
    """Whether a sentence after a "remember that …" may carry on what it asks to keep: no
    question, no request of its own."""
    return not _remember(sentence) and not sentence.rstrip().endswith(("?", "\uff1f"))


def overlong_remember(content: str) -> int:
    """The length of the longest statement an explicit "remember that …" in `content` asks to keep
    that one memory cannot hold (over CONTENT_MAX_CHARS); 0 when there is none.

    `rule_candidate` shortens such a statement, as an extraction job must not fail on it; the chat
    asks first, so that a request made on purpose is refused whole rather than kept cut.
    """
    longest = 0
    for said, _whole in _requests(content):
        what = said.strip().rstrip(".!? \u3002\uff01")
        if what:
            length = max(len(what), len(_statement(what, bool(re.search(f"[{CJK}]", what)))))
            if length > CONTENT_MAX_CHARS:
                longest = max(longest, length)
    return longest
