"""What a pasted saved-memories list leaves out (`text_skips`): the assistant's words around the
list, never a memory that only ends with a question mark or mentions memory."""

from __future__ import annotations

import pytest

from memory_core.imports.parsers import ImportInputError
from memory_core.imports.pasted import read_text
from memory_core.imports.preview import read_prefix
from tests.imports_helpers import PASTED_LISTS


@pytest.mark.parametrize("name", sorted(PASTED_LISTS))
def test_each_pasted_list_keeps_its_memories_and_leaves_out_the_rest(name):
    pasted, memories, left_out = PASTED_LISTS[name]
    items, skipped = read_text(pasted)
    assert [item.content for item in items] == memories
    assert [(line.line, line.reason) for line in skipped] == left_out


@pytest.mark.parametrize(
    "pasted",
    [
        # After the list, unbulleted, yet memories: no offer to the person, no word about the list.
        "- Likes tea\n- Is vegetarian\nI have a poor memory for names.\n",
        "- Likes tea\n- Is vegetarian\nAsked: should I change jobs this year?\n",
        "- Likes tea\n- Is vegetarian\nWants to remember to call his mother on Sundays\n",
        # No bullets: the last lines are memories unless they speak to the person about memory.
        "Likes tea\nIs vegetarian\nIs there a good tea shop in Leeds?\n",
        "Likes tea\n记性不好，常忘记别人的名字\n",  # noqa: RUF001
    ],
)
def test_a_memory_that_asks_or_names_memory_is_kept(pasted):
    items, skipped = read_text(pasted)
    assert len(items) == len(pasted.splitlines()) and skipped == []


def test_a_closing_line_of_a_list_without_bullets_is_left_out():
    items, skipped = read_text("Likes tea\nIs vegetarian\nLet me know if you want me to forget anything.\n")
    assert [item.content for item in items] == ["Likes tea", "Is vegetarian"]
    assert [(line.line, line.reason) for line in skipped] == [(3, "closing line")]


def test_a_bounded_read_still_shows_the_closing_lines_and_counts_only_memories():
    pasted = "Saved memories\n" + "".join(f"- Has visited city number {n}\n" for n in range(30))
    pasted += "---\nIs there anything else you'd like me to remember?\n"
    items, _, total, skipped = read_prefix("text", pasted, 5)
    assert len(items) == 5 and total == 30
    assert [(line.line, line.reason) for line in skipped] == [
        (1, "title"),
        (32, "separator"),
        (33, "closing line"),
    ]


def test_a_skipped_line_with_a_secret_is_shown_redacted():
    _, skipped = read_text(
        "- Likes tea\n- Is vegetarian\n"
        "Let me know if you want me to forget sk-live-0123456789abcdefghijklmnop.\n"
    )
    assert skipped and "0123456789abcdefghijklmnop" not in skipped[0].text


def test_a_paste_of_chatter_only_is_refused_saying_why():
    with pytest.raises(ImportInputError, match="no line of it is a memory"):
        read_text("Saved memories\n---\n")
