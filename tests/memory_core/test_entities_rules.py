"""What the offline rules read into the graph from statements written through the pipeline:
other wordings, both languages, transcript turns."""

from __future__ import annotations

import pytest

from memory_core.entities.models import Relation
from memory_core.pipeline import memory_add
from memory_core.services import namespace_for_user

pytestmark = pytest.mark.django_db

CASES = [
    ("My sister is Ana.", {("the user", "sibling", "Ana")}),
    ("Ana is my sister.", {("the user", "sibling", "Ana")}),
    ("The user's sister's name is Ana.", {("the user", "sibling", "Ana")}),
    ("My sister's husband works at Airbus.", {
        ("the user", "sibling", "my sister"), ("my sister", "spouse", "my sister's husband"),
        ("my sister's husband", "works_at", "Airbus")}),
    ("I'm a software engineer.", {("the user", "role", "software engineer")}),
    ("The user works for Contoso.", {("the user", "works_at", "Contoso")}),
    ("My colleague Tom moved to Berlin.", {("the user", "colleague", "Tom"), ("Tom", "lives_in", "Berlin")}),
    ("Priya has a cat named Mochi.", {("Priya", "pet", "Mochi")}),
    ("My mum lives in Porto.", {("the user", "parent", "my mum"), ("my mum", "lives_in", "Porto")}),
    ("Melanie said, on 9 June 2023: my kids love the beach.", {("Melanie", "child", "Melanie's kids")}),
    ("我姐姐叫安娜。", {("the user", "sibling", "安娜")}),
    ("李雷是我的同事。", {("the user", "colleague", "李雷")}),
    ("我在腾讯工作。", {("the user", "works_at", "腾讯")}),
    ("我的猫叫咪咪。", {("the user", "pet", "咪咪")}),
    ("我妈妈住在成都。", {("the user", "parent", "my 妈妈"), ("my 妈妈", "lives_in", "成都")}),
    ("安娜的丈夫马克是飞行员。", {("安娜", "spouse", "马克"), ("马克", "role", "飞行员")}),
    # Not relations: a nationality, a diet, a liking.
    ("My wife is Chinese.", {("the user", "spouse", "my wife")}),
    ("Ana is a vegetarian.", set()),
    ("I love jazz.", set()),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_statements_become_relations(owner, text, expected):
    namespace = namespace_for_user(user=owner)
    memory_add(namespace=namespace, content=text)
    found = {
        (r.subject.name, r.predicate, r.object.name if r.object else r.value)
        for r in Relation.objects.filter(namespace=namespace).select_related("subject", "object")
    }
    assert found == expected
