"""The people page says how the user stands to the people they look after: a relative they care
for ("Looked after by: you", "照顾者: 你") and a pupil, player, patient or customer at work ("Your
pupil", "你的学生"), not a bare "Related to: you"."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.privacy.test_always_recall import chinese
from tests.privacy.test_people import person, signed_in, tell

pytestmark = pytest.mark.django_db


def _text(html: bytes) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html.decode()))


def test_a_pupil_and_a_grandmother_looked_after_are_said_as_such(owner):
    client = signed_in(owner)
    tell(
        client,
        "I teach Year 5 and one of my pupils, Ayaan, has diabetes.",
        "My gran, Edith, lives with us and I look after her.",
    )

    ayaan = _text(client.get(reverse("privacy:person", args=[person("Ayaan").pk])).content)
    edith = _text(client.get(reverse("privacy:person", args=[person("Edith").pk])).content)

    assert "Your pupil" in ayaan and "Related to: you" not in ayaan
    assert "Looked after by: you" in edith and "Your grandmother" in edith
    assert "Related to: you" not in edith


def test_in_chinese(owner):
    client = signed_in(owner)
    pupil_said = "我们班有个学生叫乐乐，他对花生过敏。"  # noqa: RUF001
    tell(client, pupil_said, "My gran, Edith, lives with us and I look after her.")

    pupil = _text(chinese(owner).get(reverse("privacy:person", args=[person("乐乐").pk])).content)
    edith = _text(chinese(owner).get(reverse("privacy:person", args=[person("Edith").pk])).content)

    assert "你的学生" in pupil
    assert "照顾者: 你" in edith and "你的祖母" in edith
