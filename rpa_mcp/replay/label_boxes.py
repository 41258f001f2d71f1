"""Where a target's label line was last read, relative to the spot that is clicked for it.

The check of a remembered position reads the target's label at that spot before the spot is
used. Without knowing where the label sits inside the target, that read is a detection + a
recognition over a target-sized box (a text field's whole area: ~0.2 s on a shared 2-core
machine). Once the label has been read there, its line's box is kept here (in memory, per
workstation, screen signature and target, bounded): the next check recognises that one line only (~0.03 s).
A line box is a hint for where to read, never a reason to click: a read that does not show the
label falls back to the full check of the target-sized box.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from rpa_mcp.replay import model as m
from rpa_mcp.vision.images import BBox

DEFAULT_MAX_ENTRIES = 4096


class LabelBoxes:
    """(machine, screen signature, target key) -> the label line's box as an offset from the clicked spot (LRU)."""

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self._boxes: OrderedDict[tuple[str | None, str, str], BBox] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _key(
        window_title: str | None, target: Mapping[str, Any], machine_id: str | None
    ) -> tuple[str | None, str, str]:
        return machine_id, m.screen_signature(window_title), m.target_key(target)

    def remember(
        self,
        window_title: str | None,
        target: Mapping[str, Any],
        spot: tuple[int, int],
        box: BBox,
        *,
        machine_id: str | None = None,
    ) -> None:
        """The label was read in `box` (absolute pixels) for a target clicked at `spot`."""
        x, y, w, h = box
        key = self._key(window_title, target, machine_id)
        with self._lock:
            self._boxes.pop(key, None)
            self._boxes[key] = (x - spot[0], y - spot[1], w, h)
            while len(self._boxes) > self.max_entries:
                self._boxes.popitem(last=False)

    def box_at(
        self,
        window_title: str | None,
        target: Mapping[str, Any],
        spot: tuple[int, int],
        *,
        machine_id: str | None = None,
    ) -> BBox | None:
        """The absolute box where the label line should be for a target clicked at `spot`, if known."""
        key = self._key(window_title, target, machine_id)
        with self._lock:
            offset = self._boxes.get(key)
            if offset is None:
                return None
            self._boxes.move_to_end(key)
        dx, dy, w, h = offset
        return spot[0] + dx, spot[1] + dy, w, h

    def forget(self, window_title: str | None, target: Mapping[str, Any], *, machine_id: str | None = None) -> None:
        with self._lock:
            self._boxes.pop(self._key(window_title, target, machine_id), None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._boxes)
