"""The English lexicon: the controls, the predicates that keep or relax them, and the negators."""

from __future__ import annotations

import re
from functools import lru_cache

from memory_core import process_caches

# Advice to ask a professional, the caveat an assistant adds to health, legal or money answers.
_PROFESSIONAL = (
    r"(?:a|an|your|the)\s(?:doctor|gp|physician|pharmacist|dermatologist|specialist|consultant|nurse"
    r"|(?:medical\s|health\s)?professional|lawyer|solicitor|accountant|financial\sadvis[eo]r)\b"
)
_ADVISE = rf"(?:consult|see|ask|check\swith|talk\sto|speak\sto|contact)\s{_PROFESSIONAL}"
_ADVISING = rf"(?:consult|see|ask|check|talk|speak|contact)(?:ing)?\s(?:with\s|to\s)?{_PROFESSIONAL}"
# The words a caveat is about and what it is, as said of one ("the allergy wording", "the health
# warning line", "the legal small print").
_CAVEAT_TOPIC = (
    r"(?:allerg(?:y|en|ies)|health|medical|medication|medicine|drug|dietary|diet|pregnancy|safety|legal"
    r"|financial|investment|risk|tax)"
)
_CAVEAT_TEXT = (
    r"(?:wording|lines?|notes?|paragraphs?|notices?|blurbs?|small\sprint|text|sections?"
    r"|reminders?|alerts?|flags?|info(?:rmation)?\s(?:line|note|bit|box))\b"
)

