"""The words and patterns the secret detector reads with: secret keywords (English, Chinese and a
few other languages) and the gaps that tie them to a value, what is never a value, the shapes of
tokens, and the forms that are secrets on their own (token prefixes, private keys, ids)."""

from __future__ import annotations

import re

# Full-width ASCII (Chinese input methods) and the ideographic space, mapped one char to one
# char so that offsets in the mapped text are offsets in the original.
FULLWIDTH = {0xFF01 + i: 0x21 + i for i in range(0x5E) if i != 0x0B} | {0x3000: 0x20}
# (the full-width comma stays: "482913" + U+FF0C + "5分钟" is no decimal 482913,5)

_B, _E = r"(?<![A-Za-z0-9_])", r"(?![A-Za-z0-9_])"  # \b misfires next to CJK (which is \w)

# --- Keywords: (class, kind, pattern). A class decides which value shapes it accepts. -----------
_PW_NOT = (
    r"(?![\s-]*(?:reset|resets|change|changes|manager|managers|policy|policies|rules?|requirements?"
    r"|page|link|e-?mail|field|hint|strength|expiry|expiration|rotation|protected|recovery|prompt|box"
    r"|form|screen|dialog|generator|reuse|leaks?|breach|length|complexity|history|login|less|feature"
    r"|settings?|vault|storage|hash(?:es|ing)?|checker|flow|button|input|updates?)" + _E + ")"
)
KEYWORDS: list[tuple[str, str, re.Pattern[str]]] = [
    ("phrase", "password", re.compile(
        _B + r"(?:pass\s?phrases?|seed\s+phrase|recovery\s+phrase|mnemonic(?:\s+phrase)?)" + _E
        + r"|助记词", re.I)),
    ("password", "password", re.compile(
        _B + r"(?:passwords?|passwd|pwd|pw|credentials?|creds|mot\s+de\s+passe|mdp|contrase[ñn]as?"
        r"|passwort|kennwort|senha|wachtwoord|пароль|пароля)" + _E + _PW_NOT
        + r"|" + _B + r"pass(?=\s*(?:(?:is|was)" + _E + r"|[:=]|'s))"
        + r"|パスワード|비밀번호|口令|(?:密码|密碼)(?!学|管理|规则|要求|策略|框|强度|重置)", re.I)),
    ("pin", "pin", re.compile(
        _B + r"(?:pin(?:\s*code|\s*number)?s?|pass\s?codes?|unlock\s+code|(?:door|gate|alarm|lock"
        r"|keypad|garage|safe|locker|padlock|entry|building)\s+code|keypad|(?:safe|lock|locker|padlock)"
        r"\s+combination|combination\s+lock)" + _E
        + r"(?![\s-]*(?:pad|pads|protected|reminder|up|point|login)" + _E + r")"
        + r"|(?:支付|取款|交易|银行卡|卡|解锁|锁屏|门禁|保险箱)(?:的)?密码|PIN码|暗証番号", re.I)),
    ("otp", "one-time code", re.compile(
        _B + r"(?:otp|totp|one[\s-]?time\s+(?:pass(?:word|code)?|code|pin|token|key)s?"
        r"|verification\s+(?:code|number|pin)s?|security\s+code|(?:2fa|mfa|two[\s-]?factor|2[\s-]?step"
        r"|two[\s-]?step)\s+(?:code|token|pin|number)s?|mfa\s+token|auth(?:entication)?\s+code"
        r"|log[\s-]?in\s+code|sign[\s-]?in\s+code|sms\s+code|text\s+code|access\s+code"
        r"|(?:recovery|backup)\s+codes?|authenticator|steam\s+guard(?:\s+code)?"
        r"|code\s+de\s+v[ée]rification|c[óo]digo\s+de\s+verificaci[óo]n|best[äa]tigungscode)" + _E
        + r"|验证码|驗證碼|校验码|动态码|动态口令|短信码|一次性密码|认证码|認証コード|인증번호", re.I)),
    ("code", "one-time code", re.compile(  # bare "code": weak; see CODE_NOT_AFTER for its innocent uses
        _B + r"(?:code|c[óo]digo)" + _E
        + r"(?![\s-]*(?:review|reviews|freeze|base|snippets?|blocks?|changes?|samples?|examples?|style"
        r"|names?|books?|editor|quality|smells?|owners?|coverage|of\s+conduct|red|repository|repo)"
        + _E + r")"
        + r"|(?<![号维条代编邮页尺数解乱明价源密证态验校请惠换别起件])码(?![头数])", re.I)),
    ("token", "api key or token", re.compile(
        _B + r"(?:api[\s_-]?keys?|apikey|access[\s_-]?keys?(?:[\s_-]?id)?|secret(?:[\s_-]?access)?"
        r"(?:[\s_-]?keys?)?|client[\s_-]?secret|private[\s_-]?keys?|(?:auth|access|refresh|bearer|bot"
        r"|session|api|personal\s+access|deploy|app|oauth|id)?[\s_-]?tokens?|bearer|deploy\s+key"
        r"|ssh\s+key|signing\s+key|webhook\s+(?:secret|url)|connection\s+string)" + _E
        + r"(?![\s-]*(?:budgets?|limits?|counts?|usage|per|window|refresh|rotation)" + _E + r")"
        + r"|密钥|秘钥|令牌", re.I)),
    ("key", "api key or token", re.compile(_B + r"key" + _E, re.I)),
    ("card", "card number", re.compile(
        _B + r"(?:(?:credit|debit|bank|payment)?\s*card(?:\s*(?:number|no\.?|#))?|visa|master\s?card"
        r"|amex|american\s+express|discover|jcb|unionpay)" + _E
        + r"|(?:银行|信用|借记|储蓄|工资)?卡号?", re.I)),
    ("cvv", "card number", re.compile(
        _B + r"(?:cvv2?|cvc2?|cid|card\s+security\s+code|security\s+code)" + _E + r"|安全码", re.I)),
    ("iban", "iban", re.compile(_B + r"iban" + _E, re.I)),
    ("nid", "national id", re.compile(
        _B + r"(?:ssn|social\s+security(?:\s+(?:number|no\.?|#))?|national\s+insurance"
        r"(?:\s+(?:number|no\.?))?|ni\s+number|nino|passport(?:\s+(?:number|no\.?|#))?"
        r"|driver'?s?\s+licen[cs]e(?:\s+(?:number|no\.?|#))?|licen[cs]e\s+(?:number|no\.?)"
        r"|national\s+id(?:entity)?(?:\s+(?:number|card))?|id\s+card\s+number|identity\s+(?:card\s+)?number"
        r"|tax\s+id|aadhaar(?:\s+number)?|(?:chinese|resident)\s+id(?:\s+number)?)" + _E
        + r"|" + _B + r"SIN" + _E + r"|身份证(?:号码?)?|护照(?:号码?)?|社保号|驾驶证号|驾照号", re.I)),
]
CODE_NOT_AFTER = re.compile(
    r"\b(?:zip|postal|post|area|country|error|status|exit|source|promo|promotional|discount|coupon|voucher"
    r"|referral|invite|qr|bar|tax|dress|course|product|hs|colou?r|swift|sort|to|airport|sample|example"
    r"|machine|flight|parcel|package|pickup|pick-up|tracking|shipment|delivery)\s+$",
    re.I,
)
CODE_CONTEXT = re.compile(
    r"\b(?:text(?:ed)?|sms|sent|send|message|e-?mail(?:ed)?|verify|confirm|log\s?in|sign\s?in|unlock|door"
    r"|gate|alarm|keypad|enter(?:ed)?|type[sd]?|share|bank|asks?|asked|prompt(?:ed|s)?|use)\b"
    r"|短信|发给|登录|输入|解锁",
    re.I,
)
LOCK_CONTEXT = re.compile(r"\b(?:unlock|lock|door|gate|alarm|keypad|safe|garage)\b", re.I)

