"""Expected screen text that holds a part no one can know in advance.

A workflow built from one patient's demonstration expects, after its steps, texts that name that
patient: a window title 'Admission — FAURE Céline', a banner. The parameter's value becomes
``{{patient}}``; the words shown with it that the run cannot know (the first name beside a
surname typed as a parameter) become ``ANY_WORDS``, which matches whatever the run's record
shows there. `parts` splits an expected text on it: each part must be read, in order.
"""

from __future__ import annotations

ANY_WORDS = "{{*}}"


def parts(expected: str) -> list[str]:
    """The fixed parts of an expected text, in order (the text itself when it holds no ANY_WORDS)."""
    return [p for p in expected.split(ANY_WORDS) if p.strip()] if ANY_WORDS in expected else [expected]


def title_matches(title: str, wanted: str) -> bool:
    """A window's title is the wanted one: equal, or holding each fixed part of it in order."""
    if title == wanted:
        return True
    at = 0
    for part in parts(wanted):
        found = title.find(part.strip(), at)
        if found < 0:
            return False
        at = found + len(part.strip())
    return ANY_WORDS in wanted
