"""`namespace_for_user`: every username Django allows gets a valid, unique namespace path."""

from __future__ import annotations

import re

import pytest

from memory_core.models import Namespace
from memory_core.pipeline import memory_add
from memory_core.selectors import memory_list
from memory_core.services import namespace_for_user

pytestmark = pytest.mark.django_db

PATH = re.compile(r"^(user|org|agent)/[A-Za-z0-9_.@+-]{1,150}$")


def test_it_keeps_a_plain_username_as_the_path(owner):
    assert namespace_for_user(user=owner).path == "user/alice"


def test_it_gives_a_unicode_username_a_valid_namespace_that_works(make_user):
    jose = make_user("josé")

    namespace = namespace_for_user(user=jose)

    assert PATH.match(namespace.path) and namespace.path == f"user/jose.{jose.pk}"
    assert namespace_for_user(user=jose) == namespace
    assert memory_add(namespace=namespace, content="The user plays the cello").action == "added"
    assert [e.content for e in memory_list(actor=jose)] == ["The user plays the cello"]


@pytest.mark.parametrize("username", ["a b", "日本語", "x" * 150, "ünïcødé@example.com"])
def test_it_builds_a_valid_path_for_any_username(make_user, username):
    user = make_user(username)
    assert PATH.match(namespace_for_user(user=user).path)


def test_it_does_not_take_a_path_someone_else_has(make_user, other_user):
    theirs = namespace_for_user(user=other_user)
    Namespace.objects.filter(pk=theirs.pk).update(path="user/carol")
    carol = make_user("carol")

    namespace = namespace_for_user(user=carol)

    assert namespace.path == f"user/carol.{carol.pk}" and namespace.owner == carol
    assert Namespace.objects.get(pk=theirs.pk).owner == other_user


def test_it_returns_an_existing_namespace_unchanged(owner):
    namespace = namespace_for_user(user=owner)
    Namespace.objects.filter(pk=namespace.pk).update(path="user/alice-renamed")
    assert namespace_for_user(user=owner).path == "user/alice-renamed"
