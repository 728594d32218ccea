"""Whether a text names a medicine: the names of the medicines MedlinePlus describes, generic and
brand ("apixaban", "Eliquis", "EpiPen", "Calpol"), from the drug dictionary of Fast Data Science's
`drug-named-entity-recognition` (MIT; DrugBank, MeSH, MedlinePlus and Wikipedia names). A medicine
the labelled sets never named still tells the safety model that a treatment is spoken of
("Grandad is on apixaban"); the n-grams know only the names they were shown.

The dictionary is read from the package's data file without importing the package (whose import
loads every entry with its chemistry and reads a cache in the home folder); only the names are
kept."""

from __future__ import annotations

import bz2
import importlib.util
import pickle  # the pinned package's own data file, as trusted as its code
import re
from functools import lru_cache
from pathlib import Path

PACKAGE = "drug_named_entity_recognition"
DATA_FILE = "drug_ner_dictionary.pkl.bz2"
# Names shorter than this are initials and words before they are medicines ("ella", "dr").
SHORTEST = 5
LONGEST_WORDS = 3
_WORD = re.compile(r"[a-z][a-z0-9'-]*")


@lru_cache(maxsize=1)
def names() -> frozenset[str]:
    """Every medicine name (lower case, one to `LONGEST_WORDS` words)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        # The models learned with this signal: without it they would read every text differently.
        raise ModuleNotFoundError(f"{PACKAGE} is not installed (requirements.txt)")
    path = Path(next(iter(spec.submodule_search_locations))) / DATA_FILE
    with bz2.open(path, "rb") as stream:
        dictionary = pickle.load(stream)  # noqa: S301  # see the module docstring
    described = dictionary["drug_canonical_to_data"]
    return frozenset(
        variant
        for variant, canonical in dictionary["drug_variant_to_canonical"].items()
        if len(variant) >= SHORTEST
        and len(variant.split()) <= LONGEST_WORDS
        and any("medline_plus_id" in described.get(c, {}) for c in canonical)
    )


def named(text: str) -> list[str]:
    """The medicine names in `text`, longest first where they overlap."""
    known = names()
    words = _WORD.findall(text.lower())
    found: list[str] = []
    i = 0
    while i < len(words):
        for n in range(LONGEST_WORDS, 0, -1):
            candidate = " ".join(words[i : i + n])
            if len(words[i : i + n]) == n and candidate in known:
                found.append(candidate)
                i += n
                break
        else:
            i += 1
    return found
