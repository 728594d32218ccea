""" "People and places" (/me/people/, issue 19): the entities the user's memories speak of, what the
assistant knows about each (its current relations, and what no longer holds) and the memories it
rests on, with correct, merge, split and erase; each relation corrected, ended or erased on its own
(issue 32). Function views over `memory_core.entities`; every form posts to a real URL and answers
with a redirect, so the pages work without JavaScript."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time
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
from django.utils.dateparse import parse_date
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from memory_core.entities import selectors as graph
from memory_core.entities import services as graph_services
from memory_core.entities.models import NAME_MAX_CHARS, Entity, Relation
from memory_core.entities.vocabulary import EntityKind, Predicate
from memory_core.errors import MemoryServiceError, NotFound
from privacy.kin_words import kin_word
from privacy.page_errors import error_text

PAGE_SIZE = 50  # entities a page, as the memory list
FACTS_SHOWN = 5  # relations a person shows on the list; their page has every one
OTHERS_SHOWN = 500  # whom a person may be merged with, by name


@dataclass(frozen=True)
class Fact:
    """One relation as the entity's page reads it: "Husband: Marc", "Ana's husband", "Your sister",
    "Married to: Ana" (from either side)."""

    relation: Relation
    outgoing: bool  # "<words>: <other or value>"; else "<other>'s <words>" / "Your <words>"
    other: Entity | None  # the entity at the other end (None: a value, or the user themself)
    words: str

    @property
    def value(self) -> str:
        return self.relation.value


KIND_LABELS: dict[str, Any] = {
    EntityKind.PERSON: gettext_lazy("Person"),
    EntityKind.ORGANISATION: gettext_lazy("Organisation"),
    EntityKind.PLACE: gettext_lazy("Place"),
    EntityKind.PET: gettext_lazy("Pet"),
    EntityKind.PRODUCT: gettext_lazy("Product"),
    EntityKind.OTHER: gettext_lazy("Other"),
}
KIND_CHOICES = [(value, KIND_LABELS[value]) for value in EntityKind.values]

# Read from the object's side, a verb becomes a noun: "Your workplace", "Ana's home".
_INCOMING: dict[str, Any] = {
    Predicate.WORKS_AT: gettext_lazy("workplace"),
    Predicate.LIVES_IN: gettext_lazy("home"),
}
# The words the rules give a relation, as the page's language says them; the user's own words
# ("sister", "老公") stay as they were said in the page's language, and are said in it otherwise
# (`kin_words`).
_RULE_WORDS: dict[str, Any] = {
    "married to": gettext_lazy("married to"),
    "works at": gettext_lazy("works at"),
    "lives in": gettext_lazy("lives in"),
    "works as": gettext_lazy("works as"),
    # The Chinese rules' words for the same relations.
    "在…工作": gettext_lazy("works at"),
    "住在": gettext_lazy("lives in"),
    "是": gettext_lazy("works as"),
    # The user looks after a relative (`entities.care`); the people they serve at work or in a club
    # (`entities.served`), by what they are to the user.
    "cares for": gettext_lazy("looks after"),
    "pupil": gettext_lazy("pupil"),
    "player": gettext_lazy("player"),
    "patient": gettext_lazy("patient"),
    "client": gettext_lazy("client"),
}
_SERVED = frozenset({"pupil", "player", "patient", "client"})
_PREDICATE_WORDS: dict[str, Any] = {
    Predicate.PARENT: gettext_lazy("parent"),
    Predicate.CHILD: gettext_lazy("child"),
    Predicate.SIBLING: gettext_lazy("sibling"),
    Predicate.RELATIVE: gettext_lazy("relative"),
    Predicate.SPOUSE: gettext_lazy("spouse"),
    Predicate.PARTNER: gettext_lazy("partner"),
    Predicate.FRIEND: gettext_lazy("friend"),
    Predicate.COLLEAGUE: gettext_lazy("colleague"),
    Predicate.MANAGER: gettext_lazy("manager"),
    Predicate.PET: gettext_lazy("pet"),
    Predicate.WORKS_AT: gettext_lazy("works at"),
    Predicate.ROLE: gettext_lazy("works as"),
    Predicate.LIVES_IN: gettext_lazy("lives in"),
    Predicate.OTHER: gettext_lazy("related to"),
}
# Words that say what the subject does ("married to", "在…工作"), not what the object is to it
# ("sister"): read from the object's side they cannot take a possessive ("Ana's married to").
_VERB_WORDS = re.compile(r"(?i)^(?:married|works?|lives?|is|was|has|在|住|是)\b|…|\s(?:to|at|in|as|of|with)$")


def _words(relation: Relation) -> str:
    label = relation.label
    if not label:
        return str(_PREDICATE_WORDS.get(relation.predicate, relation.get_predicate_display()))
    return str(_RULE_WORDS[label.lower()]) if label.lower() in _RULE_WORDS else kin_word(label)


def _incoming_words(relation: Relation) -> tuple[bool, str]:
    """How the object's page says a relation: (as "<words>: <subject>", the words)."""
    if relation.predicate in _INCOMING:
        return False, str(_INCOMING[relation.predicate])
    label = (relation.label or "").lower()
    if relation.predicate == Predicate.OTHER and label in _SERVED:
        return False, _words(relation)  # "Your pupil"
    if relation.predicate == Predicate.OTHER and label == "cares for":
        return True, str(gettext_lazy("Looked after by"))  # "Looked after by: you"
    if relation.predicate == Predicate.SPOUSE and _VERB_WORDS.search(relation.label or ""):
        return True, _words(relation).capitalize()  # symmetric: "Married to: Ana" on both pages
    if _VERB_WORDS.search(relation.label or "") or relation.predicate in (Predicate.ROLE, Predicate.OTHER):
        # No noun to read it from this side: the predicate's own noun ("related to").
        return True, str(_PREDICATE_WORDS[Predicate.OTHER]).capitalize()
    return False, _words(relation)


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
            as_label, words = _incoming_words(relation)
            facts.append(Fact(relation, as_label, owner, words))
    return facts


