"""The turn's two writes, one SQL statement each (issue 15: a chat turn in at most 10 statements).

Saving the user's message also touches its conversation and raises its every-N-turns counter;
saving the reply also marks the message answered (and, when due, touches the conversation). One
statement each (data-modifying CTEs) is atomic on its own: no BEGIN / COMMIT, no savepoint.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import connection

from chat.models import Conversation, Message

_MESSAGE = Message._meta.db_table
_CONVERSATION = Conversation._meta.db_table


def _insert(message: Message, *, suffix: str = "") -> tuple[str, list[Any]]:
    """An INSERT of `message` built from the model's fields (defaults applied), returning its id."""
    fields = [f for f in Message._meta.concrete_fields if not f.primary_key]
    columns = ", ".join(connection.ops.quote_name(str(f.column)) for f in fields)
    values = [f.get_db_prep_save(f.pre_save(message, add=True), connection) for f in fields]
    placeholders = ", ".join(["%s"] * len(fields))
    sql = f"INSERT INTO {_MESSAGE} ({columns}) VALUES ({placeholders}){suffix} RETURNING id"  # noqa: S608
    return sql, values


def _saved(message: Message, pk: int) -> Message:
    message.pk = pk
    message._state.adding = False
    message._state.db = connection.alias
    return message


def message_insert(*, message: Message, conversation: Conversation, now: datetime, title: str) -> None:
    """Save the user's `message` and, in the same statement, reopen and touch its conversation,
    give it `title` if it has none, and count the message for the every-N-turns trigger.

    Updates `message` (its id) and `conversation` (the fields the statement wrote) in place.
    """
    insert, values = _insert(message)
    # Only table and column names are formatted in; every value is a parameter.
    sql = f"""
        WITH message AS ({insert}),
        touched AS (
            UPDATE {_CONVERSATION}
            SET last_activity_at = %s, closed_at = NULL,
                title = CASE WHEN title = '' THEN %s ELSE title END,
                unextracted_turns = unextracted_turns + 1
            WHERE id = %s
            RETURNING title, unextracted_turns
        )
        SELECT message.id, touched.title, touched.unextracted_turns FROM message, touched
    """  # noqa: S608
    with connection.cursor() as cursor:
        cursor.execute(sql, [*values, now, title, conversation.pk])
        row = cursor.fetchone()
    if row is None:  # the message's foreign key already fails for a deleted conversation
        raise Conversation.DoesNotExist("The conversation no longer exists.")
    _saved(message, row[0])
    conversation.last_activity_at, conversation.closed_at = now, None
    conversation.title, conversation.unextracted_turns = row[1], row[2]


def reply_insert(*, reply: Message, user_message: Message, touch_at: datetime | None, paused: bool) -> bool:
    """Save `reply` and mark `user_message` answered in one statement; False (nothing written) if
    the message already has a reply (another tab). `touch_at`: the conversation's new activity;
    `paused`: memory was paused, so no trigger may ever learn from this turn or anything before
    (the conversation's extracted range moves to the reply, its counter to zero).

    On success `reply` gets its id, and `reply.conversation` what was written and the current
    every-N-turns counter (read in the same statement, so counting another tab's newer message).
    """
    conversation = reply.conversation
    # ON CONFLICT: the one-reply-per-message constraint answers "already answered" without an
    # error, so no savepoint is needed to survive it inside a caller's transaction.
    insert, values = _insert(reply, suffix=" ON CONFLICT (reply_to_id) DO NOTHING")
    params: list[Any] = [*values, Message.Status.COMPLETE, user_message.pk]
    touch = ""
    assignments = []
    if touch_at is not None:
        assignments.append("last_activity_at = %s")
        params.append(touch_at)
    if paused:
        # A message posted meanwhile by another tab may be counted out here: the every-N trigger
        # then waits one more turn, and the idle sweep still hands everything over.
        assignments.append("extracted_upto = (SELECT id FROM reply), unextracted_turns = 0")
    if assignments:
        touch = f""",
        touched AS (
            UPDATE {_CONVERSATION} SET {", ".join(assignments)}
            WHERE id = %s AND EXISTS (SELECT 1 FROM reply)
        )"""  # noqa: S608
        params.append(conversation.pk)
    sql = f"""
        WITH reply AS ({insert}),
        answered AS (
            UPDATE {_MESSAGE} SET status = %s, error = ''
            WHERE id = %s AND EXISTS (SELECT 1 FROM reply)
        ){touch}
        SELECT reply.id, (SELECT unextracted_turns FROM {_CONVERSATION} WHERE id = %s) FROM reply
    """  # noqa: S608
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, conversation.pk])
        row = cursor.fetchone()
    if row is None:
        return False
    _saved(reply, row[0])
    user_message.status, user_message.error = Message.Status.COMPLETE, ""
    if touch_at is not None:
        conversation.last_activity_at = touch_at
    if paused:
        conversation.extracted_upto, conversation.unextracted_turns = row[0], 0
    else:
        conversation.unextracted_turns = row[1]
    return True
