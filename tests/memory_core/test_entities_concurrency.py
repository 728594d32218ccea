"""Two statements about the same person written for one user at the same moment (a barrier
releases both threads together): the namespace lock serialises the graph writes, so the person
is one entity, whatever the order."""

from __future__ import annotations

import threading

import pytest
from django.db import connections

from memory_core.entities.models import Entity, Relation
from memory_core.pipeline import memory_add
from memory_core.services import namespace_for_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_simultaneous_writes_resolve_to_one_person(owner):
    namespace = namespace_for_user(user=owner)
    start = threading.Barrier(3, timeout=20)
    errors: list[BaseException] = []

    def write(text: str) -> None:
        try:
            start.wait()
            memory_add(namespace=namespace, content=text)
        except BaseException as error:
            errors.append(error)
        finally:
            connections.close_all()

    threads = [
        threading.Thread(target=write, args=("My sister Ana lives in Lyon.",)),
        threading.Thread(target=write, args=("Ana's husband Marc is a pilot.",)),
    ]
    for thread in threads:
        thread.start()
    start.wait()
    for thread in threads:
        thread.join(timeout=60)

    assert errors == []
    assert Entity.objects.filter(namespace=namespace, name="Ana").count() == 1
    assert Entity.objects.filter(namespace=namespace, is_self=True).count() == 1
    assert Relation.objects.filter(namespace=namespace, predicate="spouse", subject__name="Ana").count() == 1
