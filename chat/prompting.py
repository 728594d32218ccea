"""Builds the prompt of a chat turn: system prompt, memory block, rolling summary, recent turns."""

from __future__ import annotations

from collections.abc import Iterable

from chat.models import Message
from config.tuning import tuned
from memory_core.recall.prompt import estimate_tokens

SYSTEM_PROMPT = (
    "You are a helpful, honest assistant with a long-term memory of this user. "
    "Use what you remember when it helps, mention where it came from when that matters, and never "
    "invent memories. If the user asks you to forget or correct something, tell them they can do it "
    "on the 'What the AI knows about me' page."
)

# A turn's prompt: the recalled memories in a small budget beside the question, the last few turns
# verbatim; older turns are folded into the rolling summary.
CHAT_MEMORY_TOKENS, CHAT_HISTORY_TOKENS = 600, 1500


def memory_budget() -> int:
    return int(tuned("CHAT_MEMORY_TOKENS", CHAT_MEMORY_TOKENS))


def history_budget() -> int:
    return int(tuned("CHAT_HISTORY_TOKENS", CHAT_HISTORY_TOKENS))


def recent_window(messages: list[Message], *, budget_tokens: int) -> list[Message]:
    """The most recent messages that fit the budget, oldest first (always at least the last one)."""
    picked: list[Message] = []
    used = 0
    for message in reversed(messages):
        # The same estimate recall uses, plus the per-message framing of the chat format.
        cost = estimate_tokens(message.content) + 3
        if picked and used + cost > budget_tokens:
            break
        picked.append(message)
        used += cost
    return list(reversed(picked))


def offline_summary(messages: Iterable[Message], *, max_chars: int = 1200) -> str:
    """Without a model: the first sentence of each older user message, newest kept when cut."""
    lines = []
    for message in messages:
        if message.role != Message.Role.USER:
            continue
        first = message.content.strip().split("\n")[0]
        first = first.split(". ")[0][:160]
        lines.append(f"- The user said: {first}")
    text = "\n".join(lines)
    return text[-max_chars:]


def build_messages(
    *,
    memory_block: str,
    memory_note: str,
    summary: str,
    history: list[Message],
    user_text: str,
    style: str = "",
) -> list[dict[str, str]]:
    messages = [{"role": "system", "content": SYSTEM_PROMPT}]
    if style:
        messages.append({"role": "system", "content": style})
    if memory_note:
        messages.append({"role": "system", "content": memory_note})
    if memory_block:
        messages.append({"role": "system", "content": memory_block})
    if summary:
        messages.append(
            {"role": "system", "content": f"Summary of the earlier part of this conversation:\n{summary}"}
        )
    messages.extend({"role": m.role, "content": m.content} for m in history)
    messages.append({"role": "user", "content": user_text})
    return messages