# --- Gaps between a keyword and its value ------------------------------------------------------
_COPULA = (
    r"(?:(?<![A-Za-z'])(?:is|was|are|were|be|been|has\s+been|had\s+been|used\s+to\s+be|will\s+be"
    r"|remains|reads|equals|set\s+to|changed\s+to|to|it'?s|it\s+is|that'?s|est|es|ist|lautet|era|é)"
    r"(?![A-Za-z])|'s|\u2019s|=|:|-|—|\u2013|是|为|為|は|就是|改成了?|设成了?|设为)"
)
_ADVERB = r"(?:now|still|just|actually|currently|probably|always|simply|literally|now\s+set\s+to)"
# keyword [descriptive tail] [, interrupter,] copula [adverb] [quote] value
AFTER = re.compile(
    r"(?P<tail>[^,;:=—\u2013]{0,60}?)(?:,(?P<inter>[^,]{1,110}),|,)?\s*(?:" + _COPULA + r"\s*){1,3}"
    r"(?:" + _ADVERB + r"\s+)*[\"'“\u2018`「]?\s*",
    re.I,
)
ADJACENT = re.compile(r"[\s#-]*[\"'“\u2018`「]?\s*")
# value [is|as|—] [that's] [my|the …] [two modifiers] keyword
BEFORE = re.compile(
    r"[\"'”\u2019」]?\s*(?:[,:—\u2013=-]\s*|(?P<verb>(?<![A-Za-z])(?:is|was|are|were|will\s+be|has\s+been|as)(?![A-Za-z])\s*"
    r"|'s\s*|(?:是|就是|为)\s*))+"
    r"(?:(?:that'?s|that\s+is|it'?s|this\s+is)\s+)?(?:(?:my|the|his|her|their|our|your|its|a|an|new|old"
    r"|current|actual|real|default|usual|same|one|only|user'?s|我的|你的|他的|她的|用户的)\s*)*"
    r"(?:(?:[\w'\u2019-]+\s+){0,2}|[\w-]{1,6})",
    re.I,
)
CONJ = re.compile(
    r"\b(?:and|but|so|or|because|while|when|if|then|although|though|however)\b|和|但|所以", re.I
)
CONJ_OR_COPULA = re.compile(
    r"\b(?:and|but|so|or|because|while|when|if|then|although|though|however|is|was|are|were)\b|和|但|所以|是",
    re.I,
)

