""" "People and places" (/me/people/, issue 19) with Django's test client: what the user told shows
as people with what the assistant knows and the sources; correct, merge, split and erase through
the forms (with their CSRF token); someone else's are 404; bad input says why and changes nothing."""

from __future__ import annotations

import re
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from memory_core.entities.models import Entity, Relation
from memory_core.models import MemoryEntry
from tests.erasure_helpers import assert_nothing_in_sql, canary

pytestmark = pytest.mark.django_db

ENTITY_GETS = ["privacy:person", "privacy:person_erase"]
ENTITY_POSTS = [
    "privacy:person_correct",
    "privacy:person_merge",
    "privacy:person_split",
    "privacy:person_erase",
]
RELATION_POSTS = ["privacy:relation_correct", "privacy:relation_end", "privacy:relation_erase"]
# For the route matrix of tests/privacy/test_views.py (the relation routes: test_people_relations.py).
PEOPLE_ROWS = (
    {("privacy:people", "GET")}
    | {(n, "GET") for n in ENTITY_GETS}
    | {(n, "POST") for n in ENTITY_POSTS + RELATION_POSTS}
)


def signed_in(user, csrf: bool = True) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


def token(client: Client) -> str:
    client.get(reverse("privacy:people"))
    return client.cookies["csrftoken"].value


def tell(client: Client, *texts: str) -> list[MemoryEntry]:
    """Say things on the page's own "remember" form."""
    for text in texts:
        response = client.post(
            reverse("privacy:remember"), {"content": text, "csrfmiddlewaretoken": token(client)}
        )
        assert response.status_code == 302
    return [MemoryEntry.objects.get(content=text) for text in texts]


def post(client: Client, name: str, entity: Entity, data: dict | None = None):
    return client.post(
        reverse(name, args=[entity.pk]), {**(data or {}), "csrfmiddlewaretoken": token(client)}
    )


def person(name: str) -> Entity:
    return Entity.objects.get(name=name)


def test_the_page_shows_people_what_is_known_and_the_sources(owner):
    client = signed_in(owner)
    nurse, pilot = tell(client, "My sister Ana is a nurse.", "Ana's husband Marc is a pilot.")
    assert reverse("privacy:people").encode() in client.get(reverse("privacy:index")).content

    page = client.get(reverse("privacy:people")).content.decode()
    assert "Ana" in page and "Marc" in page and "Called: ana, sister" in page
    assert re.search(r"Husband: <a href=\"/me/people/[0-9a-f-]+/\">Marc</a>", page)
    assert "Works as: nurse" in page and "Your sister" in page
    tell(client, "I work at Acme.")
    acme = client.get(reverse("privacy:person", args=[person("Acme").pk])).content.decode()
    assert "Your workplace" in acme
    only_marc = client.get(reverse("privacy:people") + "?q=marc&kind=person").content.decode()
    assert "Marc" in only_marc and "Your sister" not in only_marc

    ana = client.get(reverse("privacy:person", args=[person("Ana").pk])).content.decode()
    for memory in (nurse, pilot):
        assert f'href="/me/memories/{memory.pk}/"' in ana and memory.content.replace("'", "&#x27;") in ana
    assert "Husband: " in ana and "Works as: nurse" in ana
    marc = client.get(reverse("privacy:person", args=[person("Marc").pk])).content.decode()
    assert re.search(r"<a href=\"/me/people/[0-9a-f-]+/\">Ana</a>\u2019s husband", marc)


