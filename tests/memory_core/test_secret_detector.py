# ruff: noqa: RUF001 -- Chinese users type full-width colons, commas and digits; the tests must too.
"""The secret guard: what it flags, what it leaves alone, and how it follows a value into rewrites.

The labelled set (tests/data/secrets/labelled.jsonl) holds the quality bar; `python -m bench
secret_detector` prints the same figures per kind next to the original detector.
"""

from __future__ import annotations

import itertools

import pytest

from bench.secret_detector import baseline_scan, current_scan, load, score
from memory_core.guards.secrets import (
    REDACTED,
    SecretScan,
    contains_values,
    redact,
    redact_values,
    scan_secrets,
)

# --- The labelled set ---------------------------------------------------------------------------


@pytest.mark.parametrize("split", ["dev", "heldout"])
def test_it_meets_the_recall_and_precision_targets_on_the_labelled_set(split):
    rows = [row for row in load() if row.split == split]

    result = score(rows, current_scan)

    missed = [row.text for row in result.misses]
    false_alarms = [row.text for row, _ in result.false_alarms]
    assert result.recall >= 0.97, missed
    assert result.precision >= 0.95, false_alarms


def test_the_labelled_set_is_hard_enough_to_fail_the_old_detector():
    result = score(load(), baseline_scan)

    assert result.recall < 0.5


def test_the_labelled_set_covers_every_kind_in_both_splits_and_both_languages():
    rows = load()
    kinds = {"password", "pin", "one-time code", "api key or token", "card number", "iban", "national id"}

    for split in ("dev", "heldout"):
        assert {row.kind for row in rows if row.split == split and row.secret} == kinds
    assert len(rows) >= 250
    chinese = [row for row in rows if any("\u4e00" <= char <= "\u9fff" for char in row.text)]
    assert {row.secret for row in chinese} == {True, False}


# --- A value next to password / code / PIN is never missed --------------------------------------

EN_PASSWORDS = ["password", "pw", "passphrase", "wifi password", "bank password", "login password"]
EN_CODES = [
    "PIN", "pin", "PIN code", "passcode", "code", "verification code", "OTP", "one-time code", "2FA code",
    "security code", "login code", "SMS code", "door code", "unlock code", "authentication code",
]
ZH_PASSWORDS = ["密码", "口令", "登录密码", "WiFi密码"]
ZH_CODES = ["验证码", "支付密码", "动态码", "校验码", "PIN码", "短信验证码"]
DIGITS = ["482913", "7731", "0935", "55102933", "294 817"]
CREDENTIALS = ["Tr0ub4dor&3", "sunshine42", "P@ssw0rd!", "abc12345"]
EN_WORDINGS = [
    "my {k} is {v}", "{k}: {v}", "{k} {v}", "{v} is my {k}", "the {k} they gave me is {v}",
    "{v} — that's the {k}", "The user's {k} is {v}", "I set {v} as my {k}",
    "my {k}, which I always forget, is {v}", "{k} = {v}", "here is the {k} for the router: {v}",
    "use {v} when it asks for the {k}", "Remember that my {k} is {v}.", "the {k} was {v} yesterday",
    "My {k} is {v} and I live in Paris", "{v} was the {k}", "the {k} is now {v}",
    "They changed the {k} to {v}",
    "Her {k}? {v}", "{k} - {v}", "({k}: {v})", "The {k} I got is {v}", "got {v} as the {k}",
    'the {k} for my account is "{v}"',
]
ZH_WORDINGS = [
    "我的{k}是{v}", "{k}：{v}", "{k} {v}", "{v}是我的{k}", "用户的{k}为 {v}", "{k}是 {v}，记一下",
    "记住{k}{v}",
    "我的{k}改成了{v}", "刚才的{k}是：{v}",
]


def _missed(wordings: list[str], keywords: list[str], values: list[str]) -> list[str]:
    misses = []
    for wording, keyword, value in itertools.product(wordings, keywords, values):
        text = wording.format(k=keyword, v=value)
        scan = scan_secrets(text)
        if not scan.found or value in scan.redacted:
            misses.append(text)
    return misses


@pytest.mark.parametrize(
    ("wordings", "keywords", "values"),
    [
        (EN_WORDINGS, EN_PASSWORDS, DIGITS + CREDENTIALS),
        (EN_WORDINGS, EN_CODES, DIGITS),
        (ZH_WORDINGS, ZH_PASSWORDS, DIGITS + CREDENTIALS),
        (ZH_WORDINGS, ZH_CODES, DIGITS),
    ],
    ids=["english passwords", "english codes and pins", "chinese passwords", "chinese codes and pins"],
)
def test_it_redacts_a_value_next_to_a_password_code_or_pin_in_any_wording(wordings, keywords, values):
    assert _missed(wordings, keywords, values) == []


# --- Plain facts stay plain ---------------------------------------------------------------------

