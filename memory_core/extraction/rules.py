"""The offline extractor: rules over the user's own messages, used without a model, and for
explicit "remember that …" requests in chat.

How a message is read: sentences, then clauses (split at commas and conjunctions; a clause naming
a secret is left out), then each clause as a subject (the user, a relative the user names, or
nobody we track) and a predicate in the third person ("I'm allergic to nuts" → the user + "is
allergic to nuts"), which the predicate rules read. A clause without a subject continues the one
before it: "… and allergic to nuts" borrows "is", "… and work as a pharmacist" the subject, and
"… penicillin and shellfish" the frame "is allergic to". `slots.infer_slot` reads already written
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
  English and a Chinese statement of one fact share a slot.
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
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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
from memory_core.guards.secrets import scan_secrets

Fact = dict[str, Any]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _pairs(text: str) -> dict[str, str]:
    """ "mom=mother son" -> {"mom": "mother", "son": "son"}: a word list that maps some words."""
    return {word: target or word for word, _, target in (item.partition("=") for item in text.split())}


def _alternation(words: str | list[str] | tuple[str, ...]) -> str:
    """A regex alternation of phrases, longest first (so "type 1 diabetes" wins over "diabetes")."""
    items = words.split("|") if isinstance(words, str) else list(words)
    return "|".join(sorted((item for item in items if item), key=len, reverse=True))


# --- vocabulary ----------------------------------------------------------------------------------

_NAME = r"[A-Z][\w'\u00c0-\u024f-]*(?:\s+[A-Z][\w'\u00c0-\u024f-]*){0,2}"
_TITLED_NAME = (
    rf"(?:(?:Dr|Mr|Mrs|Ms|Mx|Miss|Prof|Professor|Sir|Dame|Captain|Coach|Auntie|Uncle)\.?\s+)?{_NAME}"
)
_PLACE = r"[A-Z][\w'.\u00c0-\u024f-]*(?:(?:\s+|,\s*)[A-Z][\w'.\u00c0-\u024f-]*){0,3}"
_ORG = r"[A-Z0-9][\w&'.\u00c0-\u024f-]*(?:\s+(?:&\s+)?[A-Z0-9][\w&'.\u00c0-\u024f-]*){0,4}"
_CJK = r"\u4e00-\u9fff"
_ADV = (
    r"(?:(?:also|still|now|currently|really|actually|definitely|both|all|just|even|recently|finally|"
    r"already|officially|basically|honestly|seriously|unfortunately|apparently|technically|"
    r"originally|sadly|luckily|totally|absolutely|generally|usually|always|mostly|pretty\s+much)\s+)*"
)
_DEGREE = r"very|quite|super|really|so|deadly|a\s+bit|a\s+little|somewhat|[a-z-]+ly"
_NOUN_DEGREE = r"severe|mild|serious|bad|strong|life-threatening|deadly|slight|minor|major|terrible"

# Objects that name no particular thing: "allergic to anything" gives no fact.
_VAGUE = _words(
    "anything everything nothing something it them this that those these stuff things any lots much "
    "everything else anything else a lot some any food any foods all food none no n/a nothing else"
)
_PRONOUN_OBJECTS = _words("it them that this those these")
# Not allergens, whatever the joke says ("allergic to Mondays").
_NOT_ALLERGENS = _words(
    "monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays friday fridays saturday "
    "saturdays sunday sundays morning mornings work homework people meetings meeting exercise effort "
    "adulting nonsense drama mondays responsibility responsibilities deadlines you him her math stupidity"
)
_OBJECT_END = re.compile(
    r"[,\s]+(?:so|but|because|which|when|whenever|if|since|though|although|while|and\s+(?:I|i|my|we|you)|"
    r"please|can|could|would|do|who|that\s+(?:is|was|makes|gives))\b.*$",
    re.S,
)
_TRAILING_FILLER = re.compile(
    r"(?:\s+(?:too|as well|a lot|so much|very much|really|though|lol|haha|apparently|anymore|any more|"
    r"these days|nowadays|now|at all|for sure|btw|honestly|originally|like crazy|unfortunately))+$",
    re.I,
)
_LEADING_DETERMINER = re.compile(
    r"^(?:(?:all|any|some|most|certain|many|the|a|an|both|either|neither|just|only|kinds?\s+of|types?\s+of|sorts?\s+of|"
    r"all\s+kinds\s+of|most\s+kinds\s+of)\s+)+",
    re.I,
)
_CONTAINING = re.compile(
    r"^(?:anything|foods?|things|stuff|dishes|products|meals)\s+(?:with|containing|that\s+contains?|made\s+with)\s+",
    re.I,
)

_DIETS = (
    "vegan|vegetarian|pescatarian|pescetarian|lacto-vegetarian|lacto-ovo vegetarian|ovo-vegetarian|"
    "flexitarian|plant-based|halal|kosher|fruitarian|raw vegan"
)
# Conditions: what the user may say, and the one slot each is kept under. Any diabetes is
# "diabetic": the key v1 stored for "I am diabetic".
_CONDITIONS: tuple[tuple[str, str], ...] = (
    (r"(?:type[ -]?(?:1|2|one|two|i|ii)\s+)?diabet(?:es|ic)|t[12]d|pre-?diabetes", "diabetic"),
    (r"asthma|asthmatic", "asthma"),
    (r"epilepsy|epileptic|a\s+seizure\s+disorder|seizures", "epilepsy"),
    (r"c(?:o)?eliac(?:\s+disease)?|c(?:o)?eliac\s+sprue", "celiac"),
    (r"hypertension|hypertensive|high\s+blood\s+pressure", "hypertension"),
    (r"low\s+blood\s+pressure|hypotension", "hypotension"),
    (
        r"(?:a\s+)?heart\s+(?:condition|disease|problem|problems|defect)|heart\s+failure|arrhythmia|"
        r"atrial\s+fibrillation|afib|a\s+heart\s+murmur|coronary\s+artery\s+disease",
        "heart_condition",
    ),
    (r"(?:chronic\s+)?kidney\s+disease|ckd|kidney\s+problems|renal\s+failure", "kidney_disease"),
    (r"(?:a\s+)?heart\s+attacks?|(?:a\s+)?myocardial\s+infarction", "heart_condition"),
    (r"(?:a\s+)?strokes?|(?:a\s+)?mini[ -]stroke|(?:a\s+)?tia", "stroke"),
    (r"(?:fatty\s+)?liver\s+disease|cirrhosis", "liver_disease"),
    (r"gout", "gout"),
    (r"migraines?|chronic\s+migraines?", "migraine"),
    (r"(?:rheumatoid\s+|osteo)?arthritis", "arthritis"),
    (r"copd|emphysema", "copd"),
    (r"adhd|add", "adhd"),
    (r"autism|asd|asperger'?s", "autism"),
    (r"(?:clinical\s+)?depression", "depression"),
    (r"(?:an\s+)?anxiety(?:\s+disorder)?|panic\s+disorder", "anxiety"),
    (r"bipolar(?:\s+disorder)?", "bipolar"),
    (r"ptsd", "ptsd"),
    (r"ocd", "ocd"),
    (r"ibs|irritable\s+bowel\s+syndrome", "ibs"),
    (r"crohn'?s(?:\s+disease)?", "crohn"),
    (r"(?:ulcerative\s+)?colitis", "colitis"),
    (r"lupus", "lupus"),
    (r"multiple\s+sclerosis", "multiple_sclerosis"),
    (r"parkinson'?s(?:\s+disease)?", "parkinson"),
    (r"alzheimer'?s(?:\s+disease)?|dementia", "dementia"),
    (r"(?:\w+\s+)?cancer|leukemia|leukaemia|lymphoma", "cancer"),
    (r"hiv", "hiv"),
    (r"hepatitis(?:\s+[abc])?", "hepatitis"),
    (r"sleep\s+apn(?:o)?ea", "sleep_apnea"),
    (r"pcos|polycystic\s+ovary\s+syndrome", "pcos"),
    (r"endometriosis", "endometriosis"),
    (r"an(?:a)?emia|an(?:a)?emic", "anemia"),
    (r"hypothyroidism|an\s+underactive\s+thyroid", "hypothyroidism"),
    (r"hyperthyroidism|an\s+overactive\s+thyroid", "hyperthyroidism"),
    (r"psoriasis", "psoriasis"),
    (r"eczema", "eczema"),
    (r"gerd|acid\s+reflux", "acid_reflux"),
    (r"dyslexia|dyslexic", "dyslexia"),
    (r"fibromyalgia", "fibromyalgia"),
    (r"glaucoma", "glaucoma"),
    (r"(?:a\s+)?pacemaker", "pacemaker"),
    (r"high\s+cholesterol", "high_cholesterol"),
    (r"osteoporosis", "osteoporosis"),
    (r"tinnitus", "tinnitus"),
    (r"insomnia", "insomnia"),
    (r"hemophilia|haemophilia", "hemophilia"),
    (r"sickle\s+cell(?:\s+disease|\s+anemia)?", "sickle_cell"),
    (r"cystic\s+fibrosis", "cystic_fibrosis"),
    (r"(?:a\s+)?bleeding\s+disorder", "bleeding_disorder"),
    (r"pregnant", "pregnant"),
    (r"colou?r[ -]?blind(?:ness)?", "colorblind"),
)
_CONDITION_ALT = _alternation([pattern for pattern, _ in _CONDITIONS])
_CONDITION_ADJECTIVES = (
    r"(?:type[ -]?(?:1|2|one|two|i|ii)\s+)?diabetic|pre-?diabetic|asthmatic|epileptic|c(?:o)?eliac|"
    r"an(?:a)?emic|hypertensive|(?:\d+\s+(?:weeks?|months?)\s+)?pregnant|colou?r[ -]?blind|dyslexic|"
    r"autistic|bipolar|immunocompromised|hard\s+of\s+hearing|deaf|blind|hemophiliac|haemophiliac"
)
# Medicines: names, classes and devices; a word with a drug-name ending counts too.
_DRUG_NAMES = (
    r"metformin|insulin|lisinopril|warfarin|coumadin|aspirin|ibuprofen|paracetamol|acetaminophen|tylenol|"
    r"advil|naproxen|sertraline|zoloft|fluoxetine|prozac|citalopram|escitalopram|lexapro|paroxetine|"
    r"venlafaxine|bupropion|wellbutrin|lithium|lamotrigine|levetiracetam|keppra|valproate|carbamazepine|"
    r"gabapentin|pregabalin|levothyroxine|synthroid|prednisone|prednisolone|hydrocortisone|methotrexate|"
    r"adalimumab|humira|amoxicillin|penicillin|doxycycline|azithromycin|ciprofloxacin|atorvastatin|"
    r"lipitor|simvastatin|rosuvastatin|crestor|amlodipine|losartan|metoprolol|propranolol|atenolol|"
    r"bisoprolol|furosemide|lasix|hydrochlorothiazide|spironolactone|clopidogrel|plavix|apixaban|eliquis|"
    r"rivaroxaban|xarelto|dabigatran|heparin|omeprazole|pantoprazole|esomeprazole|ranitidine|famotidine|"
    r"montelukast|salbutamol|albuterol|ventolin|symbicort|seretide|fluticasone|budesonide|cetirizine|"
    r"loratadine|antihistamines?|epipens?|epinephrine|adrenaline|methylphenidate|ritalin|adderall|"
    r"vyvanse|melatonin|zolpidem|diazepam|valium|lorazepam|ativan|alprazolam|xanax|clonazepam|tramadol|"
    r"codeine|oxycodone|morphine|methadone|buprenorphine|suboxone|semaglutide|ozempic|wegovy|"
    r"liraglutide|trulicity|jardiance|empagliflozin|dapagliflozin|glipizide|gliclazide|sitagliptin|"
    r"januvia|allopurinol|colchicine|digoxin|nitroglycerin|tamoxifen|letrozole|finasteride|sildenafil|"
    r"isotretinoin|accutane|hydroxychloroquine|plaquenil|estradiol|progesterone|testosterone|"
    r"blood[ -]thinners?|anticoagulants?|beta[ -]blockers?|ace[ -]inhibitors?|statins?|antidepressants?|"
    r"ssris?|antibiotics?|steroids?|corticosteroids?|immunosuppressants?|chemotherapy|chemo|"
    r"antipsychotics?|anticonvulsants?|diuretics?|painkillers?|opioids?|birth[ -]control|the\s+pill|"
    r"inhalers?|cpap(?:\s+machine)?|hrt|hormone\s+replacement(?:\s+therapy)?|"
    r"(?:thyroid|blood\s+pressure|heart|diabetes|seizure|anxiety|allergy)\s+(?:medication|meds|pills|tablets)|"
    r"dialysis|oxygen(?:\s+therapy)?|radiation(?:\s+therapy)?|medication|meds"
)
_DRUG_SUFFIXES = (
    r"[a-z]+(?:statin|pril|sartan|olol|azepam|azolam|cillin|mycin|cycline|floxacin|prazole|tidine|formin|"
    r"gliptin|glutide|xaban|parin|oxetine|triptan|codone|profen|dronate|lukast|terol|solone|thyroxine|"
    r"mab|tinib|vir|zodone|pramine|tyline|dipine|semide|thiazide|fenac)"
)
_DRUG = re.compile(rf"(?i)\b(?P<drug>{_DRUG_NAMES}|{_DRUG_SUFFIXES})\b")
_DRUG_KEYS = _pairs(
    "coumadin=warfarin tylenol=paracetamol acetaminophen=paracetamol advil=ibuprofen zoloft=sertraline "
    "prozac=fluoxetine lexapro=escitalopram synthroid=levothyroxine lipitor=atorvastatin "
    "crestor=rosuvastatin "
    "lasix=furosemide plavix=clopidogrel eliquis=apixaban xarelto=rivaroxaban ventolin=salbutamol "
    "albuterol=salbutamol keppra=levetiracetam ritalin=methylphenidate valium=diazepam ativan=lorazepam "
    "xanax=alprazolam januvia=sitagliptin ozempic=semaglutide wegovy=semaglutide humira=adalimumab "
    "accutane=isotretinoin plaquenil=hydroxychloroquine anticoagulant=blood_thinner chemo=chemotherapy "
    "the_pill=pill birth_control=pill epinephrine=epipen adrenaline=epipen cpap_machine=cpap med=medication"
)
# Foods and drinks, for the avoidance rules whose verb says little by itself ("I don't eat …").
_FOODS = _words(
    "pork beef lamb mutton veal chicken poultry turkey duck meat fish seafood shellfish shrimp prawn crab "
    "lobster oyster clam mussel scallop squid octopus sushi egg dairy milk cheese butter cream yogurt "
    "yoghurt lactose gluten wheat bread pasta soy tofu nut peanut almond cashew walnut pecan pistachio "
    "hazelnut macadamia sesame mustard celery lupin corn sugar sweet candy chocolate caffeine coffee tea "
    "alcohol beer wine liquor spirit soda carb carbohydrate salt sodium fat spicy spice chili chilli "
    "pepper garlic onion tomato potato mushroom grapefruit citrus orange strawberry banana kiwi mango "
    "avocado pineapple apple peach berry grape coconut bean legume lentil chickpea pea fruit vegetable "
    "msg sweetener aspartame gelatin gelatine honey animal product red raw processed fried junk fast "
    "sulfite sulphite nightshade cilantro coriander ham bacon sausage salami gravy rice oat barley rye "
    "yeast vinegar fodmap cinnamon"
)

_RELATIONS = _pairs(
    "wife husband partner spouse girlfriend boyfriend fiancee=fiance fianc\u00e9e=fiance fiance "
    "fianc\u00e9=fiance son daughter child kid=child baby mother mom=mother mum=mother mommy=mother "
    "mama=mother father dad=father daddy=father papa=father brother sister grandmother grandma=grandmother "
    "granny=grandmother nana=grandmother grandfather grandpa=grandfather granddad=grandfather aunt uncle "
    "cousin niece nephew grandson granddaughter stepson stepdaughter stepmother stepfather "
    "mother-in-law=mother_in_law father-in-law=father_in_law"
)
_PETS = _pairs("dog puppy=dog cat kitten=cat parrot rabbit bunny=rabbit hamster horse bird turtle")
# One of each: the name is not needed to tell them apart (v1's key for "my wife's name is Mei").
_PARTNERS = frozenset({"wife", "husband", "partner", "spouse", "girlfriend", "boyfriend", "fiance"})
_REL_ALT = _alternation(list(_RELATIONS) + list(_PETS))
# "My wife is Chinese" says nothing about her name.
_NOT_NAMES = _words(
    "american british english french german japanese chinese korean indian italian spanish canadian "
    "australian russian mexican brazilian dutch swiss swedish irish polish turkish vietnamese thai "
    "greek portuguese scottish welsh african asian european latino latina jewish muslim christian "
    "catholic buddhist hindu atheist filipino pakistani nigerian egyptian israeli iranian ukrainian kenyan "
    "ethiopian argentinian colombian peruvian chilean cuban jamaican norwegian danish finnish austrian "
    "belgian czech hungarian romanian indonesian malaysian singaporean taiwanese cantonese bengali punjabi "
    "sikh mormon protestant orthodox gay straight bi trans introvert extrovert "
    "here there home away sick ill pregnant okay ok fine great back "
    "ready good sorry sure done new later tomorrow now maybe please when if gen god"
)

_ID_KINDS = _pairs(
    "order ticket incident=ticket case booking reservation=booking confirmation=booking pnr=booking tracking "
    "shipment=tracking parcel=tracking package=tracking invoice claim refund return rma=return policy "
    "request "
    "issue flight application membership member=membership customer reference ref=reference appointment "
    "subscription transaction contract"
)
_IDENTIFIER = re.compile(
    rf"(?i:\b(?P<kind>{_alternation(list(_ID_KINDS))})s?(?:\s+(?:{_alternation(list(_ID_KINDS))}))?)"
    r"(?:\s+(?i:number|no\.?|num|nr|id|ref(?:erence)?|#))?(?:\s+(?i:is|was|=)|\s*[:=])?\s*\(?"
    r"(?P<id>#\s?\d{3,}|\d{4,}|(?=[A-Za-z0-9-]*\d)[A-Za-z0-9][A-Za-z0-9-]{3,}[A-Za-z0-9])(?![\w-])\)?"
)
# What may never reach a statement. The write pipeline refuses secrets too; leaving the clause
# out keeps the rest of the sentence ("my order is 88231 and my PIN is 4321").
_SECRET_WORDS = re.compile(
    r"(?i)\b(?:passwords?|passwd|passcodes?|passphrases?|pins?|pin\s+codes?|codes?|otp|2fa|cvv|cvc|"
    r"security\s+(?:questions?|answers?)|verification|tokens?|api[\s_-]?keys?|secrets?|ssn|"
    r"social\s+security|logins?|credentials?|card\s+numbers?|credit\s+cards?|debit\s+cards?|"
    r"account\s+numbers?|bank\s+accounts?|routing\s+numbers?|iban|sort\s+codes?|passport\s+numbers?)\b"
    r"|密码|验证码|口令|卡号|银行卡|身份证号|护照号"
)
_HYPOTHETICAL = re.compile(
    r"(?i)\b(?:if|whether|unless|in\s+case|suppose|supposing|imagine|pretend|wonder|wondering|what|which|"
    r"who|how|why|where|when|would\s+be|were)\b"
)
_QUESTION_START = re.compile(
    r"(?i)^(?:what|who|where|when|why|how|which|can|could|would|should|do|does|did|is|are|will|shall|may|"
    r"am|was|were|have|has|had)(?:'s|\s|$)"
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
_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
                "October", "November", "December")  # fmt: skip
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTH = _alternation(list(_MONTHS))
_DATE = re.compile(
    r"(?i)(?P<prep>\b(?:on|in|since|from|by|until)\s+)?(?:the\s+)?"
    r"(?:\b(?P<iso>\d{4}[-/]\d{1,2}[-/]\d{1,2})\b"
    rf"|\b(?P<md_month>{_MONTH})\.?\s+(?:the\s+)?(?P<md_day>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(?P<md_year>\d{{4}})\b)?"
    rf"|\b(?P<dm_day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dm_month>{_MONTH})\b\.?(?:,?\s+(?P<dm_year>\d{{4}})\b)?"
    r"|\b(?P<rel>the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|today|tomorrow|"
    r"this\s+morning|this\s+afternoon|this\s+evening|tonight|last\s+night)\b"
    rf"|\b(?P<wd_when>last|next|this|coming)\s+(?P<weekday>{'|'.join(_WEEKDAYS)})\b"
    rf"|\b(?P<bare_weekday>{'|'.join(_WEEKDAYS)})\b(?!s)"
    r"|\b(?P<month_when>last|next)\s+month\b"
    r"|\b(?P<ago>\d{1,2}|a|one|two|three|four|five|six)\s+days?\s+ago\b"
    rf"|(?:(?<=\bin\s)|(?<=\bsince\s)|(?<=\buntil\s)|(?<=\bby\s)|(?<=\bfrom\s))(?P<mo_month>{_MONTH})\b(?!\s+\d)(?:\s+(?P<mo_year>\d{{4}})\b)?"
    rf"|\b(?P<my_month>{_MONTH})\s+(?P<my_year>\d{{4}})\b"
    rf"|\b(?P<nm_when>next|this|last|coming)\s+(?P<nm_month>{_MONTH})\b(?!\s+\d))"
)

# --- text helpers -------------------------------------------------------------------------------

_ADVERBS = (
    r"really|also|just|never|always|usually|still|often|only|actually|now|recently|currently|finally|"
    r"already|definitely|absolutely|generally|mostly|sometimes|rarely|even|totally|strongly|much|no\s+longer|"
    r"both|all|seriously|honestly|basically|officially|originally|probably|certainly|apparently"
)
_PRONOUN_I = re.compile(
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
_PAST = _words(
    "was were had did made took gave went came saw ran wrote knew thought brought bought caught taught "
    "fought felt kept slept left met sent spent built lost paid said sold told found heard held stood won "
    "woke wore broke chose drove flew forgot froze hid rode rose shook spoke stole swam threw ate drank "
    "sang sat fell quit put set let cut hit hurt shut read got began grew became"
)
_UNCHANGED_AFTER_I = _PAST | _words(
    "can cannot could will would shall should may might must used and or but too"
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


def _expand_negations(text: str) -> str:
    """ "doesn't" -> "does not", "can't" -> "cannot": one spelling for the rules to read."""
    text = re.sub(r"(?i)\bcan't\b", "cannot", text)
    text = re.sub(r"(?i)\bwon't\b", "will not", text)
    return re.sub(r"(?i)\b(\w+)n't\b", r"\1 not", text)


def _sentence(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip(" ,;:-\u2014")
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?\u3002" else text + "."


def _clean_object(text: str) -> str:
    text = _OBJECT_END.sub("", text.strip())
    text = _TRAILING_FILLER.sub("", text)
    return text.strip(" ,;:-\u2014.!?")


_IE_WORDS = _words(
    "movies cookies brownies pies ties lies smoothies zombies calories selfies rookies hoodies veggies "
    "foodies aunties goalies"
)


def _singular(token: str) -> str:
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
    tokens = [t for t in re.findall(rf"[a-z0-9]+|[{_CJK}]+", text.lower()) if t not in _TOPIC_STOPWORDS]
    return "_".join(_singular(t) for t in tokens[:words])


def _name_slug(name: str) -> str:
    """A name in a key, as written ("Whiskers" stays "whiskers")."""
    return "_".join(re.findall(rf"[a-z0-9]+|[{_CJK}]+", name.lower())[:3])


def _article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


_SHARED_HEADS = _words("stings sting bites bite venom hair dander fur feathers")


def _items(text: str) -> list[str]:
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


def _object_item(text: str) -> str:
    text = _LEADING_DETERMINER.sub("", _clean_object(text))
    text = _QUALIFIER.sub("", text) if not _CONTAINING.match(text) else text
    return _TRAILING_FILLER.sub("", text).strip(" ,;:-.!?")


# --- dates ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _When:
    day: date
    precision: str  # "day" or "month"
    match: re.Match[str]

    def phrase(self) -> str:
        if self.precision == "month":
            return f"in {_MONTH_NAMES[self.day.month - 1]} {self.day.year}"
        return f"on {self.day.isoformat()}"


def _shift_year(found: date, today: date, *, future: bool) -> date:
    if future and found < today:
        return found.replace(year=found.year + 1)
    if not future and found > today:
        return found.replace(year=found.year - 1)
    return found


def _to_date(match: re.Match[str], today: date, *, future: bool) -> tuple[date, str] | None:  # noqa: C901
    groups = match.groupdict()
    try:
        if groups["iso"]:
            year, month, day = (int(part) for part in re.split(r"[-/]", groups["iso"]))
            return date(year, month, day), "day"
        if groups["md_month"] or groups["dm_month"]:
            month = _MONTHS[(groups["md_month"] or groups["dm_month"]).lower()]
            day = int(groups["md_day"] or groups["dm_day"])
            year_text = groups["md_year"] or groups["dm_year"]
            found = date(int(year_text) if year_text else today.year, month, day)
            return (found if year_text else _shift_year(found, today, future=future)), "day"
        if groups["mo_month"] or groups["my_month"]:
            month = _MONTHS[(groups["mo_month"] or groups["my_month"]).lower()]
            year_text = groups["mo_year"] or groups["my_year"]
            found = date(int(year_text) if year_text else today.year, month, 1)
            if not year_text:
                this_month = today.replace(day=1)
                if future and found < this_month:
                    found = found.replace(year=found.year + 1)
                elif not future and found > this_month:
                    found = found.replace(year=found.year - 1)
            return found, "month"
    except ValueError:
        return None
    if groups["rel"]:
        relative = re.sub(r"\s+", " ", groups["rel"].lower())
        shift = {"the day before yesterday": -2, "yesterday": -1, "last night": -1, "tomorrow": 1,
                 "the day after tomorrow": 2}.get(relative, 0)  # fmt: skip
        return today + timedelta(days=shift), "day"
    if groups["nm_month"]:
        month = _MONTHS[groups["nm_month"].lower()]
        when = groups["nm_when"].lower()
        year = today.year + (1 if when == "next" and month <= today.month else 0)
        year -= 1 if when == "last" and month >= today.month else 0
        if when in ("this", "coming") and month < today.month:
            year += 1
        return date(year, month, 1), "month"
    weekday = groups["weekday"] or groups["bare_weekday"]
    if weekday:
        index = _WEEKDAYS.index(weekday.lower())
        when = (groups["wd_when"] or "").lower()
        if when == "last" or (not when and not future):
            return today - timedelta(days=(today.weekday() - index) % 7 or 7), "day"
        return today + timedelta(days=(index - today.weekday()) % 7 or 7), "day"
    if groups["month_when"]:
        first = today.replace(day=1)
        if groups["month_when"].lower() == "last":
            return (first - timedelta(days=1)).replace(day=1), "month"
        return (first + timedelta(days=32)).replace(day=1), "month"
    if groups["ago"]:
        words = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
        return today - timedelta(days=words.get(groups["ago"].lower()) or int(groups["ago"])), "day"
    return None


def _find_date(text: str, today: date, *, future: bool = False) -> _When | None:
    for match in _DATE.finditer(text):
        found = _to_date(match, today, future=future)
        if found is not None:
            return _When(found[0], found[1], match)
    return None


_PAST_WORD = re.compile(
    r"(?i)\b(?:[a-z]+ed(?<!eed)|" + "|".join(sorted(_PAST)) + r")\b|\b(?:ago|last|yesterday)\b"
)


def _is_past(text: str) -> bool:
    return bool(_PAST_WORD.search(text))


# --- subjects and facts --------------------------------------------------------------------------


@dataclass(frozen=True)
class Who:
    """Whose fact a clause states: the user, or a relative (scoped keys)."""

    label: str = "The user"  # how statements name them
    zh: str = "用户"
    key: str = ""  # key prefix: "" for the user, "family.son", "family.daughter.mia", "pet.dog.rex"
    relation: str = ""  # the canonical relation ("mother"), empty for the user
    word: str = ""  # the relation as said ("mom", "老婆")
    name: str = ""

    @property
    def user(self) -> bool:
        return not self.key

    def scoped(self, key: str) -> str:
        return f"{self.key}.{key}" if self.key and key else key


USER = Who()


def _relative(word: str, name: str = "", *, zh: str = "") -> Who:
    word_lower = word.lower().replace("\u00e9", "e")
    if word_lower in _PETS or word in _ZH_PETS:
        animal = _PETS.get(word_lower) or _ZH_PETS[word]
        key = f"pet.{animal}.{_name_slug(name)}" if name else f"pet.{animal}"
        relation = animal
    else:
        relation = _RELATIONS.get(word_lower) or _ZH_RELATIONS[word]
        key = (
            f"family.{relation}"
            if relation in _PARTNERS or not name
            else f"family.{relation}.{_name_slug(name)}"
        )
    label = f"The user's {word.lower()}" + (f" {name}" if name else "")
    return Who(
        label=label, zh=f"用户的{zh or word}", key=key, relation=relation, word=word.lower(), name=name
    )


def _fact(
    who: Who,
    key: str,
    content: str,
    category: str,
    *,
    importance: float = 0.7,
    type_: str = "semantic",
    pinned: bool = False,
    confidence: float = 0.9,
    valid_from: str | None = None,
    incidental: bool = False,
) -> Fact:
    if not who.user and category == "profile":
        category = "relationship"
    fields: Fact = {
        "type": type_,
        "category": category,
        "content": content,
        "key": who.scoped(key),
        "importance": importance,
        "confidence": confidence,
        "pinned": pinned,
        # Not a Candidate field: a name said in passing ("my daughter Mia starts school …") is its
        # own statement, but never the slot of the sentence that mentions it.
        "incidental": incidental,
    }
    if valid_from:
        fields["valid_from"] = valid_from
    return fields


def _safety(
    who: Who, key: str, content: str, *, negation: str = "", confidence: float = 0.9, incidental: bool = False
) -> Fact:
    """A safety fact: pinned; when ended ("no longer allergic") it keeps the slot, so it supersedes
    the fact it ends, but is not pinned itself."""
    return _fact(
        who, _unless_denied(negation, key), content, "safety", importance=0.8 if negation else 0.95,
        pinned=not negation, confidence=confidence, incidental=incidental,
    )  # fmt: skip


def _unless_denied(negation: str, key: str) -> str:
    """No slot for a plain denial ("I'm not allergic to penicillin"): it may be about a mistake or
    someone else, so it is kept beside the fact, never in its place; "no longer" ends the fact."""
    return "" if negation == "not" else key


@dataclass
class _Clause:
    """One clause as read: who it is about and its predicate in the third person."""

    raw: str  # the clause as written (normalised spelling)
    who: Who | None
    predicate: str  # "is allergic to nuts"; "" when no subject was found
    lead: str = ""  # words before the subject ("From now on", "My doctor says")
    first_person: bool = False  # the subject was "I" / "we"
    possessive: bool = False  # "my …" / "the user's …"
    fragment: bool = False
    replaces: bool = False  # re-reads the previous clause with this one appended ("hiking and cooking")


@dataclass
class _Context:
    """What one sentence's clauses pass on to the next."""

    today: date
    sentence: str = ""
    antecedent: str = ""  # the noun a later "it" may stand for ("Penicillin gives me hives, …")
    frame: tuple[Who, str, str] | None = None  # (who, predicate prefix, kind) for list continuations