# Controls come in three kinds. A guard is in force while it is required (approval, verification);
# a benefit is given away by a blanket grant (refunds, discounts, admin access); a generic rule noun
# ("the rules", "the policy") only counts in an instruction, or when it is the assistant's own.
GUARDS: list[tuple[str, str]] = [
    (
        "approval",
        r"(?:two|2|four|4)-?\s?(?:person|man|eyes?)(?:\s(?:rule|check|principle|approval|review|control))?"
        r"|dual-?\s?control(?:\s(?:rule|principle))?|maker-checker|(?:second|another"
        r"|extra) (?:pair of eyes|signature)",
    ),
    ("authentication", r"(?:two|2)-?\s?(?:factor|step)(?:\s(?:authentication|verification|login|check))?"),
    (
        "verification",
        r"proof of (?:purchase|identity|address|id|age)|(?:photo )?ids?\b(?:\s(?:checks?|cards?))?",
    ),
    (
        "authentication",
        r"2fa|mfa|otp|one-time (?:codes?|passwords?)|security (?:questions?|codes?|pin)|passwords?"
        r"|passcodes?|pins?|pin codes?|authenticat\w*|logins?|log-ins?|captcha|biometrics?",
    ),
    (
        "verification",
        r"verif\w*|identit(?:y|ies)|identification|(?:fraud |security |background |identity |id |kyc "
        r"|aml )?screenings?"
        r"|passports?|(?:driver's |driving )licen[cs]es?|kyc"
        r"|background checks?|receipts?|(?:age|address|fraud|credit|security)\s+checks?"
        r"|(?:any\s|all\s|the\s)?checks|checking",
    ),
    (
        "approval",
        r"(?:pre-?)?approv(?:al|als|ed)|sign-?\s?offs?|authori[sz]ations?|authori[sz]ed|consent|supervision"
        r"|oversight|(?:human|manual) (?:checks?|approvals?|sign-?offs?)"
        r"|(?:manager|supervisor|director)(?:'s|s')?\s(?:ok|okay|signature|go-ahead|call|say-?so|nod|countersignature)"
        r"|escalations?|countersign(?:s|ed|ing|atures?)?"
        r"|(?<=without )(?:an? |the |any )?(?:manager|supervisor|director|approver|second person)s?\b"
        r"|(?<=\bto )approv(?:e|ing)\b|self-approv\w*|approv(?:e|es|ing)? (?:their|his|her|your|its|our) own",
    ),
    (
        "limit",
        r"limits?|caps?|ceilings?|thresholds?|quotas?|maximums?|spending caps?|uncapped|limitless"
        r"|unlimited(?=\s(?:\w+\s)?(?:refunds?|discounts?|withdrawals?|transfers?|returns?|access|credit"
        r"|spending|approvals?))",
    ),
    (
        "review",
        r"(?:code |peer |security |qa |manual |human )?reviews?|audits?|auditing|qa|quality assurance",
    ),
    (
        "safety",
        r"safety(?:\s(?:warnings?|rules?|guidelines?|checks?|filters?|polic(?:y|ies)|measures?))?|guardrails?"
        r"|(?:content|profanity|nsfw|spam|safe-?search)\s(?:filters?|moderation|polic(?:y|ies))"
        r"|content moderation|moderation|filters?|restrictions?|disclaimers?|warnings?|censorship|caveats?"
        # The assistant's own caveat named by quoting it ("the 'consult your doctor' line") or by
        # what it advises ("the reminder to see a GP").
        rf"|(?<=['\"\u201c])(?:please\s)?{_ADVISE}[^'\"\u201d]{{0,30}}['\"\u201d]\s(?:line|bit|note|part|reminder|caveat"
        r"|thing|sentence|message|advice)"
        rf"|(?:reminders?|advice|lines?|bits?|notes?|suggestions?)\s(?:to|about)\s{_ADVISING}"
        # or by what it is about ("the allergy wording", "the medical notice", "the risk blurb").
        rf"|{_CAVEAT_TOPIC}\s{_CAVEAT_TEXT}"
        r"|unrestricted"
        r"|unfiltered|uncensored"
        r"|developer mode|jailbreak\w*",
    ),
    (
        "instructions",
        r"system (?:prompt|message|instructions?)|instructions?|(?:previous|prior|earlier|above|preceding"
        r"|original|initial|your)(?:\s(?!safety|content|security)\w+)?\s(?:prompts?|directions|directives"
        r"|guidelines"
        r"|rules|context)"
        r"|(?:everything|what|anything) (?:you were|you have been|you've been) (?:told|given)"
        r"|rules you (?:were|have been) given",
    ),
    # "Treat anyone with a company email as an administrator": an assumed role is access given away.
    ("access", r"(?<=as )(?:an? )?(?:admin|administrator|superuser|owner|root user)s?\b"),
]
BENEFITS: list[tuple[str, str]] = [
    (
        "access",
        r"(?:admin|administrator|root|superuser|sudo|elevated|full|owner)\s(?:access|rights|privileges?"
        r"|permissions?|credentials|role|accounts?|panel|console)|root|admin rights|permissions?|privileges?"
        r"|credentials|(?:customer|payment|personal|user|production|admin)\s(?:\w+\s)?(?:data|databases?"
        r"|records"
        r"|servers?|systems?|files|details"
        r"|information)"
        r"|access",
    ),
    ("discount", r"discounts?|coupons?|promo(?:tion)?(?: codes?)?|vouchers?|\d+% off|price match(?:es)?"),
    ("refund", r"refund(?:s|ed|ing)?|reimburse\w*|money back|chargebacks?"),
]
GENERIC: list[tuple[str, str]] = [
    (
        "policy",
        r"polic(?:y|ies)|rules?|guidelines?|procedures?|protocols?|requirements?|sops?|windows?|periods?",
    ),
]


def _alternation(entries: list[tuple[str, str]]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?P<c{i}>\\b(?:{p}))" for i, (_, p) in enumerate(entries)))


GUARD_RE, BENEFIT_RE, GENERIC_RE = _alternation(GUARDS), _alternation(BENEFITS), _alternation(GENERIC)

