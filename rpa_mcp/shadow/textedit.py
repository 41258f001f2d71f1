"""What a field finally holds after the keystrokes of one typing step.

Typed chunks are inserted at a cursor; Backspace and Delete remove around it; arrows,
Home/End and their Shift forms move it or select; Ctrl+A selects everything; typing over a
selection replaces it. An Enter the segmenter judged a line break inserts ``\\n``. Keys whose
effect cannot be known from the events (a paste without its text, an undo) make the result
*uncertain*: the text is still the best reconstruction, and the step's confidence says so.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from rpa_mcp.shadow.events import normalize_keys

UNKNOWABLE = frozenset({"ctrl+v", "shift+insert", "ctrl+z", "ctrl+y", "ctrl+shift+z"})
NAMED_CHARS = {"space": " ", "shift+space": " "}


@dataclass
class _Buffer:
    chars: list[str] = field(default_factory=list)
    cursor: int = 0
    anchor: int | None = None  # selection anchor (the selection is anchor..cursor)
    certain: bool = True

    def _selection(self) -> tuple[int, int] | None:
        if self.anchor is None or self.anchor == self.cursor:
            return None
        return min(self.anchor, self.cursor), max(self.anchor, self.cursor)

    def _drop_selection(self) -> bool:
        sel = self._selection()
        self.anchor = None
        if sel is None:
            return False
        del self.chars[sel[0] : sel[1]]
        self.cursor = sel[0]
        return True

    def insert(self, text: str) -> None:
        self._drop_selection()
        self.chars[self.cursor : self.cursor] = list(text)
        self.cursor += len(text)

    def backspace(self, *, word: bool = False) -> None:
        if self._drop_selection() or self.cursor == 0:
            return
        start = self.cursor - 1
        if word:
            while start > 0 and self.chars[start - 1].isspace():
                start -= 1
            while start > 0 and not self.chars[start - 1].isspace():
                start -= 1
        elif self.chars[start] == "\n" and start > 0 and self.chars[start - 1] == "\r":
            start -= 1  # a Windows line break goes at once
        del self.chars[start : self.cursor]
        self.cursor = start

    def delete(self) -> None:
        if self._drop_selection() or self.cursor >= len(self.chars):
            return
        end = self.cursor + (2 if self.chars[self.cursor : self.cursor + 2] == ["\r", "\n"] else 1)
        del self.chars[self.cursor : end]

    def move(self, to: int, *, select: bool) -> None:
        if select:
            self.anchor = self.cursor if self.anchor is None else self.anchor
        else:
            self.anchor = None
        self.cursor = max(0, min(to, len(self.chars)))

    def line_start(self) -> int:
        i = self.cursor
        while i > 0 and self.chars[i - 1] != "\n":
            i -= 1
        return i

    def line_end(self) -> int:
        i = self.cursor
        while i < len(self.chars) and self.chars[i] not in ("\r", "\n"):
            i += 1
        return i

    def vertical(self, up: bool) -> int:
        column = self.cursor - self.line_start()
        if up:
            start = self.line_start()
            if start == 0:
                return 0
            prev_end = start - 1 - (1 if start >= 2 and self.chars[start - 2] == "\r" else 0)
            prev_start = prev_end
            while prev_start > 0 and self.chars[prev_start - 1] != "\n":
                prev_start -= 1
            return min(prev_start + column, prev_end)
        end = self.line_end()
        if end >= len(self.chars):
            return len(self.chars)
        next_start = end + (2 if self.chars[end] == "\r" else 1)
        i = next_start
        while i < len(self.chars) and self.chars[i] not in ("\r", "\n"):
            i += 1
        return min(next_start + column, i)


def final_text(events: Iterable[tuple[int, dict[str, Any]]], newlines: Collection[int] = ()) -> tuple[str, bool]:
    """(the text the field holds after these events, whether every keystroke's effect was known)."""
    buf = _Buffer()
    for idx, event in events:
        kind = event.get("type")
        if kind == "type":
            buf.insert(str(event.get("text") or ""))
        elif kind == "key":
            _key(buf, normalize_keys(str(event.get("keys") or "")), idx in newlines, event)
    return "".join(buf.chars), buf.certain


def _key(buf: _Buffer, keys: str, newline: bool, event: dict[str, Any]) -> None:
    select = keys.startswith("shift+")
    base = keys.removeprefix("shift+")
    if keys in ("enter", "numpadenter", "shift+enter"):
        if newline:
            buf.insert("\n")
    elif keys in ("backspace", "shift+backspace"):
        buf.backspace()
    elif keys == "ctrl+backspace":
        buf.backspace(word=True)
    elif keys == "delete":
        buf.delete()
    elif keys in ("ctrl+a",):
        buf.anchor, buf.cursor = 0, len(buf.chars)
    elif keys == "ctrl+x":
        if buf.anchor is not None:
            buf.backspace()
    elif base in ("left", "right"):
        buf.move(buf.cursor + (-1 if base == "left" else 1), select=select)
    elif base in ("home", "end"):
        buf.move(buf.line_start() if base == "home" else buf.line_end(), select=select)
    elif base in ("ctrl+home", "ctrl+end"):
        buf.move(0 if base == "ctrl+home" else len(buf.chars), select=select)
    elif base in ("up", "down"):
        buf.move(buf.vertical(base == "up"), select=select)
    elif keys in NAMED_CHARS:
        buf.insert(NAMED_CHARS[keys])
    elif len(keys) == 1:
        buf.insert(keys)
    elif select and len(base) == 1:
        buf.insert(base.upper())
    elif keys in UNKNOWABLE:
        pasted = event.get("pasted_text")
        if keys in ("ctrl+v", "shift+insert") and isinstance(pasted, str):
            buf.insert(pasted)
        else:
            buf.certain = False
    elif event.get("masked"):
        buf.insert("•")