# --- English predicate rules ---------------------------------------------------------------------

_ENDED_WORDS = re.compile(r"(?i)\b(?:anymore|any\s+more|no\s+more|not\s+any\s+longer|outgrew|outgrown)\b")


def _negation(predicate: str) -> tuple[str, str]:
    """("ended" | "not" | "", the predicate without its negation)."""
    p = predicate
    rules = (
        (r"^used\s+to\s+be\s+", "is ", "ended"),
        (r"^used\s+to\s+have\s+", "has ", "ended"),
        (r"^used\s+to\s+take\s+", "takes ", "ended"),
        (r"^stopped\s+being\s+", "is ", "ended"),
        (r"^(?:stopped|quit)\s+taking\s+", "takes ", "ended"),
        (r"^(?:came|went|got)\s+off\s+", "is on ", "ended"),
        (r"^is\s+(?:now\s+)?off\s+", "is on ", "ended"),
        (r"^is\s+no\s+longer\s+", "is ", "ended"),
        (r"^no\s+longer\s+(\w+)", r"\1", "ended"),
        (r"^does\s+not\s+(\w+)", r"\1", "not"),
        (r"^is\s+not\s+(?:even\s+)?", "is ", "not"),
        (r"^has\s+never\s+been\s+", "is ", "not"),
        (r"^was\s+never\s+", "is ", "not"),
        (r"^outgrew\s+(?:their|the\s+user's|his|her)\s+", "has ", "ended"),
    )
    for pattern, replacement, kind in rules:
        if re.match(pattern, p, re.I):
            p = re.sub(pattern, replacement, p, count=1, flags=re.I)
            if kind == "not" and _ENDED_WORDS.search(predicate):
                kind = "ended"
            return kind, _third_person_verb(p)
    return "", predicate


