"""The engine's vocabulary: word lists, name and place patterns, conditions, drugs, foods,
relations, identifier kinds, secret words, and the Chinese words that share English keys. The
offline extractor's rules read with it, and so do the entity rules and the kinship words."""

from __future__ import annotations

import re
from typing import Any

Fact = dict[str, Any]


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


def word_pairs(text: str) -> dict[str, str]:
    """ "mom=mother son" -> {"mom": "mother", "son": "son"}: a word list that maps some words."""
    return {word: target or word for word, _, target in (item.partition("=") for item in text.split())}


def alternation(words: str | list[str] | tuple[str, ...]) -> str:
    """A regex alternation of phrases, longest first (so "type 1 diabetes" wins over "diabetes")."""
    items = words.split("|") if isinstance(words, str) else list(words)
    return "|".join(sorted((item for item in items if item), key=len, reverse=True))


NAME = r"[A-Z][\w'\u00c0-\u024f-]*(?:\s+[A-Z][\w'\u00c0-\u024f-]*){0,2}"
TITLED_NAME = rf"(?:(?:Dr|Mr|Mrs|Ms|Mx|Miss|Prof|Professor|Sir|Dame|Captain|Coach|Auntie|Uncle)\.?\s+)?{NAME}"
PLACE = r"[A-Z][\w'.\u00c0-\u024f-]*(?:(?:\s+|,\s*)[A-Z][\w'.\u00c0-\u024f-]*){0,3}"
ORG = r"[A-Z0-9][\w&'.\u00c0-\u024f-]*(?:\s+(?:&\s+)?[A-Z0-9][\w&'.\u00c0-\u024f-]*){0,4}"
CJK = r"\u4e00-\u9fff"
ADV = (
    r"(?:(?:also|still|now|currently|really|actually|definitely|both|all|just|even|recently|finally|"
    r"already|officially|basically|honestly|seriously|unfortunately|apparently|technically|"
    r"originally|sadly|luckily|totally|absolutely|generally|usually|always|mostly|pretty\s+much)\s+)*"
)
DEGREE = r"very|quite|super|really|so|deadly|a\s+bit|a\s+little|somewhat|[a-z-]+ly"
NOUN_DEGREE = r"severe|mild|serious|bad|strong|life-threatening|deadly|slight|minor|major|terrible"
# Irregular past tenses (a word ending in -ed is past too): "I went to Lyon" is an event.
PAST_TENSE = word_set(
    "was were had did made took gave went came saw ran wrote knew thought brought bought caught taught "
    "fought felt kept slept left met sent spent built lost paid said sold told found heard held stood won "
    "woke wore broke chose drove flew forgot froze hid rode rose shook spoke stole swam threw ate drank "
    "sang sat fell quit put set let cut hit hurt shut read got began grew became"
)
# Objects that name no particular thing: "allergic to anything" gives no fact.
VAGUE = word_set(
    "anything everything nothing something it them this that those these stuff things any lots much "
    "everything else anything else a lot some any food any foods all food none no n/a nothing else"
)
PRONOUN_OBJECTS = word_set("it them that this those these")
# Not allergens, whatever the joke says ("allergic to Mondays").
NOT_ALLERGENS = word_set(
    "monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays friday fridays saturday "
    "saturdays sunday sundays morning mornings work homework people meetings meeting exercise effort "
    "adulting nonsense drama mondays responsibility responsibilities deadlines you him her math stupidity"
)
OBJECT_END = re.compile(
    r"[,\s]+(?:so|but|because|which|when|whenever|if|since|though|although|while|and\s+(?:I|i|my|we|you)|"
    r"please|can|could|would|do|who|that\s+(?:is|was|makes|gives))\b.*$",
    re.S,
)
TRAILING_FILLER = re.compile(
    r"(?:\s+(?:too|as well|a lot|so much|very much|really|though|lol|haha|apparently|anymore|any more|"
    r"these days|nowadays|now|at all|for sure|btw|honestly|originally|like crazy|unfortunately))+$",
    re.I,
)
LEADING_DETERMINER = re.compile(
    r"^(?:(?:all|any|some|most|certain|many|the|a|an|both|either|neither|just|only|kinds?\s+of|types?\s+of|sorts?\s+of|"
    r"all\s+kinds\s+of|most\s+kinds\s+of)\s+)+",
    re.I,
)
CONTAINING = re.compile(
    r"^(?:anything|foods?|things|stuff|dishes|products|meals)\s+(?:with|containing|that\s+contains?|made\s+with)\s+",
    re.I,
)
DIETS = (
    "vegan|vegetarian|pescatarian|pescetarian|lacto-vegetarian|lacto-ovo vegetarian|ovo-vegetarian|"
    "flexitarian|plant-based|halal|kosher|fruitarian|raw vegan"
)
# Conditions: what the user may say, and the one slot each is kept under. Any diabetes is
# "diabetic": the key v1 stored for "I am diabetic".
CONDITIONS: tuple[tuple[str, str], ...] = (
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
CONDITION_ALT = alternation([pattern for pattern, _ in CONDITIONS])
CONDITION_ADJECTIVES = (
    r"(?:type[ -]?(?:1|2|one|two|i|ii)\s+)?diabetic|pre-?diabetic|asthmatic|epileptic|c(?:o)?eliac|"
    r"an(?:a)?emic|hypertensive|(?:\d+\s+(?:weeks?|months?)\s+)?pregnant|colou?r[ -]?blind|dyslexic|"
    r"autistic|bipolar|immunocompromised|hard\s+of\s+hearing|deaf|blind|hemophiliac|haemophiliac"
)
# Medicines: names, classes and devices; a word with a drug-name ending counts too.
DRUG_NAMES = (
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
DRUG_SUFFIXES = (
    r"[a-z]+(?:statin|pril|sartan|olol|azepam|azolam|cillin|mycin|cycline|floxacin|prazole|tidine|formin|"
    r"gliptin|glutide|xaban|parin|oxetine|triptan|codone|profen|dronate|lukast|terol|solone|thyroxine|"
    r"mab|tinib|vir|zodone|pramine|tyline|dipine|semide|thiazide|fenac)"
)
DRUG = re.compile(rf"(?i)\b(?P<drug>{DRUG_NAMES}|{DRUG_SUFFIXES})\b")
DRUG_KEYS = word_pairs(
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
FOODS = word_set(
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
# Grandparents as families say them in other languages and other Englishes ("Babcia", "Nonna",
# "Ah Gong", "Dadi ji", "Meemaw"): the word (an underscore for a space) -> the English kin it
# names. The graph knows them as that kin (`entities.kinship`) and the safety model, which learned
# the English words, reads them as it (`judgement.safety`): "Nonna is on blood thinners since she
# came to live with us" read someone else's (0.22), "Grandma is…" a dependant's (0.86).
GRANDPARENTS_SAID_OTHERWISE = word_pairs(
    "babcia=grandmother oma=grandmother omi=grandmother nonna=grandmother abuela=grandmother "
    "abuelita=grandmother yiayia=grandmother yia-yia=grandmother yaya=grandmother bubbe=grandmother "
    "bubbie=grandmother bubby=grandmother savta=grandmother obaachan=grandmother obaasan=grandmother "
    "halmeoni=grandmother halmoni=grandmother nenek=grandmother nanima=grandmother dadima=grandmother "
    "ah_ma=grandmother ah_mah=grandmother ah_por=grandmother ah_po=grandmother ah_ma_ma=grandmother "
    "gramma=grandmother grandmom=grandmother grandmum=grandmother granma=grandmother meemaw=grandmother "
    "mawmaw=grandmother babushka=grandmother avó=grandmother vovó=grandmother mormor=grandmother "
    "farmor=grandmother nani_ji=grandmother dadi_ji=grandmother naniji=grandmother dadiji=grandmother "
    "dziadek=grandfather dziadzia=grandfather opa=grandfather opi=grandfather nonno=grandfather "
    "abuelo=grandfather abuelito=grandfather papou=grandfather pappou=grandfather zayde=grandfather "
    "zaide=grandfather zeide=grandfather zaidy=grandfather ojiichan=grandfather ojiisan=grandfather "
    "harabeoji=grandfather halabeoji=grandfather atuk=grandfather atok=grandfather ah_gong=grandfather "
    "ah_kong=grandfather ah_yeh=grandfather grampa=grandfather grampy=grandfather grandpop=grandfather "
    "granddaddy=grandfather grandaddy=grandfather pawpaw=grandfather pop-pop=grandfather "
    "poppop=grandfather jiddo=grandfather jeddo=grandfather avô=grandfather vovô=grandfather "
    "dedushka=grandfather morfar=grandfather farfar=grandfather nana_ji=grandfather dada_ji=grandfather "
    "nanaji=grandfather dadaji=grandfather"
)
# Words that name a grandparent after "my" or "our" but are as often a name or another word alone
# ("Lola" is a name, "dada" a baby's word for a father, "Grammy" an award): read by the safety
# model only so said, and not known to the graph (a friend called Lola is asked about by name).
GRANDPARENTS_OWNED = word_pairs(
    "lola=grandmother nani=grandmother dadi=grandmother teta=grandmother sitti=grandmother "
    "mamie=grandmother grammy=grandmother lolo=grandfather dada=grandfather saba=grandfather "
    "sido=grandfather"
)
RELATIONS = word_pairs(
    "wife husband partner spouse girlfriend boyfriend fiancee=fiance fianc\u00e9e=fiance fiance "
    "fianc\u00e9=fiance son daughter child kid=child baby mother mom=mother mum=mother mommy=mother "
    "mama=mother father dad=father daddy=father papa=father brother sister grandmother grandma=grandmother "
    "granny=grandmother nana=grandmother grandfather grandpa=grandfather granddad=grandfather aunt uncle "
    "cousin niece nephew grandson granddaughter stepson stepdaughter stepmother stepfather "
    "mother-in-law=mother_in_law father-in-law=father_in_law"
)
PETS = word_pairs("dog puppy=dog cat kitten=cat parrot rabbit bunny=rabbit hamster horse bird turtle")
# One of each: the name is not needed to tell them apart (v1's key for "my wife's name is Mei").
PARTNERS = frozenset({"wife", "husband", "partner", "spouse", "girlfriend", "boyfriend", "fiance"})
REL_ALT = alternation(list(RELATIONS) + list(PETS))
# "My wife is Chinese" says nothing about her name.
NOT_NAMES = word_set(
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
ID_KINDS = word_pairs(
    "order ticket incident=ticket case booking reservation=booking confirmation=booking pnr=booking tracking "
    "shipment=tracking parcel=tracking package=tracking invoice claim refund return rma=return policy "
    "request "
    "issue flight application membership member=membership customer reference ref=reference appointment "
    "subscription transaction contract"
)
IDENTIFIER = re.compile(
    rf"(?i:\b(?P<kind>{alternation(list(ID_KINDS))})s?(?:\s+(?:{alternation(list(ID_KINDS))}))?)"
    r"(?:\s+(?i:number|no\.?|num|nr|id|ref(?:erence)?|#))?(?:\s+(?i:is|was|=)|\s*[:=])?\s*\(?"
    r"(?P<id>#\s?\d{3,}|\d{4,}|(?=[A-Za-z0-9-]*\d)[A-Za-z0-9][A-Za-z0-9-]{3,}[A-Za-z0-9])(?![\w-])\)?"
)
# What may never reach a statement. The write pipeline refuses secrets too; leaving the clause
# out keeps the rest of the sentence ("my order is 88231 and my PIN is 4321").
SECRET_WORDS = re.compile(
    r"(?i)\b(?:passwords?|passwd|passcodes?|passphrases?|pins?|pin\s+codes?|codes?|otp|2fa|cvv|cvc|"
    r"security\s+(?:questions?|answers?)|verification|tokens?|api[\s_-]?keys?|secrets?|ssn|"
    r"social\s+security|logins?|credentials?|card\s+numbers?|credit\s+cards?|debit\s+cards?|"
    r"account\s+numbers?|bank\s+accounts?|routing\s+numbers?|iban|sort\s+codes?|passport\s+numbers?)\b"
    r"|密码|验证码|口令|卡号|银行卡|身份证号|护照号"
)
HYPOTHETICAL = re.compile(
    r"(?i)\b(?:if|whether|unless|in\s+case|suppose|supposing|imagine|pretend|wonder|wondering|what|which|"
    r"who|how|why|where|when|would\s+be|were)\b"
)
QUESTION_START = re.compile(
    r"(?i)^(?:what|who|where|when|why|how|which|can|could|would|should|do|does|did|is|are|will|shall|may|"
    r"am|was|were|have|has|had)(?:'s|\s|$)"
)
# Chinese words to the English key words, so both languages share a slot.
ZH_TERMS = {
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
    # Added with the Chinese labelled set (tests/data/zh_rules/): common allergens, conditions, drugs.
    "猫毛": "cat",
    "狗毛": "dog",
    "猕猴桃": "kiwi",
    "桃子": "peach",
    "桃": "peach",
    "菠萝": "pineapple",
    "草莓": "strawberry",
    "乳胶": "latex",
    "核桃": "walnut",
    "腰果": "cashew",
    "杏仁": "almond",
    "蜂蜜": "honey",
    "荞麦": "buckwheat",
    "小龙虾": "crayfish",
    "蟹": "crab",
    "虾蟹": "shellfish",
    "蜂蜇": "bee_sting",
    "蜜蜂": "bee_sting",
    "奶": "milk",
    "海产品": "seafood",
    "牛羊肉": "red_meat",
    "红肉": "red_meat",
    "豆制品": "soy",
    "黄豆": "soy",
    "花生酱": "peanut",
    "磺胺类药物": "sulfa",
    "头孢类": "cephalosporin",
    "青霉素类": "penicillin",
    "乙肝": "hepatitis",
    "肝炎": "hepatitis",
    "湿疹": "eczema",
    "失眠": "insomnia",
    "失眠症": "insomnia",
    "低血糖": "hypoglycemia",
    "胃溃疡": "stomach_ulcer",
    "肾结石": "kidney_stone",
    "冠心病": "heart_condition",
    "心律不齐": "heart_condition",
    "帕金森": "parkinson",
    "阿尔茨海默病": "dementia",
    "老年痴呆": "dementia",
    "过敏性鼻炎": "allergic_rhinitis",
    "鼻炎": "allergic_rhinitis",
    "肾上腺素笔": "epipen",
    "降糖药": "diabetes_medication",
    "止痛药": "painkiller",
    "抗生素": "antibiotic",
    "优甲乐": "levothyroxine",
    "甲状腺素": "levothyroxine",
    "左甲状腺素": "levothyroxine",
    "氯吡格雷": "clopidogrel",
    "阿托伐他汀": "atorvastatin",
    "他汀类": "statin",
    "布地奈德": "budesonide",
    "沙丁胺醇": "salbutamol",
    "喷雾": "inhaler",
    "哮喘喷雾": "inhaler",
    "褪黑素": "melatonin",
    "甲氨蝶呤": "methotrexate",
    "达格列净": "dapagliflozin",
    "氨氯地平": "amlodipine",
}
ZH_RELATIONS = {
    "妻子": "wife",
    "老婆": "wife",
    "太太": "wife",
    "丈夫": "husband",
    "老公": "husband",
    "爱人": "spouse",
    "老伴": "spouse",
    "老伴儿": "spouse",
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
    "爸": "father",
    "老爸": "father",
    # Short forms, as said every day: "我姐是律师", "我哥当医生".
    "姐": "sister",
    "哥": "brother",
    "弟": "brother",
    "妹": "sister",
    "妈": "mother",
    "老妈": "mother",
    "媳妇": "wife",
    "媳妇儿": "wife",
    "闺女": "daughter",
    "宝宝": "child",
    "小孩": "child",
    "婆婆": "mother_in_law",
    "岳母": "mother_in_law",
    "丈母娘": "mother_in_law",
    "公公": "father_in_law",
    "岳父": "father_in_law",
    "未婚夫": "fiance",
    "未婚妻": "fiance",
}
# Traditional characters of the words the Chinese rules read, as simplified: "我對花生過敏" reads as
# "我对花生过敏". Only these words' characters (a full converter, OpenCC, is not a dependency here).
ZH_SIMPLIFIED = str.maketrans(
    "對過記憶鮮蝦雞藥壓癥歡討厭個從這會們麼裡裏還沒與為說請讓歲醫師護飯麵魚麥穀豬買賣電話號碼驗證學業經營場區縣東臺灣"
    "開關車門問間媽兒孫幾讀寫長陳張劉楊黃趙吳鄭謝韓馬羅葉蘇錢風濕種類體質廳館樂愛療監膽腎臟腸癢噴嚏韋蘭麗華孕產婦腦頭臉"
    "膚骯髒氣喝熱冷點燒烤雙審權額繞無現後須準雙戶資購據實規則員給動閉題設啟單態應該議時預覆歷來對許嚴級稅費優條檢減價"
    "亂憑銷報賬帳務擬簽發寬週歲鬆脫敏順幫別著嗎錄",
    "对过记忆鲜虾鸡药压症欢讨厌个从这会们么里里还没与为说请让岁医师护饭面鱼麦谷猪买卖电话号码验证学业经营场区县东台湾"
    "开关车门问间妈儿孙几读写长陈张刘杨黄赵吴郑谢韩马罗叶苏钱风湿种类体质厅馆乐爱疗监胆肾脏肠痒喷嚏韦兰丽华孕产妇脑头脸"
    "肤肮脏气喝热冷点烧烤双审权额绕无现后须准双户资购据实规则员给动闭题设启单态应该议时预复历来对许严级税费优条检减价"
    "乱凭销报账账务拟签发宽周岁松脱敏顺帮别着吗录",
)
ZH_PETS = {"狗": "dog", "小狗": "dog", "狗狗": "dog", "猫": "cat", "小猫": "cat", "猫咪": "cat"}

# Cantonese says "my daughter", "my son" with the classifier alone where a clause opens with it
# ("個女對蝦過敏", "今日好攰 個仔又發燒", "個仔Jayden下個月去宿營"): the speaker's. A possessor before it
# ("佢個仔", "阿May個仔", "阿 May 個仔") is no opening, and "個女仔" (a girl), "個女朋友", "個女人",
# "個女傭"… are not the user's kin. Read so by the safety model (`judgement`) and the people reader
# (`entities.zh_forms`).
ZH_BARE_KIN = re.compile(
    r"(?:^|(?<=[,.!?;:\u3001\u3002\uff01\uff0c\uff1a\uff1b\uff1f])|(?<![A-Za-z]\s)(?<=\s))"
    r"(?P<classifier>[個个])(?P<kin>[女仔])(?![仔人子生士性孩朋友神星皇王傭佣工同童])"
)