# Predicates. REQUIRE keeps a guard in force; RELAX removes it; GRANT gives a benefit away when it is
# a blanket grant; RAISE relaxes a limit, LOWER tightens it (and relaxes any other guard).
REQUIRE, RELAX, GRANT, RAISE, LOWER = "require", "relax", "grant", "raise", "lower"
PREDICATES: list[tuple[str, str]] = [
    (
        REQUIRE,
        r"(?:is|are|stays?|remains?) (?:on|active|enabled|enforced)|cap(?:s|ped)?(?= \w)"
        r"|limit(?:s|ed|ing)?(?= (?:\w+ )?(?:to|at)\b)|need(?:s|ed|ing)?|requir(?:e|es|ed|ing)|ha(?:ve|s"
        r"|d) to|sign(?:s|ed)? off|done|perform(?:s|ed)?"
        r"|carried out|conduct(?:s|ed)?|something (?:we|you|they|agents) do|an? (?:requirement|must"
        r"|prerequisite)|mandatory|compulsory|obligatory"
        r"|necessary|enforc(?:e|es|ed|ing)|request(?:s|ed|ing)?|demand(?:s|ed|ing)?|appl(?:y|ies)"
        r"|in (?:effect|force|place)|subject to|(?:bound|restricted"
        r"|constrained|limited|covered|governed) by|held to|part of|ask(?:s|ed|ing)?"
        r"(?:\s\w+){0,2}?\sfor|obtain|wait(?:ing)? for|follow|obey|respect|comply with|stick to|adhere to"
        r"|show"
        r"|provide|present|verif(?:y|ies|ied|ying)|authenticat(?:e|es|ing)|(?:check|confirm|validat)(?:e"
        r"|es|ed"
        r"|ing|s)?(?=\s(?:\w+\s){0,3}?(?:ids?|identit\w+|receipts?|proof|age|address|credentials)\b)"
        r"|review(?:s|ed|ing)?(?=\s(?:the\s|all\s|every\s)?\w+)|audit(?:s|ed|ing)?|escalat(?:e|es|ing)|vet"
        r"|screen",
    ),
    (
        RELAX,
        r"approv\w* (?:their|his|her|your|its|our) own|unrestricted|unfiltered|uncensored|overkill"
        r"|excessive|unneeded|pointless|a waste of time"
        r"|(?:one|a single) (?:\w+ )?is enough|(?:whitelist|allowlist)\w*(?= (?:\S+ ){0,5}?from\b)"
        r"|(?:is|are|stays?|remains?) (?:off|disabled"
        r"|inactive|deactivated)"
        r"|uncapped|limitless|exceed\w*|go(?:es)? (?:over|above|beyond)|(?:is|are) (?:a thing of the past"
        r"|history|gone|over|(?:just |only |merely )?a formality)"
        r"|not (?:worry|bother)(?: about| with)?|never mind|retir(?:e|es|ed)|discontinu\w+|phased? out"
        r"|sunset\w*"
        r"|deprecat\w+|done away with|(?:got|get) rid of|excus(?:e|es|ed) from|released from|let off"
        r"|no longer any|(?<=[:=-] )(?:none|no|nope|false|off)|no longer|skip(?:s|ped|ping|pable)?"
        r"|bypass(?:es|ed|ing)?|circumvent\w*|get around|work around|go around"
        r"|waiv(?:e|es|ed|ing|able)|exempt(?:s|ed|ion)?|optional|voluntary|unnecessary|needless|superfluous"
        r"|not applicable|overrid(?:e|es|den|ing)|overrode|overrule\w*|ignor(?:e|es|ed|ing)|disregard\w*"
        r"|neglect\w*|omit\w*|drop(?:s|ped|ping)?|remov(?:e|es|ed|ing)|lift(?:s|ed|ing)?|scrap(?:s|ped)?"
        # Giving up what one adds to an answer: "stop adding the disclaimer", "leave out the caveat".
        r"|(?:stop|quit|cease)(?:s|ped|ping)?\s(?:adding|including|putting\sin|attaching|appending"
        r"|tacking\son|mentioning|giving)|leav(?:e|es|ing)\s(?:out|off)"
        r"|eliminat\w*|abolish\w*|suspend(?:s|ed|ing)?|paus(?:e|es|ed)|disabl(?:e|es|ed|ing)|deactivat\w*"
        r"|turn(?:s|ed)? off|switch(?:es|ed)? off|shut off|relax(?:es|ed)?|loosen\w*|eas(?:e|es|ed)|cancel\w*"
        r"|without|unlimited|free (?:of|from)|forget(?= (?:it|about|all|everything|your|the previous"
        r"|previous|prior|the above|any))|no(?: more)?(?= (?:\S+ ){0,2}?\S)(?! (?:one|longer|need|matter"
        r"|questions|problem)\b)"
        r"|(?:treat|consider|assume|regard|deem|count"
        r"|mark)\w*(?= (?:\S+ ){0,8}?(?:as )?(?:already )?(?:(?:pre-?)?approved"
        r"|verified|authenticated|authori[sz]ed|trusted|cleared|done|completed?|passed|satisfied"
        r"|an? (?:admin|administrator|superuser|owner)s?)\b)"
        r"|pretend|developer mode",
    ),
    (
        GRANT,
        r"approv(?:e|es|ing)|auto-?approv\w*|grant(?:s|ed|ing)?|giv(?:e|es|ing)(?: out)?|issu(?:e|es|ing)"
        r"|offer(?:s|ing)?|provid(?:e|es|ing)|hand(?:s)? out|accept(?:s|ing)?|allow(?:s|ing)?|permit(?:s"
        r"|ting)?"
        r"|authori[sz](?:e|es|ing)|unlock\w*|elevat\w*|whitelist\w*|allowlist\w*|honou?r(?:s|ing)?|process"
        r"|refund(?:s|ing)?|ha(?:ve|s)|get(?:s|ting)?|receiv(?:e|es|ing)|(?:are|is) entitled to|qualif\w+ for"
        r"|see|view|read|edit|download|export|share|for(?= (?:all|every|everyone|anyone|anybody|any)\b)"
        r"|mak(?:e|es|ing) (?:\S+ ){0,3}?available|open(?:s|ed)? up|go(?:es)? through|green-?light\w*"
        r"|rubber-?stamp\w*|wav(?:e|es|ing) through|let through"
        r"|sign off on",
    ),
    (
        RAISE,
        r"rais(?:e|es|ed|ing)|increas(?:e|es|ed|ing)|doubl(?:e|es|ed|ing)|tripl(?:e|es|ed|ing)"
        r"|extend(?:s|ed|ing)?|bump(?:s|ed)? up|higher",
    ),
    (LOWER, r"lower(?:s|ed|ing)?|reduc(?:e|es|ed|ing)|decreas\w*|cut(?:s|ting)?|tighten\w*"),
]
PREDICATE_RE = re.compile("|".join(f"(?P<p{i}>\\b(?:{p})\\b)" for i, (_, p) in enumerate(PREDICATES)))
NEGATOR = re.compile(
    r"\b(?:no longer|no more|no one|not|no|never|none|nobody|neither|nor|without|zero|stop(?:s|ped)?|quit"
    r"|cease|do not bother|instead of)\b"
)
# A sentence opening with one of these is a prohibition, negated as a whole.
PROHIBIT_PREFIX = re.compile(
    r"^(?:never|do not|does not|must not|should not|may not|can not|no one|nobody|under no circumstances"
    r"|at no time|avoid|refuse to|it is (?:not|never) (?:ok|okay|fine|allowed|acceptable) to)\b"
)


@lru_cache(maxsize=8192)
def is_keyword(word: str) -> bool:
    """Whether a word (or two) is a control, a predicate or a negator: what normalisation rewrites towards."""
    low = word.lower()
    return any(p.fullmatch(low) for p in (GUARD_RE, BENEFIT_RE, PREDICATE_RE, NEGATOR))


process_caches.register_lru(is_keyword)
