"""Server time of the people-and-places surfaces (issue 19) for a user whose memories name many
people: the /me/people/ page, one person's page, the REST entity list, detail and relations.

One user with N people, each named in one memory ("My friend PersonI lives in CityJ.") with its
mention, a `friend` and a `lives_in` relation (and so N/50-ish places, each mentioned by many
memories), bulk-loaded; the busiest place is the "wide" entity (many sources). Timed in-process
with Django's test client (routing, auth, middleware, queries, rendering, JSON). Baseline in the
same run: the /me/ memory list and `GET /api/v1/memories/` of the same user, pages of 50.

`python -m bench people [--people N] [--repeat R]`
"""

from __future__ import annotations

import argparse
from datetime import timedelta
from typing import Any

from bench import common

CITIES = 50


def _load(user: Any, n: int) -> dict[str, Any]:
    from django.utils import timezone

    from memory_core.entities.models import Entity, EntityMention, Relation, RelationSupport
    from memory_core.models import MemoryEntry, MemoryEvent
    from memory_core.services import namespace_for_user

    namespace = namespace_for_user(user=user)
    now = timezone.now()
    entries = [
        MemoryEntry(
            namespace=namespace,
            type="semantic",
            category="general",
            content=f"My friend Person{i} lives in City{i % CITIES}.",
            source_kind="user_explicit",
            recorded_at=now - timedelta(minutes=i),
            valid_from=now - timedelta(minutes=i),
        )
        for i in range(n)
    ]
    MemoryEntry.objects.bulk_create(entries, batch_size=2000)
    MemoryEvent.objects.bulk_create(
        [
            MemoryEvent(namespace=namespace, entry=e, entry_ref=e.pk, action="created", actor_kind="user")
            for e in entries
        ],
        batch_size=2000,
    )
    me = Entity.objects.create(namespace=namespace, kind="person", name="the user", is_self=True)
    cities = Entity.objects.bulk_create(
        [
            Entity(namespace=namespace, kind="place", name=f"City{j}", aliases=[f"city{j}"])
            for j in range(CITIES)
        ]
    )
    people = Entity.objects.bulk_create(
        [
            Entity(namespace=namespace, kind="person", name=f"Person{i}", aliases=[f"person{i}", "friend"])
            for i in range(n)
        ],
        batch_size=2000,
    )
    mentions, relations, support = [], [], []
    for i, (entry, person) in enumerate(zip(entries, people, strict=True)):
        city = cities[i % CITIES]
        mentions += [
            EntityMention(namespace=namespace, entity=person, entry=entry, surface=f"person{i}"),
            EntityMention(namespace=namespace, entity=city, entry=entry, surface=f"city{i % CITIES}"),
        ]
        pair = [
            Relation(namespace=namespace, subject=me, predicate="friend", label="friend", object=person),
            Relation(
                namespace=namespace, subject=person, predicate="lives_in", label="lives in", object=city
            ),
        ]
        relations += pair
        support += [RelationSupport(namespace=namespace, relation=r, entry=entry) for r in pair]
    EntityMention.objects.bulk_create(mentions, batch_size=2000)
    Relation.objects.bulk_create(relations, batch_size=2000)
    RelationSupport.objects.bulk_create(support, batch_size=2000)
    return {"person": people[n // 2], "city": cities[0]}


def _time(client: Any, url: str, repeat: int, **headers: str) -> list[float]:
    first = client.get(url, **headers)  # warm: templates compiled, connections open
    assert first.status_code == 200, (url, first.status_code)
    samples = []
    for _ in range(repeat):
        with common.timed() as elapsed:
            response = client.get(url, **headers)
        assert response.status_code == 200, response.status_code
        samples.append(elapsed())
    return samples


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench people")
    parser.add_argument("--people", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    common.setup()
    common.truncate()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    from api.services import user_token_issue

    User = get_user_model()
    User.objects.filter(username="bench-people").delete()
    user = User.objects.create_user(username="bench-people")
    picked = _load(user, args.people)
    with connection.cursor() as cursor:
        for table in ("entity", "entitymention", "relation", "relationsupport", "memoryentry"):
            cursor.execute(f"VACUUM ANALYZE memory_core_{table}")
    page = Client(HTTP_HOST="localhost")
    page.force_login(user)
    api = Client(HTTP_HOST="localhost")
    token = {"HTTP_AUTHORIZATION": f"Token {user_token_issue(user=user).key}"}
    person, city = picked["person"].pk, picked["city"].pk

    common.header(
        f"people and places: {args.people:,} people, {CITIES} places, {2 * args.people:,} relations "
        f"({args.repeat} requests each)"
    )
    baseline_page = _time(page, "/me/", args.repeat)
    baseline_api = _time(api, "/api/v1/memories/?limit=50", args.repeat, **token)
    print(f"{'baseline /me/ (memories)':34s} {common.summary_ms(baseline_page)}")
    print(f"{'baseline GET memories/ (50)':34s} {common.summary_ms(baseline_api)}")
    rows = [
        ("/me/people/ (first 50)", _time(page, "/me/people/", args.repeat), baseline_page),
        ("/me/people/?q=person77", _time(page, "/me/people/?q=person77", args.repeat), baseline_page),
        ("/me/people/<person>/", _time(page, f"/me/people/{person}/", args.repeat), baseline_page),
        (
            f"/me/people/<place>/ ({args.people // CITIES} sources)",
            _time(page, f"/me/people/{city}/", args.repeat),
            baseline_page,
        ),
        ("GET entities/ (50)", _time(api, "/api/v1/entities/?limit=50", args.repeat, **token), baseline_api),
        (
            "GET entities/<person>/",
            _time(api, f"/api/v1/entities/{person}/", args.repeat, **token),
            baseline_api,
        ),
        (
            f"GET entities/<place>/ ({args.people // CITIES} sources)",
            _time(api, f"/api/v1/entities/{city}/", args.repeat, **token),
            baseline_api,
        ),
        (
            "GET relations/ (50)",
            _time(api, "/api/v1/relations/?limit=50", args.repeat, **token),
            baseline_api,
        ),
    ]
    for label, samples, baseline in rows:
        ratio = common.ratio(common.percentile(samples, 50), common.percentile(baseline, 50))
        print(f"{label:34s} {common.summary_ms(samples)}   ratio p50 vs baseline {ratio}", flush=True)
    user.delete()
    common.truncate()
