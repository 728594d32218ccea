"""Shared data and checks of the import tests (REST and page): sample files in each format, and
the row count of every table, to prove that a dry run or a refused import wrote nothing."""

from __future__ import annotations

import json

from django.apps import apps

from api.models import RateCount

# What mem0's get_all (and an export of it) gives: `memory`, dates with their offsets, categories.
MEM0_EXPORT = {
    "count": 2,
    "next": None,
    "previous": None,
    "results": [
        {
            "id": "b1f2c3d4-0000-4000-8000-000000000001",
            "memory": "Is vegetarian",
            "user_id": "alex",
            "created_at": "2024-07-20T01:30:12.345678-07:00",
            "updated_at": "2024-08-02T10:00:00-07:00",
            "categories": ["food", "user_preferences"],
            "metadata": {"origin": "onboarding"},
        },
        {
            "id": "b1f2c3d4-0000-4000-8000-000000000002",
            "memory": "Works as a marine biologist in Halifax",
            "user_id": "alex",
            "created_at": "2023-11-05T09:00:00Z",
            "updated_at": "2023-11-05T09:00:00Z",
            "categories": ["professional_details"],
            "metadata": None,
        },
    ],
}

SAVED_MEMORIES = """
- Prefers answers in bullet points
* Has two cats named Miso and Tofu
1. Is learning Portuguese
2) 2024-03-15: Started running half marathons

•   Uses Neovim for all coding
"""

TRANSCRIPT = [
    {"role": "user", "content": "I live in Lisbon.", "created_at": "2025-01-10T09:00:00Z"},
    {"role": "assistant", "content": "Lovely city!", "created_at": "2025-01-10T09:00:05Z"},
    {"role": "user", "content": "I moved to Porto.", "created_at": "2025-06-01T18:30:00Z"},
]


def mem0_file() -> str:
    return json.dumps(MEM0_EXPORT)


def row_counts() -> dict[str, int]:
    """Rows of every table the project's models (and django-q's) own, but the API's rate counters:
    every request answered, a refused import included, counts against its key's limit."""
    return {
        model._meta.db_table: model._default_manager.count()
        for model in apps.get_models()
        if model is not RateCount
    }
