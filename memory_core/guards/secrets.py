"""Secrets: what may never become a memory, in any text derived from the user's words.

`scan_secrets` finds secret values in raw user text and redacts them; `redact_values` and
`contains_values` then check every text derived from it (a rewrite, an excerpt, a title, a reply)
for the same values, so a rewrite cannot carry a secret past the guard. Pure functions over text.

A value is a secret when
- its form alone says so: well-known token prefixes (sk-, ghp_, AKIA, xoxb-, JWT, private key
  blocks, a password inside a URL), long random strings, card numbers (Luhn), IBANs (mod 97),
  PRC resident ids (ISO 7064 MOD 11-2), dashed US SSNs (SSA rules); or
- a secret keyword (English, Chinese and a few other languages) and a value of the right shape
  share a sentence, in either order, up to _REACH characters apart. A plain word counts only after
  "is" / ":" ("my password is sunshine") or as the clause's last word ("the password tulip"); digits
  and credential-shaped strings count anywhere in the sentence.

Decided on purpose: UUIDs and hex strings are identifiers unless a secret keyword is in the
sentence; a hex string in a sentence about a commit, hash or checksum is not a secret; years,
dates, prices, counts, phone numbers and numbers owned by an identifier ("order 88231", "card
ending 4242", "PR 4412") are never values; parcel pickup codes are delivery facts, not secrets; a
card number tied to a card keyword counts even without Luhn. A value found by several keywords is
named after the one tied to it most closely ("my PIN is 4821 and the wifi password is x1").
_REACH (300 characters) covers any real sentence and keeps long inputs linear.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

REDACTED = "[REDACTED]"

# Full-width ASCII (Chinese input methods) and the ideographic space, mapped one char to one
# char so that offsets in the mapped text are offsets in the original.
_FULLWIDTH = {0xFF01 + i: 0x21 + i for i in range(0x5E) if i != 0x0B} | {0x3000: 0x20}
# (the full-width comma stays: "482913" + U+FF0C + "5分钟" is no decimal 482913,5)

_B, _E = r"(?<![A-Za-z0-9_])", r"(?![A-Za-z0-9_])"  # \b misfires next to CJK (which is \w)

# --- Keywords: (class, kind, pattern). A class decides which value shapes it accepts. -----------
_PW_NOT = (
    r"(?![\s-]*(?:reset|resets|change|changes|manager|managers|policy|policies|rules?|requirements?"
    r"|page|link|e-?mail|field|hint|strength|expiry|expiration|rotation|protected|recovery|prompt|box"
    r"|form|screen|dialog|generator|reuse|leaks?|breach|length|complexity|history|login|less|feature"
    r"|settings?|vault|storage|hash(?:es|ing)?|checker|flow|button|input|updates?)" + _E + ")"
)
_KEYWORDS: list[tuple[str, str, re.Pattern[str]]] = [
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
    ("code", "one-time code", re.compile(  # bare "code": weak; see _CODE_NOT_AFTER for its innocent uses
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
_CODE_NOT_AFTER = re.compile(
    r"\b(?:zip|postal|post|area|country|error|status|exit|source|promo|promotional|discount|coupon|voucher"
    r"|referral|invite|qr|bar|tax|dress|course|product|hs|colou?r|swift|sort|to|airport|sample|example"
    r"|machine|flight|parcel|package|pickup|pick-up|tracking|shipment|delivery)\s+$",
    re.I,
)
_CODE_CONTEXT = re.compile(
    r"\b(?:text(?:ed)?|sms|sent|send|message|e-?mail(?:ed)?|verify|confirm|log\s?in|sign\s?in|unlock|door"
    r"|gate|alarm|keypad|enter(?:ed)?|type[sd]?|share|bank|asks?|asked|prompt(?:ed|s)?|use)\b"
    r"|短信|发给|登录|输入|解锁",
    re.I,
)
_LOCK_CONTEXT = re.compile(r"\b(?:unlock|lock|door|gate|alarm|keypad|safe|garage)\b", re.I)

# --- Gaps between a keyword and its value ------------------------------------------------------
_COPULA = (
    r"(?:(?<![A-Za-z'])(?:is|was|are|were|be|been|has\s+been|had\s+been|used\s+to\s+be|will\s+be"
    r"|remains|reads|equals|set\s+to|changed\s+to|to|it'?s|it\s+is|that'?s|est|es|ist|lautet|era|é)"
    r"(?![A-Za-z])|'s|\u2019s|=|:|-|—|\u2013|是|为|為|は|就是|改成了?|设成了?|设为)"
)
_ADVERB = r"(?:now|still|just|actually|currently|probably|always|simply|literally|now\s+set\s+to)"
# keyword [descriptive tail] [, interrupter,] copula [adverb] [quote] value
_AFTER = re.compile(
    r"(?P<tail>[^,;:=—\u2013]{0,60}?)(?:,(?P<inter>[^,]{1,110}),|,)?\s*(?:" + _COPULA + r"\s*){1,3}"
    r"(?:" + _ADVERB + r"\s+)*[\"'“\u2018`「]?\s*",
    re.I,
)
_ADJACENT = re.compile(r"[\s#-]*[\"'“\u2018`「]?\s*")
# value [is|as|—] [that's] [my|the …] [two modifiers] keyword
_BEFORE = re.compile(
    r"[\"'”\u2019」]?\s*(?:[,:—\u2013=-]\s*|(?P<verb>(?<![A-Za-z])(?:is|was|are|were|will\s+be|has\s+been|as)(?![A-Za-z])\s*"
    r"|'s\s*|(?:是|就是|为)\s*))+"
    r"(?:(?:that'?s|that\s+is|it'?s|this\s+is)\s+)?(?:(?:my|the|his|her|their|our|your|its|a|an|new|old"
    r"|current|actual|real|default|usual|same|one|only|user'?s|我的|你的|他的|她的|用户的)\s*)*"
    r"(?:(?:[\w'\u2019-]+\s+){0,2}|[\w-]{1,6})",
    re.I,
)
_CONJ = re.compile(
    r"\b(?:and|but|so|or|because|while|when|if|then|although|though|however)\b|和|但|所以", re.I
)
_CONJ_OR_COPULA = re.compile(
    r"\b(?:and|but|so|or|because|while|when|if|then|although|though|however|is|was|are|were)\b|和|但|所以|是",
    re.I,
)

# --- Things that are never a value ------------------------------------------------------------
_NOT_A_VALUE = re.compile(
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}|\d{4}年(?:\d{1,2}月)?(?:\d{1,2}日)?"
    r"|\d{1,2}月\d{1,2}日|\d{1,2}:\d{2}(?::\d{2})?|[$€£¥₹]\s?\d[\d,.]*"
    r"|(?<![\d,.])\d[\d,.]*\s?(?:%|元|块|岁|次|位|个|名|张|分钟|秒|小时|天|周|度|号(?!码)|楼|层)"
    r"|(?<![\d.])\d+(?:\.\d+)+|(?<![\d,])\d{1,3}(?:,\d{3})+"
)
_UNIT_AFTER = re.compile(
    r"[\s-]*(?:digits?|characters?|chars?|letters?|words?|times?|minutes?|mins?|seconds?|secs?|hours?"
    r"|hrs?|days?|weeks?|months?|years?|yrs?|users?|people|persons?|employees?|tokens?|requests?"
    r"|calls?|items?|pages?|books?|notes?|kids?|children|tickets?|servers?|kb|mb|gb|tb|km|kg|cm|mm"
    r"|miles?|lbs?|pounds?|dollars?|bucks|euros?|eur|usd|gbp|cny|rmb|yen|yuan|jpy|percent|degrees?"
    r"|calories|steps|points?|rows?|records?|after\s+tax)\b",
    re.I,
)
# An identifier noun right before a number owns it: "order 88231", "card ending in 4242".
_OWNED_BY = re.compile(
    r"(?:\b(?:orders?|tickets?|refunds?|invoices?|tracking|booking|reservation|reference|ref|case|claim"
    r"|customer|member|employee|student|patient|room|apartment|apt|suite|flight|train|seat|store|lot"
    r"|batch|serial|model|part|sku|item|product|version|build|release|commit|revision|rev|ending|ends"
    r"|last|extension|ext|zip|postcode|page|chapter|line|step|level|size|aged?|isbn|issue|network"
    r"|ssid|username|user|handle|named|called|phone|mobile|cell|tel|fax|call|number|support|hotline"
    r"|helpline|from|at|via|pr|account|acct)\b"
    r"(?:\s*(?:number|no\.?|num|id|#|in|with|at|:))*\s*#?\s*"
    r"|(?:订单号?|单号|工号|尾号|学号|编号|手机号?|电话|房间号?|航班号?|快递单?号|票号|邮编|客服|热线|拨打|致电)"
    r"\s*(?:是|为|:)?\s*)$",
    re.I,
)
_HASH_CONTEXT = re.compile(
    r"\b(?:commit|sha-?\d*|hash|checksum|digest|md5|fingerprint|uuid|guid|request|trace|build|image"
    r"|container|object|revision|rev|transaction|tx|etag|id)\b|提交|哈希|校验和",
    re.I,
)
_STOPWORDS = frozenset(
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
_PHRASE_STOP = frozenset(
    {
        "a", "an", "the", "my", "your", "his", "her", "their", "our", "its", "this", "that", "it", "not",
        "no", "never", "too", "very", "so", "still", "also", "just", "now", "long", "short", "stored",
        "saved", "written", "kept", "in", "on", "at", "for", "with", "from", "of", "to", "same", "different",
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve", "all", "any",
        "some", "random", "secret", "something", "what", "pretty", "quite", "really", "like", "mostly",
    }
)
_WORD_SUFFIX_STOP = re.compile(r"(?:ed|ing|ly|able|ible|ive|ous|ful|less|ish|en)$", re.I)
_WORD_FOLLOW = re.compile(
    r"\s*(?:$|[,;.!?)\"'”\u2019」]|(?:and|but|so|or|because|since|lol|haha|btw|for|on|at|in|to|from|with"
    r"|now|right|ok)\b)",
    re.I,
)
_TOKEN = re.compile(r"[^\s:=\u2018-\u201f\u2e80-\u9fff\uac00-\ud7af\u3000-\u30ff\uff0c\uff1b]+")
_STRIP_LEFT, _STRIP_RIGHT = "\"'“\u2018«「(<[{`", "\"'”\u2019»」)>]}`.,;:?"
_FILE_OR_HOST = re.compile(
    r"(?:\.(?:jpe?g|png|gif|heic|pdf|txt|docx?|xlsx?|csv|zip|gz|tar|py|js|json|html?|mp[34]|mov|log)"
    r"|\.(?:com|org|net|io|dev|ai|cn|co|uk|de|fr|app)(?:/\S*)?)$|://|^www\.|@[^@\s]+\.",
    re.I,
)
_MEASURE = re.compile(
    r"^\d+(?:st|nd|rd|th|[-\s]?(?:digits?|characters?|chars?|letters?|words?|steps?|factors?|days?|weeks?"
    r"|months?|years?|hours?|minutes?|mins?|seconds?|secs?|km|kg|cm|mm|gb|mb|pm|am|x))$",
    re.I,
)
_VERSION = re.compile(r"^v?\d+(?:\.\d+)+(?:[-+]\w+)*$", re.I)
_ID_LIKE = re.compile(r"^(?:[A-Z]{1,6}[-_]?\d[\d-]*[A-Z]?|\d+[A-Z]{1,2}|[A-Z0-9]+(?:-[A-Z0-9]+)+)$")
_SPECIAL = re.compile(r"[!@#$%^&*+=~|\\/<>?]")  # "_" alone makes snake_case, not a secret
_HTML_ENTITY = re.compile(r"&(?:#x?[0-9a-f]+|[a-z]+);", re.I)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[。\n]")
_CARRY_START = re.compile(r"\s*(?:it'?s|it\s+is|its|that'?s|是|=|:)\s*(?:now\s+)?[\"'“\u2018`「]?\s*", re.I)
_SPELLED = re.compile(
    r"(?<![A-Za-z])(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)(?:[\s,-]+(?:zero|oh|one|two"
    r"|three|four|five|six|seven|eight|nine)){3,}(?![A-Za-z])|[零\u3007一二三四五六七八九]{4,}(?![年月日号])",
    re.I,
)

# --- Values recognised by their form alone -----------------------------------------------------
_PREFIXED = re.compile(
    r"(?<![\w-])(?:sk-(?:proj-|ant-(?:api\d+-)?|svcacct-|admin-)?[A-Za-z0-9_-]{20,}|[sr]k_(?:live|test)_"
    r"[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{40,}"
    r"|glpat-[\w-]{20,}|(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[0-9A-Z]{16}|xox[abposr]-[\w-]{10,}"
    r"|xapp-[\w-]{10,}|AIza[\w-]{35}|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{30,}|pypi-AgE[\w-]{50,}"
    r"|dop_v1_[a-f0-9]{64}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}|SG\.[\w-]{22}\.[\w-]{43}|ya29\.[\w-]{20,}"
    r"|1//0[\w-]{20,}|eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,}|[MN][A-Za-z\d]{23,27}\.[\w-]{6}\.[\w-]{27,}"
    r"|hooks\.slack\.com/services/\S+)"
)
_PRIVATE_KEY = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\sA-Za-z0-9+/=]*(?:-----END [A-Z ]*PRIVATE KEY-----)?"
)
_URL_PASSWORD = re.compile(r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*://[^\s:/@]+:(?P<v>[^\s@/]+)@", re.I)
_EMAIL_PAIR = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+\.[\w.-]+\s*[/|:]\s*(?P<v>[^\s,;]{4,})")
_BEARER = re.compile(r"\bBearer\s+(?P<v>[\w\-.~+/]{16,}=*)")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_SSN = re.compile(r"(?<![\d-])(?P<a>\d{3})-(?P<g>\d{2})-(?P<s>\d{4})(?![\d-])")
_PRC_ID = re.compile(r"(?<![0-9A-Za-z])\d{17}[\dXx](?![0-9A-Za-z])")
_IBAN_START = re.compile(r"(?<![A-Za-z0-9])([A-Za-z]{2})(\d{2})")
_IBAN_LENGTHS = {  # country -> IBAN length (SWIFT IBAN registry)
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29,
    "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24,
    "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21,
    "HU": 28, "IE": 22, "IL": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LI": 21,
    "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30,
    "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24,
    "SE": 24, "SI": 19, "SK": 24, "SM": 27, "TN": 24, "TR": 26, "UA": 29, "VG": 24, "XK": 20,
}


@dataclass(frozen=True)
class SecretScan:
    kinds: tuple[str, ...]
    redacted: str
    values: tuple[str, ...] = field(default=())

    @property
    def found(self) -> bool:
        return bool(self.kinds)


@dataclass(frozen=True)
class _Cand:
    start: int
    end: int
    shape: str  # digits | credential | idlike | word | quoted | phrase | nino | iban
    ndigits: int = 0
    loose_ok: bool = True  # may stand anywhere in the sentence, not only next to the keyword


@dataclass(frozen=True)
class _Keyword:
    start: int
    end: int
    cls: str
    kind: str


# --- Checksums ---------------------------------------------------------------------------------
def _luhn_ok(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _iban_ok(compact: str) -> bool:
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(char, 36)) for char in rearranged)) % 97 == 1


def _prc_id_ok(value: str) -> bool:
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    total = sum(int(d) * w for d, w in zip(value[:17], weights, strict=True))
    month, day = int(value[10:12]), int(value[12:14])
    return "10X98765432"[total % 11] == value[17].upper() and 1 <= month <= 12 and 1 <= day <= 31


def _ssn_ok(area: str, group: str, serial: str) -> bool:
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


def _random_looking(token: str) -> bool:
    """Long strings that read like generated secrets: hex of 32+, or mixed-case base62/64 that
    switches character class often (words, file names and ids do not)."""
    if len(token) < 20 or not re.fullmatch(r"[A-Za-z0-9+/=_\-.~]+", token) or _FILE_OR_HOST.search(token):
        return False
    counts = [token.count(c) for c in set(token)]
    entropy = -sum(n / len(token) * math.log2(n / len(token)) for n in counts)
    if re.fullmatch(r"[0-9a-fA-F]+", token):
        mixed = re.search(r"\d", token) and re.search(r"[a-f]", token, re.I)
        return len(token) >= 32 and entropy >= 3.0 and bool(mixed)
    classes = ["l" if c.islower() else "u" if c.isupper() else "d" if c.isdigit() else "o" for c in token]
    if not {"l", "u", "d"} <= set(classes) or classes.count("d") > 0.6 * len(token):
        return False
    switches = sum(a != b for a, b in itertools.pairwise(classes))
    return switches >= 0.3 * len(token) and entropy >= 3.5


# --- Finding values by their form --------------------------------------------------------------
def _iban_spans(text: str) -> list[tuple[int, int, bool]]:
    """IBAN-shaped spans (country code, length per country, spaces allowed), with mod-97 result."""
    spans = []
    for match in _IBAN_START.finditer(text):
        length = _IBAN_LENGTHS.get(match.group(1).upper())
        if length is None:
            continue
        chars: list[str] = []
        pos = match.start()
        while pos < len(text) and len(chars) < length:
            if text[pos].isascii() and text[pos].isalnum():
                chars.append(text[pos].upper())
            elif not (text[pos] == " " and pos + 1 < len(text) and text[pos + 1].isalnum()):
                break
            pos += 1
        if len(chars) == length and not (pos < len(text) and text[pos].isascii() and text[pos].isalnum()):
            spans.append((match.start(), pos, _iban_ok("".join(chars))))
    return spans


def _form_hits(text: str, sentences: list[tuple[int, int]]) -> list[tuple[int, int, str]]:  # noqa: C901
    hits: list[tuple[int, int, str]] = []
    for pattern, kind in ((_PREFIXED, "api key or token"), (_PRIVATE_KEY, "api key or token")):
        hits += [(m.start(), m.end(), kind) for m in pattern.finditer(text)]
    inner = ((_URL_PASSWORD, "password"), (_EMAIL_PAIR, "password"), (_BEARER, "api key or token"))
    for pattern, kind in inner:
        hits += [(m.start("v"), m.end("v"), kind) for m in pattern.finditer(text)]
    hits += [(start, end, "iban") for start, end, ok in _iban_spans(text) if ok]
    hits += [(m.start(), m.end(), "national id") for m in _PRC_ID.finditer(text) if _prc_id_ok(m.group())]
    for m in _SSN.finditer(text):
        if _ssn_ok(m["a"], m["g"], m["s"]) and not _owned(text, m.start()):
            hits.append((m.start(), m.end(), "national id"))
    for s_start, s_end in sentences:
        sentence = text[s_start:s_end]
        hashes_here = bool(_HASH_CONTEXT.search(sentence))
        for start, end, _ in _digit_chains(sentence):
            digits = re.sub(r"\D", "", sentence[start:end])
            if 13 <= len(digits) <= 19 and _luhn_ok(digits) and not _owned(text, s_start + start):
                hits.append((s_start + start, s_start + end, "card number"))
        for m in _TOKEN.finditer(sentence):
            token = m.group().strip(_STRIP_RIGHT)
            if _random_looking(token) and not _UUID.match(token):
                is_hex = bool(re.fullmatch(r"[0-9a-fA-F]+", token))
                if not (is_hex and hashes_here):
                    hits.append((s_start + m.start(), s_start + m.start() + len(token), "api key or token"))
    return hits


def _owned(text: str, start: int) -> bool:
    return bool(_OWNED_BY.search(text[max(0, start - 40) : start]))


# --- Finding values by keyword -----------------------------------------------------------------
def _sentences(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        before = text[max(0, match.start() - 64) : match.start()].split()
        word = before[-1] if before else ""
        if match.group() in "!?" and (re.search(r"\d", word) or _SPECIAL.search(word)):
            continue  # "P@ssw0rd! is what I use": the mark belongs to the value
        spans.append((start, match.end()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def _digit_chains(s: str) -> list[tuple[int, int, int]]:
    """Runs of digits joined by "-", by single spaces between groups of 2-6 ("482 913"), or by
    single spaces between single digits ("1 9 8 4")."""
    runs = [(m.start(), m.end()) for m in re.finditer(r"\d+", s)]
    chains, i = [], 0
    while i < len(runs):
        j = i
        while j + 1 < len(runs):
            gap = s[runs[j][1] : runs[j + 1][0]]
            sizes = (runs[j][1] - runs[j][0], runs[j + 1][1] - runs[j + 1][0])
            grouped = all(2 <= n <= 6 for n in sizes) or sizes == (1, 1)
            if gap in ("-", "\u2013") or (gap == " " and grouped):
                j += 1
            else:
                break
        start, end = runs[i][0], runs[j][1]
        chains.append((start, end, sum(b - a for a, b in runs[i : j + 1])))
        i = j + 1
    return chains


def _phone_like(s: str, start: int, end: int) -> bool:
    """+44 20 7946 0958, 415-555-0123, 020 7946 0958, 13812345678: numbers to call, not secrets."""
    digits = re.sub(r"\D", "", s[start:end])
    if re.search(r"(?:\+\d{1,3}|\(\d{2,4}\))[\s-]?$", s[max(0, start - 7) : start]):
        return True
    grouped = re.fullmatch(r"\d{3}[\s-]\d{3}[\s-]\d{4}", s[start:end])
    return bool(grouped or re.fullmatch(r"1[3-9]\d{9}|0\d{9,10}", digits))


def _is_year(value: str) -> bool:
    return bool(re.fullmatch(r"(?:19|20)\d\d", value))


def _candidates(s: str, base: int) -> list[_Cand]:  # noqa: C901
    """Every span of sentence `s` that could be a secret value, with its shape."""
    blocked = [(m.start(), m.end()) for m in _NOT_A_VALUE.finditer(s)]

    def free(start: int, end: int) -> bool:
        return not any(a < end and start < b for a, b in blocked)

    cands: list[_Cand] = []
    for start, end, n in _digit_chains(s):
        before, after = s[max(0, start - 3) : start], s[end : end + 3]
        glued = re.search(r"[A-Za-z]$|[A-Za-z]{2}-$|[+#$€£¥]$|\d[.,:/]$", before)
        if glued or re.match(r"[A-Za-z%]|[.,:/]\d", after):  # part of a word, price, decimal, time
            continue
        if free(start, end) and not _UNIT_AFTER.match(s, end) and not _phone_like(s, start, end):
            cands.append(_Cand(base + start, base + end, "digits", n, not _is_year(s[start:end])))
    for m in _TOKEN.finditer(s):
        token = m.group().lstrip(_STRIP_LEFT)
        start = m.start() + len(m.group()) - len(token)
        token = token.rstrip(_STRIP_RIGHT)
        end = start + len(token)
        if not token or _FILE_OR_HOST.search(token) or _VERSION.match(token) or _MEASURE.match(token):
            continue
        if _HTML_ENTITY.search(token):  # "Bob&#x27;s" is escaped text
            continue
        if not free(start, end):
            continue
        letters = sum(c.isalpha() for c in token)
        digits = sum(c.isdigit() for c in token)
        if letters and (digits or _SPECIAL.search(token)) and len(token) >= 4:
            if _ID_LIKE.match(token):
                cands.append(_Cand(base + start, base + end, "idlike", digits, False))
            else:
                loose = len(token) >= 6 and bool(re.search(r"[a-z]", token) or _SPECIAL.search(token))
                cands.append(_Cand(base + start, base + end, "credential", digits, loose))
        elif letters and "_" in token and len(token) >= 6:  # "my_secret_pass", only next to a keyword
            cands.append(_Cand(base + start, base + end, "credential", 0, False))
        elif letters == len(token) - token.count("-") - token.count("'") and letters >= 3:
            preceding = s[max(0, start - 30) : start].split()
            follows_det = bool(preceding) and preceding[-1].lower() in _STOPWORDS
            if (
                token.lower() not in _STOPWORDS
                and (token.isupper() or not _WORD_SUFFIX_STOP.search(token))
                and _WORD_FOLLOW.match(s, end)
            ):
                cands.append(_Cand(base + start, base + end, "word", 0, not follows_det))
    for m in _SPELLED.finditer(s):  # "four-eight-two-nine-one-three", "四八二九一三"
        cands.append(_Cand(base + m.start(), base + m.end(), "digits", len(_spelled_digits(m.group()))))
    for m in re.finditer(r"[\"“\u2018'`「]([^\"”\u2019'`」]{3,64})[\"”\u2019'`」]", s):
        cands.append(_Cand(base + m.start(1), base + m.end(1), "quoted"))
    for m in re.finditer(r"(?<=:)\s*([\u4e00-\u9fff]{2,12})", s):
        if not re.match(r"[忘不没已在要是请错输重修无空]", m.group(1)):
            cands.append(_Cand(base + m.start(1), base + m.end(1), "word"))
    for m in re.finditer(r"(?<![A-Za-z])[A-Z]{2}\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D](?![A-Za-z0-9])", s):
        cands.append(_Cand(base + m.start(), base + m.end(), "nino"))
    cands += [_Cand(base + a, base + b, "iban") for a, b, _ in _iban_spans(s)]
    # a number owned by an identifier ("order 88231") is never taken from afar
    return [replace(c, loose_ok=False) if c.loose_ok and _owned(s, c.start - base) else c for c in cands]


def _keywords(text: str) -> list[_Keyword]:
    found = []
    for cls, kind, pattern in _KEYWORDS:
        for m in pattern.finditer(text):
            if m.group().lower() == "sin" and m.group() != "SIN":
                continue  # "sin" in lower case is the English word
            if cls == "code" and _CODE_NOT_AFTER.search(text[max(0, m.start() - 16) : m.start()]):
                continue
            found.append(_Keyword(m.start(), m.end(), cls, kind))
    # "one-time password" is an OTP, not a password: drop keywords inside a longer one. Sorted by
    # start, longest first, a keyword's container always comes before it.
    kept: list[_Keyword] = []
    reach, reach_start = -1, -1
    for kw in sorted(found, key=lambda k: (k.start, -k.end)):
        if kw.end < reach or (kw.end == reach and reach_start < kw.start):
            continue
        kept.append(kw)
        if kw.end > reach:
            reach, reach_start = kw.end, kw.start
    return kept


def _tight(m: re.Match[str] | None) -> bool:
    """An `_AFTER` gap that really ties keyword and value: a short tail without a conjunction, and
    no second verb unless a colon announces the value ("the password you need is in caps: X")."""
    if not m or len(m["tail"].split()) > 8 or (m["inter"] and len(m["inter"].split()) > 16):
        return False
    tail_ok = not _CONJ_OR_COPULA.search(m["tail"])
    return tail_ok or (m.group().rstrip(" \"'“\u2018`「").endswith(":") and not _CONJ.search(m["tail"]))


def _link(text: str, kw: _Keyword, cand: _Cand) -> str:
    """How `cand` is tied to `kw`: "tight" (a copula after the keyword), "adjacent", "before" (value
    first, with a verb: "X is my PIN"), "beside" (value first, punctuation: "X — my PIN") or "loose"."""
    if cand.start >= kw.end and cand.start - kw.end <= 200:
        gap = text[kw.end : cand.start]
        if _ADJACENT.fullmatch(gap):
            return "adjacent"
        if _tight(_AFTER.fullmatch(gap)):
            return "tight"
    elif 0 <= kw.start - cand.end <= 80 and (m := _BEFORE.fullmatch(text[cand.end : kw.start])):
        return "before" if m["verb"] else "beside"
    return "loose"


def _names_it(kw: _Keyword, cand: _Cand, link: str, text: str) -> bool:
    """"uses the password tulip": a plain word right after "the/my … password" that ends the clause
    and does not read as a noun of its own ("a password reader")."""
    ends = re.match(r"\s*(?:$|[,;.!?)\"'”\u2019」])", text[cand.end :])
    before = text[max(0, kw.start - 40) : kw.start]
    owner = re.search(r"\b(?:the|my|his|her|their|our|your|user'?s)\s+(?:[\w-]+\s+)?$", before, re.I)
    noun = re.search(r"(?:er|or|ion|ment|ness|ity|ure|age|ance|ence)$", text[cand.start : cand.end], re.I)
    return link == "adjacent" and bool(ends and owner) and not noun


def _accepts(kw: _Keyword, cand: _Cand, link: str, text: str, code_context: bool) -> bool:  # noqa: C901
    """Whether keyword `kw` takes `cand` as its value, given how the two are linked; `code_context`
    says whether the sentence speaks of codes being sent or typed."""
    cls, shape, n = kw.cls, cand.shape, cand.ndigits
    near = link in ("tight", "adjacent", "before", "beside")
    value = text[cand.start : cand.end]
    if link == "loose" and not cand.loose_ok:
        return False
    if cls in ("password", "phrase"):
        if shape == "digits":
            return 4 <= n <= (16 if near else 8)
        if shape in ("credential", "idlike"):
            return True
        if shape == "word":  # "the password tulip" only when the word ends the clause
            return link == "tight" or _names_it(kw, cand, link, text) or (link == "before" and cand.loose_ok)
        if shape == "quoted":
            return near
        return shape == "phrase" and link == "tight"
    if cls == "code":  # bare "code" takes digits, and from afar only where codes are sent or typed
        return shape == "digits" and 4 <= n <= 8 and (near or code_context)
    if cls in ("pin", "otp"):
        if shape == "digits":
            return 4 <= n <= (12 if cls == "pin" and near else 8)
        if shape in ("credential", "idlike"):
            short = len(value) <= 14 and bool(re.search(r"\d", value))
            return (short and near) or shape == "credential"
        return False
    if cls in ("token", "key"):
        if shape in ("credential", "idlike"):
            return len(value) >= 8 and (near or shape == "credential" or cls == "token")
        return cls == "token" and near and shape == "quoted" and len(value) >= 8
    if cls == "card":
        digits = re.sub(r"\D", "", value)
        return shape == "digits" and 13 <= n <= 19 and (near or _luhn_ok(digits))
    if cls == "cvv":
        return shape == "digits" and 3 <= n <= 4 and near
    if cls == "iban":
        return shape == "iban"
    if cls == "nid":
        if shape == "digits":
            return 8 <= n <= 18
        if shape in ("credential", "idlike"):
            return n >= 5 and len(value) <= 20
        return shape == "nino"
    return False


def _phrase_value(text: str, kw: _Keyword, limit: int) -> tuple[int, int] | None:
    """The words after "passphrase is" / "password:", up to the end of the clause. After a plain
    "password" every word but the first must be an unusual one ("correct horse battery staple",
    not "pretty much the same everywhere")."""
    first = _AFTER.match(text, kw.end, limit)
    # the value starts after the first copula, or after a colon ("is four words: apple banana …")
    starts = [first.end()] if first else []
    starts += [kw.end + m.end() for m in re.finditer(r":\s*", text[kw.end : min(limit, kw.end + _REACH)])]
    for start in starts:
        if not _tight(_AFTER.fullmatch(text, kw.end, start)):
            continue
        words = re.match(r"[^\W\d_][^,;:.!?—\u2013()\"”]*", text[start:limit])
        if not words:
            continue
        value = words.group().rstrip().rstrip(_STRIP_RIGHT)
        parts = value.split()
        if len(parts) < 3 or parts[0].lower() in _PHRASE_STOP or _WORD_SUFFIX_STOP.search(parts[0]):
            continue
        if kw.cls == "password" and any(p.lower() in _STOPWORDS or not p.isalpha() for p in parts[1:]):
            continue
        return start, start + len(value)
    return None


_REACH = 300  # keyword and value within this many characters: any real sentence, and no blow-up


def _near(cands: list[_Cand], kw: _Keyword) -> list[_Cand]:
    """The candidates (sorted by start) within _REACH of the keyword."""
    low = bisect.bisect_left(cands, kw.start - _REACH - 64, key=lambda c: c.start)
    high = bisect.bisect_right(cands, kw.end + _REACH, key=lambda c: c.start)
    return cands[low:high]


def _keyword_hits(text: str, sentences: list[tuple[int, int]]) -> list[tuple[int, int, str]]:  # noqa: C901
    hits: list[tuple[int, int, str]] = []
    keywords = _keywords(text)
    cache: dict[int, list[_Cand]] = {}

    def cands_of(index: int) -> list[_Cand]:
        if index not in cache:
            found = _candidates(text[sentences[index][0] : sentences[index][1]], sentences[index][0])
            cache[index] = sorted(found, key=lambda c: c.start)
        return cache[index]

    k = 0
    for index, (s_start, s_end) in enumerate(sentences):
        while k < len(keywords) and keywords[k].start < s_start:
            k += 1
        here = [kw for kw in keywords[k:] if kw.start < s_end]
        if not here:
            continue
        sentence = text[s_start:s_end]
        lock = bool(_LOCK_CONTEXT.search(sentence))  # a bare "code" that opens a door is a PIN
        sent_or_typed = bool(_CODE_CONTEXT.search(sentence))
        # Each value is named by its best keyword: a tight link beats a loose one, then the nearest.
        best: dict[tuple[int, int], tuple[int, int, str]] = {}
        for kw in here:
            kind = "pin" if kw.cls == "code" and lock else kw.kind
            if kw.cls in ("phrase", "password") and (span := _phrase_value(text, kw, s_end)):
                best.setdefault(span, (0, 0, kind))
            for cand in _near(cands_of(index), kw):
                if kw.start < cand.end and cand.start < kw.end:
                    continue
                span, distance = (cand.start, cand.end), max(cand.start - kw.end, kw.start - cand.end)
                if span in best and best[span][:2] <= (0, distance):
                    continue  # already tied to a nearer keyword
                link = _link(text, kw, cand)
                if _accepts(kw, cand, link, text, sent_or_typed):
                    ranked = (0 if link != "loose" else 1, distance, kind)
                    best[span] = min(best.get(span, ranked), ranked)
        hits += [(start, end, kind) for (start, end), (_, _, kind) in best.items()]
        found_here = bool(best)
        # "the wifi pw? it's sunshine42": the answer may be the next sentence.
        nxt = index + 1
        if found_here or nxt >= len(sentences):
            continue
        answer = _CARRY_START.match(text, sentences[nxt][0])
        question = sentence.rstrip().endswith("?")
        if question or answer:
            bare = re.compile(r"\s*").match(text, sentences[nxt][0])
            both = sent_or_typed or bool(_CODE_CONTEXT.search(text, *sentences[nxt]))
            for kw in here:
                for cand in _near(cands_of(nxt), kw):
                    starts_answer = bool(answer and answer.end() == cand.start)
                    first = starts_answer or bool(question and bare and bare.end() == cand.start)
                    if _accepts(kw, cand, "tight" if first else "loose", text, both):
                        hits.append((cand.start, cand.end, kw.kind))
    return hits


# --- Public API ---------------------------------------------------------------------------------
def scan_secrets(text: str) -> SecretScan:
    """Find passwords, PINs, one-time codes, keys and tokens, card numbers, IBANs and national ids;
    return their kinds, the exact values, and the text with every value replaced by REDACTED."""
    if not isinstance(text, str):
        raise TypeError(f"scan_secrets expects text, not {type(text).__name__}")
    norm = text.translate(_FULLWIDTH)
    sentences = _sentences(norm)
    hits = sorted(_form_hits(norm, sentences) + _keyword_hits(norm, sentences))
    merged: list[tuple[int, int, str]] = []  # overlapping hits become one value, named by the first
    for start, end, kind in hits:
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end), merged[-1][2])
        else:
            merged.append((start, end, kind))
    kinds = tuple(dict.fromkeys(kind for _, _, kind in merged))
    values = tuple(dict.fromkeys(text[start:end] for start, end, _ in merged))
    parts, pos = [], 0
    for start, end, _ in merged:
        parts += [text[pos:start], REDACTED]
        pos = end
    redacted = "".join(parts) + text[pos:]
    return SecretScan(kinds=kinds, redacted=redacted, values=values)


def redact(text: str) -> str:
    """`text` with every secret value replaced by REDACTED."""
    return scan_secrets(text).redacted


_SEPARATORS = r"[\s\-\u2013—.·_/,]*"
_DIGIT_NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_CJK_DIGITS = "零一二三四五六七八九"


def _spelled_digits(value: str) -> str:
    """"four-eight-two" -> "482", "四八二" -> "482"; "" when `value` is not spelled digits."""
    words = re.findall(r"[A-Za-z]+|\S", value.lower())
    names = {name: str(d) for d, name in enumerate(_DIGIT_NAMES)} | {"oh": "0", "\u3007": "0"}
    names |= {char: str(d) for d, char in enumerate(_CJK_DIGITS)}
    digits = [names.get(w) for w in words if w not in ",-"]
    return "".join(d for d in digits if d) if digits and all(digits) else ""


def _char_pattern(char: str) -> str:
    if char.isdigit():  # a rewrite may spell a digit out
        zero = "|\u3007|oh" if char == "0" else ""
        return f"(?:{char}|{_DIGIT_NAMES[int(char)]}|{_CJK_DIGITS[int(char)]}{zero})"
    return re.escape(char)


def _value_pattern(value: str) -> re.Pattern[str] | None:
    """A pattern for `value` as a rewrite may spell it: digit-led values ("482913", an IBAN, an id)
    with any spacing or punctuation between characters and digits possibly spelled out, others
    with any whitespace and case."""
    core = value.translate(_FULLWIDTH).strip().strip("\"'\u201c\u201d\u2018\u2019`")
    if len(core.rstrip("!.?,;:")) >= 4:
        core = core.rstrip("!.?,;:")
    compact = _spelled_digits(core) or re.sub(r"[\s\-\u2013—.·_/,]", "", core)
    if not compact:
        return None
    if sum(c.isdigit() for c in compact) >= max(3, len(compact) - 4) and compact.isalnum():
        body = _SEPARATORS.join(_char_pattern(c) for c in compact)
    else:
        body = r"\s+".join(re.escape(part) for part in core.split())
    left = r"(?<![0-9A-Za-z])" if compact[0].isalnum() else ""
    right = r"(?![0-9A-Za-z])" if compact[-1].isalnum() else ""
    return re.compile(left + body + right, re.I)


def _patterns(values: Iterable[str]) -> list[re.Pattern[str]]:
    if isinstance(values, str):
        raise TypeError("values must be a collection of strings, not one string")
    return [p for v in values if (p := _value_pattern(v)) is not None]


def redact_values(text: str, values: Iterable[str]) -> str:
    """Remove known secret values (from `scan_secrets(...).values`) from a text derived from the
    user's words, whatever spacing or punctuation the rewrite put into them."""
    norm = text.translate(_FULLWIDTH)
    spans = sorted((m.start(), m.end()) for p in _patterns(values) for m in p.finditer(norm))
    out, pos = [], 0
    for start, end in spans:
        if start < pos:  # overlaps what is already removed
            continue
        out += [text[pos:start], REDACTED]
        pos = end
    return "".join(out) + text[pos:]


def contains_values(text: str, values: Iterable[str]) -> bool:
    """Whether a derived text still holds any of the known secret values."""
    norm = text.translate(_FULLWIDTH)
    return any(p.search(norm) for p in _patterns(values))