def _third_person_verb(predicate: str) -> str:
    """ "take metformin" (after "does not") -> "takes metformin"."""
    head, _, rest = predicate.partition(" ")
    if head.lower() in ("is", "has", "was") or head.lower().endswith("s"):
        return predicate
    return f"{_conjugate(head)} {rest}".strip()


_ALLERGIC = re.compile(
    rf"(?i)^{_ADV}(?P<be>is|are|was|may\s+be|might\s+be|could\s+be|is\s+probably|is\s+possibly|"
    rf"has\s+been|became|got)\s+{_ADV}(?:(?P<degree>{_DEGREE})\s+)?(?:allergic|anaphylactic|hypersensitive)\b"
    r"(?:\s+(?:to|of)\s+(?P<what>.+))?$"
)
_INTENSIFIER = r"(?:(?:really|very|super|pretty|quite|extremely|rather|fairly)\s+)?"
_ALLERGY_NOUN = re.compile(
    rf"(?i)^{_ADV}(?:has|have|has\s+got|suffers\s+from|carries)\s+(?:an?\s+)?(?:(?P<degree>{_INTENSIFIER}(?:{_NOUN_DEGREE}))\s+)?"
    r"(?P<what>[a-z][a-z' -]{1,40}?)\s+allerg(?:y|ies)$"
)
_ALLERGY_TO = re.compile(
    rf"(?i)^{_ADV}(?:has|have|has\s+got)\s+(?:an?\s+)?(?:(?P<degree>{_NOUN_DEGREE})\s+)?"
    r"allerg(?:y|ies)\s+(?:to|of)\s+(?P<what>.+)$"
)
_ALLERGY_INVERTED = re.compile(
    r"(?i)^(?P<what>[a-z][a-z' -]{1,40}?)\s+(?:is|are)\s+(?:my|the\s+user's)\s+(?:only\s+|main\s+)?"
    r"allerg(?:y|ies)\b"
)
_INTOLERANT = re.compile(
    rf"(?i)^{_ADV}is\s+{_ADV}(?:(?P<degree>{_DEGREE})\s+)?(?P<what>[a-z]+)[\s-]intolerant\b(?P<rest>.*)$"
)
_INTOLERANT_TO = re.compile(
    rf"(?i)^{_ADV}is\s+{_ADV}(?:(?P<degree>{_DEGREE})\s+)?intolerant\s+(?:to|of)\s+(?P<what>.+)$"
)
_INTOLERANCE_NOUN = re.compile(
    rf"(?i)^{_ADV}has\s+(?:an?\s+)?(?:(?P<degree>{_NOUN_DEGREE})\s+)?(?P<what>[a-z]+(?:\s+[a-z]+)?)\s+intolerance$"
)
_INTOLERANCE_TO = re.compile(
    rf"(?i)^{_ADV}has\s+(?:an?\s+)?(?:{_INTENSIFIER}(?:{_NOUN_DEGREE})\s+)?intolerances?\s+(?:to|of)\s+(?P<what>.+)$"
)
_CONDITION = re.compile(
    rf"(?i)^{_ADV}(?P<verb>has|has\s+got|has\s+had|has\s+always\s+had|had(?=\s+(?:an?\s+|two\s+|several\s+)?"
    r"(?:heart\s+attack|stroke|mini|tia|myocardial))|suffers\s+from|lives\s+with|is\s+living\s+with|was\s+diagnosed\s+with|"
    r"has\s+been\s+diagnosed\s+with|got\s+diagnosed\s+with|is\s+being\s+treated\s+for|deals\s+with|"
    r"struggles\s+with|was\s+born\s+with)\s+(?P<cond>(?:(?:an?|chronic|severe|mild|bad|early|late|"
    rf"stage\s+\d)\s+)*(?:{_CONDITION_ALT}))\b(?P<rest>.*)$"
)
_DIAGNOSED = re.compile(rf"(?i)^{_ADV}(?:was|has\s+been|got|just\s+got)\s+diagnosed\s+with\s+(?P<what>.+)$")
_CONDITION_IS = re.compile(
    rf"(?i)^{_ADV}is\s+{_ADV}(?:an?\s+)?(?P<cond>{_CONDITION_ADJECTIVES})\b(?P<rest>.*)$"
)
_MEDICATION = re.compile(
    rf"(?i)^{_ADV}(?P<verb>takes|is\s+taking|has\s+been\s+taking|needs\s+to\s+take|has\s+to\s+take|"
    r"must\s+take|uses|is\s+using|carries|injects|is\s+on|has\s+been\s+on|was\s+put\s+on|"
    r"was\s+prescribed|has\s+been\s+prescribed|is\s+prescribed|got\s+prescribed|started\s+taking|"
    r"started\s+on|relies\s+on|was\s+taking|is\s+still\s+on)\s+(?P<what>.+)$"
)
_PUT_ON = re.compile(
    r"(?i)\b(?:put|started|has\s+me|have\s+me)\s+(?:me|the\s+user)\s+on\s+(?P<what>.+)$"
    r"|\bprescribed\s+(?:me|the\s+user)\s+(?P<what2>.+)$"
)
_DIET_IS = re.compile(
    rf"(?i)^{_ADV}(?:is|has\s+been)\s+{_ADV}(?:an?\s+|strictly\s+|fully\s+|mostly\s+|strict\s+|a\s+strict\s+)*"
    rf"(?P<diet>{_alternation(_DIETS)})\b(?P<rest>.*)$"
)
_TIME_TAIL = (
    r"now|too|as\s+well|these\s+days|nowadays|anymore|any\s+more|lol|since\s+.*|for\s+.*(?:years?|months?|weeks?)|"
    r"all\s+(?:my|their)\s+life|recently|a\s+while\s+ago|(?:last|this)\s+(?:year|month|week)|"
    r"(?:a|one|two|three|four|five|a\s+few|\d+)\s+(?:years?|months?|weeks?)\s+ago"
)
_DIET_REST = re.compile(rf"(?i)^(?:\s+(?:{_TIME_TAIL}))*\s*$")
_DIET_DO = re.compile(
    rf"(?i)^{_ADV}(?P<pred>(?:only\s+eats|eats\s+only|eats|keeps|follows|is\s+on|sticks\s+to|does|"
    r"maintains|observes|eats\s+strictly)\s+(?:an?\s+|the\s+|strictly\s+|a\s+strict\s+)?"
    r"(?P<diet>halal|kosher|vegan|vegetarian|plant-based|(?P<plan>[a-z-]+(?:\s+[a-z-]+)?)\s+diet)"
    r"(?:\s+(?:food|meals|only|foods|at\s+home|strictly|religiously|now|too|mostly))*)$"
)
_CANNOT = re.compile(
    rf"(?i)^{_ADV}(?P<modal>cannot|can\s+not|must\s+not|is\s+not\s+allowed\s+to|should\s+not|is\s+unable\s+to|"
    rf"is\s+not\s+supposed\s+to|is\s+not\s+able\s+to|may\s+not)\s+{_ADV}(?P<verb>eat|drink|have|consume|take|"
    r"tolerate|digest|touch|handle)\s+(?P<what>.+)$"
)
_DONT_EAT = re.compile(
    rf"(?i)^{_ADV}(?P<modal>does\s+not|never|no\s+longer|do\s+not)\s+{_ADV}(?P<verb>eats?|drinks?|consumes?|touch(?:es)?)"
    r"\s+(?P<what>.+)$"
)
_AVOID = re.compile(
    rf"(?i)^{_ADV}(?P<modal>(?:(?:needs|has|tries|is\s+trying|was\s+told|is\s+supposed|is\s+meant|is\s+told)\s+to\s+|"
    r"must\s+|should\s+|)(?:avoids?|stays?\s+away\s+from|steers?\s+clear\s+of|cuts?\s+out|keeps?\s+away\s+from|"
    r"is\s+avoiding|has\s+cut\s+out|is\s+staying\s+away\s+from))\s+(?P<what>.+)$"
)
_NOT_FOOD_OBJECT = re.compile(
    r"(?i)^(?:right|now|today|tonight|yet|much|more|that|this|it|them|enough|too|so|a\s+lot|any\s+more|"
    r"anymore|there|here|out|in|at|while|before|after|until|with|without|alone|late|early|kids|children|"
    r"time|fun|sex|visitors|guests|people)\b"
)