def test_correct_merge_and_split_through_the_forms(owner):
    client = signed_in(owner)
    tell(client, "My friend Bea likes green tea.", "My colleague Beatrice plays chess.")
    bea, beatrice = person("Bea"), person("Beatrice")

    response = post(client, "privacy:person_correct", bea, {"name": "Bea Silva", "kind": "person"})
    assert response.status_code == 302 and response.url == reverse("privacy:person", args=[bea.pk])
    assert person("Bea Silva").pk == bea.pk

    response = post(client, "privacy:person_merge", beatrice, {"into": str(bea.pk)})
    assert response.status_code == 302 and response.url == reverse("privacy:person", args=[bea.pk])
    assert not Entity.objects.filter(pk=beatrice.pk).exists()
    page = client.get(response.url).content.decode()
    assert "plays chess" in page and "likes green tea" in page and "Merged" in page

    chess = MemoryEntry.objects.get(content__contains="chess")
    response = post(client, "privacy:person_split", bea, {"memories": [str(chess.pk)], "name": "Beatrice"})
    assert response.status_code == 302
    split = person("Beatrice")
    assert response.url == reverse("privacy:person", args=[split.pk])
    assert set(split.mentions.values_list("entry_id", flat=True)) == {chess.pk}
    assert Relation.objects.filter(predicate="colleague", object=split).exists()


def test_erase_asks_first_then_erases_the_memories_and_the_links(owner):
    client = signed_in(owner)
    sister = canary("Ana")
    nurse, pilot, tea = tell(
        client,
        f"My sister {sister} is a nurse.",
        f"{sister}'s husband Marc is a pilot.",
        "My friend Bea likes green tea.",
    )
    ana = person(sister)

    confirm = client.get(reverse("privacy:person_erase", args=[ana.pk])).content.decode()
    assert "These 2 memories are deleted for good" in confirm and "is a nurse." in confirm
    assert Entity.objects.filter(pk=ana.pk).exists()  # asking changed nothing

    response = post(client, "privacy:person_erase", ana)
    assert response.status_code == 302 and response.url == reverse("privacy:people")
    assert not MemoryEntry.objects.filter(pk__in=[nurse.pk, pilot.pk]).exists()
    assert MemoryEntry.objects.filter(pk=tea.pk).exists()
    assert set(Entity.objects.filter(is_self=False).values_list("name", flat=True)) == {"Bea"}
    page = client.get(response.url).content.decode()
    assert "Erased for good, with 2 memories" in page and sister not in page
    assert_nothing_in_sql(sister)


@pytest.mark.parametrize("intruder", ["other_user", "operator", "moderator"])
def test_nobody_else_sees_or_changes_them(request, owner, intruder):
    tell(signed_in(owner), "My sister Ana is a nurse.", "My friend Bea likes green tea.")
    ana, bea = person("Ana"), person("Bea")
    client = signed_in(request.getfixturevalue(intruder))
    for name in ENTITY_GETS:
        assert client.get(reverse(name, args=[ana.pk])).status_code == 404
    for name in ENTITY_POSTS:
        data = {
            "name": "Eve",
            "kind": "pet",
            "into": str(bea.pk),
            "memories": [str(MemoryEntry.objects.first().pk)],
        }
        assert post(client, name, ana, data).status_code == 404
        assert (
            client.post(
                reverse(name, args=[uuid.uuid4()]), {"csrfmiddlewaretoken": token(client)}
            ).status_code
            == 404
        )
    listing = client.get(reverse("privacy:people")).content.decode()
    assert str(ana.pk) not in listing and str(bea.pk) not in listing and "nurse" not in listing
    assert person("Ana").kind == "person" and Entity.objects.filter(pk=bea.pk).exists()
    assert MemoryEntry.objects.filter(content="My sister Ana is a nurse.").exists()


def test_anonymous_goes_to_sign_in_and_forms_need_their_token(owner):
    tell(signed_in(owner), "My sister Ana is a nurse.", "My friend Bea likes green tea.")
    ana, bea = person("Ana"), person("Bea")
    anonymous = Client()
    for name in ["privacy:people"]:
        assert anonymous.get(reverse(name)).url.startswith(reverse("login"))
    for name in ENTITY_GETS + ENTITY_POSTS:
        response = anonymous.post(reverse(name, args=[ana.pk]), {"name": "Eve"})
        assert response.status_code == 302 and response.url.startswith(reverse("login"))
    no_token = signed_in(owner)
    for name in ENTITY_POSTS:
        data = {"name": "Eve", "into": str(bea.pk)}
        assert no_token.post(reverse(name, args=[ana.pk]), data).status_code == 403
    assert person("Ana").pk == ana.pk and Entity.objects.filter(pk=bea.pk).exists()