# --- Things that are never a value ------------------------------------------------------------
NOT_A_VALUE = re.compile(
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}|\d{4}年(?:\d{1,2}月)?(?:\d{1,2}日)?"
    r"|\d{1,2}月\d{1,2}日|\d{1,2}:\d{2}(?::\d{2})?|[$€£¥₹]\s?\d[\d,.]*"
    r"|(?<![\d,.])\d[\d,.]*\s?(?:%|元|块|岁|次|位|个|名|张|分钟|秒|小时|天|周|度|号(?!码)|楼|层)"
    r"|(?<![\d.])\d+(?:\.\d+)+|(?<![\d,])\d{1,3}(?:,\d{3})+"
)
UNIT_AFTER = re.compile(
    r"[\s-]*(?:digits?|characters?|chars?|letters?|words?|times?|minutes?|mins?|seconds?|secs?|hours?"
    r"|hrs?|days?|weeks?|months?|years?|yrs?|users?|people|persons?|employees?|tokens?|requests?"
    r"|calls?|items?|pages?|books?|notes?|kids?|children|tickets?|servers?|kb|mb|gb|tb|km|kg|cm|mm"
    r"|miles?|lbs?|pounds?|dollars?|bucks|euros?|eur|usd|gbp|cny|rmb|yen|yuan|jpy|percent|degrees?"
    r"|calories|steps|points?|rows?|records?|after\s+tax)\b",
    re.I,
)
# An identifier noun right before a number owns it: "order 88231", "card ending in 4242".
OWNED_BY = re.compile(
    r"(?:\b(?:orders?|tickets?|refunds?|invoices?|tracking|booking|reservation|reference|ref|case|claim"
    r"|customer|member|employee|student|patient|room|apartment|apt|suite|flight|train|seat|store|lot"
    r"|batch|serial|model|part|sku|item|product|version|build|release|commit|revision|rev|ending|ends"
    r"|last|extension|ext|zip|postcode|page|chapter|line|step|level|size|aged?|isbn|issue|network"
    r"|ssid|username|user|handle|named|called|phone|mobile|cell|tel|fax|call|number|support|hotline"
    r"|helpline|from|at|via|pr|account|acct|rma|returns?|parcel|package|shipment|waybill)\b"
    r"(?:\s*(?:number|no\.?|num|id|#|in|with|at|:))*\s*#?\s*"
    # "order is 88231", "the booking reference was 4471": a record's own number, said with a verb
    # (not "number is", which a safe's or a door's code is said with too).
    r"|\b(?:orders?|tickets?|refunds?|invoices?|tracking|booking|reservation|reference|ref|case|claim"
    r"|flight|train|seat|room|rma|parcel|package|shipment|waybill)(?:\s+(?:number|no\.?|id|#))?"
    r"\s+(?:is|was|=)\s*#?\s*"
    r"|(?:订单号?|单号|工号|尾号|学号|编号|手机号?|电话|房间号?|航班号?|快递单?号|票号|邮编|客服|热线|熱線|专线|專線"
    r"|总机|總機|拨打|撥打|致电|致電"
    # a time of day owns the clock time after it, as "at" does: "每天1730", "凌晨0400"
    r"|每天|每日|每晚|早上|上午|中午|下午|晚上|凌晨|傍晚|夜里)"
    r"\s*(?:是|为|:)?\s*)$",
    re.I,
)
HASH_CONTEXT = re.compile(
    r"\b(?:commit|sha-?\d*|hash|checksum|digest|md5|fingerprint|uuid|guid|request|trace|build|image"
    r"|container|object|revision|rev|transaction|tx|etag|id)\b|提交|哈希|校验和",
    re.I,
)
STOPWORDS = frozenset(
    {
        "a", "an", "the", "my", "your", "his", "her", "their", "our", "its", "this", "that", "these", "those",
        "it", "not", "no", "never", "too", "very", "so", "still", "also", "just", "now", "always", "usually",
        "probably", "really", "same", "different", "new", "old", "weak", "strong", "long", "short", "simple",
        "easy", "hard", "difficult", "complex", "complicated", "secure", "insecure", "safe", "unsafe", "good",
        "bad", "great", "fine", "ok", "okay", "correct", "incorrect", "wrong", "right", "invalid", "valid",
        "required", "optional", "mandatory", "necessary", "empty", "blank", "missing", "unknown", "secret",
        "private", "personal", "public", "shared", "unique", "random", "temporary", "default", "visible",
        "case", "only", "in", "on", "at", "for", "with", "without", "from", "by", "of", "to", "under", "over",
        "about", "like", "as", "somewhere", "something", "nothing", "anything", "everything", "written",
        "hidden", "set", "what", "which", "where", "when", "how", "why", "who", "here", "there", "mine",
        "yours", "hers", "theirs", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
        "ten", "twelve", "all", "any", "some", "none", "both", "each", "every", "more", "less", "enough",
        "important", "sensitive", "broken", "terrible", "awful", "impossible", "annoying", "stupid", "silly",
        "perfect", "better", "best", "worse", "worst", "longer", "shorter", "weaker", "stronger", "easier",
        "harder", "simpler", "been", "due", "almost", "exactly", "and", "or", "but", "if", "because", "then",
        "than", "literally", "basically", "actually", "whatever", "yesterday", "today", "tomorrow", "again",
        "twice", "once", "please", "thanks", "later", "already", "anymore", "either", "though", "i", "me",
        "we", "you", "he", "she", "they", "him", "them", "us", "lol", "haha", "anyway", "yet", "ever",
        "first", "soon", "tonight", "everywhere", "anywhere", "online", "offline", "manually", "itself",
        "back", "up", "down", "out", "off", "well", "instead", "is", "was", "are", "were", "be", "has",
        "have", "had", "does", "do", "did", "will", "would", "can", "could", "should", "must", "may", "might",
        "shall", "works", "worked", "sent", "given", "shown", "known", "taken", "made", "done", "gone", "put",
        "kept", "told", "sold", "found", "got", "gotten", "held", "left", "built", "read", "heard", "said",
        "paid", "reset", "stuck", "stolen", "chosen", "forgotten", "frozen", "spoken", "seen", "become",
    }
)
PHRASE_STOP = frozenset(
    {
        "a", "an", "the", "my", "your", "his", "her", "their", "our", "its", "this", "that", "it", "not",
        "no", "never", "too", "very", "so", "still", "also", "just", "now", "long", "short", "stored",
        "saved", "written", "kept", "in", "on", "at", "for", "with", "from", "of", "to", "same", "different",
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve", "all", "any",
        "some", "random", "secret", "something", "what", "pretty", "quite", "really", "like", "mostly",
    }
)
WORD_SUFFIX_STOP = re.compile(r"(?:ed|ing|ly|able|ible|ive|ous|ful|less|ish|en)$", re.I)
WORD_FOLLOW = re.compile(
    r"\s*(?:$|[,;.!?)\"'”\u2019」]|(?:and|but|so|or|because|since|lol|haha|btw|for|on|at|in|to|from|with"
    r"|now|right|ok)\b)",
    re.I,
)
# A token ends at a colon or an equals sign, ASCII or full-width (U+FF1A, U+FF1D).
TOKEN = re.compile(r"[^\s:=\u2018-\u201f\u2e80-\u9fff\uac00-\ud7af\u3000-\u30ff\uff0c\uff1a\uff1b\uff1d]+")
STRIP_LEFT, STRIP_RIGHT = "\"'“\u2018«「(<[{`", "\"'”\u2019»」)>]}`.,;:?"
FILE_OR_HOST = re.compile(
    r"(?:\.(?:jpe?g|png|gif|heic|pdf|txt|docx?|xlsx?|csv|zip|gz|tar|py|js|json|html?|mp[34]|mov|log)"
    r"|\.(?:com|org|net|io|dev|ai|cn|co|uk|de|fr|app)(?:/\S*)?)$|://|^www\.|@[^@\s]+\.",
    re.I,
)
MEASURE = re.compile(
    r"^\d+(?:st|nd|rd|th|[-\s]?(?:digits?|characters?|chars?|letters?|words?|steps?|factors?|days?|weeks?"
    r"|months?|years?|hours?|minutes?|mins?|seconds?|secs?|km|kg|cm|mm|gb|mb|pm|am|x))$",
    re.I,
)
VERSION = re.compile(r"^v?\d+(?:\.\d+)+(?:[-+]\w+)*$", re.I)
ID_LIKE = re.compile(r"^(?:[A-Z]{1,6}[-_]?\d[\d-]*[A-Z]?|\d+[A-Z]{1,2}|[A-Z0-9]+(?:-[A-Z0-9]+)+)$")
SPECIAL = re.compile(r"[!@#$%^&*+=~|\\/<>?]")  # "_" alone makes snake_case, not a secret
HTML_ENTITY = re.compile(r"&(?:#x?[0-9a-f]+|[a-z]+);", re.I)
SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[。\n]")
CARRY_START = re.compile(r"\s*(?:it'?s|it\s+is|its|that'?s|是|=|:)\s*(?:now\s+)?[\"'“\u2018`「]?\s*", re.I)
_ZH_DIGIT = "[零\u3007一二三四五六七八九壹贰貳叁參肆伍陆陸柒捌玖]"
SPELLED = re.compile(
    r"(?<![A-Za-z])(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)(?:[\s,-]+(?:zero|oh|one|two"
    r"|three|four|five|six|seven|eight|nine)){3,}(?![A-Za-z])"
    # Numerals run together, or in groups of two or more split by single spaces ("四八二九",
    # "六二二二 零二一二 三四五六 七八九四"), as `text.digit_chains` joins digits.
    rf"|(?:{_ZH_DIGIT}{{2,}} )*{_ZH_DIGIT}{{4,}}(?: {_ZH_DIGIT}{{2,}})*(?![年月日号])",
    re.I,
)
# China's financial numerals (大写, written on cheques so they cannot be altered; chosen for a PIN
# for the same reason: "叁贰柒柒壹零"), simplified and traditional.
FINANCIAL_DIGITS = {"壹": "1", "贰": "2", "貳": "2", "叁": "3", "參": "3", "肆": "4", "伍": "5",
                    "陆": "6", "陸": "6", "柒": "7", "捌": "8", "玖": "9"}  # fmt: skip
