"""A record chosen by part of who it is: a doubt the person settles before the workflow is built.

A step that selects a record keeps the identity text the person saw on it ("GAUTHIER Édith"). When
the workflow's parameters cover some of its words (the surname typed into the search) but not all
the words that name the record (the first name, an identifier), a run checks only the covered ones:
any record sharing them would be taken for the person's. Such a step gets the doubt
``record_partly_named`` (capped below the ask-first line, `rpa_mcp.shadow.doubts.capped`) and two
suggestions: make the row's label a parameter (the whole name is then checked), or validate that
step by its index (any record sharing the covered words is right; `record_confirmed`). Unconfirmed,
a run pauses before such a click (`rpa_mcp.shadow.ir.templated`); validating all steps at once (as a
build requires) confirms no such record. A person's correction of the intent keeps this doubt.

Judged across the steps (the parameter is often declared by an earlier step), after they are derived.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from rpa_mcp.shadow.doubts import capped
from rpa_mcp.shadow.parameters import declared, suggest_name
from rpa_mcp.shadow.targets import clean_label
from rpa_mcp.vision.ocr import normalize_text

RECORD_PARTLY_NAMED = "record_partly_named"
_WORD = re.compile(r"[^\W_]+(?:[-'’/.][^\W_]+)*")  # a hyphenated name, a date or an identifier: one word
REASONS = {
    "fr": {
        "parameterize": "l'enregistrement est choisi par '{covered}' seulement : '{uncovered}' n'est pas vérifié "
        "(un autre patient du même nom serait pris) — en faire un paramètre",
        "validate": "ou confirmer que tout enregistrement au nom de '{covered}' convient : une exécution "
        "s'arrêtera quand même avant ce clic tant que l'étape n'est pas validée",
    },
    "en": {
        "parameterize": "the record is chosen by '{covered}' only: '{uncovered}' is not checked (another "
        "patient with the same name would be taken) — make it a parameter",
        "validate": "or confirm that any record named '{covered}' is right: a run pauses before this click "
        "until the step is validated",
    },
}


def naming_words(text: str) -> list[str]:
    """The words of a record's text that name it: a capitalised word, a number or an identifier."""
    return [w for w in _WORD.findall(text) if any(c.isdigit() for c in w) or (len(w) >= 2 and w[0].isupper())]


def uncovered(identity: str, examples: Iterable[Any]) -> list[str]:
    """The naming words of `identity` no parameter's value holds, when some of its words are a parameter's
    (empty: the record is fully named by the parameters, or by none of them: then it is chosen as shown)."""
    covered = {normalize_text(w) for x in examples if x not in (None, "") for w in _WORD.findall(str(x))}
    words = _WORD.findall(identity)
    if not any(normalize_text(w) in covered for w in words):
        return []
    return [w for w in naming_words(identity) if normalize_text(w) not in covered]


def missing_name(identity: str, examples: Iterable[Any]) -> str | None:
    """The rest of the person's name a record's text shows next to the words a parameter covers: the first
    name beside the surname ('Édith' in 'GAUTHIER Édith — née le …' with 'GAUTHIER' a parameter), the
    capitalised words right after the covered ones (else right before), on the same stretch of text (no
    separator between). None when no parameter covers a word of it, or nothing name-like stands there."""
    covered = {normalize_text(w) for x in examples if x not in (None, "") for w in _WORD.findall(str(x))}
    found = list(_WORD.finditer(identity))
    hits = [i for i, m in enumerate(found) if normalize_text(m.group()) in covered]
    if not hits:
        return None

    def run(indexes: Iterable[int], last: int) -> list[str]:
        words: list[str] = []
        for i in indexes:
            m, word = found[i], found[i].group()
            joined = identity[found[last].end() : m.start()] if i > last else identity[m.end() : found[last].start()]
            if joined.strip() or normalize_text(word) in covered or not _name_part(word):
                break
            words.append(word)
            last = i
        return words

    after = run(range(hits[-1] + 1, len(found)), hits[-1])
    before = run(range(hits[0] - 1, -1, -1), hits[0])[::-1]
    return " ".join(after or before) or None


def _name_part(word: str) -> bool:
    return len(word) >= 2 and word[0].isupper() and not any(c.isdigit() for c in word)


def doubt_partly_named(steps: Sequence[dict[str, Any]], locale: str) -> None:
    """Add the doubt to each record step chosen by part of who it is (in place; steps are fresh copies)."""
    examples = [p.get("example") for p in declared(steps)]
    lang = "fr" if locale == "fr" else "en"
    for step in steps:
        identity = step.get("identity")
        if not isinstance(identity, str) or step.get("record_confirmed"):
            continue
        missing = uncovered(identity, examples)
        if not missing:
            continue
        covered = " ".join(w for w in _WORD.findall(identity) if w not in missing)
        said = {"covered": clean_label(covered, limit=40) or covered, "uncovered": " ".join(missing)}
        step["doubts"] = [*(step.get("doubts") or []), RECORD_PARTLY_NAMED]
        step["confidence"] = round(capped(step["confidence"], step["doubts"]), 2)
        suggestions = list(step.get("suggestions") or [])
        rest = missing_name(identity, examples)  # the first name beside the surname: named in full by it
        if rest is not None:  # instead of the whole row, which the surname's parameter already names in part
            suggestions = [s for s in suggestions if not (s.get("action") == "parameterize" and s["kind"] == "record")]
        offered = any(s.get("action") == "parameterize" for s in suggestions)
        if step.get("parameter") is None and step.get("value") and not offered:
            taken = [p["name"] for p in declared(steps)]
            suggestions.append(
                {
                    "action": "parameterize",
                    "kind": "record",
                    "name": suggest_name(None, "first_name" if rest else "record", lang, taken),
                    "type": "string",
                    "example": rest or step["value"],
                    "reason": REASONS[lang]["parameterize"].format(**said),
                }
            )
        suggestions.append(
            {"action": "validate", "kind": RECORD_PARTLY_NAMED, "reason": REASONS[lang]["validate"].format(**said)}
        )
        step["suggestions"] = suggestions
