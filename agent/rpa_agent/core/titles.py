"""Window titles the way a step names them: exact, or with a run's own words where `{{*}}` stands."""

from __future__ import annotations

from rpa_agent.port import Window

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


def window_titled(windows: list[Window], wanted: str) -> Window | None:
    """The window a focus step names: the same title, else one holding it (or held by it), else a template match."""
    window = next((w for w in windows if w.title == wanted), None) or next(
        (w for w in windows if w.title and (wanted in w.title or w.title in wanted)), None
    )
    if window is None and ANY_WORDS in wanted:  # the record's other words are whatever this run's shows
        window = next((w for w in windows if w.title and title_matches(w.title, wanted)), None)
    return window
