from __future__ import annotations

import struct
import time
import zlib

from rpa_agent.port import Frame
from rpa_agent.windows.screen import MssScreen, bgra_to_rgb, changed


def solid(width: int, height: int, bgra: bytes = b"\x10\x20\x30\xff", origin: tuple[int, int] = (0, 0)) -> Frame:
    return Frame(width, height, bgra * (width * height), origin=origin)


def paint(frame: Frame, box: tuple[int, int, int, int], bgra: bytes) -> Frame:
    pixels = bytearray(frame.pixels)
    x, y, w, h = box
    for row in range(y, y + h):
        start = (row * frame.width + x) * 4
        pixels[start : start + w * 4] = bgra * w
    return Frame(frame.width, frame.height, bytes(pixels), origin=frame.origin)


def test_identical_frames_have_not_changed() -> None:
    assert changed(solid(64, 48), solid(64, 48)) == 0.0


def test_the_share_of_changed_pixels_is_counted_exactly() -> None:
    before = solid(100, 50)
    after = paint(before, (10, 10, 20, 5), b"\x00\x00\xff\xff")
    assert changed(before, after) == 100 / 5000
    assert changed(before, after, (10, 10, 20, 5)) == 1.0
    assert changed(before, after, (0, 0, 10, 50)) == 0.0
    assert changed(before, after, (20, 10, 20, 10)) == 50 / 200


def test_a_change_of_one_channel_counts_and_alpha_alone_does_not() -> None:
    before = solid(10, 10)
    assert changed(before, paint(before, (0, 0, 1, 1), b"\x10\x20\x31\xff")) == 0.01
    assert changed(before, paint(before, (0, 0, 1, 1), b"\x10\x20\x30\x00")) == 0.0


def test_regions_are_screen_coordinates_even_with_a_monitor_left_of_the_primary() -> None:
    before = solid(200, 10, origin=(-100, 0))
    after = paint(before, (100, 0, 10, 10), b"\x00\x00\x00\xff")  # screen x 0..9
    assert changed(before, after, (0, 0, 10, 10)) == 1.0
    assert changed(before, after, (-100, 0, 100, 10)) == 0.0
    assert changed(before, after, (500, 0, 10, 10)) == 0.0  # outside the frame


def test_a_large_change_is_estimated_from_a_sample_of_its_rows() -> None:
    before = solid(300, 600)
    after = paint(before, (0, 0, 100, 600), b"\x00\x00\x00\xff")  # 600 rows differ: sampled
    assert abs(changed(before, after) - 1 / 3) < 0.01
    striped = before
    for row in range(0, 600, 2):
        striped = paint(striped, (0, row, 300, 1), b"\x00\x00\x00\xff")
    assert 0.4 < changed(before, striped) <= 0.6


def test_frames_of_different_sizes_have_changed_entirely() -> None:
    assert changed(solid(10, 10), solid(10, 11)) == 1.0


def test_a_full_hd_change_is_measured_in_well_under_a_second() -> None:
    width, height = 1920, 1080
    before = Frame(width, height, bytes(range(256)) * (width * height * 4 // 256))
    after = Frame(width, height, bytes((b + 1) & 0xFF for b in range(256)) * (width * height * 4 // 256))
    started = time.perf_counter()
    share = changed(before, after)
    elapsed = time.perf_counter() - started
    assert share == 1.0
    assert elapsed < 1.0, f"changed() took {elapsed:.3f} s for 1920x1080"


def test_png_holds_the_frame_as_rgb() -> None:
    frame = Frame(2, 1, b"\x01\x02\x03\xff" + b"\x0a\x0b\x0c\xff")
    png = MssScreen(grabber=lambda: frame).png(frame)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", png[16:24])
    idat = png.index(b"IDAT")
    (length,) = struct.unpack(">I", png[idat - 4 : idat])
    raw = zlib.decompress(png[idat + 4 : idat + 4 + length])
    assert (width, height) == (2, 1)
    assert raw == b"\x00" + b"\x03\x02\x01" + b"\x0c\x0b\x0a"  # filter byte, then RGB
    assert bgra_to_rgb(frame.pixels) == b"\x03\x02\x01\x0c\x0b\x0a"


def test_the_screen_grabs_through_its_grabber() -> None:
    frame = solid(3, 2)
    screen = MssScreen(grabber=lambda: frame)
    assert screen.grab() is frame and screen.size() == (3, 2)


def test_the_size_comes_from_the_virtual_desktop_without_a_screenshot() -> None:
    grabs: list[int] = []

    def grab() -> Frame:
        grabs.append(1)
        return solid(3, 2)

    screen = MssScreen(grabber=grab, desktop_box=lambda: (-1920, 0, 4480, 1440))
    assert screen.size() == (4480, 1440)
    assert grabs == []