_JOB_WORDS = (
    r"engineer|developer|programmer|designer|teacher|professor|lecturer|nurse|doctor|physician|surgeon|"
    r"dentist|pharmacist|lawyer|attorney|accountant|consultant|architect|scientist|researcher|analyst|"
    r"manager|student|writer|journalist|editor|chef|cook|driver|pilot|mechanic|electrician|plumber|"
    r"farmer|artist|musician|photographer|librarian|translator|marketer|salesperson|recruiter|founder|"
    r"co-founder|entrepreneur|freelancer|intern|officer|administrator|technician|therapist|psychologist|"
    r"veterinarian|vet|economist|banker|trader|paramedic|firefighter|carpenter|tutor|coach|clerk|"
    r"cashier|waiter|waitress|barista|bartender|receptionist|secretary|assistant|director|executive|"
    r"lead|supervisor|specialist|coordinator|representative|agent|broker|auditor|actuary|statistician|"
    r"mathematician|physicist|chemist|biologist|geologist|soldier|police\s+officer|detective|judge|"
    r"paralegal|social\s+worker|caregiver|midwife|optometrist|physiotherapist|dietitian|nutritionist|"
    r"hairdresser|barber|tailor|baker|butcher|builder|welder|machinist|programmer|sysadmin|devops|"
    r"ceo|cto|cfo|coo|vp|owner|partner|contractor|postdoc|phd\s+student|resident|professor|pastor|priest"
)
_TITLE = (
    r"ceo|cto|cfo|coo|cio|cmo|vp(?:\s+of\s+[\w ]+?)?|head\s+of\s+[\w ]+?|director(?:\s+of\s+[\w ]+?)?|"
    r"(?:team\s+|tech\s+)?lead|manager|owner|founder|co-founder|president|chair"
)
_JOB_TEXT = r"[A-Za-z][\w -]{1,60}?"
_AT_ORG = rf"(?:\s+(?i:at|for|with)\s+(?:the\s+)?(?P<org>{_ORG}))?"
_NEW_JOB = r"(?:a\s+|an\s+|the\s+)?(?:new\s+)?(?:job|position|role|offer|gig)"
_WORKS_AS = re.compile(
    rf"^(?i:{_ADV}(?:works|is\s+working|is\s+employed|has\s+worked|is\s+now\s+working|"
    rf"(?:got|landed|took|accepted|started|has|is\s+starting|found)\s+{_NEW_JOB})\s+as\s+(?:an?\s+|the\s+)?)"
    rf"(?P<job>{_JOB_TEXT}){_AT_ORG}(?=$|[.,;!?]|\s+(?:and|but|so|since|because|now|currently|these\s+days)\b)"
)
_WORKS_AT_AS = re.compile(
    rf"^(?i:{_ADV}(?:works|is\s+working|is\s+employed)\s+(?:at|for|with)\s+(?:the\s+)?)(?P<org>{_ORG})"
    rf"(?i:\s+as\s+(?:an?\s+|the\s+)?)(?P<job>{_JOB_TEXT})(?=$|[.,;!?]|\s+(?:and|but|so|since|because|now)\b)"
)
_IS_JOB = re.compile(
    rf"^(?i:{_ADV}is\s+{_ADV}(?:an?\s+)(?P<job>(?:[\w-]+\s+){{0,3}}?(?:{_JOB_WORDS})s?)\b)"
    rf"(?!\s+(?i:of|in)\b){_AT_ORG}"
)
_IS_TITLE = re.compile(
    rf"^(?i:{_ADV}is\s+{_ADV}the\s+(?:new\s+)?(?P<job>{_TITLE})\s+(?:at|of|for)\s+(?:the\s+)?)(?P<org>{_ORG})"
)
_STUDENT = re.compile(
    rf"^(?i:{_ADV}is\s+(?:an?\s+)?(?P<job>(?:[\w-]+\s+)?student)\s+(?:at|in)\s+(?:the\s+)?)(?P<org>{_ORG})"
)
_PROMOTED = re.compile(
    rf"(?i)^{_ADV}(?:was|got|has\s+been|is\s+being|is\s+getting)\s+{_ADV}promoted\s+to\s+(?:an?\s+|the\s+)?"
    r"(?P<job>[a-z][\w -]{1,40}?)(?=$|[.,;!?]|\s+(?:at|and|but|so|last|this|yesterday|today|on|in)\b)"
)
_BECAME = re.compile(
    rf"(?i)^{_ADV}became\s+(?:an?\s+|the\s+)(?P<job>(?:[\w-]+\s+){{0,3}}?(?:{_JOB_WORDS}))\b"
)
_RETIRED = re.compile(rf"(?i)^{_ADV}(?:is\s+{_ADV}|has\s+|got\s+)?retired\b(?!\s+(?:from|as)\b)")
_CHANGE_AS = re.compile(
    rf"^(?i:{_ADV}(?:joined|was\s+hired\s+by|has\s+been\s+hired\s+by|got\s+hired\s+(?:by|at)|started\s+at|"
    rf"is\s+starting\s+at|will\s+start\s+at|starts\s+at|is\s+joining|will\s+be\s+joining|moved\s+to|"
    rf"switched\s+to|went\s+to\s+work\s+(?:at|for))\s+(?:the\s+)?)(?P<org>{_ORG})(?P<mid>[^.;!?]*?)"
    rf"(?i:\s+as\s+(?:an?\s+|the\s+)?)(?P<job>{_JOB_TEXT})(?=$|[.,;!?]|\s+(?:and|but|so|since|because)\b)"
)
_EMPLOYER = re.compile(
    rf"^(?i:{_ADV}(?:works|is\s+{_ADV}working|is\s+employed|has\s+been\s+working|started\s+(?:a\s+new\s+job|"
    r"a\s+job|work|working|a\s+new\s+position|a\s+position|a\s+new\s+role|a\s+role)(?:\s+with)?|got\s+(?:a\s+|the\s+)?"
    r"(?:new\s+)?(?:job|position|role|offer)(?:\s+with)?|got\s+hired|was\s+hired|has\s+been\s+hired|is\s+starting\s+"
    r"(?:a\s+new\s+job|work|a\s+job)|joined|is\s+joining|accepted\s+(?:an?\s+|the\s+)?(?:job\s+)?offer|"
    r"took\s+a\s+job|switched\s+(?:jobs\s+)?|moved\s+to\s+a\s+(?:new\s+)?job|"
    r"(?:started|starts|is\s+starting|will\s+start)(?=\s+(?:at|with)\b)(?:\s+with)?|"
    r"will\s+be\s+working|will\s+work|is\s+going\s+to\s+(?:be\s+)?work(?:ing)?)\s+(?:at|for|by|from|to)?"
    rf"\s*(?:the\s+)?)(?P<org>{_ORG})"
)
_EMPLOYER_JOINED = re.compile(rf"^(?i:{_ADV}(?:joined|is\s+joining)\s+(?:the\s+)?)(?P<org>{_ORG})")
_EMPLOYER_ENDED = re.compile(
    rf"^(?i:{_ADV}(?:quit|left\s+(?:their|the\s+user's|a|the)\s+(?:job|position|role)\s+(?:at|with)|"
    r"quit\s+(?:their|the\s+user's|a|the)\s+(?:job|position|role)\s+(?:at|with)|resigned\s+from|"
    r"was\s+laid\s+off\s+(?:from|by)|got\s+laid\s+off\s+(?:from|by)|was\s+let\s+go\s+(?:from|by)|"
    r"got\s+fired\s+from|was\s+fired\s+from|retired\s+from|stopped\s+working\s+(?:at|for))\s+(?:the\s+)?)"
    rf"(?P<org>{_ORG})"
)
_LIVES = re.compile(
    rf"^(?i:{_ADV}(?:lives|resides|is\s+{_ADV}living|is\s+staying|has\s+lived|has\s+been\s+living|"
    rf"is\s+{_ADV}based|is\s+located|is\s+settled)\s+(?P<prep>in|out\s+of|near|outside(?:\s+of)?|just\s+outside(?:\s+of)?|"
    rf"close\s+to|in\s+the\s+suburbs\s+of)\s+)(?P<place>(?:the\s+)?{_PLACE})"
)
_MOVED = re.compile(
    rf"^(?i:{_ADV}(?:has\s+)?{_ADV}(?:moved|relocated)(?:\s+(?:back|house|over))?\s+(?:back\s+)?(?:to|into)\s+"
    rf"(?:the\s+)?)(?P<place>{_PLACE})"
)
# "relocated from Berlin to Munich" is a home; "moved from Contoso to Fabrikam" may be a job change.
_RELOCATED_FROM = re.compile(
    rf"^(?i:{_ADV}(?:has\s+)?{_ADV}relocated\s+from\s+(?:the\s+)?){_PLACE}(?i:\s+to\s+(?:the\s+)?)(?P<place>{_PLACE})"
)
_HOME_ENDED = re.compile(
    rf"^(?i:{_ADV}(?:moved\s+away\s+from|moved\s+out\s+of|left)\s+(?:the\s+)?)(?P<place>{_PLACE})"
)
_HOMETOWN = re.compile(
    rf"^(?i:{_ADV}(?P<verb>grew\s+up|was\s+raised|was\s+born|is\s+{_ADV}from|comes\s+from|hails\s+from)\s+"
    rf"(?:in\s+)?)(?P<place>(?:the\s+)?{_PLACE})"
)
_MARITAL = re.compile(
    rf"(?i)^{_ADV}(?P<verb>is|got|has\s+been|was)\s+{_ADV}(?:happily\s+|recently\s+|newly\s+)?"
    r"(?P<status>married|single|divorced|engaged|widowed|separated)\b(?P<rest>.*)$"
)
_HAS_RELATIVE = re.compile(
    rf"^(?i:{_ADV}has\s+(?:a|an|one|another)\s+(?:(?:little|baby|younger|older|big|twin|new)\s+)?"
    rf"(?P<rel>{_REL_ALT})\s+(?:named|called)\s+)(?P<name>{_NAME})"
)
_RELATIVE_LIST = re.compile(
    rf"(?i:\b(?:I|we)\s+have\s+(?:two|three|four|five|\d)\s+(?P<rel>{_REL_ALT})s?\s*(?:[,:\u2014-]|named|called)\s*)"
    rf"(?P<names>{_NAME}(?:\s*,\s*{_NAME})*,?\s+(?i:and)\s+{_NAME})"
)
_CALLED = re.compile(rf"^(?i:{_ADV}is\s+called\s+)(?P<name>{_NAME})(?=$|[\s.,!?])")
_GOES_BY = re.compile(
    rf"^(?i:{_ADV}(?:goes\s+by|prefers\s+to\s+be\s+(?:called|addressed\s+as)|would\s+like\s+to\s+be\s+called|"
    r"likes\s+to\s+be\s+called|wants\s+to\s+be\s+called|prefers\s+being\s+called|would\s+prefer\s+to\s+be\s+called|"
    rf"asks\s+to\s+be\s+called)\s+)(?P<name>{_TITLED_NAME})(?=$|[\s.,!?])"
)
# "call me Sam", "everyone calls me Jo", "address me as Dr. Lee" (not "don't call me …").
_CALL_ME = re.compile(
    rf"(?<![\w'])(?i:calls?|address|refer\s+to)\s+(?i:me|the\s+user)\s+(?:(?i:as)\s+)?(?P<name>{_TITLED_NAME})"
    r"(?=$|[\s.,!?])"
)
_NOT_CALLED = re.compile(r"(?i)(?:\bnot|n't|\bnever|\bstop|\bno\s+one|\bnobody)\s+(?:\w+\s+)?$")
_NICKNAME = re.compile(
    rf"(?:^|(?i:\b(?:my|the\s+user's|user's)\s+))(?i:nick\s*name\s+is\s+)(?P<name>{_TITLED_NAME})(?=$|[\s.,!?])"
)
_MY_NAME = re.compile(
    rf"(?:^|(?i:\b(?:my|the\s+user's|user's|our)\s+)|(?i:^the\s+(?=name's)))(?i:(?:full\s+|first\s+|real\s+|given\s+)?"
    rf"name(?:\s+is|'s)\s+)(?P<name>{_NAME})(?=$|[\s.,!?])"
)
_IM_NAME = re.compile(rf"^I'm\s+(?P<name>{_NAME})$")
_BLOOD_TYPE = re.compile(
    r"(?i)(?:^|\b(?:my|the\s+user's|user's)\s+)blood\s+(?:type|group)\s+is\s+"
    r"(?P<bt>(?:AB|A|B|O)\s*(?:positive|negative|pos|neg|\+|-))"
)
_MY_JOB = re.compile(
    rf"(?:^|(?i:\b(?:my|the\s+user's|user's)\s+))(?i:(?:new\s+|current\s+)?(?:job|work|workplace|employer|office)\s+"
    rf"is\s+(?:(?:at|with|for)\s+)?(?:the\s+)?)(?P<org>{_ORG})"
)
_BIRTHDAY = re.compile(r"(?i)(?:^|\b(?:my|the\s+user's|user's)\s+|^'s\s+)birthday\s+is\s+(?P<when>.+)$")
_BORN_ON = re.compile(rf"(?i)^{_ADV}was\s+born\s+on\s+(?P<when>.+)$")

_PREFERENCE = re.compile(
    rf"(?i)^{_ADV}(?P<verb>prefers|likes|loves|enjoys|hates|dislikes|detests|adores|does\s+not\s+like|"
    r"do\s+not\s+like|cannot\s+stand|can\s+not\s+stand|is\s+(?:a\s+)?(?:big\s+|huge\s+|great\s+)?fan\s+of|"
    r"is\s+not\s+(?:a\s+|much\s+of\s+a\s+)?(?:big\s+|huge\s+)?fan\s+of|does\s+not\s+enjoy|"
    r"would\s+like|wants|would\s+prefer|would\s+rather|will\s+have|will\s+take|needs|is\s+into|"
    r"is\s+not\s+into|favou?rs)\s+(?P<what>.+)$"
)
_PREFERENCE_VERBS = {
    "prefers": "prefers",
    "likes": "likes",
    "loves": "loves",
    "enjoys": "enjoys",
    "hates": "hates",
    "dislikes": "dislikes",
    "detests": "detests",
    "adores": "adores",
    "does not like": "does not like",
    "do not like": "does not like",
    "cannot stand": "cannot stand",
    "can not stand": "cannot stand",
    "does not enjoy": "does not enjoy",
    "is into": "is into",
    "is not into": "is not into",
    "favors": "favours",
    "favours": "favours",
}
_REQUEST_VERBS = ("would like", "wants", "would prefer", "would rather", "will have", "will take", "needs")
_STANDING = re.compile(
    r"(?i)\b(?:from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future|in\s+general|generally|always|"
    r"usually|every\s+time|whenever|by\s+default|as\s+a\s+rule|normally|typically)\b"
)
_ONE_OFF = re.compile(
    r"(?i)\b(?:today|tonight|tomorrow|this\s+time|this\s+once|just\s+once|right\s+now|for\s+now|"
    r"(?:this|that)\s+(?:one|morning|afternoon|evening|week|weekend|trip|order|round|meal|visit|year|month)|"
    r"the\s+\w+\s+one|for\s+(?:this|today|tonight|the\s+trip|my\s+trip)|tonight's|today's|next\s+time|"
    r"instead|in\s+\w+\s+this\s+time)\b|\bnow\s*$"
)
_STANDING_TAIL = re.compile(
    r"(?i)(?:\s+(?:in\s+general|generally|usually|from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future|"
    r"by\s+default|normally|typically|always|every\s+time))+$"
)

# Verbs and words that may open a clause that continues the subject of the one before.
_CONTINUE_VERBS = _words(
    "work works worked live lives lived take takes took have has had use uses used need needs avoid "
    "avoids eat eats ate drink drinks drank cannot can't can do does don't never am is are was were "
    "moved joined started quit left got get gets became carry carries follow follows keep keeps kept "
    "suffer suffers love loves like likes prefer prefers hate hates enjoy enjoys go goes went play plays "
    "also now currently still just recently really usually always no must should stay stays relocated "
    "retired grew come comes came run runs ran"
)
_COMPLEMENT_WORDS = _words(
    "allergic intolerant lactose gluten vegan vegetarian pescatarian diabetic asthmatic epileptic "
    "celiac coeliac pregnant severely very highly mildly deathly extremely seriously slightly not based "
    "married single divorced engaged kosher halal originally"
)
_FRAGMENT_VERBS = _words(
    "works lives takes has is prefers likes loves enjoys hates dislikes uses avoids eats drinks suffers "
    "goes keeps follows carries needs joined moved started quit left relocated grew was became does "
    "cannot can't no adores detests favours favors resides"
)
_SUBJECT_WORDS = _words(
    "i i'm i've i'd i'll we we're we've our my you he she it they his her their this that there these "
    "those the user user's"
)


def _drug_key(drug: str) -> str:
    key = slug(re.sub(r"(?i)^(?:an?\s+)", "", drug), words=3)
    return _DRUG_KEYS.get(key, key)


def _allergen_key(item: str) -> str:
    item = _CONTAINING.sub("", item)
    key = slug(_ZH_TERMS.get(item, item), words=3)
    return _ZH_TERMS.get(key, key)


def _food_key(item: str) -> str:
    item = _CONTAINING.sub("", _LEADING_DETERMINER.sub("", item))
    return slug(_ZH_TERMS.get(item, item), words=3)


