# Answer-style preferences decided on write (`memory_core.answer_style`): a stored generated column
# and a partial index, so a chat turn reads a user's style preferences through the index instead of
# matching the pattern against every preference they hold. Adding a stored generated column
# rewrites the table (an exclusive lock for its duration, as the nightly erasure rewrite takes).

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('memory_core', '0019_graph_function'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='memoryentry',
            name='answer_style',
            field=models.GeneratedField(db_persist=True, expression=models.ExpressionWrapper(models.Q(('category', 'preference'), ('content__iregex', '\\m(answer|repl(y|ies)|respon(se|d)|explanation|explain|summar|bullet|list|table|markdown|format|emoji|tone|formal|casual|polite|language|in (english|chinese|french|german|spanish|portuguese|japanese|korean|italian|dutch))|回答|回复|答复|简短|简洁|详细|语气|格式|中文|英文|列表|表格')), output_field=models.BooleanField()), output_field=models.BooleanField()),
        ),
        migrations.AddIndex(
            model_name='memoryentry',
            index=models.Index(condition=models.Q(('answer_style', True)), fields=['namespace', '-recorded_at'], name='memory_answer_style'),
        ),
    ]