# Digits told by how many times each comes ("three sixes and a one", "double seven", "六个八",
# "三個六一個一"): `text.counted_digits` spells them out.
_EN_DIGIT = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)"
_EN_PLURAL = r"(?:zero(?:e?s)|ohs|ones|twos|threes|fours|fives|sixes|sevens|eights|nines)"
_EN_COUNTED = (
    rf"(?:(?:two|three|four|five|six|seven|eight|nine)\s+{_EN_PLURAL}|(?:double|triple)\s+{_EN_DIGIT})"
)
COUNTED_GROUP = re.compile(rf"(?<![A-Za-z]){_EN_COUNTED}(?![A-Za-z])|[两兩二三四五六七八九十]\s*[个個]", re.I)
_EN_PART = rf"(?:{_EN_COUNTED}|(?:an?\s+)?{_EN_DIGIT})"
_ZH_COUNTED = rf"[两兩二三四五六七八九十]\s*[个個]\s*{_ZH_DIGIT}"
_ZH_PART = rf"(?:{_ZH_COUNTED}|一\s*[个個]\s*{_ZH_DIGIT})"
_ZH_JOIN = r"[\s,\uff0c\u3001]*(?:加|和|跟|再|再加|然后|然後|后面|後面|後尾)?\s*"
COUNTED = re.compile(
    rf"(?<![A-Za-z]){_EN_PART}(?:(?:\s*,)?\s*(?:\band\s+|\bthen\s+|\bfollowed\s+by\s+)?{_EN_PART})*(?![A-Za-z])"
    rf"|{_ZH_PART}(?:{_ZH_JOIN}{_ZH_PART})*",
    re.I,
)

