"""Screenshots of an X11 screen (mss, XShmGetImage) as port Frames (BGRA bytes) and PNG bytes (Pillow).

mss was chosen by measurement (docs/decisions/x11-agent.md): a 1920x1080 grab costs a few
milliseconds through shared memory, against tens through a plain XGetImage; the encoding then
dominates, so PNG uses a fast compression level.
"""

from __future__ import annotations

import io
import threading

import mss
from PIL import Image, ImageChops

from rpa_agent.port import Box, Frame

PNG_LEVEL = 1


class Screen:
    def __init__(self, display_name: str | None = None) -> None:
        self._mss = mss.MSS(display=display_name) if display_name else mss.MSS()
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._mss.close()

    def size(self) -> tuple[int, int]:
        with self._lock:
            whole = self._mss.monitors[0]
        return int(whole["width"]), int(whole["height"])

    def grab(self) -> Frame:
        """The whole screen (BGRA, row-major)."""
        with self._lock:
            shot = self._mss.grab(self._mss.monitors[0])
        return Frame(int(shot.width), int(shot.height), bytes(shot.bgra))

    def grab_region(self, region: Box) -> Frame:
        """One region (x, y, w, h in the whole screen's pixels)."""
        x, y, w, h = region
        with self._lock:
            whole = self._mss.monitors[0]
            shot = self._mss.grab({"left": whole["left"] + x, "top": whole["top"] + y, "width": w, "height": h})
        return Frame(int(shot.width), int(shot.height), bytes(shot.bgra))

    def png(self, frame: Frame) -> bytes:
        out = io.BytesIO()
        rgb(frame).save(out, format="PNG", compress_level=PNG_LEVEL)
        return out.getvalue()

    def changed(self, before: Frame, after: Frame, region: Box | None = None) -> float:
        """The share of pixels that differ inside `region` (1.0 when the frames' sizes differ)."""
        if (before.width, before.height) != (after.width, after.height):
            return 1.0
        a, b = image(before), image(after)
        if region is not None:
            x, y, w, h = region
            box = (max(0, x), max(0, y), min(before.width, x + w), min(before.height, y + h))
            if box[2] <= box[0] or box[3] <= box[1]:
                return 0.0
            a, b = a.crop(box), b.crop(box)
        diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB")).convert("L")
        differing = sum(diff.point(lambda v: 255 if v else 0).histogram()[1:])
        return differing / max(1, diff.width * diff.height)


def image(frame: Frame) -> Image.Image:
    """The frame as a Pillow image (BGRA read as RGBA channels: only equality is asked of it)."""
    return Image.frombuffer("RGBA", (frame.width, frame.height), frame.pixels, "raw", "RGBA", 0, 1)


def rgb(frame: Frame) -> Image.Image:
    """The frame as an RGB image (its BGRA bytes reordered)."""
    return Image.frombuffer("RGB", (frame.width, frame.height), frame.pixels, "raw", "BGRX", 0, 1)