def test_bad_input_says_why_and_changes_nothing(owner, other_user):
    client = signed_in(owner)
    tell(client, "My sister Ana is a nurse.", "Ana's husband Marc is a pilot.")
    tell(signed_in(other_user), "My friend Bea likes green tea.")
    ana, bea = person("Ana"), person("Bea")
    foreign = MemoryEntry.objects.get(content="My friend Bea likes green tea.")
    before = sorted(Entity.objects.values_list("id", "name", "kind", "aliases"))
    cases = [
        ("privacy:person_correct", {"name": "   ", "kind": "person"}, "Must not be blank"),
        ("privacy:person_correct", {"name": "Ana", "kind": "alien"}, "Unknown kind"),
        ("privacy:person_correct", {"name": "x" * 201, "kind": "person"}, "Name too long"),
        ("privacy:person_merge", {"into": str(ana.pk)}, "cannot be merged into itself"),
        ("privacy:person_merge", {}, "Choose whom to merge with"),
        ("privacy:person_split", {"name": "Ana B"}, "Tick the memories"),
        ("privacy:person_split", {"memories": [str(foreign.pk)], "name": "Other"}, "Unknown memories"),
        ("privacy:person_split", {"memories": ["nope"], "name": "Other"}, "Unknown memories"),
    ]
    for name, data, says in cases:
        response = post(client, name, ana, data)
        assert response.status_code == 302 and response.url == reverse("privacy:person", args=[ana.pk]), name
        assert says in client.get(response.url).content.decode(), (name, data)
    assert (
        post(client, "privacy:person_merge", ana, {"into": str(bea.pk)}).status_code == 404
    )  # someone else's
    assert sorted(Entity.objects.values_list("id", "name", "kind", "aliases")) == before


def test_the_list_costs_the_same_queries_for_many_people(owner, django_assert_max_num_queries):
    client = signed_in(owner, csrf=False)
    for i, name in enumerate(["Ana", "Marc", "Lena", "Tom", "Rita", "Paul", "Ines", "Hugo"]):
        client.post(reverse("privacy:remember"), {"content": f"My friend {name} lives in City{i}."})
    assert Entity.objects.filter(is_self=False).count() >= 16
    with django_assert_max_num_queries(12):
        page = client.get(reverse("privacy:people")).content.decode()
    assert "Lives in: <a" in page


def test_what_no_longer_holds_shows_as_earlier_with_its_window(owner):
    """A move closes the old home's window: the page says where she lives now, and under "Earlier"
    where she lived, from when until when; the memories both rest on stay listed."""
    client = signed_in(owner)
    lyon, paris = tell(client, "My sister Ana lives in Lyon.", "My sister Ana moved to Paris.")
    homes = Relation.objects.filter(subject__name="Ana", predicate="lives_in").order_by("valid_from")
    assert [(r.object.name, r.valid_to is None) for r in homes] == [("Lyon", False), ("Paris", True)]

    page = client.get(reverse("privacy:person", args=[person("Ana").pk])).content.decode()
    now, earlier = page.split("<h2>Earlier</h2>")
    assert re.search(r"Lives in: <a href=\"/me/people/[0-9a-f-]+/\">Paris</a>", now)
    assert ">Lyon</a>" not in now.split("Where it comes from")[0]
    earlier = earlier.split("Where it comes from")[0]
    assert re.search(
        r"Lives in: <a href=\"/me/people/[0-9a-f-]+/\">Lyon</a> <span class=\"tag\">until ", earlier
    )
    assert "from " in earlier and "Paris" not in earlier
    for memory in (lyon, paris):
        assert f'href="/me/memories/{memory.pk}/"' in page

    # Nothing ended yet: no "Earlier" at all.
    marc = tell(client, "Ana's husband Marc is a pilot.")[0]
    assert (
        marc
        and "<h2>Earlier</h2>"
        not in client.get(reverse("privacy:person", args=[person("Marc").pk])).content.decode()
    )
