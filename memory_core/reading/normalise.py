"""Text normalisation: first person to third, object clean-up, list items, key slugs, and the
sentence splitter with its spelling normalisation (the offline extractor's rules read with them)."""

from __future__ import annotations

import re

from memory_core.reading.words import (
    CJK,
    CONTAINING,
    LEADING_DETERMINER,
    OBJECT_END,
    PAST_TENSE,
    TRAILING_FILLER,
    word_set,
)

_ADVERBS = (
    r"really|also|just|never|always|usually|still|often|only|actually|now|recently|currently|finally|"
    r"already|definitely|absolutely|generally|mostly|sometimes|rarely|even|totally|strongly|much|no\s+longer|"
    r"both|all|seriously|honestly|basically|officially|originally|probably|certainly|apparently"
)
PRONOUN_I = re.compile(
    rf"\b[Ii](?P<contraction>'m|'ve|'ll|'d)?\b(?P<adverbs>(?:\s+(?:{_ADVERBS}))*)"
    r"(?:\s+(?P<verb>[A-Za-z']+))?"
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
    "are": "is",
    "aren't": "isn't",
}
_UNCHANGED_AFTER_I = PAST_TENSE | word_set(
    "can cannot could will would shall should may might must used and or but too"
)
OBJECT_PRONOUNS = (
    (re.compile(r"\bmyself\b", re.I), "themselves"),
    (re.compile(r"\bmine\b", re.I), "the user's"),
    (re.compile(r"\bmy\b", re.I), "the user's"),
    (re.compile(r"\bme\b", re.I), "the user"),
    (re.compile(r"\byour\b", re.I), "the assistant's"),
    (re.compile(r"\byou\b", re.I), "the assistant"),
)
_TOPIC_STOPWORDS = word_set(
    "a an the my your their our to it its of for with in on at and or when that this those these "
    "some very much really being be me i you them lot so by from as is are than over more most "
    "kind sort just all any having getting"
)
NO_TOPIC_START = word_set("it that this you them those these how what when where who why")


