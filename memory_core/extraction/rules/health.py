"""English predicate rules for health and safety: allergies, reactions, intolerances, diets,
conditions, medications and foods avoided; safety facts said in passing."""

from __future__ import annotations

import re

from memory_core.extraction.rules.clauses import _LEAD_WORDS, _NOT_ANTECEDENT
from memory_core.extraction.rules.facts import (
    _ENDED_WORDS,
    USER,
    Who,
    _Clause,
    _Context,
    _fact,
    _negation,
    _resolve,
    _safety,
    _unless_denied,
)
from memory_core.reading.normalise import (
    article_for,
    as_sentence,
    clean_object,
    list_items,
    lower_first,
    object_item,
    singular,
    slug,
    third_person,
)
from memory_core.reading.words import (
    ADV,
    CONDITION_ADJECTIVES,
    CONDITION_ALT,
    CONDITIONS,
    CONTAINING,
    DEGREE,
    DIETS,
    DRUG,
    DRUG_KEYS,
    FOODS,
    LEADING_DETERMINER,
    NOT_ALLERGENS,
    NOUN_DEGREE,
    VAGUE,
    ZH_TERMS,
    Fact,
    alternation,
    word_set,
)

_ALLERGIC = re.compile(
    rf"(?i)^{ADV}(?P<be>is|are|was|may\s+be|might\s+be|could\s+be|is\s+probably|is\s+possibly|"
    rf"has\s+been|became|got)\s+{ADV}(?:(?P<degree>{DEGREE})\s+)?(?:allergic|anaphylactic|hypersensitive)\b"
    r"(?:\s+(?:to|of)\s+(?P<what>.+))?$"
)
_INTENSIFIER = r"(?:(?:really|very|super|pretty|quite|extremely|rather|fairly)\s+)?"
_ALLERGY_NOUN = re.compile(
    rf"(?i)^{ADV}(?:has|have|has\s+got|suffers\s+from|carries)\s+(?:an?\s+)?(?:(?P<degree>{_INTENSIFIER}(?:{NOUN_DEGREE}))\s+)?"
    r"(?P<what>[a-z][a-z' -]{1,40}?)\s+allerg(?:y|ies)$"
)
_ALLERGY_TO = re.compile(
    rf"(?i)^{ADV}(?:has|have|has\s+got)\s+(?:an?\s+)?(?:(?P<degree>{NOUN_DEGREE})\s+)?"
    r"allerg(?:y|ies)\s+(?:to|of)\s+(?P<what>.+)$"
)
_ALLERGY_INVERTED = re.compile(
    r"(?i)^(?P<what>[a-z][a-z' -]{1,40}?)\s+(?:is|are)\s+(?:my|the\s+user's)\s+(?:only\s+|main\s+)?"
    r"allerg(?:y|ies)\b"
)
_INTOLERANT = re.compile(
    rf"(?i)^{ADV}is\s+{ADV}(?:(?P<degree>{DEGREE})\s+)?(?P<what>[a-z]+)[\s-]intolerant\b(?P<rest>.*)$"
)
_INTOLERANT_TO = re.compile(
    rf"(?i)^{ADV}is\s+{ADV}(?:(?P<degree>{DEGREE})\s+)?intolerant\s+(?:to|of)\s+(?P<what>.+)$"
)
_INTOLERANCE_NOUN = re.compile(
    rf"(?i)^{ADV}has\s+(?:an?\s+)?(?:(?P<degree>{NOUN_DEGREE})\s+)?(?P<what>[a-z]+(?:\s+[a-z]+)?)\s+intolerance$"
)
_INTOLERANCE_TO = re.compile(
    rf"(?i)^{ADV}has\s+(?:an?\s+)?(?:{_INTENSIFIER}(?:{NOUN_DEGREE})\s+)?intolerances?\s+(?:to|of)\s+(?P<what>.+)$"
)
_CONDITION = re.compile(
    rf"(?i)^{ADV}(?P<verb>has|has\s+got|has\s+had|has\s+always\s+had|had(?=\s+(?:an?\s+|two\s+|several\s+)?"
    r"(?:heart\s+attack|stroke|mini|tia|myocardial))|suffers\s+from|lives\s+with|is\s+living\s+with|was\s+diagnosed\s+with|"
    r"has\s+been\s+diagnosed\s+with|got\s+diagnosed\s+with|is\s+being\s+treated\s+for|deals\s+with|"
    r"struggles\s+with|was\s+born\s+with)\s+(?P<cond>(?:(?:an?|chronic|severe|mild|bad|early|late|"
    rf"stage\s+\d)\s+)*(?:{CONDITION_ALT}))\b(?P<rest>.*)$"
)
_DIAGNOSED = re.compile(rf"(?i)^{ADV}(?:was|has\s+been|got|just\s+got)\s+diagnosed\s+with\s+(?P<what>.+)$")
_CONDITION_IS = re.compile(rf"(?i)^{ADV}is\s+{ADV}(?:an?\s+)?(?P<cond>{CONDITION_ADJECTIVES})\b(?P<rest>.*)$")
_MEDICATION = re.compile(
    rf"(?i)^{ADV}(?P<verb>takes|is\s+taking|has\s+been\s+taking|needs\s+to\s+take|has\s+to\s+take|"
    r"must\s+take|uses|is\s+using|carries|injects|is\s+on|has\s+been\s+on|was\s+put\s+on|"
    r"was\s+prescribed|has\s+been\s+prescribed|is\s+prescribed|got\s+prescribed|started\s+taking|"
    r"started\s+on|relies\s+on|was\s+taking|is\s+still\s+on)\s+(?P<what>.+)$"
)
_PUT_ON = re.compile(
    r"(?i)\b(?:put|started|has\s+me|have\s+me)\s+(?:me|the\s+user)\s+on\s+(?P<what>.+)$"
    r"|\bprescribed\s+(?:me|the\s+user)\s+(?P<what2>.+)$"
)
_DIET_IS = re.compile(
    rf"(?i)^{ADV}(?:is|has\s+been)\s+{ADV}(?:an?\s+|strictly\s+|fully\s+|mostly\s+|strict\s+|a\s+strict\s+)*"
    rf"(?P<diet>{alternation(DIETS)})\b(?P<rest>.*)$"
)
_TIME_TAIL = (
    r"now|too|as\s+well|these\s+days|nowadays|anymore|any\s+more|lol|since\s+.*|for\s+.*(?:years?|months?|weeks?)|"
    r"all\s+(?:my|their)\s+life|recently|a\s+while\s+ago|(?:last|this)\s+(?:year|month|week)|"
    r"(?:a|one|two|three|four|five|a\s+few|\d+)\s+(?:years?|months?|weeks?)\s+ago"
)
_DIET_REST = re.compile(rf"(?i)^(?:\s+(?:{_TIME_TAIL}))*\s*$")
_DIET_DO = re.compile(
    rf"(?i)^{ADV}(?P<pred>(?:only\s+eats|eats\s+only|eats|keeps|follows|is\s+on|sticks\s+to|does|"
    r"maintains|observes|eats\s+strictly)\s+(?:an?\s+|the\s+|strictly\s+|a\s+strict\s+)?"
    r"(?P<diet>halal|kosher|vegan|vegetarian|plant-based|(?P<plan>[a-z-]+(?:\s+[a-z-]+)?)\s+diet)"
    r"(?:\s+(?:food|meals|only|foods|at\s+home|strictly|religiously|now|too|mostly))*)$"
)
_CANNOT = re.compile(
    rf"(?i)^{ADV}(?P<modal>cannot|can\s+not|must\s+not|is\s+not\s+allowed\s+to|should\s+not|is\s+unable\s+to|"
    rf"is\s+not\s+supposed\s+to|is\s+not\s+able\s+to|may\s+not)\s+{ADV}(?P<verb>eat|drink|have|consume|take|"
    r"tolerate|digest|touch|handle)\s+(?P<what>.+)$"
)
_DONT_EAT = re.compile(
    rf"(?i)^{ADV}(?P<modal>does\s+not|never|no\s+longer|do\s+not)\s+{ADV}(?P<verb>eats?|drinks?|consumes?|touch(?:es)?)"
    r"\s+(?P<what>.+)$"
)
_AVOID = re.compile(
    rf"(?i)^{ADV}(?P<modal>(?:(?:needs|has|tries|is\s+trying|was\s+told|is\s+supposed|is\s+meant|is\s+told)\s+to\s+|"
    r"must\s+|should\s+|)(?:avoids?|stays?\s+away\s+from|steers?\s+clear\s+of|cuts?\s+out|keeps?\s+away\s+from|"
    r"is\s+avoiding|has\s+cut\s+out|is\s+staying\s+away\s+from))\s+(?P<what>.+)$"
)
_NOT_FOOD_OBJECT = re.compile(
    r"(?i)^(?:right|now|today|tonight|yet|much|more|that|this|it|them|enough|too|so|a\s+lot|any\s+more|"
    r"anymore|there|here|out|in|at|while|before|after|until|with|without|alone|late|early|kids|children|"
    r"time|fun|sex|visitors|guests|people)\b"
)


