"""Why a reply failed, in the reader's language: the model client's reasons (memory_core.llm) are
recorded in English on the message, with their figures; the chat page translates the wording and
keeps the figures. A reason it does not know (a server's own message) is shown as recorded."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import ngettext, pgettext_lazy

_TRIED = r"(?P<attempts>\d+) attempts?"
_FAILURES: dict[re.Pattern[str], Any] = {
    re.compile(
        rf"The language model did not answer within (?P<seconds>[\d.]+) s \({_TRIED}\)\."
    ): pgettext_lazy("reply failure", "The language model did not answer within %(seconds)s s (%(tried)s)."),
    re.compile(rf"The language model service could not be reached \({_TRIED}\)\."): pgettext_lazy(
        "reply failure", "The language model service could not be reached (%(tried)s)."
    ),
    re.compile(
        rf"The language model service is rate-limiting requests \(HTTP 429, {_TRIED}\); try again later\."
    ): pgettext_lazy(
        "reply failure",
        "The language model service is rate-limiting requests (HTTP 429, %(tried)s); try again later.",
    ),
    re.compile(
        rf"The language model service is failing \(HTTP (?P<status>\d+), {_TRIED}\); try again later\."
    ): pgettext_lazy(
        "reply failure",
        "The language model service is failing (HTTP %(status)s, %(tried)s); try again later.",
    ),
    re.compile(r"The language model service refused the request \(HTTP (?P<status>\d+)\): (?P<detail>.*)"): (
        pgettext_lazy(
            "reply failure", "The language model service refused the request (HTTP %(status)s): %(detail)s"
        )
    ),
    re.compile(r"The language model returned no answer\."): pgettext_lazy(
        "reply failure", "The language model returned no answer."
    ),
    re.compile(r"The language model returned an empty reply\."): pgettext_lazy(
        "reply failure", "The language model returned an empty reply."
    ),
}


def failure_label(reason: str) -> str:
    """A recorded reason a reply failed, in the page's language when it is one of the client's."""
    for pattern, text in _FAILURES.items():
        if match := pattern.fullmatch(reason.strip()):
            values = match.groupdict()
            if "attempts" in values:
                n = int(values.pop("attempts"))
                values["tried"] = ngettext("%(n)s attempt", "%(n)s attempts", n) % {"n": n}
            return str(text) % values
    return reason