def _entity_or_404(request: HttpRequest, entity_id: Any) -> Entity:
    try:
        return graph.entity_get(actor=request.user, entity_id=entity_id)
    except NotFound as exc:
        raise Http404(exc.message) from exc


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
            "kinds": KIND_CHOICES,
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
            "kinds": KIND_CHOICES,
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
        messages.error(request, error_text(exc))
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
        _("Corrected."),
    )


@login_required
@require_POST
def person_merge(request: HttpRequest, entity_id: Any) -> HttpResponse:
    into = request.POST.get("into", "")
    if not into:
        messages.error(request, _("Choose whom to merge with."))
        return redirect("privacy:person", entity_id=_entity_or_404(request, entity_id).pk)
    return _act(
        request,
        entity_id,
        lambda e: graph_services.entity_merge(actor=request.user, entity_id=e.pk, into_id=into),
        _("Merged: one person now, with everything the assistant knew of both."),
    )


@login_required
@require_POST
def person_split(request: HttpRequest, entity_id: Any) -> HttpResponse:
    ids = request.POST.getlist("memories")
    name = request.POST.get("name", "").replace("\x00", "")
    if not ids:
        messages.error(request, _("Tick the memories that are about someone else."))
        return redirect("privacy:person", entity_id=_entity_or_404(request, entity_id).pk)
    return _act(
        request,
        entity_id,
        lambda e: graph_services.entity_split(actor=request.user, entity_id=e.pk, entry_ids=ids, name=name),
        _("Split: those memories now speak of someone else."),
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
        messages.success(
            request,
            ngettext(
                "Erased for good, with %(n)s memory about them.",
                "Erased for good, with %(n)s memories about them.",
                n,
            )
            % {"n": n},
        )
        return redirect("privacy:people")
    return render(request, "privacy/person_erase.html", {"entity": entity, "sources": facts.memories})


# --- Relations: correct a value, end, erase (the services the REST `relations` endpoints call) ---


def _relation_of(request: HttpRequest, entity: Entity, relation_id: Any) -> Relation:
    """One of `entity`'s relations; 404 alike for a missing one and for anyone else's."""
    try:
        relation = graph.relation_get(actor=request.user, relation_id=relation_id)
    except NotFound as exc:
        raise Http404(exc.message) from exc
    if entity.pk not in (relation.subject_id, relation.object_id):
        raise Http404("Relation not found.")
    return relation


def _relation_act(
    request: HttpRequest, entity_id: Any, relation_id: Any, action: Any, done: str
) -> HttpResponse:
    entity = _entity_or_404(request, entity_id)
    relation = _relation_of(request, entity, relation_id)
    try:
        action(relation)
    except NotFound as exc:
        raise Http404(exc.message) from exc
    except MemoryServiceError as exc:
        messages.error(request, error_text(exc))
    else:
        messages.success(request, done)
    # Erasing a relation may prune an entity left with nothing: then back to the list.
    if not Entity.objects.filter(pk=entity.pk).exists():
        return redirect("privacy:people")
    return redirect("privacy:person", entity_id=entity.pk)


@login_required
@require_POST
def relation_correct(request: HttpRequest, entity_id: Any, relation_id: Any) -> HttpResponse:
    value = request.POST.get("value", "").replace("\x00", "")
    return _relation_act(
        request,
        entity_id,
        relation_id,
        lambda r: graph_services.relation_correct(actor=request.user, relation_id=r.pk, value=value),
        str(_("Corrected.")),
    )


def _end_of(day: date) -> datetime:
    """The moment a relation said to end on `day` stops holding: the end of that day, here."""
    return timezone.make_aware(datetime.combine(day, time.max))


@login_required
@require_POST
def relation_end(request: HttpRequest, entity_id: Any, relation_id: Any) -> HttpResponse:
    try:
        day = parse_date(request.POST.get("ended", "")) or timezone.localdate()
    except ValueError:  # well formed but impossible, such as 2026-02-30
        day = None
    if day is None or day > timezone.localdate():
        messages.error(request, str(_("Give the day it ended: a real date, not in the future.")))
        return redirect("privacy:person", entity_id=_entity_or_404(request, entity_id).pk)
    ended = min(_end_of(day), timezone.now())
    return _relation_act(
        request,
        entity_id,
        relation_id,
        lambda r: graph_services.relation_correct(actor=request.user, relation_id=r.pk, valid_to=ended),
        str(_("Ended: it is kept under “Earlier”, with its dates.")),
    )


@login_required
@require_POST
def relation_erase(request: HttpRequest, entity_id: Any, relation_id: Any) -> HttpResponse:
    return _relation_act(
        request,
        entity_id,
        relation_id,
        lambda r: graph_services.relation_erase(actor=request.user, relation_id=r.pk),
        str(_("Erased: the link is gone; the memories it came from stay (erase them on their own pages).")),
    )
