"""Screenshots of an X11 screen (mss, XShmGetImage) as BGR arrays and PNG/JPEG bytes.

mss was chosen by measurement (docs/decisions/x11-agent.md): a 1920x1080 grab costs a few
milliseconds through shared memory, against tens through a plain XGetImage; the encoding
then dominates, so PNG uses a fast compression level, and a frame known to be the one to send
(the screen has stopped changing; the agent still waits to be sure) can be encoded in the
background while the agent waits (`encode_soon`: the same bytes as `encode`).
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Literal

import cv2
import mss
import numpy as np

ImageFormat = Literal["png", "jpeg"]


class Screen:
    def __init__(self, display_name: str | None = None, *, image_format: ImageFormat = "png") -> None:
        self._mss = mss.MSS(display=display_name) if display_name else mss.MSS()
        self._lock = threading.Lock()
        self._encoder: ThreadPoolExecutor | None = None
        self.image_format = image_format

    def close(self) -> None:
        with self._lock:
            self._mss.close()
            encoder, self._encoder = self._encoder, None
        if encoder is not None:
            encoder.shutdown(wait=True, cancel_futures=True)

    def grab(self) -> np.ndarray:
        """The whole screen as a BGR uint8 array."""
        with self._lock:
            shot = self._mss.grab(self._mss.monitors[0])
        return np.ascontiguousarray(np.asarray(shot, dtype=np.uint8)[:, :, :3])

    def grab_region(self, region: tuple[int, int, int, int]) -> np.ndarray:
        """One region (x, y, w, h in the whole screen's pixels) as a BGR uint8 array."""
        x, y, w, h = region
        with self._lock:
            whole = self._mss.monitors[0]
            box = {"left": whole["left"] + x, "top": whole["top"] + y, "width": w, "height": h}
            shot = self._mss.grab(box)
        return np.ascontiguousarray(np.asarray(shot, dtype=np.uint8)[:, :, :3])

    def encode(self, frame: np.ndarray) -> bytes:
        if self.image_format == "jpeg":
            ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
        else:
            ok, buf = cv2.imencode(".png", frame, [cv2.IMWRITE_PNG_COMPRESSION, 1])
        if not ok:  # pragma: no cover - OpenCV encodes any BGR uint8 frame
            raise RuntimeError("screenshot encoding failed")
        return buf.tobytes()

    def encode_soon(self, frame: np.ndarray) -> Future[bytes]:
        """`encode(frame)` in a background thread (one at a time); the frame must not change meanwhile."""
        with self._lock:
            if self._encoder is None:
                self._encoder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="screen-encode")
            return self._encoder.submit(self.encode, frame)

    def png(self) -> bytes:
        return self.encode(self.grab())
