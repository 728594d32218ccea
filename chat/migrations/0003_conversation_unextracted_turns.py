"""The every-N-turns counter, filled for existing conversations from their messages."""

from django.db import migrations, models

BACKFILL = """
UPDATE chat_conversation AS c SET unextracted_turns = (
    SELECT count(*) FROM chat_message AS m
    WHERE m.conversation_id = c.id AND m.role = 'user' AND m.id > coalesce(c.extracted_upto, 0)
)
"""


class Migration(migrations.Migration):
    dependencies = [
        ("chat", "0002_message_reply_to"),
    ]

    operations = [
        migrations.AddField(
            model_name="conversation",
            name="unextracted_turns",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunSQL(BACKFILL, reverse_sql=migrations.RunSQL.noop),
    ]