NEGATIVE_KEYWORDS = [
    "password", "PIN", "passcode", "code", "verification code", "OTP", "2FA code", "security code", "API key",
    "token", "card", "passport", "SSN", "IBAN", "wifi password", "door code", "credit card",
]
NEGATIVE_WORDINGS = [
    "I forgot my {k} in 2024", "my {k} expired on 2026-06-29", "the {k} must be 12 characters",
    "I reset my {k} 3 times", "the {k} for order 88231 never arrived", "the {k} was sent to +1 415 555 0123",
    "my {k} changed after I paid $12.99", "the {k} page at version 2.3.1 is broken",
    "I typed the wrong {k} at 14:30", "{k} problems started in 1999", "the {k} for ticket #4471 is missing",
    "my {k} expires 08/27", "We spent 1500 dollars on {k} security in 2025",
    "the {k} was sent to 13812345678",
    "the {k} for my card ending in 4242 is wrong", "my {k} got blocked after 5 attempts",
    "The {k} changed in release 4.2 (build 20260629)", "the {k} for refund RF20260629001 arrived",
    "I have 2 kids aged 4 and 7 and a {k}", "the {k} email came from 95588",
]
ZH_NEGATIVE_KEYWORDS = ["密码", "验证码", "支付密码", "身份证", "银行卡", "动态码"]
ZH_NEGATIVE_WORDINGS = [
    "我2024年改过{k}", "{k}输错了3次", "订单88231的{k}没收到", "{k}在2026-06-29过期了", "{k}要求至少12位",
    "我的{k}在2025年12月到期", "客服电话95588说{k}有问题", "我花了199元办{k}",
]


@pytest.mark.parametrize(
    ("wordings", "keywords"),
    [(NEGATIVE_WORDINGS, NEGATIVE_KEYWORDS), (ZH_NEGATIVE_WORDINGS, ZH_NEGATIVE_KEYWORDS)],
    ids=["english", "chinese"],
)
def test_it_leaves_facts_that_mention_a_secret_without_giving_one(wordings, keywords):
    texts = [w.format(k=k) for w, k in itertools.product(wordings, keywords)]

    assert [t for t in texts if scan_secrets(t).found] == []


@pytest.mark.parametrize(
    "text",
    [
        "order 88231 was delivered late",
        "The refund id is RF20260629001",
        "commit 3f9a2c8e1b7d4f6a0c5e9b2d8f1a4c7e3b6d9f2a fixed the bug",
        "the request id was 550e8400-e29b-41d4-a716-446655440000",
        "The book's ISBN is 978-0-306-40615-7",
        "I have 2 kids aged 4 and 7",
        "the password reset page was confusing",
        "my PIN code expired",
        "The user's phone number is 415-555-0123",
        "我的手机号是13812345678",
    ],
)
def test_it_does_not_flag_identifiers_numbers_or_mentions(text):
    scan = scan_secrets(text)

    assert not scan.found and scan.redacted == text and scan.values == ()


# --- Values and redaction -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "values", "kinds"),
    [
        ("my bank password, which I keep forgetting, is Tr0ub4dor&3", ("Tr0ub4dor&3",), ("password",)),
        ("482913 is the code they texted me", ("482913",), ("one-time code",)),
        ("use code 7731 to unlock my phone — that's my PIN", ("7731",), ("pin",)),
        ("passphrase: correct horse battery staple", ("correct horse battery staple",), ("password",)),
        ("my SSN is 123-45-6789", ("123-45-6789",), ("national id",)),
        ("IBAN DE89 3704 0044 0532 0130 00", ("DE89 3704 0044 0532 0130 00",), ("iban",)),
        (
            "token 9f8a7c6b5d4e3f2a1b0c9d8e7f6a5b4c",
            ("9f8a7c6b5d4e3f2a1b0c9d8e7f6a5b4c",),
            ("api key or token",),
        ),
        ("我的密码是abc12345", ("abc12345",), ("password",)),
        ("验证码 839201", ("839201",), ("one-time code",)),
        ("我的身份证号是11010519491231002X", ("11010519491231002X",), ("national id",)),
        ("银行卡号：6217000010000012347", ("6217000010000012347",), ("card number",)),
        (
            "my PIN is 4821 and the wifi password is sunshine42",
            ("4821", "sunshine42"),
            ("pin", "password"),
        ),
    ],
)
def test_it_returns_the_exact_values_and_their_kinds(text, values, kinds):
    scan = scan_secrets(text)

    assert scan.found and scan.values == values and scan.kinds == kinds


def test_it_replaces_only_the_value_and_keeps_the_rest_of_the_sentence():
    text = "my password is Xk9#mQ2v and I live in Paris"

    assert redact(text) == "my password is [REDACTED] and I live in Paris"
    assert scan_secrets(text).redacted == redact(text)


def test_it_finds_full_width_digits_and_reports_them_as_typed():
    scan = scan_secrets("验证码：４８２９１３")

    assert scan.values == ("４８２９１３",) and scan.redacted == f"验证码：{REDACTED}"


# --- Checksums decide values that carry no keyword ----------------------------------------------


