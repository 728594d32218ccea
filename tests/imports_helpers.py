# ruff: noqa: RUF001  # full-width Chinese punctuation is what pasted Chinese lists hold
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


# Pasted lists as assistants show them, with what is around the list; each: (text, the memories
# it holds, the lines left out as (line, reason)). A memory may end with "?" or name memory.
PASTED_LISTS = {
    "chatgpt-en": (
        "Saved memories\n\n- Keeps a sourdough starter called Bubbles\n"
        "- Often asks whether oat milk is really better for the planet?\n"
        "- I have a poor memory for names.\n- Is vegetarian\n\n---\n"
        "Let me know if you'd like me to update or forget anything.\n",
        [
            "Keeps a sourdough starter called Bubbles",
            "Often asks whether oat milk is really better for the planet?",
            "I have a poor memory for names.",
            "Is vegetarian",
        ],
        [(1, "title"), (8, "separator"), (9, "closing line")],
    ),
    "claude-en": (
        "Here's what I remember about you:\n1. Works as a nurse in Leeds\n"
        "2. Wonders whether to move to Porto?\n3. Keeps a memory box of concert tickets\n\u2014\n"
        "These are the memories I have saved.\nIs there anything else you'd like me to remember?\n",
        [
            "Works as a nurse in Leeds",
            "Wonders whether to move to Porto?",
            "Keeps a memory box of concert tickets",
        ],
        [(1, "title"), (5, "separator"), (6, "closing line"), (7, "closing line")],
    ),
    "chatgpt-zh-hans": (
        "已保存的记忆\n- 喜欢喝乌龙茶\n- 记性不好，常忘记别人的名字\n- 在考虑要不要学钢琴？\n"
        "———\n以上是我记住的内容\n如果需要修改或删除，请告诉我\n",
        ["喜欢喝乌龙茶", "记性不好，常忘记别人的名字", "在考虑要不要学钢琴？"],
        [(1, "title"), (5, "separator"), (6, "closing line"), (7, "closing line")],
    ),
    "claude-zh-hant": (
        "以下是我記住的關於你的內容\n• 住在台北\n• 對花生過敏\n• 總是記不住密碼該怎麼辦？\n"
        "如果需要修改或刪除，請告訴我。\n你還有什麼想讓我記住的嗎？\n",
        ["住在台北", "對花生過敏", "總是記不住密碼該怎麼辦？"],
        [(1, "title"), (5, "closing line"), (6, "closing line")],
    ),
}
