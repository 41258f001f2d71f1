"""The screenshots a batch of events carries: refused whole when too big, decoded within the limits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rpa_mcp.errors import InvalidInput
from rpa_mcp.shadow.events import TraceEvent
from rpa_mcp.shadow.ports import TraceRepository
from rpa_mcp.vision.budget import check_request_pixels
from rpa_mcp.vision.images import decode_base64, decode_image, read_header

SCREENSHOT_URI = "rpa://screenshots/"


@dataclass
class Shot:
    """A screenshot sent with an event: its bytes, decoded, and its type."""

    data: bytes
    image: np.ndarray
    mime: str


class BatchShots:
    def __init__(self, traces: TraceRepository, max_pixels: int, max_image_bytes: int, max_request_pixels: int) -> None:
        self.traces = traces
        self.max_pixels, self.max_image_bytes, self.max_request_pixels = max_pixels, max_image_bytes, max_request_pixels

    def decode(self, events: Sequence[TraceEvent], prefix: str) -> list[Shot | None]:
        """Every screenshot of a batch: headers first (pixels of the whole batch bounded), then decoded."""
        datas = [self._bytes(ev, f"{prefix}[{i}]" if prefix else "") for i, ev in enumerate(events)]
        headers = [read_header(data, field=where) for data, where in filter(None, datas)]
        check_request_pixels(headers, self.max_request_pixels, field=prefix or "screenshot")
        shots: list[Shot | None] = []
        for item in datas:
            if item is None:
                shots.append(None)
                continue
            data, where = item
            image = decode_image(data, max_pixels=self.max_pixels, field=where)
            shots.append(Shot(data, image, "image/png" if read_header(data).format == "png" else "image/jpeg"))
        return shots

    def _bytes(self, ev: TraceEvent, where: str) -> tuple[bytes, str] | None:
        field_name = f"{where}.screenshot" if where else "screenshot"
        if ev.screenshot_ref is not None:
            ref = ev.screenshot_ref.removeprefix(SCREENSHOT_URI)
            if self.traces.screenshot_info(ref) is None:
                name = f"{where}.screenshot_ref" if where else "screenshot_ref"
                raise InvalidInput(f"{name}: no screenshot {ev.screenshot_ref!r} was uploaded", field=name)
            return None
        if not ev.screenshot:
            return None
        return decode_base64(ev.screenshot, field=field_name, max_bytes=self.max_image_bytes), field_name
