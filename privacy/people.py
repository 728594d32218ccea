""" "People and places" (/me/people/, issue 19): the entities the user's memories speak of, what the
assistant knows about each (its current relations, and what no longer holds) and the memories it
rests on, with correct, merge, split and erase. Function views over `memory_core.entities`; every
form posts to a real URL and answers with a redirect, so the pages work without JavaScript."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import F, Window
from django.db.models.functions import RowNumber
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from memory_core.entities import selectors as graph
from memory_core.entities import services as graph_services
from memory_core.entities.models import NAME_MAX_CHARS, Entity, Relation
from memory_core.entities.vocabulary import EntityKind, Predicate
from memory_core.errors import MemoryServiceError, NotFound

PAGE_SIZE = 50  # entities a page, as the memory list
FACTS_SHOWN = 5  # relations a person shows on the list; their page has every one
OTHERS_SHOWN = 500  # whom a person may be merged with, by name


@dataclass(frozen=True)
class Fact:
    """One relation as the entity's page reads it: "Husband: Marc", "Ana's husband", "Your sister"."""

    relation: Relation
    outgoing: bool  # the entity is the subject: "<label>: <other or value>"
    other: Entity | None  # the entity at the other end (None: a value, or the user themself)
    words: str

    @property
    def value(self) -> str:
        return self.relation.value


# Read from the object's side, a verb becomes a noun: "Your workplace", "Ana's home".
_INCOMING: dict[str, str] = {Predicate.WORKS_AT: "workplace", Predicate.LIVES_IN: "home"}


def _words(relation: Relation) -> str:
    return relation.label or relation.get_predicate_display()


def facts_of(entity: Entity, relations: list[Relation]) -> list[Fact]:
    """The relations of `entity` (subject and object selected), each from its point of view."""
    facts = []
    for relation in relations:
        if relation.subject_id == entity.pk:
            other = relation.object if relation.object is not None and not relation.object.is_self else None
            facts.append(Fact(relation, True, other, _words(relation).capitalize()))
        else:
            subject = relation.subject
            owner = None if subject.is_self else subject
            facts.append(Fact(relation, False, owner, _INCOMING.get(relation.predicate) or _words(relation)))
    return facts


def _entity_or_404(request: HttpRequest, entity_id: Any) -> Entity:
    try:
        return graph.entity_get(actor=request.user, entity_id=entity_id)
    except NotFound as exc:
        raise Http404(exc.message) from exc


def _error_text(exc: MemoryServiceError) -> str:
    details = [" ".join(errors) for errors in exc.field_errors.values()]
    return " ".join([exc.message, *details])


@login_required
@require_GET
def people(request: HttpRequest) -> HttpResponse:
    kind = request.GET.get("kind") or None
    if kind not in EntityKind.values:
        kind = None
    q = " ".join(request.GET.get("q", "").split())[:NAME_MAX_CHARS]
    listed = Paginator(
        graph.entity_list(actor=request.user, kind=kind, q=q or None).defer("embedding"), PAGE_SIZE
    )
    page = listed.get_page(request.GET.get("page"))
    entities = list(page.object_list)
    # What is known of each: the relations that hold now, at most FACTS_SHOWN + 1 per entity and
    # end, ranked in SQL (a place where 2,000 people live would otherwise load 2,000 rows).
    by_entity: dict[Any, list[Relation]] = {e.pk: [] for e in entities}
    current = graph.relation_list(actor=request.user).defer("subject__embedding", "object__embedding")
    for end in ("subject", "object"):
        ranked = current.filter(**{f"{end}__in": entities}).annotate(
            rank=Window(RowNumber(), partition_by=[F(end)], order_by=[F("valid_from").desc(), F("id")])
        )
        for relation in ranked.filter(rank__lte=FACTS_SHOWN + 1):
            by_entity[getattr(relation, f"{end}_id")].append(relation)
    rows = [
        (
            entity,
            facts_of(entity, by_entity[entity.pk][:FACTS_SHOWN]),
            len(by_entity[entity.pk]) > FACTS_SHOWN,
        )
        for entity in entities
    ]
    query = {name: value for name, value in (("q", q), ("kind", kind)) if value}
    return render(
        request,
        "privacy/people.html",
        {
            "rows": rows,
            "page": page,
            "query": urlencode(query),
            "kinds": EntityKind.choices,
            "kind": kind or "",
            "q": q,
        },
    )


