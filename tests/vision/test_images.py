"""Image decoding with limits: format and pixel count checked from the header, before decoding."""

from __future__ import annotations

import base64
import struct
import tracemalloc
import zlib

import cv2
import numpy as np
import pytest

from rpa_mcp.errors import ImageRejected
from rpa_mcp.vision.budget import FrameCache
from rpa_mcp.vision.images import PNG_FAST, PNG_SMALL, decode_base64, decode_image, encode_png, read_header, shrink


def png_bomb(width: int = 10_000, height: int = 10_000) -> bytes:
    """A real PNG header claiming width x height, with a tiny compressed body."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    body = zlib.compress(b"\x00" * 1024, 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def test_a_pixel_bomb_is_refused_without_allocating_it():
    tracemalloc.start()
    with pytest.raises(ImageRejected) as info:
        decode_image(png_bomb(), max_pixels=40_000_000)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert info.value.details["width"] == 10_000
    assert peak < 5_000_000  # a decoded 10000x10000 RGB frame would be 300 MB


@pytest.mark.parametrize("data", [b"", b"GIF89a....", b"\x89PNG\r\n\x1a\n\x00\x00", b"\xff\xd8\xff\xe0garbage"])
def test_not_an_image_or_a_truncated_one_is_refused(data):
    with pytest.raises(ImageRejected):
        decode_image(data)


def test_a_zero_sized_png_is_refused():
    with pytest.raises(ImageRejected):
        decode_image(png_bomb(0, 10))


def test_png_and_jpeg_decode_and_report_their_size():
    frame = np.full((30, 40, 3), 200, np.uint8)
    for ext, fmt in ((".png", "png"), (".jpg", "jpeg")):
        data = cv2.imencode(ext, frame)[1].tobytes()
        assert read_header(data).format == fmt and (read_header(data).width, read_header(data).height) == (40, 30)
        assert decode_image(data).shape == (30, 40, 3)


@pytest.mark.parametrize("text", ["not base64!!", "abc", "YWJj\nZA=="])
def test_base64_is_strict(text):
    with pytest.raises(ImageRejected):
        decode_base64(text)


def test_data_urls_are_tolerated():
    assert decode_base64("data:image/png;base64," + base64.b64encode(b"abc").decode()) == b"abc"


def test_crops_for_clients_fit_the_size_limits():
    noisy = np.random.default_rng(1).integers(0, 255, (2400, 3000, 3), dtype=np.uint8)
    png = encode_png(noisy, max_side=2000, max_bytes=1_000_000)
    decoded = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert len(png) <= 1_000_000 and max(decoded.shape[:2]) <= 2000


def test_png_crops_are_lossless_and_try_the_thorough_setting_before_shrinking():
    screen = np.full((400, 600, 3), 245, np.uint8)
    cv2.putText(screen, "Enregistrer", (20, 200), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (20, 20, 20), 2)
    fast = encode_png(screen)
    assert (cv2.imdecode(np.frombuffer(fast, np.uint8), cv2.IMREAD_COLOR) == screen).all()
    # a gradient compresses far better with PNG's row filters: a limit the fast setting misses
    # but the thorough one meets keeps the full size
    ramp = np.tile(np.arange(600, dtype=np.uint16)[None, :, None] * 7 % 256, (400, 1, 3)).astype(np.uint8)
    ramp[::2] = 255 - ramp[::2]
    limit = len(cv2.imencode(".png", ramp, PNG_SMALL)[1])
    assert len(cv2.imencode(".png", ramp, PNG_FAST)[1]) > limit
    png = encode_png(ramp, max_bytes=limit)
    assert cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR).shape == ramp.shape


def test_a_page_sized_crop_is_shrunk_like_the_area_filter_does_it():
    page = np.full((916, 1860, 3), 245, np.uint8)
    for row in range(40, 900, 30):
        cv2.putText(
            page, "Compte rendu - Radiologie thoracique", (20, row), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (20, 20, 20), 1
        )
    for scale in (960 / 1860, 0.34, 0.2):
        got = shrink(page, scale)
        reference = cv2.resize(page, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        assert got.shape[:2] == (round(916 * scale), round(1860 * scale))
        common = (min(got.shape[0], reference.shape[0]), min(got.shape[1], reference.shape[1]))
        diff = np.abs(got[: common[0], : common[1]].astype(int) - reference[: common[0], : common[1]].astype(int))
        assert diff.mean() < 3, (scale, diff.mean())  # grey levels: the same picture
    decoded = cv2.imdecode(np.frombuffer(encode_png(page, max_side=960), np.uint8), cv2.IMREAD_COLOR)
    assert max(decoded.shape[:2]) <= 960


def test_the_same_bytes_are_decoded_once_through_the_cache_and_shared_read_only(monkeypatch):
    frame = np.zeros((60, 80, 3), np.uint8)
    cv2.putText(frame, "Enregistrer", (4, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1)
    data = encode_png(frame)
    decodes: list[int] = []
    real = cv2.imdecode
    monkeypatch.setattr(cv2, "imdecode", lambda *a: decodes.append(1) or real(*a))
    cache = FrameCache(10 * frame.nbytes)
    first = decode_image(data, cache=cache)
    again = decode_image(bytes(data), cache=cache)  # equal bytes, another object: the agent's report
    assert again is first and len(decodes) == 1 and np.array_equal(first, frame)
    with pytest.raises(ValueError):
        first[0, 0, 0] = 1  # shared between requests: nobody may draw on it
    other = decode_image(encode_png(255 - frame), cache=cache)
    assert len(decodes) == 2 and not np.array_equal(other, first)
    assert decode_image(data) is not first and len(decodes) == 3  # without the cache: decoded anew


def test_a_cached_image_is_still_checked_against_the_callers_limit():
    data = encode_png(np.zeros((60, 80, 3), np.uint8))
    cache = FrameCache(1 << 20)
    decode_image(data, cache=cache)
    with pytest.raises(ImageRejected) as info:
        decode_image(data, max_pixels=1000, cache=cache)
    assert info.value.code == ImageRejected.code and info.value.details["max_pixels"] == 1000
