"""Relations corrected on /me/people/ (issue 32, item 6) with the forms a user posts: a value
corrected, a relation ended on a date (then listed under "Earlier" with its window), one erased; read
as sentences from either side; someone else's are 404 whatever the ids; bad dates say why."""

from __future__ import annotations

import re
import uuid

import pytest
from django.urls import reverse
from django.utils import timezone

from memory_core.entities.models import Entity, Relation
from memory_core.entities.vocabulary import Predicate
from memory_core.models import MemoryEntry
from tests.privacy.test_people import RELATION_POSTS, person, signed_in, tell, token

pytestmark = pytest.mark.django_db


def relation_post(client, name: str, entity: Entity, relation: Relation, data: dict | None = None):
    url = reverse(name, args=[entity.pk, relation.pk])
    return client.post(url, {**(data or {}), "csrfmiddlewaretoken": token(client)})


def page_of(client, entity: Entity) -> str:
    return client.get(reverse("privacy:person", args=[entity.pk])).content.decode()


def test_a_marriage_reads_as_a_sentence_from_both_sides(owner):
    client = signed_in(owner)
    tell(client, "Anna is married to Tom.")
    anna, tom = person("Anna"), person("Tom")
    assert Relation.objects.filter(predicate=Predicate.SPOUSE).exists()
    for entity, other in ((anna, "Tom"), (tom, "Anna")):
        html = page_of(client, entity)
        assert not re.search("</a>(?:\u2019|')s married to", html)  # not "Anna's married to"
        assert "Married to: " in html and f">{other}</a>" in html


def test_a_value_is_corrected_a_relation_ended_then_erased(owner):
    client = signed_in(owner)
    tell(client, "My sister Ana is a nurse.", "Ana is married to Marc.")
    ana = person("Ana")
    role = Relation.objects.get(subject=ana, predicate=Predicate.ROLE)
    marriage = Relation.objects.get(subject=ana, predicate=Predicate.SPOUSE)

    assert (
        relation_post(client, "privacy:relation_correct", ana, role, {"value": "midwife"}).status_code == 302
    )
    role.refresh_from_db()
    assert role.value == "midwife" and "Works as: midwife" in page_of(client, ana)

    day = (timezone.localdate()).isoformat()
    response = relation_post(client, "privacy:relation_end", ana, marriage, {"ended": day})
    assert response.status_code == 302
    marriage.refresh_from_db()
    assert marriage.valid_to is not None and marriage.valid_to <= timezone.now()
    html = page_of(client, ana)
    earlier = html.split("<h2>Earlier</h2>", 1)[1]
    assert "Married to" in earlier and "until" in earlier  # kept, with its window

    memories = MemoryEntry.objects.count()
    assert relation_post(client, "privacy:relation_erase", ana, role).status_code == 302
    assert not Relation.objects.filter(pk=role.pk).exists()
    assert MemoryEntry.objects.count() == memories  # the memories stay; the page says so
    assert "Erased: the link is gone" in client.get(reverse("privacy:person", args=[ana.pk])).content.decode()


def test_a_bad_end_date_says_why_and_changes_nothing(owner):
    client = signed_in(owner)
    tell(client, "My sister Ana is a nurse.")
    ana = person("Ana")
    role = Relation.objects.get(subject=ana, predicate=Predicate.ROLE)
    for day in ("2999-01-01", "2026-02-30", "1900-01-01"):
        response = relation_post(client, "privacy:relation_end", ana, role, {"ended": day})
        assert response.status_code == 302, day
        role.refresh_from_db()
        assert role.valid_to is None, day
    html = page_of(client, ana)
    assert "not in the future" in html or "before the relation began" in html


@pytest.mark.parametrize("intruder", ["other_user", "operator", "moderator"])
def test_nobody_else_changes_a_relation(request, owner, intruder):
    tell(signed_in(owner), "My sister Ana is a nurse.", "My friend Bea likes green tea.")
    ana, bea = person("Ana"), person("Bea")
    role = Relation.objects.get(subject=ana, predicate=Predicate.ROLE)
    client = signed_in(request.getfixturevalue(intruder))
    for name in RELATION_POSTS:
        data = {"value": "spy", "ended": timezone.localdate().isoformat()}
        assert relation_post(client, name, ana, role, data).status_code == 404
        url = reverse(name, args=[uuid.uuid4(), uuid.uuid4()])
        assert client.post(url, {**data, "csrfmiddlewaretoken": token(client)}).status_code == 404
    # The owner's own relation reached through another of their entities is 404 too.
    owner_client = signed_in(owner)
    assert relation_post(owner_client, "privacy:relation_erase", bea, role).status_code == 404
    role.refresh_from_db()
    assert role.value == "nurse" and role.valid_to is None