@pytest.mark.parametrize(
    ("valid", "invalid"),
    [
        ("send it to 4000 0566 5566 5556 please", "send it to 4000 0566 5566 5557 please"),  # Luhn
        ("pay rent to FR14 2004 1010 0505 0001 3M02 606", "pay rent to FR14 2004 1010 0505 0001 3M02 607"),
        ("the form has 11010519491231002X on it", "the form has 110105194912310021 on it"),  # MOD 11-2
        ("the form says 123-45-6789 in box 3", "the form says 666-45-6789 in box 3"),  # SSA area rule
    ],
    ids=["card", "iban", "prc id", "ssn"],
)
def test_it_trusts_a_bare_number_only_when_its_checksum_holds(valid, invalid):
    assert scan_secrets(valid).found
    assert not scan_secrets(invalid).found


def test_it_tells_a_commit_hash_or_a_uuid_from_a_secret_by_the_words_around_it():
    assert not scan_secrets("commit 5c2e7a9b1d3f8e6c4a0b2d9f7e1c3a5b8d6f4e2c fixed the bug").found
    assert scan_secrets("Here's the deploy key: 5c2e7a9b1d3f8e6c4a0b2d9f7e1c3a5b8d6f4e2c").found
    assert not scan_secrets("user 6f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0 logged in").found
    assert scan_secrets("api key: 6f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0").found
    assert scan_secrets("Please save Vh3kQ9zL2mX8pR5tW7yB1nC4fJ6gD0sA for later").found


# --- Rewrites: redact_values and contains_values ------------------------------------------------


@pytest.mark.parametrize(
    "rewrite",
    [
        "The user's one-time code is 482913.",
        "The user's one-time code is 482 913.",
        "The user's one-time code is 4-8-2-9-1-3.",
        "The user's one-time code is ４８２９１３.",
        "The user's one-time code is four eight two nine one three.",
        "用户的验证码是四八二九一三。",
    ],
)
def test_redact_values_removes_a_code_from_a_rewrite_whatever_its_spacing(rewrite):
    values = scan_secrets("my otp is 482913").values

    cleaned = redact_values(rewrite, values)

    assert contains_values(rewrite, values)
    assert REDACTED in cleaned and not contains_values(cleaned, values)
    assert cleaned.startswith(rewrite[:6])


def test_redact_values_follows_passwords_passphrases_and_ibans_into_rewrites():
    raw = (
        "my bank password, which I keep forgetting, is Tr0ub4dor&3. passphrase: correct horse battery "
        "staple. IBAN DE89 3704 0044 0532 0130 00"
    )
    values = scan_secrets(raw).values
    rewrite = (
        "The user's bank password is Tr0ub4dor&3; their passphrase is Correct horse  battery staple; "
        "their IBAN is de89370400440532013000."
    )

    assert redact_values(rewrite, values) == (
        "The user's bank password is [REDACTED]; their passphrase is [REDACTED]; their IBAN is [REDACTED]."
    )


def test_redact_values_finds_a_quoted_passphrase_without_its_quotes():
    values = scan_secrets("User shared their home Wi-Fi passphrase: 'correct horse battery staple'.").values

    assert redact_values("The Wi-Fi passphrase is correct horse battery staple.", values) == (
        "The Wi-Fi passphrase is [REDACTED]."
    )


def test_redact_values_leaves_other_numbers_and_texts_without_the_value_alone():
    values = ("482913",)
    other = "order 14829130 shipped on 2026-06-29"

    assert redact_values(other, values) == other
    assert not contains_values("The user likes hiking", values)
    assert redact_values("The user likes hiking", []) == "The user likes hiking"


# --- API contract -------------------------------------------------------------------------------


def test_a_scan_keeps_the_fields_older_callers_use():
    scan = scan_secrets("my PIN is 4821")

    assert isinstance(scan, SecretScan) and scan.found and scan.kinds == ("pin",)
    assert SecretScan(kinds=(), redacted="x").values == () and not SecretScan(kinds=(), redacted="x").found


def test_it_refuses_what_is_not_text_with_a_clear_error():
    with pytest.raises(TypeError, match="expects text"):
        scan_secrets(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="collection of strings"):
        redact_values("my code 482913", "482913")


# --- The write path -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_write_path_refuses_a_code_that_a_rewrite_moved_away_from_its_keyword(owner):
    from memory_core.models import FlaggedWrite, MemoryEntry
    from memory_core.pipeline import memory_add
    from memory_core.services import namespace_for_user

    namespace = namespace_for_user(user=owner)

    outcome = memory_add(namespace=namespace, content="The user's one-time code is 482913")

    assert outcome.action == "rejected" and "one-time code" in outcome.reason
    assert not MemoryEntry.objects.filter(namespace=namespace).exists()
    flag = FlaggedWrite.objects.get(namespace=namespace)
    assert "482913" not in flag.excerpt and REDACTED in flag.excerpt


@pytest.mark.parametrize("wrapped", ['"{}"', "({})", "'{}'", "«{}»", "[{}]."])
def test_a_generated_token_in_quotes_or_brackets_is_redacted_whole(wrapped):
    token = "aB3dE5fG7hJ9kL1mN3pQ5rS7tUw"
    scan = scan_secrets(f"see {wrapped.format(token)} here")
    assert scan.values == (token,)
    assert token[-3:] not in scan.redacted and token[:3] not in scan.redacted
    assert scan.redacted == f"see {wrapped.format('[REDACTED]')} here"