def conjugate(verb: str) -> str:
    lower = verb.lower().replace("\u2019", "'")
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if (
        lower in _UNCHANGED_AFTER_I
        or (lower.endswith("ed") and not lower.endswith("eed"))
        or lower.endswith("n't")
    ):
        return verb
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if lower.endswith("y") and len(lower) > 1 and lower[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


# A modal or "do" before "I" asks: its verb stays bare ("should I stick", "can I have").
_ASKED_BY = re.compile(r"(?i)\b(?:should|shall|can|could|would|will|may|might|must|do|did)\s+$")


def third_person(text: str, *, possessive: str = "the user's") -> str:
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
        if _ASKED_BY.search(text, 0, match.start()):
            return f"the user{adverbs} {verb}"  # "should I stick" -> "should the user stick"
        return f"the user{adverbs} {conjugate(verb)}"

    out = re.sub(r"\b([Dd])o the user\b", r"\1oes the user", PRONOUN_I.sub(subject, text))
    for pattern, replacement in OBJECT_PRONOUNS:
        value = possessive if replacement == "the user's" else replacement
        if replacement == "the user" and possessive != "the user's":
            value = "them"
        out = pattern.sub(value, out)
    return out


def expand_negations(text: str) -> str:
    """ "doesn't" -> "does not", "can't" -> "cannot": one spelling for the rules to read."""
    text = re.sub(r"(?i)\bcan't\b", "cannot", text)
    text = re.sub(r"(?i)\bwon't\b", "will not", text)
    return re.sub(r"(?i)\b(\w+)n't\b", r"\1 not", text)


def as_sentence(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip(" ,;:-\u2014")
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?\u3002" else text + "."


def clean_object(text: str) -> str:
    text = OBJECT_END.sub("", text.strip())
    text = TRAILING_FILLER.sub("", text)
    return text.strip(" ,;:-\u2014.!?")


_IE_WORDS = word_set(
    "movies cookies brownies pies ties lies smoothies zombies calories selfies rookies hoodies veggies "
    "foodies aunties goalies"
)


def singular(token: str) -> str:
    if len(token) <= 3 or token.endswith(("ss", "us", "is")):
        return token
    if token in _IE_WORDS:
        return token[:-1]
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith(("sses", "shes", "ches", "xes", "zes")) or token in ("tomatoes", "potatoes", "mangoes"):
        return token[:-2]
    return token[:-1] if token.endswith("s") else token


def slug(text: str, *, words: int = 4) -> str:
    """The words of a key ("window seats" -> "window_seat"); Chinese runs are kept as they are."""
    tokens = [t for t in re.findall(rf"[a-z0-9]+|[{CJK}]+", text.lower()) if t not in _TOPIC_STOPWORDS]
    return "_".join(singular(t) for t in tokens[:words])


def name_slug(name: str) -> str:
    """A name in a key, as written ("Whiskers" stays "whiskers")."""
    return "_".join(re.findall(rf"[a-z0-9]+|[{CJK}]+", name.lower())[:3])


def article_for(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


_SHARED_HEADS = word_set("stings sting bites bite venom hair dander fur feathers")


def list_items(text: str) -> list[str]:
    """The items of a list object ("peanuts, tree nuts and sesame"; "bee and wasp stings" shares
    its last word)."""
    parts = re.split(r"\s*(?:,|;|&|/|\band\b|\bor\b|\bnor\b|\bplus\b|\bas well as\b)\s*", text, flags=re.I)
    items = [part.strip() for part in parts if part and part.strip()]
    head = items[-1].split()[-1] if items and len(items[-1].split()) > 1 else ""
    if head.lower() in _SHARED_HEADS:
        items = [item if len(item.split()) > 1 else f"{item} {head}" for item in items]
    return items


# Where an item's name ends: "pollen in spring", "shrimp last week", "peanuts (anaphylaxis)".
_QUALIFIER = re.compile(
    r"(?i)\s*\(.*$|\s+(?:in|during|at|after|before|when|every|all|since|for|last|this|each|from|on|as|like|"
    r"unless|until|whenever|if|while|except|especially|mostly|mainly)\b.*$"
)


def object_item(text: str) -> str:
    text = LEADING_DETERMINER.sub("", clean_object(text))
    text = _QUALIFIER.sub("", text) if not CONTAINING.match(text) else text
    return TRAILING_FILLER.sub("", text).strip(" ,;:-.!?")


def lower_first(text: str) -> str:
    """A sentence-initial word as it would be mid-sentence ("Peanuts" -> "peanuts"; "NSAIDs" stays)."""
    return (
        text[0].lower() + text[1:]
        if text[:2].istitle() or (text[:1].isupper() and text[1:2].islower())
        else text
    )


# "Allergies: peanuts, shellfish", "My medications are X and Y": a header and a list, read as the
# sentence it stands for.
_HEADER_LIST = re.compile(
    r"(?i)^(?:(?:my|the\s+user's|user's|our)\s+)?(?:known\s+|food\s+|drug\s+|current\s+|main\s+)?"
    r"(?P<kind>allerg(?:y|ies)|intolerances?|medications?|meds|medicines?|prescriptions?|"
    r"(?:medical\s+|health\s+)?conditions?|diagnos[ie]s)\s*(?:are|is|include|includes|:|-|\u2013|\u2014|=)\s*"
    r"(?P<list>.+)$"
)
_HEADER_AS = {"allerg": "I'm allergic to", "intoler": "I'm intolerant to", "med": "I take", "pres": "I take"}


_LONE_I = re.compile(r"(?<![\w.])i(?=['\s]|$)(?!\.e)")
_SPELT_SHORT = tuple(
    (re.compile(rf"(?i)\b{short}\b"), spelt)
    for short, spelt in (
        ("im", "I'm"),
        ("ive", "I've"),
        *(
            (short, short[:-1] + "'t")
            for short in ("dont", "cant", "doesnt", "isnt", "didnt", "wont", "arent", "wasnt")
        ),
    )
)
_AND_I = re.compile(r"(^|[,;:]\s*)(?:[Mm]y\s+[a-z]+|[A-Z][a-z]+)\s+and\s+I\b(?!')")
_ME_AND = re.compile(r"(^|[,;:]\s*)[Mm]e\s+and\s+my\s+[a-z]+\b")
_SHARED_NOUN = re.compile(
    r"(?i)\b([a-z]+)\s+(and|or|&)\s+([a-z]+)\s+(stings?|bites?|venom|hair|dander|fur|feathers)\b"
)
_SPACES = re.compile(r"\s+")


def normalise_spelling(sentence: str) -> str:
    text = (
        sentence.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    )
    text = _LONE_I.sub("I", text)
    for short, spelt in _SPELT_SHORT:
        text = short.sub(spelt, text)
    # "My wife and I live …", "Tom and I moved …": the user is one of the subject.
    text = _AND_I.sub(r"\1we", text)
    text = _ME_AND.sub(r"\1we", text)
    # "bee and wasp stings" -> "bee stings and wasp stings": each item keeps the shared noun.
    text = _SHARED_NOUN.sub(r"\1 \4 \2 \3 \4", text)
    header = _HEADER_LIST.match(text.strip())
    if header:
        kind = header.group("kind").lower()
        lead = next((v for k, v in _HEADER_AS.items() if kind.startswith(k)), "I have")
        text = f"{lead} {header.group('list')}"
    return _SPACES.sub(" ", text).strip()


# Where a sentence may end: not after "Dr." or "St." ("Dr. Chen", "St. Mary's").
_SENTENCE_END = (
    r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bMrs\.)(?<!\bProf\.)(?<!\bJr\.)(?<!\bSr\.)"
    r"(?<!\bNo\.)(?<!\bvs\.)(?<!\bMt\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<=[.!?])\s+"
)


def split_sentences(text: str) -> list[str]:
    parts = re.split(rf"{_SENTENCE_END}|(?<=[\u3002\uff01\uff1f])|\s*\n+\s*", text)
    return [part.strip() for part in parts if part and part.strip()]


# Words by which a statement speaks of the user: the first person, and "the user" of an extracted one.
_OF_THE_USER = re.compile(
    r"(?i)\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|us|our|ours|ourselves|the\s+user|"
    r"user's)\b|我|咱|用户"
)
# Words that date what a statement says or say it changed ("now", "moved", "in 2019", "刚", "去年"):
# its start is around when it was said, or is said.
_SAYS_WHEN = re.compile(
    r"(?i)\b(?:now|currently|recently|lately|just|new|newly|start|starts|started|starting|began|begun|"
    r"begins|moved|moving|joined|became|become|becomes|anymore|longer|since|until|today|yesterday|"
    r"tonight|tomorrow|ago|last|this\s+(?:week|month|year)|next(?![\s-]door)|once|used\s+to|(?:19|20)\d\d)\b|"
    r"现在|目前|如今|刚|最近|新|开始|搬|已经|不再|今天|昨天|明天|今年|去年|前年|明年|上周|上个月|以前|之前|后来|"
    r"曾经|\d{2,4}年"
)


def speaks_of_the_user(text: str) -> bool:
    """Whether a statement speaks of the user ("my manager …", "I …", "The user's …", "我 …")."""
    return _OF_THE_USER.search(text) is not None


# A state of the user's told as past ("My boss at Acme was Ines", "Our neighbour there was Tom",
# "我那时候的领导是…", "當時嘅老細係…"): it held at some time before it was told, since when is not said.
_TELLS_A_PAST_STATE = re.compile(r"(?i)\b(?:was|were)\b|那时|那時|当时|當時|那阵|那陣")


def tells_a_past_state(text: str) -> bool:
    """Whether a statement tells a state as past ("… was …", "那时 …"), not a change."""
    return _TELLS_A_PAST_STATE.search(text) is not None


def says_when(text: str) -> bool:
    """Whether a statement dates what it says or says it changed ("Tom now lives in Leeds",
    "Ana started at Acme", "in 2019", "刚", "去年")."""
    return _SAYS_WHEN.search(text) is not None
