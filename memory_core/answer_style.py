"""Which memories are answer-style preferences: standing preferences about how to answer (length,
format, language, tone), which the chat applies to every turn (`chat.style`).

A preference is about answering when it names what it shapes: answers, replies, explanations,
format (lists, tables, markdown, emoji), language or tone. The same words in Chinese count.
`MemoryEntry.answer_style` is this test, computed by PostgreSQL on every write (a stored
generated column), so a turn reads the user's style preferences through an index instead of
matching the pattern against every preference they hold.
"""

PREFERENCE_CATEGORY = "preference"
# PostgreSQL regular expression (case-insensitive match, `~*`): word starts in English, any
# position in Chinese. Changing it changes the generated column: `makemigrations` writes the
# migration that recomputes it.
STYLE_PATTERN = (
    r"\m(answer|repl(y|ies)|respon(se|d)|explanation|explain|summar|bullet|list|table|markdown|"
    r"format|emoji|tone|formal|casual|polite|language|in (english|chinese|french|german|spanish|"
    r"portuguese|japanese|korean|italian|dutch))"
    r"|回答|回复|答复|简短|简洁|详细|语气|格式|中文|英文|列表|表格"
)