def _drug_key(drug: str) -> str:
    key = slug(re.sub(r"(?i)^(?:an?\s+)", "", drug), words=3)
    return DRUG_KEYS.get(key, key)


def _allergen_key(item: str) -> str:
    item = CONTAINING.sub("", item)
    key = slug(ZH_TERMS.get(item, item), words=3)
    return ZH_TERMS.get(key, key)


def _food_key(item: str) -> str:
    item = CONTAINING.sub("", LEADING_DETERMINER.sub("", item))
    return slug(ZH_TERMS.get(item, item), words=3)


def _is_food(item: str) -> bool:
    item = CONTAINING.sub("", item)
    return any(singular(token) in FOODS for token in re.findall(r"[a-z]+", item.lower()))


def _allergies(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    negation, p = _negation(predicate)
    if _ENDED_WORDS.search(predicate) and negation == "not":
        negation = "ended"
    match = _ALLERGIC.match(p)
    if match:
        return _allergic(who, predicate, match, negation, ctx)
    for pattern in (_ALLERGY_NOUN, _ALLERGY_TO):
        match = pattern.match(p)
        if match:
            return _allergy_nouns(who, predicate, pattern, match, negation, ctx)
    match = _ALLERGY_INVERTED.match(predicate)
    if match and who.user:
        item = object_item(match.group("what"))
        if item and item.lower() not in VAGUE:
            key = f"health.allergy.{_allergen_key(item)}"
            return [_safety(who, key, f"{who.label} is allergic to {item}.")]
    return []


def _allergic(who: Who, predicate: str, match: re.Match[str], negation: str, ctx: _Context) -> list[Fact]:
    """ "is (severely) allergic to X and Y", "may be allergic to X", "was allergic to X" (ended)."""
    be = re.sub(r"\s+", " ", match.group("be").lower())
    hedged = be in ("may be", "might be", "could be", "is probably", "is possibly")
    if be == "was" and not negation:
        negation = "ended"
    degree = re.sub(r"\s+", " ", match.group("degree").lower()) + " " if match.group("degree") else ""
    what = match.group("what")
    items = (
        list_items(clean_object(what)) if what else ([lower_first(ctx.antecedent)] if ctx.antecedent else [])
    )
    verb = {"ended": "is no longer", "not": "is not"}.get(negation, "may be" if hedged else "is")
    found: list[Fact] = []
    for item in items:
        item = _resolve(object_item(item), ctx)
        if not _is_allergen(item):
            continue
        item = third_person(item, possessive="their")
        found.append(
            _safety(
                who,
                f"health.allergy.{_allergen_key(item)}",
                f"{who.label} {verb} {degree}allergic to {item}.",
                negation=negation,
                confidence=0.7 if hedged else 0.9,
            )
        )
    if what and found:
        ctx.frame = (who, predicate[: len(predicate) - len(what)], "allergy")
    return found


def _is_allergen(item: str) -> bool:
    """Something one can be allergic to: not "anything", "Mondays" or "this stuff"."""
    return not (
        not item
        or item.lower() in VAGUE
        or item.lower() in NOT_ALLERGENS
        or len(item.split()) > 5
        or re.match(r"(?i)(?:this|that|these|those|such|your|his|her)\b", item)
    )


def _allergy_nouns(
    who: Who, predicate: str, pattern: re.Pattern[str], match: re.Match[str], negation: str, ctx: _Context
) -> list[Fact]:
    """ "has a (severe) peanut allergy" (_ALLERGY_NOUN), "has an allergy to X" (_ALLERGY_TO)."""
    found: list[Fact] = []
    degree = f"{match.group('degree').lower()} " if match.group("degree") else ""
    for item in list_items(clean_object(match.group("what"))):
        item = _resolve(object_item(item), ctx)
        if not item or item.lower() in VAGUE or item.lower() in ("food", "drug", "seasonal", "no"):
            continue
        key = f"health.allergy.{_allergen_key(item)}"
        if negation:
            verb = "is no longer" if negation == "ended" else "is not"
            content = f"{who.label} {verb} allergic to {item}."
        elif pattern is _ALLERGY_NOUN:
            content = f"{who.label} has {article_for(degree or item)} {degree}{item} allergy."
        else:
            content = f"{who.label} has {article_for(degree or 'allergy')} {degree}allergy to {item}."
        found.append(_safety(who, key, content, negation=negation))
    if found and pattern is _ALLERGY_TO:
        ctx.frame = (who, predicate[: len(predicate) - len(match.group("what"))], "allergy")
    elif found:
        ctx.frame = (who, "has ", "have")
    return found


_SYMPTOM = (
    r"hives|a\s+rash|rashes|welts|swelling|anaphylaxis|anaphylactic\s+shock|an\s+allergic\s+reaction|"
    r"allergic\s+reactions|a\s+reaction|reactions"
)
_REACTION = re.compile(
    rf"(?i)^(?:gets|breaks\s+out\s+in|comes\s+out\s+in|has|goes\s+into|went\s+into|got|had)\s+(?:{_INTENSIFIER}(?:bad|severe|serious)\s+)?"
    rf"(?:{_SYMPTOM})\s+(?:from|with|after|to|when\s+(?:eating|taking|touching|exposed\s+to)|"
    r"if\s+(?:they\s+)?(?:eats?|takes?|touch(?:es)?))\s+(?P<what>.+)$"
    r"|^reacts\s+(?:badly\s+|severely\s+|strongly\s+)?to\s+(?P<what2>.+)$"
)
# "Shellfish makes my throat swell up", "Penicillin gives me hives".
_REACTION_CAUSE = re.compile(
    r"(?i)^(?P<what>[a-z][a-z' -]{1,30}?)\s+"
    r"(?:makes?|made|gives?|gave|sends?|sent|puts?|put|causes?|caused|triggers?)\s+"
    r"(?:me|them|the\s+user|my|their|the\s+user's)\s*(?:\w+\s+)?(?:hives|a\s+rash|rashes|welts|swell(?:s|ing)?(?:\s+up)?|"
    r"close\s+up|break\s+out|into\s+anaphyla\w+(?:\s+shock)?|anaphyla\w+|an\s+allergic\s+reaction)\b"
)


def _reactions(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    """A reaction said instead of the word "allergic" ("I get hives from penicillin")."""
    match = _REACTION.match(predicate)
    if not match:
        return []
    what = match.group("what") or match.group("what2")
    items = [_resolve(object_item(item), ctx) for item in list_items(clean_object(what))]
    items = [item for item in items if item and item.lower() not in VAGUE and len(item.split()) <= 4]
    return [
        _safety(
            who,
            f"health.allergy.{_allergen_key(item)}",
            as_sentence(
                f"{who.label} {_plain(predicate)}" if len(items) == 1 else f"{who.label} reacts to {item}"
            ),
        )
        for item in items
    ]


def _intolerances(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    negation, p = _negation(predicate)
    verb = {"ended": "is no longer", "not": "is not"}.get(negation, "is")
    match = _INTOLERANT.match(p)
    if match and not match.group("rest").strip(" ,"):
        what = match.group("what").lower()
        degree = f"{match.group('degree').lower()} " if match.group("degree") else ""
        key = f"health.intolerance.{_allergen_key(what)}"
        return [_safety(who, key, f"{who.label} {verb} {degree}{what} intolerant.", negation=negation)]
    found: list[Fact] = []
    for pattern in (_INTOLERANT_TO, _INTOLERANCE_NOUN, _INTOLERANCE_TO):
        match = pattern.match(p)
        if not match:
            continue
        for item in list_items(clean_object(match.group("what"))):
            item = _resolve(object_item(item), ctx)
            if not item or item.lower() in VAGUE:
                continue
            key = f"health.intolerance.{_allergen_key(item)}"
            if negation or pattern is not _INTOLERANCE_NOUN:
                content = f"{who.label} {verb} intolerant to {item}."
            else:
                content = f"{who.label} has {article_for(item)} {item} intolerance."
            found.append(_safety(who, key, content, negation=negation))
        if found:
            ctx.frame = (
                (who, "has ", "have")
                if pattern is _INTOLERANCE_NOUN
                else (who, predicate[: len(predicate) - len(match.group("what"))], "intolerance")
            )
        return found
    return found


def _condition_key(condition: str) -> str:
    text = re.sub(r"\s+", " ", condition.lower())
    text = re.sub(r"^(?:(?:an?|chronic|severe|mild|bad|early|late|stage \d)\s+)+", "", text)
    for pattern, key in CONDITIONS:
        if re.fullmatch(pattern, text, re.I):
            return key
    return slug(text, words=3)


# What may follow "is pregnant" / "is diabetic" without making it describe a noun ("a diabetic cook").
_ADJECTIVE_REST = re.compile(
    rf"(?i)^\s*(?:$|(?:with|since|for|at|in|from|and|but|so|though|again|already|too|now|right\s+now|"
    rf"these\s+days|{_TIME_TAIL})\b|[,;.!?(])"
)


def _conditions(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    negation, p = _negation(predicate)
    match = _CONDITION.match(p)
    if match:
        condition = re.sub(r"\s+", " ", match.group("cond"))
        verb = re.sub(r"\s+", " ", match.group("verb").lower())
        key = f"health.{_condition_key(condition)}"
        if negation == "ended":
            content = f"{who.label} no longer has {condition}."
        elif negation:
            content = f"{who.label} does not have {condition}."
        else:
            content = f"{who.label} {verb} {condition}."
        ctx.frame = (who, "has ", "have")
        return [_safety(who, key, content, negation=negation)]
    match = _CONDITION_IS.match(p)
    if match and _ADJECTIVE_REST.match(match.group("rest")):
        condition = re.sub(r"\s+", " ", match.group("cond"))
        article = "a " if re.search(rf"(?i)^{ADV}is\s+{ADV}an?\s+", p) else ""
        verb = {"ended": "is no longer", "not": "is not"}.get(negation, "is")
        key = f"health.{_condition_key(condition)}"
        rest = match.group("rest").strip(" ,.")
        rest = f" {third_person(rest, possessive='their')}" if re.match(r"(?i)(?:in|with)\b", rest) else ""
        return [_safety(who, key, f"{who.label} {verb} {article}{condition}{rest}.", negation=negation)]
    match = _DIAGNOSED.match(p)
    if match and not negation:
        what = object_item(match.group("what"))
        what = re.sub(r"(?i)\s+(?:last|this|in|on|two|three|a|about|when|at)\b.*$", "", what)
        if what and what.lower() not in VAGUE and len(what.split()) <= 4:
            key = f"health.{_condition_key(what)}"
            return [_safety(who, key, f"{who.label} was diagnosed with {what}.")]
    return []


def _medications(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    negation, p = _negation(predicate)
    match = _MEDICATION.match(p)
    if not match:
        return []
    what = clean_object(match.group("what"))
    drug = DRUG.search(what)
    if drug is None or (
        drug.group("drug").lower() in ("medication", "meds") and not negation and drug.start() > 0
    ):
        return []
    verb = re.sub(r"\s+", " ", match.group("verb").lower())
    name = (
        re.sub(r"(?i)^(?:an?|the)\s+", "", drug.group("drug"))
        if drug.group("drug").lower() != "the pill"
        else "the pill"
    )
    key = f"health.medication.{_drug_key(drug.group('drug'))}"
    what_third = third_person(what, possessive="their")
    if negation == "not":
        content = (
            f"{who.label} is not on {name}." if verb.endswith(" on") else f"{who.label} does not take {name}."
        )
    elif negation:
        content = (
            f"{who.label} is no longer on {name}."
            if verb.endswith(" on")
            else f"{who.label} no longer takes {name}."
        )
    else:
        content = f"{who.label} {verb} {what_third}."
    ctx.frame = (who, predicate[: len(predicate) - len(match.group("what"))], "medication")
    return [_safety(who, key, content, negation=negation)]


def _diets(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    negation, p = _negation(predicate)
    if _ENDED_WORDS.search(predicate) and negation == "not":
        negation = "ended"
    match = _DIET_IS.match(p)
    if match and _DIET_REST.match(match.group("rest")):
        diet = match.group("diet").lower()
        verb = {"ended": "is no longer", "not": "is not"}.get(negation, "is")
        ctx.frame = (
            who,
            predicate[: max(predicate.lower().rfind(diet), 0)],
            "diet",
        )  # "not vegan, just vegetarian"
        key = _unless_denied(negation, "diet")
        return [_fact(who, key, f"{who.label} {verb} {diet}.", "safety", importance=0.9, pinned=not negation)]
    match = _DIET_DO.match(p)
    if match and not negation:
        pred = third_person(match.group("pred"), possessive="their")
        return [_fact(who, "diet", f"{who.label} {pred}.", "safety", importance=0.9, pinned=True)]
    return []


def _avoidances(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    for pattern in (_CANNOT, _DONT_EAT, _AVOID):
        match = pattern.match(predicate)
        if not match:
            continue
        modal = re.sub(r"\s+", " ", match.group("modal").lower())
        modal = {"can not": "cannot", "do not": "does not"}.get(modal, modal)
        verb = match.groupdict().get("verb") or ""
        verb = verb.lower()
        if pattern is _DONT_EAT:
            verb = re.sub(r"(?:e?s)$", "", verb) if verb not in ("eat", "drink") else verb
            verb = {"consum": "consume", "touch": "touch"}.get(verb, verb)
        found = []
        if _NOT_FOOD_OBJECT.match(match.group("what").strip()):
            return []
        what = clean_object(match.group("what"))
        for item in list_items(what):
            item = _resolve(object_item(item), ctx)
            if not item or item.lower() in VAGUE or _NOT_FOOD_OBJECT.match(item):
                continue
            # "can't eat" says it is food; "don't eat", "avoid", "can't have" need a food to say so.
            if not (pattern is _CANNOT and verb in ("eat", "drink", "consume", "digest")) and not _is_food(
                item
            ):
                continue
            item = third_person(item, possessive="their")
            content = f"{who.label} {modal} {verb} {item}." if verb else f"{who.label} {modal} {item}."
            # "can't tolerate lactose" is an intolerance, not a choice.
            kind = "health.intolerance" if verb in ("tolerate", "digest") else "diet.avoid"
            found.append(_safety(who, f"{kind}.{_food_key(item)}", re.sub(r"\s+", " ", content)))
        if found:
            ctx.frame = (who, predicate[: len(predicate) - len(match.group("what"))], "avoid")
        return found
    return []


_FILLER_ADVERBS = (
    r"currently|now|still|also|really|just|actually|definitely|recently|finally|already|officially|basically|"
    r"honestly|seriously|unfortunately|apparently|technically|sadly|luckily|totally|absolutely|even|both|all"
)


def _plain(predicate: str) -> str:
    """Without the adverbs that change nothing: "is currently taking X" -> "is taking X"."""
    predicate = re.sub(rf"(?i)^(?:(?:{_FILLER_ADVERBS})\s+)+", "", predicate)
    return re.sub(
        rf"(?i)\b(is|are|was|has|have|had|does|do|been)\s+(?:(?:{_FILLER_ADVERBS})\s+)+", r"\1 ", predicate
    )


def _health(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    predicate = _plain(predicate)
    for rule in (_allergies, _reactions, _intolerances, _diets, _conditions, _medications, _avoidances):
        found = rule(who, predicate, ctx)
        if found:
            return found
    return []


# "… because of my peanut allergy", "… for my asthma": a safety fact said in passing.
_MY_ALLERGY = re.compile(
    rf"(?i)\b(?:my|their|the\s+user's)\s+(?:(?P<degree>{_INTENSIFIER}(?:{NOUN_DEGREE}))\s+)?"
    r"(?P<what>[a-z][a-z-]{1,20}(?:\s+[a-z][a-z-]{1,20})?)\s+(?P<kind>allerg(?:y|ies)|intolerance)\b"
)
_MY_CONDITION = re.compile(rf"(?i)\b(?:my|their|the\s+user's)\s+(?P<cond>{CONDITION_ALT})\b")
_NOT_MENTIONED = word_set("food seasonal drug skin no other own new old known")


def _mentions(clause: _Clause) -> list[Fact]:
    """Safety facts a user's clause takes for granted; said in passing, so never its slot."""
    if clause.who is not USER and not (
        clause.who is None and re.search(r"(?i)\b(?:my|the\s+user's)\b", clause.raw)
    ):
        return []
    found = []
    for match in _MY_ALLERGY.finditer(clause.raw):
        what = match.group("what").lower()
        if what.split()[0] in _NOT_MENTIONED:
            continue
        kind = "intolerance" if match.group("kind").lower() == "intolerance" else "allergy"
        key = f"health.{kind}.{_allergen_key(what)}"
        found.append(_safety(USER, key, f"The user has {article_for(what)} {what} {kind}.", incidental=True))
    for match in _MY_CONDITION.finditer(clause.raw):
        condition = match.group("cond")
        if condition.lower().startswith(("pregnan", "a ")):
            continue
        key = f"health.{_condition_key(condition)}"
        found.append(_safety(USER, key, f"The user has {condition}.", incidental=True))
    return found


def _subjectless(raw: str, ctx: _Context) -> list[Fact]:
    """Safety facts whose subject is the allergen or the doctor: "Sesame is my allergy",
    "Shellfish makes my throat swell up", "My doctor put me on levothyroxine"."""
    text = _LEAD_WORDS.sub("", raw)
    inverted = _ALLERGY_INVERTED.match(text)
    if inverted:
        return _allergies(USER, "is allergic to " + lower_first(inverted.group("what")), ctx)
    cause = _REACTION_CAUSE.match(text)
    if cause and cause.group("what").split()[0].lower() not in _NOT_ANTECEDENT:
        item = lower_first(object_item(cause.group("what")))
        content = as_sentence(third_person(text, possessive="the user's"))
        return [_safety(USER, f"health.allergy.{_allergen_key(item)}", content)]
    put_on = _PUT_ON.search(raw)
    drug = DRUG.search(clean_object(put_on.group("what") or put_on.group("what2") or "")) if put_on else None
    if drug:
        key = f"health.medication.{_drug_key(drug.group('drug'))}"
        return [_safety(USER, key, f"The user takes {drug.group('drug')}.")]
    return []
