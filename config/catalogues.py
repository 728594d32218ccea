"""Compile the translation catalogues (locale/*/LC_MESSAGES/*.po) into the .mo files Django reads.

Run by scripts/bootstrap (`python -m config.catalogues`), so a fresh clone, `make run` and CI get
the Chinese pages without GNU gettext installed: polib writes the .mo. Only a catalogue whose .mo
is missing or older than its .po is compiled. The .mo files are build output (not committed).
"""

from __future__ import annotations

import sys
from pathlib import Path

import polib

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"


def compile_catalogues(locale_dir: Path = LOCALE_DIR, *, force: bool = False) -> list[Path]:
    """Compile each stale catalogue; return the .mo files written."""
    written = []
    for po_path in sorted(locale_dir.glob("*/LC_MESSAGES/*.po")):
        mo_path = po_path.with_suffix(".mo")
        if not force and mo_path.exists() and mo_path.stat().st_mtime >= po_path.stat().st_mtime:
            continue
        catalogue = polib.pofile(str(po_path))
        # Written beside and renamed: a process reading the old file never sees half a new one.
        partial = mo_path.with_suffix(".mo.partial")
        catalogue.save_as_mofile(str(partial))
        partial.replace(mo_path)
        written.append(mo_path)
    return written


if __name__ == "__main__":
    for path in compile_catalogues(force="--force" in sys.argv[1:]):
        print(f"==> compiled {path.relative_to(LOCALE_DIR.parent)}")
