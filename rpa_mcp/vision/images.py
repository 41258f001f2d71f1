"""Decode screenshots safely and encode crops that clients accept.

Images come from agents and LLM clients: check the format and the pixel count from the
header *before* decoding (a 10000x10000 PNG bomb is refused without allocating it), and
decode each frame once (callers share the array).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from rpa_mcp.errors import ImageRejected

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
JPEG_MAGIC = b"\xff\xd8\xff"
DEFAULT_MAX_PIXELS = 40_000_000
DEFAULT_MAX_BYTES = 16 * 1024 * 1024
CLIENT_MAX_SIDE = 2000
CLIENT_MAX_BYTES = 1_000_000

BBox = tuple[int, int, int, int]  # x, y, w, h in pixels, origin top-left


@dataclass(frozen=True)
class ImageHeader:
    format: str  # "png" | "jpeg"
    width: int
    height: int


def read_header(data: bytes, *, field: str = "image") -> ImageHeader:
    """Format and size from the first bytes; raises `ImageRejected` for anything else."""
    if data.startswith(PNG_MAGIC):
        if len(data) < 24 or data[12:16] != b"IHDR":
            raise ImageRejected(f"{field}: PNG header is truncated or has no IHDR chunk", field=field)
        width, height = struct.unpack(">II", data[16:24])
        return ImageHeader("png", width, height)
    if data.startswith(JPEG_MAGIC):
        return ImageHeader("jpeg", *_jpeg_size(data, field))
    raise ImageRejected(f"{field}: not a PNG or JPEG image (only these two formats are accepted)", field=field)


def _jpeg_size(data: bytes, field: str) -> tuple[int, int]:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        seg_len = struct.unpack(">H", data[i + 2 : i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return width, height
        i += 2 + seg_len
    raise ImageRejected(f"{field}: JPEG has no frame header (corrupt or truncated)", field=field)


def decode_base64(text: str, *, field: str = "png_base64", max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """Strict base64 (standard alphabet, padding checked; a data: URL prefix is tolerated)."""
    if text.startswith("data:"):
        text = text.partition(",")[2]
    if len(text) > (max_bytes * 4) // 3 + 4:
        raise ImageRejected(f"{field}: encoded image is larger than {max_bytes} bytes", field=field)
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ImageRejected(f"{field}: not valid base64 ({exc})", field=field) from exc


class DecodedFrames(Protocol):
    """Decoded frames kept by key (`rpa_mcp.vision.budget.FrameCache`); a frame put there is read-only."""

    def get(self, key: str) -> np.ndarray | None: ...

    def put(self, key: str, frame: np.ndarray) -> None: ...


def decode_image(
    data: bytes, *, max_pixels: int = DEFAULT_MAX_PIXELS, field: str = "image", cache: DecodedFrames | None = None
) -> np.ndarray:
    """PNG/JPEG bytes -> BGR uint8 array, after the header checks.

    With `cache`, the same bytes are decoded once (keyed by their SHA-256; the header is checked on
    every call): an agent sends the screen it resolved a target on again as its report's "before", and
    often its last "after" again as the next step's screen. The array is then shared: read-only.
    """
    if not data:
        raise ImageRejected(f"{field}: empty image", field=field)
    header = read_header(data, field=field)
    if header.width == 0 or header.height == 0:
        raise ImageRejected(f"{field}: image has a zero dimension", field=field)
    if header.width * header.height > max_pixels:
        raise ImageRejected(
            f"{field}: {header.width}x{header.height} is over the limit of {max_pixels} pixels",
            field=field,
            width=header.width,
            height=header.height,
            max_pixels=max_pixels,
        )
    key = f"sha256:{hashlib.sha256(data).hexdigest()}" if cache is not None else ""
    if cache is not None:
        seen = cache.get(key)
        if seen is not None:
            return seen
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ImageRejected(f"{field}: the {header.format} data is corrupt", field=field)
    if cache is not None:
        cache.put(key, image)
    return image


# A region where fewer than LEGIBLE_SHARE of the pixels stand LEGIBLE_CONTRAST grey levels or more away
# from its median shows nothing a person can read: a plain rectangle of a dark desktop, of an empty page,
# the faint edge of a dark window with a few letters cut off at the border. A button or a label with its
# text in the region is more than that (3 to 30 % on the demo desktop's crops; a cut-off edge 1 %).
LEGIBLE_CONTRAST = 24
LEGIBLE_SHARE = 0.02


def legible_box(image: np.ndarray, box: BBox, *, max_factor: int = 4) -> tuple[BBox, bool]:
    """`box`, or (True) a box around it up to `max_factor` times its size, centred on it and clamped to
    the frame, when `box` alone shows nothing legible: the first that does, else the widest."""
    clamped = clamp_bbox(box, image.shape)
    if clamped[2] == 0 or clamped[3] == 0 or _legible(image, clamped):
        return clamped, False
    x, y, w, h = clamped
    wider = clamped
    factor = 2
    while factor <= max_factor:
        ww, hh = w * factor, h * factor
        wider = clamp_bbox((x + w // 2 - ww // 2, y + h // 2 - hh // 2, ww, hh), image.shape)
        if _legible(image, wider):
            break
        factor *= 2
    return wider, wider != clamped


def _legible(image: np.ndarray, box: BBox) -> bool:
    x, y, w, h = box
    region = image[y : y + h, x : x + w]
    grey = (region if region.ndim == 2 else cv2.cvtColor(region, cv2.COLOR_BGR2GRAY)).astype(np.int16)
    away = np.abs(grey - int(np.median(grey))) >= LEGIBLE_CONTRAST
    return bool(away.mean() >= LEGIBLE_SHARE)


def clamp_bbox(bbox: BBox, shape: tuple[int, ...]) -> BBox:
    """Intersect a box with the frame; may return a zero-size box."""
    x, y, w, h = bbox
    height, width = shape[:2]
    x0, y0 = max(0, min(x, width)), max(0, min(y, height))
    x1, y1 = max(x0, min(x + w, width)), max(y0, min(y + h, height))
    return x0, y0, x1 - x0, y1 - y0


def crop(image: np.ndarray, bbox: BBox, *, margin: int = 0) -> np.ndarray:
    x, y, w, h = clamp_bbox(
        (bbox[0] - margin, bbox[1] - margin, bbox[2] + 2 * margin, bbox[3] + 2 * margin), image.shape
    )
    return image[y : y + h, x : x + w]


# Screen content (flat colours, text) compresses about as well without PNG's row filters, and
# encodes ~5x faster: the filter search was most of an evidence crop's cost. The thorough
# setting is tried before an image is scaled down for its size.
PNG_FAST = [cv2.IMWRITE_PNG_COMPRESSION, 1, cv2.IMWRITE_PNG_FILTER, cv2.IMWRITE_PNG_FILTER_NONE]
PNG_SMALL = [cv2.IMWRITE_PNG_COMPRESSION, 6]


def encode_png(image: np.ndarray, *, max_side: int = CLIENT_MAX_SIDE, max_bytes: int = CLIENT_MAX_BYTES) -> bytes:
    """PNG bytes within what clients accept: scaled down until both limits hold."""
    if image.size == 0:
        raise ImageRejected("cannot encode an empty crop", field="image")
    scale = min(1.0, max_side / max(image.shape[:2]))
    while True:
        scaled = image if scale >= 1.0 else shrink(image, scale)
        for params in (PNG_FAST, PNG_SMALL):
            ok, buf = cv2.imencode(".png", scaled, params)
            if not ok:
                raise ImageRejected("PNG encoding failed", field="image")
            if len(buf) <= max_bytes or min(scaled.shape[:2]) <= 16:
                return bytes(buf)
        scale *= 0.7


def shrink(image: np.ndarray, scale: float) -> np.ndarray:
    """`image` scaled down by `scale` (< 1): by the largest whole factor first, where OpenCV's area
    filter averages blocks of pixels (~1 ms for a page-sized region, against ~10 at a fractional
    scale), then by what is left (under 2x) linearly."""
    height, width = image.shape[:2]
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    whole = int(1 / scale)
    if whole >= 2:
        image = cv2.resize(
            np.ascontiguousarray(image), (max(1, width // whole), max(1, height // whole)), interpolation=cv2.INTER_AREA
        )
    if (image.shape[1], image.shape[0]) != size:
        image = cv2.resize(np.ascontiguousarray(image), size, interpolation=cv2.INTER_LINEAR)
    return image


def resized(encoded: bytes, *, max_side: int | None, quality: int | None) -> tuple[bytes, str]:
    """An encoded image scaled down to `max_side` (never up) and, with a `quality`, as JPEG: what a
    caller asked its returned crops to cost. Returns the bytes and their type."""
    image = cv2.imdecode(np.frombuffer(encoded, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise ImageRejected("cannot decode the image to resize it", field="image")
    if max_side is not None and max(image.shape[:2]) > max_side:
        scale = max_side / max(image.shape[:2])
        size = (max(1, round(image.shape[1] * scale)), max(1, round(image.shape[0] * scale)))
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    if quality is None:  # a crop is small: the best compression costs a few ms
        ok, buf = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 9])
        if not ok:
            raise ImageRejected("PNG encoding failed", field="image")
        return bytes(buf), "image/png"
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ImageRejected("JPEG encoding failed", field="image")
    return bytes(buf), "image/jpeg"


def encode_png_base64(image: np.ndarray, **limits: int) -> str:
    return base64.b64encode(encode_png(image, **limits)).decode("ascii")