def _is_food(item: str) -> bool:
    item = _CONTAINING.sub("", item)
    return any(_singular(token) in _FOODS for token in re.findall(r"[a-z]+", item.lower()))


def _resolve(item: str, ctx: _Context) -> str:
    if item.lower() in _PRONOUN_OBJECTS and ctx.antecedent:
        return _lower_first(ctx.antecedent)
    return item


def _lower_first(text: str) -> str:
    """A sentence-initial word as it would be mid-sentence ("Peanuts" -> "peanuts"; "NSAIDs" stays)."""
    return (
        text[0].lower() + text[1:]
        if text[:2].istitle() or (text[:1].isupper() and text[1:2].islower())
        else text
    )


def _allergies(who: Who, predicate: str, ctx: _Context) -> list[Fact]:  # noqa: C901
    negation, p = _negation(predicate)
    if _ENDED_WORDS.search(predicate) and negation == "not":
        negation = "ended"
    found: list[Fact] = []
    match = _ALLERGIC.match(p)
    if match:
        be = re.sub(r"\s+", " ", match.group("be").lower())
        hedged = be in ("may be", "might be", "could be", "is probably", "is possibly")
        if be == "was" and not negation:
            negation = "ended"
        degree = re.sub(r"\s+", " ", match.group("degree").lower()) + " " if match.group("degree") else ""
        what = match.group("what")
        items = (
            _items(_clean_object(what))
            if what
            else ([_lower_first(ctx.antecedent)] if ctx.antecedent else [])
        )
        verb = {"ended": "is no longer", "not": "is not"}.get(negation, "may be" if hedged else "is")
        for item in items:
            item = _resolve(_object_item(item), ctx)
            if (
                not item
                or item.lower() in _VAGUE
                or item.lower() in _NOT_ALLERGENS
                or len(item.split()) > 5
                or re.match(r"(?i)(?:this|that|these|those|such|your|his|her)\b", item)
            ):
                continue
            item = _third_person(item, possessive="their")
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
    for pattern in (_ALLERGY_NOUN, _ALLERGY_TO):
        match = pattern.match(p)
        if not match:
            continue
        degree = f"{match.group('degree').lower()} " if match.group("degree") else ""
        for item in _items(_clean_object(match.group("what"))):
            item = _resolve(_object_item(item), ctx)
            if not item or item.lower() in _VAGUE or item.lower() in ("food", "drug", "seasonal", "no"):
                continue
            key = f"health.allergy.{_allergen_key(item)}"
            if negation:
                verb = "is no longer" if negation == "ended" else "is not"
                content = f"{who.label} {verb} allergic to {item}."
            elif pattern is _ALLERGY_NOUN:
                content = f"{who.label} has {_article(degree or item)} {degree}{item} allergy."
            else:
                content = f"{who.label} has {_article(degree or 'allergy')} {degree}allergy to {item}."
            found.append(_safety(who, key, content, negation=negation))
        if found and pattern is _ALLERGY_TO:
            ctx.frame = (who, predicate[: len(predicate) - len(match.group("what"))], "allergy")
        elif found:
            ctx.frame = (who, "has ", "have")
        return found
    match = _ALLERGY_INVERTED.match(predicate)
    if match and who.user:
        item = _object_item(match.group("what"))
        if item and item.lower() not in _VAGUE:
            key = f"health.allergy.{_allergen_key(item)}"
            found.append(_safety(who, key, f"{who.label} is allergic to {item}."))
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
    items = [_resolve(_object_item(item), ctx) for item in _items(_clean_object(what))]
    items = [item for item in items if item and item.lower() not in _VAGUE and len(item.split()) <= 4]
    return [
        _safety(
            who,
            f"health.allergy.{_allergen_key(item)}",
            _sentence(
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
        for item in _items(_clean_object(match.group("what"))):
            item = _resolve(_object_item(item), ctx)
            if not item or item.lower() in _VAGUE:
                continue
            key = f"health.intolerance.{_allergen_key(item)}"
            if negation or pattern is not _INTOLERANCE_NOUN:
                content = f"{who.label} {verb} intolerant to {item}."
            else:
                content = f"{who.label} has {_article(item)} {item} intolerance."
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
    for pattern, key in _CONDITIONS:
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
        article = "a " if re.search(rf"(?i)^{_ADV}is\s+{_ADV}an?\s+", p) else ""
        verb = {"ended": "is no longer", "not": "is not"}.get(negation, "is")
        key = f"health.{_condition_key(condition)}"
        rest = match.group("rest").strip(" ,.")
        rest = f" {_third_person(rest, possessive='their')}" if re.match(r"(?i)(?:in|with)\b", rest) else ""
        return [_safety(who, key, f"{who.label} {verb} {article}{condition}{rest}.", negation=negation)]
    match = _DIAGNOSED.match(p)
    if match and not negation:
        what = _object_item(match.group("what"))
        what = re.sub(r"(?i)\s+(?:last|this|in|on|two|three|a|about|when|at)\b.*$", "", what)
        if what and what.lower() not in _VAGUE and len(what.split()) <= 4:
            key = f"health.{_condition_key(what)}"
            return [_safety(who, key, f"{who.label} was diagnosed with {what}.")]
    return []


def _medications(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    negation, p = _negation(predicate)
    match = _MEDICATION.match(p)
    if not match:
        return []
    what = _clean_object(match.group("what"))
    drug = _DRUG.search(what)
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
    what_third = _third_person(what, possessive="their")
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
        pred = _third_person(match.group("pred"), possessive="their")
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
        what = _clean_object(match.group("what"))
        for item in _items(what):
            item = _resolve(_object_item(item), ctx)
            if not item or item.lower() in _VAGUE or _NOT_FOOD_OBJECT.match(item):
                continue
            # "can't eat" says it is food; "don't eat", "avoid", "can't have" need a food to say so.
            if not (pattern is _CANNOT and verb in ("eat", "drink", "consume", "digest")) and not _is_food(
                item
            ):
                continue
            item = _third_person(item, possessive="their")
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


def _org(text: str) -> str:
    return re.sub(r"(?i)\s+(?:now|too)$", "", text.rstrip(".")).strip()


def _is_org(text: str) -> bool:
    """A name, not a time ("started at 9am")."""
    return bool(re.search(r"[A-Z]", text)) and not re.fullmatch(r"(?i)\d+(?::\d+)?\s*(?:am|pm)?", text)


def _work(who: Who, predicate: str, ctx: _Context) -> list[Fact]:  # noqa: C901
    for pattern in (_WORKS_AT_AS, _WORKS_AS, _CHANGE_AS, _STUDENT, _IS_TITLE, _IS_JOB):
        match = pattern.match(predicate)
        if not match:
            continue
        job = _clean_object(match.group("job"))
        if not job or len(job.split()) > 6:
            continue
        org = _org(match.groupdict().get("org") or "")
        at = f" at {org}" if org else ""
        if pattern is _STUDENT:
            content = f"{who.label} is {_article(job)} {job}{at}."
        elif pattern is _IS_TITLE:
            content = f"{who.label} works as the {job}{at}."
        else:
            content = f"{who.label} works as {_article(job)} {job}{at}."
        valid_from = _dated(predicate, ctx) if pattern is _CHANGE_AS else None
        return [_fact(who, "job", content, "profile", valid_from=valid_from)]
    match = _PROMOTED.match(predicate)
    if match:
        return [_fact(who, "job", f"{who.label} was promoted to {match.group('job')}.", "profile")]
    match = _BECAME.match(predicate)
    if match:
        job = match.group("job")
        content = f"{who.label} became {_article(job)} {job}."
        return [_fact(who, "job", content, "profile", valid_from=_dated(predicate, ctx))]
    if _RETIRED.match(predicate):
        return [_fact(who, "job", f"{who.label} is retired.", "profile")]
    match = _TEACHES.match(predicate) or _RUNS.match(predicate)
    if match:
        where = match.groupdict().get("where")
        verb = re.sub(r"\s+", " ", match.group("verb").lower())
        content = f"{who.label} {verb} {match.group('what')}" + (f" at {where.strip()}" if where else "")
        return [_fact(who, "job", _sentence(content), "profile")]
    found = []
    match = _EMPLOYER_ENDED.match(predicate)
    if match:
        org = _org(match.group("org"))
        found.append(_fact(who, "employer", f"{who.label} no longer works at {org}.", "profile"))
        return found
    negation, p = _negation(predicate)
    match = _EMPLOYER.match(p) or _EMPLOYER_JOINED.match(p)
    if match and _is_org(match.group("org")):
        org = _org(match.group("org"))
        if negation == "not":
            return [_fact(who, "", f"{who.label} does not work at {org}.", "profile")]
        if negation:
            return [_fact(who, "employer", f"{who.label} no longer works at {org}.", "profile")]
        changed = not re.match(rf"(?i)^{_ADV}(?:works|is\s+{_ADV}working|is\s+employed)", p)
        valid_from = _dated(predicate, ctx) if changed else None
        return [_fact(who, "employer", f"{who.label} works at {org}.", "profile", valid_from=valid_from)]
    return []


_TEACHES = re.compile(
    rf"(?i)^{_ADV}(?P<verb>teaches|tutors|lectures\s+in|coaches)\s+(?P<what>[a-z][\w -]{{1,40}}?)"
    r"(?:\s+(?:at|in|for)\s+(?P<where>[^,;.!?]+))?$"
)
_RUNS = re.compile(
    rf"(?i)^{_ADV}(?P<verb>runs|owns|manages|started|founded|co-founded)\s+(?P<what>(?:a|an|their\s+own|the\s+user's\s+own)\s+"
    r"(?:[\w-]+\s+){0,2}?(?:business|company|startup|shop|store|bakery|restaurant|cafe|caf\u00e9|bar|firm|practice|"
    r"clinic|agency|farm|salon|studio|consultancy|daycare))\b"
)


def _dated(text: str, ctx: _Context) -> str | None:
    when = _find_date(text, ctx.today) or _find_date(ctx.sentence, ctx.today)
    return when.day.isoformat() if when else None


def _home(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    negation, p = _negation(predicate)
    match = _MOVED.match(predicate) or _RELOCATED_FROM.match(predicate)
    if match:
        place = match.group("place").rstrip(".")
        when = _find_date(predicate[match.end() :], ctx.today) or _find_date(ctx.sentence, ctx.today)
        if when:
            moved = "in" if when.precision == "month" else "on"
            text = when.phrase().split(" ", 1)[1]
            content = f"{who.label} lives in {place} (moved there {moved} {text})."
            return [_fact(who, "home_city", content, "profile", valid_from=when.day.isoformat())]
        return [_fact(who, "home_city", f"{who.label} moved to {place} and lives there now.", "profile")]
    match = _LIVES.match(p)
    if match:
        place = match.group("place").rstrip(".")
        prep = re.sub(r"\s+", " ", match.group("prep").lower()).replace("out of", "in")
        if negation == "not":
            return [_fact(who, "", f"{who.label} does not live {prep} {place}.", "profile")]
        if negation:
            return [_fact(who, "home_city", f"{who.label} no longer lives {prep} {place}.", "profile")]
        return [_fact(who, "home_city", f"{who.label} lives {prep} {place}.", "profile")]
    match = _HOME_ENDED.match(predicate)
    if match and re.match(rf"(?i)^{_ADV}moved", predicate):
        place = match.group("place").rstrip(".")
        return [_fact(who, "home_city", f"{who.label} no longer lives in {place}.", "profile")]
    match = _HOMETOWN.match(predicate)
    if match:
        place = match.group("place").rstrip(".")
        verb = re.sub(r"\s+", " ", match.group("verb").lower())
        verb = "is from" if verb.startswith("is") or verb.endswith(" from") else verb
        connector = "" if verb == "is from" else " in"
        return [_fact(who, "hometown", f"{who.label} {verb}{connector} {place}.", "profile")]
    return []


def _personal(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    match = _MARITAL.match(predicate)
    if match:
        status = match.group("status").lower()
        partner = re.match(rf"\s+to\s+(?P<name>{_NAME})", match.group("rest"))
        status += f" to {partner.group('name')}" if partner else ""
        return [_fact(who, "marital_status", f"{who.label} is {status}.", "relationship", importance=0.6,
                      incidental=match.group("verb").lower() == "got")]  # fmt: skip
    match = _BORN_ON.match(predicate)
    if match:
        return _birthday(who, match.group("when"), ctx, born=True)
    if who.user:
        match = _CALLED.match(predicate)
        if match and match.group("name").split()[0].lower() not in _NOT_NAMES:
            return [
                _fact(who, "name", f"The user's name is {match.group('name')}.", "profile", importance=0.8)
            ]
        match = _GOES_BY.match(predicate)
        if match and match.group("name").split()[0].lower() not in _NOT_NAMES:
            content = f"The user prefers to be called {match.group('name')}."
            return [_fact(who, "preferred_name", content, "profile", importance=0.8)]
    return []


def _birthday(who: Who, text: str, ctx: _Context, *, born: bool = False) -> list[Fact]:
    when = _find_date(text, ctx.today, future=True)
    if when is None or when.precision != "day":
        return []
    groups = when.match.groupdict()
    has_year = bool(groups.get("md_year") or groups.get("dm_year") or groups.get("iso"))
    if born and has_year:
        content = f"{who.label} was born on {when.day.isoformat()}."
    else:
        content = f"{who.label}'s birthday is {_MONTH_NAMES[when.day.month - 1]} {when.day.day}."
    return [_fact(who, "birthday", content, "profile", importance=0.6)]


def _relative_names(who: Who, predicate: str) -> list[Fact]:
    """ "'s name is Mei", "is called Leo", "is Mei" after "my wife"."""
    match = re.match(
        rf"^(?:(?:'s|s)\s+name\s+is|(?i:is\s+(?:called|named)|called|named|is))\s+(?P<name>{_NAME})"
        r"(?=$|[.,;!?)]|\s+(?:and|but|who|she|he|it)\b)",
        predicate,
    )
    if not match or match.group("name").split()[0].lower() in _NOT_NAMES:
        return []
    return [_name_fact(who, match.group("name"))]


def _name_fact(who: Who, name: str, *, incidental: bool = False) -> Fact:
    """ "The user's daughter is named Mia." under family.daughter.mia (a partner: family.wife)."""
    key = _relative(who.word, name).key
    content = f"The user's {who.word} is named {name}."
    return _fact(USER, key, content, "relationship", importance=0.6, incidental=incidental)


def _preferences(who: Who, predicate: str, ctx: _Context, lead: str) -> list[Fact]:
    if not who.user:
        return []
    match = _PREFERENCE.match(predicate)
    if not match:
        return []
    verb = re.sub(r"\s+", " ", match.group("verb").lower())
    what = _clean_object(match.group("what"))
    whole = f"{lead} {predicate}"
    if re.match(
        r"(?i)^(?:to\s+be\s+(?:called|named|addressed)|not\s+to\s+(?:say|answer|share|tell|discuss|comment))\b",
        what,
    ):
        return []
    standing = bool(_STANDING.search(whole))
    if _ONE_OFF.search(whole) or _ONE_OFF.search(what):
        return []
    if verb in _REQUEST_VERBS:
        if not standing:
            return []
        phrase = "always wants" if re.search(r"(?i)\balways\s+wants\b", predicate) else "prefers"
    elif verb.startswith("is") and "fan of" in verb:
        phrase = re.sub(r"\s+", " ", verb)
    else:
        phrase = _PREFERENCE_VERBS.get(verb, verb)
    what = _STANDING_TAIL.sub("", what).strip()
    what = (
        re.sub(r"(?i)^to\s+", "", what) if verb in _REQUEST_VERBS and what.lower().startswith("to ") else what
    )
    first = what.split()[0].lower() if what else ""
    topic = slug(what, words=3)
    if not topic or first in _NO_TOPIC_START:
        return []
    statement = f"{who.label} {phrase} {_third_person(what, possessive='their')}."
    ctx.frame = (who, predicate[: len(predicate) - len(match.group("what"))], "preference")
    return [_fact(who, f"preference.{topic}", statement, "preference", importance=0.5)]


def _identifiers(clause: _Clause) -> list[Fact]:
    text = clause.raw
    match = _IDENTIFIER.search(text)
    if match is None:
        return []
    kind = _ID_KINDS[match.group("kind").split()[0].lower()]
    ident = match.group("id").replace(" ", "")
    key = f"{kind}.{re.sub(r'[^a-z0-9]+', '_', ident.lower()).strip('_')}"
    before = text[: match.start()].strip()
    after = text[match.end() :].strip()
    if clause.who is not None and clause.who.user and clause.predicate and not clause.fragment:
        content = f"{clause.who.label} {clause.predicate}"
    else:
        lead = re.sub(r"(?i)^(?:(?:and|but|so|also|oh|btw|well|plus|ok|okay)\s+)*", "", before)
        if not re.fullmatch(r"(?i)(?:my|our|the\s+user's|user's|the|a)?", lead.strip()):
            return []
        phrase = text[match.start() : match.end()]
        verbless = not re.search(r"(?i)\b(?:is|was)\b|=", phrase) and (
            not after or re.match(r"(?i)^(?:for|on|at|from|to|in|with|\()\b", after)
        )
        head = text[match.start() : match.start("id")].strip(" :=(")
        head = head[0].lower() + head[1:]
        if verbless:
            tail = f" ({after.strip('()')})" if after else ""
            content = f"The user's {head} is {ident}{tail}"
        else:
            content = f"The user's {_third_person(text[match.start() :], possessive='their')}"
            content = content[:11] + content[11].lower() + content[12:]
    return [_fact(USER, key, _sentence(content), "task_state", importance=0.6, type_="episodic")]


# --- clauses -------------------------------------------------------------------------------------

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
    rf"(?P<rel>(?i:{_REL_ALT}))(?![\w-])(?P<rest>.*)$",
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
    third = _PRONOUN_I.sub(lambda m: _third_person(m.group(0)), "I" + rest)
    for pattern, replacement in _OBJECT_PRONOUNS[:4]:
        third = pattern.sub({"the user's": "their", "the user": "them"}.get(replacement, replacement), third)
    third = re.sub(r"^the user\s*", "", third)
    return _expand_negations(third).strip()


def _subject(raw: str) -> _Clause:  # noqa: C901
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
        return _Clause(raw, USER, _expand_negations(match.group("rest").strip()))
    relative = _RELATIVE_SUBJECT.match(text)
    user = _USER_SUBJECT.search(text)
    if user and _REPORTING.match(user.group("rest")):
        inner = _USER_SUBJECT.search(text, user.end("subj"))
        user = inner or user
    if user and (
        relative is None or user.start() < len(relative.group("lead")) or not _real_relative(relative)
    ):
        lead = text[: user.start()].strip()
        if (
            not _HYPOTHETICAL.search(lead)
            and len(lead.split()) <= 8
            and not re.search(r"(?i)\byou\b\W*$", lead)
        ):
            rest = user.group("rest")
            if user.group("subj").lower() == "we":
                rest = _we_to_i("we" + rest)[1:]
            return _Clause(raw, USER, _first_person_predicate(rest), lead=lead, first_person=True)
        return _Clause(raw, None, "")
    if relative and _real_relative(relative):
        lead = relative.group("lead").strip()
        if _HYPOTHETICAL.search(lead) or len(lead.split()) > 8:
            return _Clause(raw, None, "")
        rel = relative.group("rel")
        rest = relative.group("rest")
        name_match = re.match(rf"^\s+(?P<name>{_NAME})(?=\s+[a-z]|\s*$|[.,;!?])", rest)
        name = ""
        if name_match and name_match.group("name").split()[0].lower() not in _NOT_NAMES:
            name = name_match.group("name")
            rest = rest[name_match.end() :]
        who = _relative(rel, name)
        if not re.match(r"(?i)^(?:my|our|the\s+user's|user's)", text[len(relative.group("lead")) :].strip()):
            return _Clause(raw, None, "")
        return _Clause(raw, who, _expand_negations(rest.strip()), lead=lead, possessive=rest.startswith("'s"))
    possessive = _POSSESSIVE_SUBJECT.match(text)
    if possessive:
        return _Clause(raw, USER, "", possessive=True)
    first = re.sub(rf"(?i)^{_ADV}", "", text).split(" ", 1)[0].lower().strip(",.!") if text else ""
    if first in _FRAGMENT_VERBS:
        return _Clause(raw, USER, _expand_negations(text[0].lower() + text[1:]), fragment=True)
    if first in _COMPLEMENT_WORDS:
        return _Clause(raw, USER, "is " + _expand_negations(text[0].lower() + text[1:]), fragment=True)
    return _Clause(raw, None, "")


def _real_relative(match: re.Match[str]) -> bool:
    """ "my wife …", not "my wife's name" handled elsewhere, and not "his wife" (someone else's)."""
    prefix = match.group(0)[len(match.group("lead")) :].split()[0].lower()
    return prefix in ("my", "our", "user's", "the")


def _continuation(sep: str, raw: str, previous: _Clause, ctx: _Context) -> _Clause | None:
    """A clause without a subject of its own, read with the previous clause's subject or frame."""
    if previous.who is None:
        return None
    text = raw.strip()
    first = text.split(" ", 1)[0].lower()
    if first in _SUBJECT_WORDS or _USER_SUBJECT.match(text) or _RELATIVE_SUBJECT.match(text):
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
        return _Clause(raw, who, _expand_negations(text))
    if first in _COMPLEMENT_WORDS:
        return _Clause(raw, who, "is " + _expand_negations(text), first_person=previous.first_person)
    if ctx.frame and sep in _LIST_SEPARATORS and ctx.frame[0] == who:
        if ctx.frame[2] == "preference":
            # One taste, one statement: "loves hiking and cooking".
            joined = f"{previous.predicate} {'and' if sep == ',' else sep} {text}"
            return _Clause(
                raw, who, joined, lead=previous.lead, first_person=previous.first_person, replaces=True
            )
        return _Clause(raw, who, ctx.frame[1] + text, first_person=previous.first_person)
    return None


# --- the reader ----------------------------------------------------------------------------------

_ANTECEDENT = re.compile(
    r"(?i)^(?P<np>(?:[a-z-]+\s+){0,2}?[a-z-]+)\s+(?:could|can|will|would|may|might|gives?|gave|makes?|made|"
    r"causes?|caused|triggers?|triggered|does|do|is|are|was|were|sends?|sent|puts?)\b"
)
_NOT_ANTECEDENT = _words(
    "i my it this that we you he she they there what which who the a an some his her our"
)
_REQUEST_LEAD = re.compile(
    r"(?i)^(?:please|can\s+(?:i|you|we)|could\s+(?:i|you|we)|would\s+you|will\s+you|let's|let\s+me|i'd\s+like|"
    r"i\s+would\s+like|i\s+want|i'll\s+have|i\s+need|give\s+me|get\s+me|book|make|send|show|tell|find|remind)\b"
)


class _Reader:
    """Reads sentences into facts (see the module docstring)."""

    def __init__(self, today: date) -> None:
        self.today = today

    def read(self, text: str, *, remembered: bool = False) -> list[Fact]:
        found: list[Fact] = []
        for sentence in _sentences(text):
            found += self.sentence(sentence, remembered=remembered)
        return found

    def sentence(self, sentence: str, *, remembered: bool = False) -> list[Fact]:  # noqa: C901
        if re.search(f"[{_CJK}]", sentence) and not re.search(r"[A-Za-z]{3,}\s+[A-Za-z]{3,}", sentence):
            return _read_chinese(sentence)
        sentence = _normalise(sentence)
        question = sentence.rstrip().endswith("?")
        ctx = _Context(today=self.today, sentence=sentence)
        found: list[Fact] = []
        listed = _RELATIVE_LIST.search(sentence)
        if listed:
            for name in re.split(r"\s*,\s*|\s+and\s+", listed.group("names")):
                if name and name.split()[0].lower() not in _NOT_NAMES:
                    found.append(_name_fact(_relative(listed.group("rel"), ""), name))
            sentence = (sentence[: listed.start()] + sentence[listed.end() :]).strip()
        clauses = _split_clauses(sentence)
        if question:
            # "I'm vegan, can you suggest a recipe?": keep the statement, drop the question.
            clauses = clauses[:-1]
        previous: _Clause | None = None
        last: list[Fact] = []
        for index, (sep, raw) in enumerate(clauses):
            if _SECRET_WORDS.search(raw) or scan_secrets(raw).found:
                previous = None
                continue
            if _QUESTION_START.match(raw) and (question or raw.rstrip().endswith("?")):
                previous = None
                continue
            if re.match(r"(?i)^(?:which|who|that)\b", raw) and index:
                continue
            clause = _subject(raw)
            if (clause.who is None or clause.fragment) and previous is not None:
                clause = _continuation(sep, raw, previous, ctx) or clause
            if clause.replaces:
                found = [f for f in found if all(f is not g for g in last)]
            ctx.frame = None  # a rule that reads a list object sets it again for the next clause
            facts = self._clause(clause, ctx, remembered=remembered)
            found += facts
            last = facts
            antecedent = _ANTECEDENT.match(raw)
            ctx.antecedent = (
                antecedent.group("np")
                if antecedent and antecedent.group("np").split()[0].lower() not in _NOT_ANTECEDENT
                else ""
            )
            if clause.who is not None:
                previous = clause
        # One statement per slot and sentence: "Penicillin gives me hives, I'm allergic to it."
        last_of = {f["key"]: index for index, f in enumerate(found) if f.get("key")}
        return [f for index, f in enumerate(found) if not f.get("key") or last_of[f["key"]] == index]

    def _clause(self, clause: _Clause, ctx: _Context, *, remembered: bool) -> list[Fact]:
        if clause.lead and _HYPOTHETICAL.search(clause.lead):
            return []
        found = self._names(clause, ctx) + _mentions(clause)
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

    @staticmethod
    def _names(clause: _Clause, ctx: _Context) -> list[Fact]:
        """The user's name and preferred name; a relative's name said in passing."""
        raw = clause.raw
        found: list[Fact] = []
        my_name = _MY_NAME.search(raw) if clause.possessive or not clause.predicate else None
        if my_name and _is_name(my_name.group("name")):
            found.append(
                _fact(USER, "name", f"The user's name is {my_name.group('name')}.", "profile", importance=0.8)
            )
        call_me = _CALL_ME.search(raw) or _NICKNAME.search(raw)
        if call_me and _is_name(call_me.group("name")) and not _NOT_CALLED.search(raw[: call_me.start()]):
            content = f"The user prefers to be called {call_me.group('name')}."
            found.append(_fact(USER, "preferred_name", content, "profile", importance=0.8))
        bare = _GREETING_TAIL.sub("", _LEAD_WORDS.sub("", raw).strip(" ,.!"))
        im_name = _IM_NAME.match(bare)
        if im_name and not found and _is_name(im_name.group("name")):
            found.append(
                _fact(USER, "name", f"The user's name is {im_name.group('name')}.", "profile", importance=0.8)
            )
        who = clause.who
        if who is not None and who.name:
            found.append(_name_fact(who, who.name, incidental=True))
        match = _HAS_RELATIVE.match(clause.predicate) if who is USER else None
        if match:
            found.append(_name_fact(_relative(match.group("rel")), match.group("name")))
            ctx.frame = (USER, "has ", "have")  # "… and a dog named Rex"
        return found


# "… because of my peanut allergy", "… for my asthma": a safety fact said in passing.
_MY_ALLERGY = re.compile(
    rf"(?i)\b(?:my|their|the\s+user's)\s+(?:(?P<degree>{_INTENSIFIER}(?:{_NOUN_DEGREE}))\s+)?"
    r"(?P<what>[a-z][a-z-]{1,20}(?:\s+[a-z][a-z-]{1,20})?)\s+(?P<kind>allerg(?:y|ies)|intolerance)\b"
)
_MY_CONDITION = re.compile(rf"(?i)\b(?:my|their|the\s+user's)\s+(?P<cond>{_CONDITION_ALT})\b")
_NOT_MENTIONED = _words("food seasonal drug skin no other own new old known")


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
        found.append(_safety(USER, key, f"The user has {_article(what)} {what} {kind}.", incidental=True))
    for match in _MY_CONDITION.finditer(clause.raw):
        condition = match.group("cond")
        if condition.lower().startswith(("pregnan", "a ")):
            continue
        key = f"health.{_condition_key(condition)}"
        found.append(_safety(USER, key, f"The user has {condition}.", incidental=True))
    return found


def _is_name(name: str) -> bool:
    """A name, not a nationality or a state ("Italian-American", "Ready")."""
    return not any(part.lower() in _NOT_NAMES for part in re.split(r"[\s-]+", name))


_GREETING_TAIL = re.compile(r"(?i)\s+(?:by\s+the\s+way|btw|here|again|lol|haha)$")


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


def _possessions(raw: str, ctx: _Context) -> list[Fact]:
    """ "My blood type is …", "my birthday is …", "my new job is at …"."""
    match = _BLOOD_TYPE.search(raw)
    if match:
        blood = re.sub(r"\s+", " ", match.group("bt"))
        return [_safety(USER, "health.blood_type", f"The user's blood type is {blood}.")]
    match = _BIRTHDAY.search(raw)
    if match:
        return _birthday(USER, match.group("when"), ctx)
    match = _MY_JOB.search(raw)
    if match and _is_org(match.group("org")):
        return [_fact(USER, "employer", f"The user works at {_org(match.group('org'))}.", "profile")]
    return []


def _subjectless(raw: str, ctx: _Context) -> list[Fact]:
    """Safety facts whose subject is the allergen or the doctor: "Sesame is my allergy",
    "Shellfish makes my throat swell up", "My doctor put me on levothyroxine"."""
    text = _LEAD_WORDS.sub("", raw)
    inverted = _ALLERGY_INVERTED.match(text)
    if inverted:
        return _allergies(USER, "is allergic to " + _lower_first(inverted.group("what")), ctx)
    cause = _REACTION_CAUSE.match(text)
    if cause and cause.group("what").split()[0].lower() not in _NOT_ANTECEDENT:
        item = _lower_first(_object_item(cause.group("what")))
        content = _sentence(_third_person(text, possessive="the user's"))
        return [_safety(USER, f"health.allergy.{_allergen_key(item)}", content)]
    put_on = _PUT_ON.search(raw)
    drug = (
        _DRUG.search(_clean_object(put_on.group("what") or put_on.group("what2") or "")) if put_on else None
    )
    if drug:
        key = f"health.medication.{_drug_key(drug.group('drug'))}"
        return [_safety(USER, key, f"The user takes {drug.group('drug')}.")]
    return []


def _is_request(clause: _Clause) -> bool:
    """ "Please …", "Can you …", "I'd like …": asked now, not a fact to keep."""
    raw = _LEAD_WORDS.sub("", clause.raw)
    return bool(_REQUEST_LEAD.match(raw)) and not _STANDING.search(raw)


# Past verbs that begin a state rather than an event ("I moved to …" is where the user lives).
_STATE_VERBS = _words(
    "was were had used based married retired moved relocated grew joined started quit left became got "
    "stopped diagnosed prescribed"
)


def _past_action(clause: _Clause, today: date) -> bool:
    """A first-person past action with a date or an identifier ("Yesterday I booked flight CA1234"):
    an event, even when it names an order or a ticket."""
    if clause.who is not USER or not clause.predicate or clause.fragment:
        return False
    head = re.match(rf"(?i)^{_ADV}(?P<verb>[a-z]+)", clause.predicate)
    verb = head.group("verb").lower() if head else ""
    if verb in _STATE_VERBS or not ((verb.endswith("ed") and not verb.endswith("eed")) or verb in _PAST):
        return False
    return bool(_find_date(clause.raw, today) or _IDENTIFIER.search(clause.raw))


_MOMENT = ("today", "this morning", "this afternoon", "this evening", "tonight")


def _not_an_event(clause: _Clause, when: _When) -> bool:
    """ "I'm tired today", "I'm on vacation until Monday", "I'd rather … today": a state or a
    request of the moment, not something that happens on a date."""
    if (when.match.group("rel") or "").lower() in _MOMENT:
        return True
    predicate = clause.predicate
    if clause.who is USER and re.match(
        rf"(?i)^{_ADV}(?:is|feels?|seems?)\s+(?!going\b)(?![a-z]+ing\b)", predicate
    ):
        return True
    return bool(
        re.match(
            rf"(?i)^{_ADV}(?:would\s+like|wants|would\s+rather|would\s+prefer|needs|will\s+have)\b", predicate
        )
    )


_EVENT_LEAD = re.compile(r"^\W*(?:(?:also|so|and|oh|btw|well|then|anyway)\b\W*)*")


def _event(clause: _Clause, today: date, *, past_action: bool, remembered: bool) -> Fact | None:
    """A dated event ("I had knee surgery on October 3", "My daughter starts school in September"),
    or a past action naming an identifier, dated the day it was said."""
    raw = clause.raw
    if clause.fragment or (clause.who is None and not re.search(r"(?i)\b(?:my|our|I|we)\b", raw)):
        return None
    # An explicit "remember that …" of a plan is kept as said, not as an event that expires.
    if remembered and not past_action:
        return None
    when = _find_date(raw, today, future=not _is_past(raw))
    if when is None:
        if not (past_action and _IDENTIFIER.search(raw)):
            return None
        day, text = today, f"on {today.isoformat()} {_EVENT_LEAD.sub('', raw)}"
    elif not past_action and _not_an_event(clause, when):
        return None
    else:
        day = when.day
        start, end = when.match.span()
        if _EVENT_LEAD.sub("", raw[:start]).strip():
            after_preposition = re.search(
                r"(?i)\b(?:to|until|till|before|after|by|from|since|starting)\s*$", raw[:start]
            )
            text = (
                raw[:start] + _date_replacement(when, bare=bool(after_preposition)) + raw[end:]
            )  # "… on 2026-10-03"
        else:
            text = f"{when.phrase()} {_EVENT_LEAD.sub('', raw[end:])}"  # "On 2026-11-19 the user …"
    possessive = "their" if clause.first_person else "the user's"
    content = _third_person(_we_to_i(text.strip(" ,;:.!")), possessive=possessive).strip()
    if len(content.split()) < 3:
        return None
    return {
        "type": "episodic",
        "category": "event",
        "content": _sentence(content),
        "valid_from": day.isoformat(),
        "importance": 0.6,
        "confidence": 0.9,
    }


def _date_replacement(when: _When, *, bare: bool = False) -> str:
    """The date phrase as written in a statement: "on 2026-10-03", "from 2026-12-10", "in June 2027";
    only the date after a preposition of its own ("moving it to 2026-11-26")."""
    if bare:
        return (
            f" {when.day.isoformat()}"
            if when.precision == "day"
            else f" {_MONTH_NAMES[when.day.month - 1]} {when.day.year}"
        )
    prep = (when.match.group("prep") or "").strip().lower()
    if when.precision == "month":
        return (
            f" {prep if prep and prep != 'on' else 'in'} {_MONTH_NAMES[when.day.month - 1]} {when.day.year}"
        )
    return f" {prep if prep and prep != 'in' else 'on'} {when.day.isoformat()}"


def _birthday_of(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    match = re.match(r"^(?:'s|s)\s+birthday\s+is\s+(?P<when>.+)$", predicate, re.I)
    return _birthday(who, match.group("when"), ctx) if match else []


# "Allergies: peanuts, shellfish", "My medications are X and Y": a header and a list, read as the
# sentence it stands for.
_HEADER_LIST = re.compile(
    r"(?i)^(?:(?:my|the\s+user's|user's|our)\s+)?(?:known\s+|food\s+|drug\s+|current\s+|main\s+)?"
    r"(?P<kind>allerg(?:y|ies)|intolerances?|medications?|meds|medicines?|prescriptions?|"
    r"(?:medical\s+|health\s+)?conditions?|diagnos[ie]s)\s*(?:are|is|include|includes|:|-|\u2013|\u2014|=)\s*"
    r"(?P<list>.+)$"
)
_HEADER_AS = {"allerg": "I'm allergic to", "intoler": "I'm intolerant to", "med": "I take", "pres": "I take"}


def _normalise(sentence: str) -> str:
    text = (
        sentence.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    )
    text = re.sub(r"(?<![\w.])i(?=['\s]|$)(?!\.e)", "I", text)
    text = re.sub(r"(?i)\bim\b", "I'm", text)
    text = re.sub(r"(?i)\bive\b", "I've", text)
    for short in ("dont", "cant", "doesnt", "isnt", "didnt", "wont", "arent", "wasnt"):
        text = re.sub(rf"(?i)\b{short}\b", short[:-1] + "'t", text)
    # "My wife and I live …", "Tom and I moved …": the user is one of the subject.
    text = re.sub(r"(^|[,;:]\s*)(?:[Mm]y\s+[a-z]+|[A-Z][a-z]+)\s+and\s+I\b(?!')", r"\1we", text)
    text = re.sub(r"(^|[,;:]\s*)[Mm]e\s+and\s+my\s+[a-z]+\b", r"\1we", text)
    # "bee and wasp stings" -> "bee stings and wasp stings": each item keeps the shared noun.
    text = re.sub(
        r"(?i)\b([a-z]+)\s+(and|or|&)\s+([a-z]+)\s+(stings?|bites?|venom|hair|dander|fur|feathers)\b",
        r"\1 \4 \2 \3 \4",
        text,
    )
    header = _HEADER_LIST.match(text.strip())
    if header:
        kind = header.group("kind").lower()
        lead = next((v for k, v in _HEADER_AS.items() if kind.startswith(k)), "I have")
        text = f"{lead} {header.group('list')}"
    return re.sub(r"\s+", " ", text).strip()


# Where a sentence may end: not after "Dr." or "St." ("Dr. Chen", "St. Mary's").
_SENTENCE_END = (
    r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bMrs\.)(?<!\bProf\.)(?<!\bJr\.)(?<!\bSr\.)"
    r"(?<!\bNo\.)(?<!\bvs\.)(?<!\bMt\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<=[.!?])\s+"
)


def _sentences(text: str) -> list[str]:
    parts = re.split(rf"{_SENTENCE_END}|(?<=[\u3002\uff01\uff1f])|\s*\n+\s*", text)
    return [part.strip() for part in parts if part and part.strip()]


# --- Chinese -------------------------------------------------------------------------------------

# Chinese words to the English key words, so both languages share a slot.
_ZH_TERMS = {
    "花生": "peanut",
    "坚果": "nut",
    "海鲜": "seafood",
    "虾": "shrimp",
    "贝类": "shellfish",
    "螃蟹": "crab",
    "牛奶": "milk",
    "乳糖": "lactose",
    "鸡蛋": "egg",
    "蛋": "egg",
    "青霉素": "penicillin",
    "麸质": "gluten",
    "小麦": "wheat",
    "大豆": "soy",
    "芒果": "mango",
    "花粉": "pollen",
    "酒精": "alcohol",
    "阿司匹林": "aspirin",
    "芝麻": "sesame",
    "阿莫西林": "amoxicillin",
    "鱼": "fish",
    "猫": "cat",
    "狗": "dog",
    "尘螨": "dust_mite",
    "乳制品": "dairy",
    "奶制品": "dairy",
    "布洛芬": "ibuprofen",
    "磺胺": "sulfa",
    "头孢": "cephalosporin",
    "果糖": "fructose",
    "猪肉": "pork",
    "牛肉": "beef",
    "羊肉": "lamb",
    "肉": "meat",
    "辣": "spicy_food",
    "辣的": "spicy_food",
    "辣椒": "chili",
    "酒": "alcohol",
    "咖啡": "coffee",
    "糖": "sugar",
    "香菜": "cilantro",
    "葱": "onion",
    "蒜": "garlic",
    "生鱼片": "raw_fish",
    "内脏": "offal",
    "鸡肉": "chicken",
    "二甲双胍": "metformin",
    "胰岛素": "insulin",
    "华法林": "warfarin",
    "降压药": "blood_pressure_medication",
    "抗凝药": "blood_thinner",
    "抗凝血药": "blood_thinner",
    "他汀": "statin",
    "抗抑郁药": "antidepressant",
    "避孕药": "pill",
    "安眠药": "sleeping_pill",
    "激素": "steroid",
    "糖尿病": "diabetic",
    "一型糖尿病": "diabetic",
    "二型糖尿病": "diabetic",
    "1型糖尿病": "diabetic",
    "2型糖尿病": "diabetic",
    "高血压": "hypertension",
    "低血压": "hypotension",
    "哮喘": "asthma",
    "心脏病": "heart_condition",
    "癫痫": "epilepsy",
    "乳糜泻": "celiac",
    "痛风": "gout",
    "偏头痛": "migraine",
    "抑郁症": "depression",
    "焦虑症": "anxiety",
    "肾病": "kidney_disease",
    "贫血": "anemia",
    "关节炎": "arthritis",
    "甲减": "hypothyroidism",
    "甲亢": "hyperthyroidism",
    "高血脂": "high_cholesterol",
    "癌症": "cancer",
    "肝病": "liver_disease",
}
_ZH_RELATIONS = {
    "妻子": "wife",
    "老婆": "wife",
    "太太": "wife",
    "丈夫": "husband",
    "老公": "husband",
    "爱人": "spouse",
    "儿子": "son",
    "女儿": "daughter",
    "孩子": "child",
    "妈妈": "mother",
    "母亲": "mother",
    "爸爸": "father",
    "父亲": "father",
    "哥哥": "brother",
    "弟弟": "brother",
    "姐姐": "sister",
    "妹妹": "sister",
    "男朋友": "boyfriend",
    "女朋友": "girlfriend",
    "爷爷": "grandfather",
    "外公": "grandfather",
    "奶奶": "grandmother",
    "外婆": "grandmother",
}
_ZH_PETS = {"狗": "dog", "小狗": "dog", "猫": "cat", "小猫": "cat"}
_ZH_REL_ALT = _alternation(list(_ZH_RELATIONS) + list(_ZH_PETS))
_ZH_OTHERS = r"朋友|同事|同学|老板|邻居|室友|他们|她们|他|她|它|别人|客人"
_ZH_CONDITION_KEYS = _words(
    "diabetic hypertension hypotension asthma heart_condition epilepsy celiac gout migraine depression "
    "anxiety kidney_disease anemia arthritis hypothyroidism hyperthyroidism high_cholesterol cancer "
    "liver_disease"
)
_ZH_DRUG_KEYS = _words("metformin insulin warfarin aspirin ibuprofen statin steroid penicillin")
_ZH_FOOD_KEYS = _words(
    "peanut nut seafood shrimp shellfish crab milk egg gluten wheat soy mango alcohol sesame fish dairy pork "
    "beef lamb meat spicy_food chili coffee sugar cilantro onion garlic raw_fish offal chicken"
)
_ZH_CONDITIONS = _alternation([k for k, v in _ZH_TERMS.items() if v in _ZH_CONDITION_KEYS])
_ZH_DRUGS = _alternation([k for k, v in _ZH_TERMS.items() if k.endswith("药") or v in _ZH_DRUG_KEYS])
_ZH_FOODS = _alternation([k for k, v in _ZH_TERMS.items() if v in _ZH_FOOD_KEYS])
_ZH_JOBS = _alternation(
    "医生|护士|老师|教师|工程师|程序员|设计师|律师|会计|会计师|学生|研究生|大学生|中学生|经理|记者|厨师|司机|"
    "药剂师|分析师|数据分析师|研究员|教授|销售|警察|军人|公务员|作家|演员|画家|歌手|主管|总监|老板|创业者|"
    "自由职业者|店员|服务员|快递员|外卖员|保安|农民|工人|科学家|产品经理|项目经理|顾问|翻译|编辑|摄影师|"
    "建筑师|飞行员|消防员|秘书|实习生|博士生|牙医|兽医|心理咨询师|咨询师|运营|产品|前端|后端"
)
_ZH_PLACES = (
    "北京|上海|广州|深圳|杭州|南京|成都|重庆|武汉|西安|天津|苏州|长沙|郑州|青岛|厦门|大连|沈阳|哈尔滨|"
    "昆明|福州|济南|合肥|宁波|无锡|香港|澳门|台北|东京|大阪|首尔|纽约|伦敦|巴黎|柏林|悉尼|新加坡|洛杉矶|"
    "旧金山|多伦多|温哥华|国外|海外|外地|本地|家|家里|这里|那里|老家|附近|市区|郊区"
)
_ZH_ONE_OFF = re.compile(r"今天|今晚|这次|这一次|现在|这顿|明天|这回|这个|那个|这份")
_ZH_QUESTION = re.compile(r"[吗呢\uff1f?]\s*$|什么|怎么|哪|谁|几|多少|是否")
_ZH_LEAD = re.compile(
    r"^(?:而且|并且|但是|但|不过|可是|另外|同时|还有|其实|对了|顺便说一下|哦|嗯|也|还|并|都)+"
)
_ZH_SUBJECT = re.compile(
    rf"^(?P<subj>用户|该用户|我们|我)(?P<of>的)?(?:(?P<rel>{_ZH_REL_ALT}))?(?P<rest>.*)$"
)


def _zh_key(term: str) -> str:
    return _ZH_TERMS.get(term) or slug(term, words=3)


def _zh_items(text: str) -> list[str]:
    return [item for item in re.split(r"和|与|及|以及|、|跟|还有|,|\uff0c", text) if item]


def _read_chinese(sentence: str) -> list[Fact]:
    found: list[Fact] = []
    text = sentence.strip().rstrip("。\uff01!.")
    if _ZH_QUESTION.search(text):
        return []
    previous: Who | None = None
    clauses = re.split(
        r"[\uff0c,\uff1b;\uff1a:]|(?:而且|并且|但是|不过(?!敏)|可是|另外|同时)|(?<=.)(?=也(?:不|没|是|有|对))",
        text,
    )
    for raw in clauses:
        raw = raw.strip()
        if not raw or _SECRET_WORDS.search(raw) or scan_secrets(raw).found:
            continue
        clause = _ZH_LEAD.sub("", raw)
        facts = _zh_identifiers(clause)
        if facts:
            found += facts
            continue
        call_me = re.match(
            rf"^(?:你|您|大家|朋友们|朋友|别人|他们|家人|同事们?)?(?:都|也)?(?:可以|就|请)?叫我(?P<name>[{_CJK}A-Za-z]{{1,8}})$",
            clause,
        )
        if call_me:
            found.append(_fact(USER, "preferred_name", f"用户希望被称为{call_me.group('name')}。", "profile",
                               importance=0.8))  # fmt: skip
            continue
        match = _ZH_SUBJECT.match(clause)
        if match:
            rest = match.group("rest")
            if re.match(rf"^(?:{_ZH_OTHERS})", rest):
                previous = None
                continue
            who = _relative(match.group("rel"), zh=match.group("rel")) if match.group("rel") else USER
            possessive = bool(match.group("of")) and not match.group("rel")
        elif previous is not None and (bare := re.match(rf"^(?P<rel>{_ZH_REL_ALT})(?P<rest>.+)$", clause)):
            # "my son is allergic to peanuts, daughter to milk": the second relative is the user's too.
            who, rest, possessive = (
                _relative(bare.group("rel"), zh=bare.group("rel")),
                bare.group("rest"),
                False,
            )
        elif previous is not None:
            who, rest, possessive = previous, clause, False
        else:
            who, rest, possessive = USER, clause, False
        previous = who
        found += _zh_predicate(who, rest, possessive)
    return found


def _zh_predicate(who: Who, p: str, possessive: bool) -> list[Fact]:  # noqa: C901
    if possessive:
        match = re.match(rf"^名字(?:是|叫)(?P<name>[{_CJK}A-Za-z ]{{1,12}})$", p)
        if match:
            return [_fact(USER, "name", f"用户的名字是{match.group('name')}。", "profile", importance=0.8)]
        return []
    match = re.match(
        r"^(?P<n1>不再|不|没有|从不)?对(?P<what>.+?)(?P<n2>不再|不|没有)?(?P<deg>严重|非常|很|有点|轻微|特别)?过敏(?P<le>了)?$",
        p,
    )
    if match is None:
        match = re.match(
            rf"^(?P<n1>)(?P<what>{_alternation(list(_ZH_TERMS))})(?P<n2>不再|不)?(?P<deg>)过敏(?P<le>了)?$", p
        )
    if match:
        negation = match.group("n1") or match.group("n2")
        ended = negation and (match.group("le") or negation == "不再")
        found = []
        for item in _zh_items(match.group("what")):
            if item in ("任何东西", "任何", "什么", "东西", "任何食物"):
                continue
            verb = "不再过敏" if ended else ("不过敏" if negation else f"{match.group('deg') or ''}过敏")
            key = f"health.allergy.{_zh_key(item)}"
            denial = "ended" if ended else ("not" if negation else "")
            found.append(_safety(who, key, f"{who.zh}对{item}{verb}。", negation=denial))
        return found
    match = re.match(rf"^(?:有)?(?:轻微的?|严重的?|一点)?(?P<what>[{_CJK}]{{1,4}}?)不耐受?$", p)
    if match:
        key = f"health.intolerance.{_zh_key(match.group('what'))}"
        return [_safety(who, key, f"{who.zh}{match.group('what')}不耐受。")]
    match = re.match(r"^(?P<neg>没有)?(?P<verb>患有|有|得了|确诊了?)(?P<conds>.+)$", p)
    items = _zh_items(match.group("conds")) if match else []
    if (
        match
        and items
        and all(re.fullmatch(rf"(?:{_ZH_CONDITIONS})|[{_CJK}]{{1,6}}[病症]", item) for item in items)
    ):
        verb = ("没有" if match.group("neg") else "") + match.group("verb")
        return [
            _safety(
                who,
                f"health.{_zh_key(item)}",
                f"{who.zh}{verb}{item}。",
                negation="not" if match.group("neg") else "",
            )
            for item in items
        ]
    match = re.match(
        rf"^是(?:一名|一个|一位)?(?P<cond>(?:{_ZH_CONDITIONS})|[{_CJK}]{{1,6}}[病症])(?:患者|病人)$", p
    )
    if match:
        return [_safety(who, f"health.{_zh_key(match.group('cond'))}", f"{who.zh}{p}。")]
    if re.match(r"^(?:已经)?(?:不再|不)吃素了?$", p):
        return [_fact(who, "diet", f"{who.zh}不再吃素。", "safety", importance=0.8)]
    if re.match(r"^怀孕了?$", p):
        return [_safety(who, "health.pregnant", f"{who.zh}怀孕了。")]
    if re.match(r"^(?:是)?(?:一名|一个|一位)?(?:素食者|素食主义者|纯素食者|纯素主义者)$", p) or re.match(
        r"^(?:只|一直|平时)?吃(?:素|清真|纯素)(?:食)?$", p
    ):
        text = p if p.startswith(("是", "只", "一直", "平时", "吃")) else "是" + p
        return [_fact(who, "diet", f"{who.zh}{text}。", "safety", importance=0.9, pinned=True)]
    match = re.match(r"^(?P<m>从不|不能|不可以|不敢|不会|不再|不|忌)(?P<v>吃|喝)(?P<what>.+)$", p)
    if match:
        found = []
        for item in _zh_items(match.group("what")):
            if re.fullmatch(_ZH_FOODS, item):
                key = f"diet.avoid.{_zh_key(item)}"
                found.append(_safety(who, key, f"{who.zh}{match.group('m')}{match.group('v')}{item}。"))
        return found
    match = re.match(r"^(?:每天|每日|一直|正在|目前|现在|长期)?(?:在)?(?:服用|吃|打|注射|用)(?P<what>.+)$", p)
    if match:
        drug = re.search(rf"{_ZH_DRUGS}|[{_CJK}]+药", match.group("what"))
        if drug:
            return [_safety(who, f"health.medication.{_zh_key(drug.group(0))}", f"{who.zh}{p}。")]
    match = re.match(
        rf"^(?:现在|目前|正在)?在(?P<org>.+?)(?:做|当|担任)(?P<job>[{_CJK}]{{0,6}}?(?:{_ZH_JOBS}))$", p
    )
    if match and not re.fullmatch(rf"(?:{_ZH_PLACES})|.+[市省区县国]", match.group("org")):
        # "在字节跳动做产品经理": the employer and the role, each in its own slot.
        return [
            _fact(who, "employer", f"{who.zh}在{match.group('org')}工作。", "profile"),
            _fact(who, "job", f"{who.zh}是{match.group('job')}。", "profile"),
        ]
    match = re.match(r"^(?:现在|目前|正在)?在(?P<org>.+?)(?:工作|上班|任职|就职)(?:了)?$", p) or re.match(
        r"^(?:已经|刚)?(?:从.+?)?(?:跳槽到了?|跳槽去了?|加入了?|入职了?)(?P<org>.+?)(?:工作|上班)?$", p
    )
    if match:
        org = match.group("org")
        if not re.fullmatch(rf"(?:{_ZH_PLACES})|.+[市省区县国]", org):
            return [_fact(who, "employer", f"{who.zh}在{org}工作。", "profile", importance=0.7)]
        return []
    match = re.match(rf"^是(?P<art>一名|一个|一位|个|名)?(?P<job>[{_CJK}]{{0,6}}?(?:{_ZH_JOBS}))$", p)
    if match:
        return [_fact(who, "job", f"{who.zh}{p}。", "profile", importance=0.7)]
    match = re.match(r"^(?:现在|目前|一直)?住在(?P<place>.+?)(?:了)?$", p)
    if match:
        return [_fact(who, "home_city", f"{who.zh}住在{match.group('place')}。", "profile", importance=0.7)]
    match = re.match(r"^(?:已经|刚|刚刚)?搬(?:家)?到了?(?P<place>.+?)(?:了|去了)?$", p)
    if match:
        return [_fact(who, "home_city", f"{who.zh}搬到了{match.group('place')}。", "profile", importance=0.7)]
    match = re.match(rf"^叫(?P<name>[{_CJK}A-Za-z]{{1,8}})$", p)
    if match:
        name = match.group("name")
        if who.user:
            return [_fact(USER, "name", f"用户的名字是{name}。", "profile", importance=0.8)]
        named = _relative(who.word, name, zh=who.word)
        return [_fact(USER, named.key, f"{who.zh}叫{name}。", "relationship", importance=0.6)]
    match = re.match(rf"^希望被(?:称为|叫做|叫)(?P<name>[{_CJK}A-Za-z]{{1,8}})$", p)
    if match and who.user:
        return [
            _fact(USER, "preferred_name", f"用户希望被称为{match.group('name')}。", "profile", importance=0.8)
        ]
    match = re.match(
        r"^(?P<adv>很|非常|最|更|特别|比较|也|还|都|一直)?(?P<v>不喜欢|喜欢|偏爱|讨厌|受不了|爱)(?P<what>.+)$",
        p,
    )
    if (
        match
        and who.user
        and not _ZH_ONE_OFF.search(p)
        and not re.match(r"^(?:你|他|她|它|这|那)", match.group("what"))
    ):
        key = f"preference.{slug(match.group('what'), words=3)}"
        return [_fact(USER, key, f"用户{p}。", "preference", importance=0.5)]
    return []


_ZH_ID_KINDS = {
    "订单": "order",
    "工单": "ticket",
    "案件": "case",
    "案例": "case",
    "预订": "booking",
    "预约": "booking",
    "快递": "tracking",
    "运单": "tracking",
    "物流": "tracking",
    "退款": "refund",
    "发票": "invoice",
    "航班": "flight",
    "保单": "policy",
}
_ZH_IDENTIFIER = re.compile(
    rf"(?P<kind>{_alternation(list(_ZH_ID_KINDS))})(?:号码|编号|单号|号)?(?:是|为|\uff1a|:)?\s*"
    r"(?P<id>(?=[A-Za-z0-9-]*\d)[A-Za-z0-9][A-Za-z0-9-]{3,})"
)


def _zh_identifiers(clause: str) -> list[Fact]:
    match = _ZH_IDENTIFIER.search(clause)
    if match is None:
        return []
    before = clause[: match.start()]
    if before not in ("", "我的", "我们的", "用户的", "该用户的"):
        return []
    ident = match.group("id")
    key = f"{_ZH_ID_KINDS[match.group('kind')]}.{re.sub(r'[^a-z0-9]+', '_', ident.lower()).strip('_')}"
    return [
        _fact(USER, key, f"用户的{clause[match.start() :]}。", "task_state", importance=0.6, type_="episodic")
    ]


# --- the extractor -------------------------------------------------------------------------------

_REMEMBER = re.compile(
    r"(?i:(?:^|[,;:(\u2014-]\s*|\b(?:and|but|so|also|actually|honestly|btw|oh|well|because|since|now|plus|hi|hey)\s+)"
    r"(?:(?:can|could|will|would)\s+you\s+)?(?:please\s+)?(?:remember|don't\s+forget|don\u2019t\s+forget|do\s+not\s+forget|"
    r"keep\s+in\s+mind)(?:\s+that\b|\s*[:,\u2014-])?\s*)(?!(?:when|what|who|where|how|why|if|whether|to|me|this|"
    r"it)\b)(?P<what>\S.*)"
)
_PROCEDURAL = re.compile(
    r"(?i)^(?:always|never|from now on|don't|do not|make sure|you should|you must|you need to|"
    r"stop|only)\b|\bno longer needs?\b|\bfrom now on\b|\b(?:should|must)\s+(?:always|never)\b|"
    r"\bwithout\s+(?:approval|asking|checking|confirmation)\b|\bdo(?:es)?n[o']t\s+need\s+(?:approval|to\s+be)\b"
)


def read_statement(statement: str, today: date | None = None) -> list[Fact]:
    """The facts a written statement states, as the extractor would have keyed them (`infer_slot`)."""
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

    def _from_sentence(self, sentence: str, today: date) -> list[Fact]:
        remember = _REMEMBER.search(sentence)
        if remember:
            return self._remembered(remember.group("what"), today)
        return _Reader(today).sentence(sentence)

    def _remembered(self, what: str, today: date) -> list[Fact]:
        """ "Remember that …": said on purpose, so it is kept even when no finer rule fits."""
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
        whole = {"content": _sentence(_third_person(what)), "importance": 0.7, "confidence": 1.0}
        specific = [
            {**fields, "confidence": 1.0, "importance": max(fields.get("importance", 0.5), 0.7)}
            for fields in _Reader(today).read(what, remembered=True)
            if not fields.get("incidental")
        ]
        if _SECRET_WORDS.search(what) or scan_secrets(what).found:
            # The reader leaves the secret's clause out and keeps the facts beside it; the secret
            # goes on whole as well, so the pipeline refuses it and flags it for operators.
            return [*specific, whole]
        return specific or [whole]


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
