"""Screenshots of an X11 screen (mss, XShmGetImage) as BGR arrays and PNG/JPEG bytes.

mss was chosen by measurement (docs/decisions/x11-agent.md): a 1920x1080 grab costs a few
milliseconds through shared memory, against tens through a plain XGetImage; the encoding
then dominates, so PNG uses a fast compression level.
"""

from __future__ import annotations

import threading
from typing import Literal

import cv2
import mss
import numpy as np

ImageFormat = Literal["png", "jpeg"]


class Screen:
    def __init__(self, display_name: str | None = None, *, image_format: ImageFormat = "png") -> None:
        self._mss = mss.MSS(display=display_name) if display_name else mss.MSS()
        self._lock = threading.Lock()
        self.image_format = image_format

    def close(self) -> None:
        with self._lock:
            self._mss.close()

    def grab(self) -> np.ndarray:
        """The whole screen as a BGR uint8 array."""
        with self._lock:
            shot = self._mss.grab(self._mss.monitors[0])
        return np.ascontiguousarray(np.asarray(shot, dtype=np.uint8)[:, :, :3])

    def encode(self, frame: np.ndarray) -> bytes:
        if self.image_format == "jpeg":
            ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
        else:
            ok, buf = cv2.imencode(".png", frame, [cv2.IMWRITE_PNG_COMPRESSION, 1])
        if not ok:  # pragma: no cover - OpenCV encodes any BGR uint8 frame
            raise RuntimeError("screenshot encoding failed")
        return buf.tobytes()

    def png(self) -> bytes:
        return self.encode(self.grab())