# --- Values recognised by their form alone -----------------------------------------------------
PREFIXED = re.compile(
    r"(?<![\w-])(?:sk-(?:proj-|ant-(?:api\d+-)?|svcacct-|admin-)?[A-Za-z0-9_-]{20,}|[sr]k_(?:live|test)_"
    r"[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{40,}"
    r"|glpat-[\w-]{20,}|(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[0-9A-Z]{16}|xox[abposr]-[\w-]{10,}"
    r"|xapp-[\w-]{10,}|AIza[\w-]{35}|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{30,}|pypi-AgE[\w-]{50,}"
    r"|dop_v1_[a-f0-9]{64}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}|SG\.[\w-]{22}\.[\w-]{43}|ya29\.[\w-]{20,}"
    r"|1//0[\w-]{20,}|eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,}|[MN][A-Za-z\d]{23,27}\.[\w-]{6}\.[\w-]{27,}"
    r"|hooks\.slack\.com/services/\S+)"
)
PRIVATE_KEY = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\sA-Za-z0-9+/=]*(?:-----END [A-Z ]*PRIVATE KEY-----)?"
)
URL_PASSWORD = re.compile(r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*://[^\s:/@]+:(?P<v>[^\s@/]+)@", re.I)
EMAIL_PAIR = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+\.[\w.-]+\s*[/|:]\s*(?P<v>[^\s,;]{4,})")
# A login pasted from notes as "what it opens: name / password" ("Clinic guest Wi-Fi: ClinicGuest /
# stretchandbreathe", "POS login: staff02 / boba2024!"); the second value must look like a password
# (`forms.password_like`), so "Account: Savings / Checking" is no pair.
LOGIN_PAIR = re.compile(
    r"(?i)\b(?:wi-?fi|ssid|log-?in|logon|sign-?in|account|portal|router|vpn|admin|credentials?|creds"
    r"|user(?:name)?)\b[^:\n]{0,25}:\s*[^\s/|:,;]{2,40}\s*[/|]\s*(?P<v>[^\s,;\uff0c\u3002]{6,})"
)
BEARER = re.compile(r"\bBearer\s+(?P<v>[\w\-.~+/]{16,}=*)")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
SSN = re.compile(r"(?<![\d-])(?P<a>\d{3})-(?P<g>\d{2})-(?P<s>\d{4})(?![\d-])")
PRC_ID = re.compile(r"(?<![0-9A-Za-z])\d{17}[\dXx](?![0-9A-Za-z])")
IBAN_START = re.compile(r"(?<![A-Za-z0-9])([A-Za-z]{2})(\d{2})")
IBAN_LENGTHS = {  # country -> IBAN length (SWIFT IBAN registry)
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29,
    "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24,
    "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21,
    "HU": 28, "IE": 22, "IL": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LI": 21,
    "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30,
    "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24,
    "SE": 24, "SI": 19, "SK": 24, "SM": 27, "TN": 24, "TR": 26, "UA": 29, "VG": 24, "XK": 20,
}

# Spelled digits, as a rewrite may write them ("four-eight-two", "四八二").
DIGIT_NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
CJK_DIGITS = "零一二三四五六七八九"