@login_required
@require_GET
def person(request: HttpRequest, entity_id: Any) -> HttpResponse:
    entity = _entity_or_404(request, entity_id)
    # Everything it was told, current or not: what no longer holds shows as "Earlier", with its
    # window, as a memory's page shows the versions it replaced.
    facts = graph.entity_facts(actor=request.user, entity_id=entity.pk, history=True)
    now = timezone.now()
    held = [r for r in facts.relations if r.holds_at(now)]
    ended = [r for r in facts.relations if r.valid_to is not None and r.valid_to <= now]
    mentioned = set(entity.mentions.values_list("entry_id", flat=True))
    others = (
        Entity.objects.filter(namespace_id=entity.namespace_id, is_self=False)
        .exclude(pk=entity.pk)
        .only("id", "name", "kind")
        .order_by("name", "id")
    )
    return render(
        request,
        "privacy/person.html",
        {
            "entity": entity,
            "facts": facts_of(entity, held),
            "earlier": facts_of(entity, ended),
            "sources": facts.memories,
            "mentioned": mentioned,
            "others": others[:OTHERS_SHOWN],
            "kinds": EntityKind.choices,
            "name_max": NAME_MAX_CHARS,
        },
    )


def _act(request: HttpRequest, entity_id: Any, action: Any, done: str) -> HttpResponse:
    """Run a change; on bad input say why and go back to the entity's page, nothing changed."""
    entity = _entity_or_404(request, entity_id)
    try:
        result = action(entity)
    except NotFound as exc:
        raise Http404(exc.message) from exc
    except MemoryServiceError as exc:
        messages.error(request, _error_text(exc))
        return redirect("privacy:person", entity_id=entity.pk)
    messages.success(request, done)
    return redirect("privacy:person", entity_id=result.pk)


@login_required
@require_POST
def person_correct(request: HttpRequest, entity_id: Any) -> HttpResponse:
    name = request.POST.get("name", "").replace("\x00", "")
    kind = request.POST.get("kind") or None
    return _act(
        request,
        entity_id,
        lambda e: graph_services.entity_correct(
            actor=request.user, entity_id=e.pk, name=name if name != e.name else None, kind=kind
        ),
        "Corrected.",
    )


@login_required
@require_POST
def person_merge(request: HttpRequest, entity_id: Any) -> HttpResponse:
    into = request.POST.get("into", "")
    if not into:
        messages.error(request, "Choose whom to merge with.")
        return redirect("privacy:person", entity_id=_entity_or_404(request, entity_id).pk)
    return _act(
        request,
        entity_id,
        lambda e: graph_services.entity_merge(actor=request.user, entity_id=e.pk, into_id=into),
        "Merged: one person now, with everything the assistant knew of both.",
    )


@login_required
@require_POST
def person_split(request: HttpRequest, entity_id: Any) -> HttpResponse:
    ids = request.POST.getlist("memories")
    name = request.POST.get("name", "").replace("\x00", "")
    if not ids:
        messages.error(request, "Tick the memories that are about someone else.")
        return redirect("privacy:person", entity_id=_entity_or_404(request, entity_id).pk)
    return _act(
        request,
        entity_id,
        lambda e: graph_services.entity_split(actor=request.user, entity_id=e.pk, entry_ids=ids, name=name),
        "Split: those memories now speak of someone else.",
    )


@login_required
@require_http_methods(["GET", "POST"])
def person_erase(request: HttpRequest, entity_id: Any) -> HttpResponse:
    entity = _entity_or_404(request, entity_id)
    facts = graph.entity_facts(actor=request.user, entity_id=entity.pk, history=True)
    if request.method == "POST":
        graph_services.entity_erase(actor=request.user, entity_id=entity.pk)
        n = len(facts.memories)
        # No name in the message: it waits in the session, and nothing of the entity may stay.
        messages.success(request, f"Erased for good, with {n} memor{'y' if n == 1 else 'ies'} about them.")
        return redirect("privacy:people")
    return render(request, "privacy/person_erase.html", {"entity": entity, "sources": facts.memories})
