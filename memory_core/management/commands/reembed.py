"""`manage.py reembed`: bring stored embeddings in line with the configured embedding model.

Run after changing EMBEDDING_BACKEND / EMBEDDING_MODEL. It is a maintenance operation over every
namespace, safe to interrupt and run again: each batch commits on its own and a finished entry is
no longer selected.
"""

from __future__ import annotations

import argparse
import uuid
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.db.models import BooleanField, ExpressionWrapper, Q, QuerySet
from django.utils import timezone

from memory_core.embeddings import Embedder, batch_size, get_embedder
from memory_core.errors import MemoryServiceError
from memory_core.models import ActorKind, EventAction, MemoryEntry, MemoryEvent
from memory_core.services import entry_vectors

# What a re-embedding changes: both vectors, the model, and nothing left for the context job.
_FIELDS = ["embedding", "context_embedding", "context_pending", "embedding_model", "updated_at"]


def _positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


class Command(BaseCommand):
    help = (
        "Re-embed memory entries whose embedding is missing or was made by another model than the "
        "configured one (every entry with --all)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--all", action="store_true", help="Re-embed every entry, current or not.")
        parser.add_argument(
            "--batch-size",
            type=_positive_int,
            default=None,
            help="Entries per batch and transaction (default: embeddings.EMBEDDING_BATCH_SIZE).",
        )
        parser.add_argument("--dry-run", action="store_true", help="Only count what would be re-embedded.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            embedder = get_embedder()
        except ImproperlyConfigured as exc:
            raise CommandError(str(exc)) from exc
        size: int = options["batch_size"] or batch_size()
        self.verbosity: int = options["verbosity"]

        # Deliberately across all namespaces: this is operator maintenance, not a user's read.
        entries = MemoryEntry.objects.all()
        stale = Q(embedding__isnull=True) | ~Q(embedding_model=embedder.name)
        selected = entries if options["all"] else entries.filter(stale)
        total = entries.count()
        to_do = selected.count()
        already_current = total - to_do

        if options["dry_run"]:
            self.stdout.write(
                f"Would re-embed {to_do} entries with {embedder.name} ({already_current} already current)."
            )
            return

        try:
            done, skipped = self._reembed(selected, embedder=embedder, batch_size=size)
        except MemoryServiceError as exc:
            raise CommandError(
                f"{exc.message} Entries re-embedded so far are kept; run again to continue."
            ) from exc

        summary = f"Re-embedded {done} entries with {embedder.name} ({already_current} already current)."
        if skipped:
            summary += f" {skipped} changed while this ran and were left alone; run again to pick them up."
        self.stdout.write(self.style.SUCCESS(summary))

    def _reembed(
        self, selected: QuerySet[MemoryEntry], *, embedder: Embedder, batch_size: int
    ) -> tuple[int, int]:
        done = skipped = 0
        last_pk: uuid.UUID | None = None
        rows_qs = selected.annotate(
            had_embedding=ExpressionWrapper(Q(embedding__isnull=False), output_field=BooleanField())
        ).order_by("pk")
        while True:
            # Keyset pagination: stable under concurrent writes and cheap at any depth, unlike OFFSET.
            page = rows_qs if last_pk is None else rows_qs.filter(pk__gt=last_pk)
            rows = list(
                page.values_list("pk", "content", "embedding_model", "had_embedding", "search_context")[
                    :batch_size
                ]
            )
            if not rows:
                return done, skipped
            last_pk = rows[-1][0]

            # Embedding can take seconds (a remote API), so it happens before any row is locked.
            # The context embedding is compared with the same query vectors: it changes model too
            # (an entry without context uses its statement's vector, as when it was written).
            # `entry_vectors`: as the write path computes them (`CONTEXT_VECTOR`), in one model call;
            # "deferred" as its job completes them: the context documents embedded here, at once.
            mode = "document" if settings.CONTEXT_VECTOR == "deferred" else None
            items: list[tuple[str, str, list[float] | None]] = [
                (content, context, None) for _, content, *_, context in rows
            ]
            pairs = entry_vectors(items, embedder, mode=mode)
            vectors = [statement for statement, _ in pairs]
            context_vectors = {row[0]: context for row, (_, context) in zip(rows, pairs, strict=True)}

            with transaction.atomic():
                locked = {
                    entry.pk: entry
                    for entry in MemoryEntry.objects.select_for_update(of=("self",))
                    .filter(pk__in=[pk for pk, *_ in rows])
                    .only("pk", "namespace_id", "content", "embedding_model", "search_context")
                }
                now = timezone.now()
                changed: list[MemoryEntry] = []
                events: list[MemoryEvent] = []
                for (pk, content, old_model, had_embedding, context), vector in zip(
                    rows, vectors, strict=True
                ):
                    entry = locked.get(pk)
                    # Erased, or its content was corrected since it was read: this vector is stale.
                    if entry is None or entry.content != content or entry.search_context != context:
                        skipped += 1
                        continue
                    entry.embedding = vector
                    entry.context_embedding = context_vectors.get(pk, vector)
                    entry.context_pending = False  # its context vector is computed: nothing waits
                    entry.embedding_model = embedder.name
                    entry.updated_at = now  # bulk_update does not apply auto_now
                    changed.append(entry)
                    previous = old_model if had_embedding else None
                    if previous is None:
                        reason = "embedding missing"
                    elif previous == embedder.name:
                        reason = "re-embedding requested"
                    else:
                        reason = "embedding model changed"
                    # Only model names: history must not gain another copy of the content.
                    events.append(
                        MemoryEvent(
                            namespace_id=entry.namespace_id,
                            entry=entry,
                            entry_ref=entry.pk,
                            action=EventAction.REEMBEDDED,
                            actor_kind=ActorKind.SYSTEM,
                            reason=reason,
                            data={"from": previous, "to": embedder.name},
                            created_at=now,
                        )
                    )
                MemoryEntry.objects.bulk_update(changed, fields=_FIELDS)
                MemoryEvent.objects.bulk_create(events)
            done += len(changed)
            if self.verbosity >= 2:
                self.stdout.write(f"  {done} re-embedded so far")
