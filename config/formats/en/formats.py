"""English dates as the pages have always said them: "2 Dec 2026", "2 Dec 2026 11:34"."""

DATE_FORMAT = "j M Y"
DATETIME_FORMAT = "j M Y H:i"
SHORT_DATE_FORMAT = "j M Y"
SHORT_DATETIME_FORMAT = "j M Y H:i"
