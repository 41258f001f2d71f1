"""Which CPUs get the int8 recognizer when RPA_DIALOG_OCR_INT8=auto."""

from __future__ import annotations

from pathlib import Path

import pytest
from numpy._core._multiarray_umath import __cpu_features__ as numpy_features

from rpa_mcp import bootstrap
from rpa_mcp.bootstrap import build_dialog_ocr
from rpa_mcp.settings import Settings
from rpa_mcp.vision import cpu
from rpa_mcp.vision.ocr import RapidOcrEngine

X86 = "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse2 avx2 fma{extra}\n\nprocessor\t: 1\n"
ARM = "processor\t: 0\nFeatures\t: fp asimd evtstrm aes crc32{extra}\nCPU implementer\t: 0x41\n"


@pytest.fixture
def no_numpy_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in cpu.NUMPY_FEATURES:
        monkeypatch.setitem(numpy_features, name, False)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cpuinfo"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_flags_of_an_x86_and_an_arm_cpu_are_read(tmp_path: Path) -> None:
    assert {"avx2", "fma"} <= cpu.cpu_flags(write(tmp_path, X86.format(extra="")))
    assert "asimd" in cpu.cpu_flags(write(tmp_path, ARM.format(extra="")))
    assert cpu.cpu_flags(tmp_path / "absent") == set()


@pytest.mark.usefixtures("no_numpy_answer")
@pytest.mark.parametrize(
    ("text", "fast"),
    [
        (X86.format(extra=""), False),  # AVX2 alone: int8 is no faster than float
        (X86.format(extra=" avx512f avx512_vnni"), True),
        (X86.format(extra=" avx_vnni"), True),
        (ARM.format(extra=""), False),
        (ARM.format(extra=" asimddp"), True),
        ("", False),
    ],
)
def test_int8_is_taken_only_with_byte_dot_product_instructions(tmp_path: Path, text: str, fast: bool) -> None:
    assert cpu.fast_int8_dot(write(tmp_path, text)) is fast


def test_numpy_seeing_vnni_is_enough(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_numpy_answer: None) -> None:
    monkeypatch.setitem(numpy_features, "AVX512VNNI", True)
    assert cpu.fast_int8_dot(tmp_path / "absent")


@pytest.mark.parametrize("fast", [True, False])
def test_auto_follows_the_cpu_and_true_or_false_force_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_ocr: RapidOcrEngine, fast: bool
) -> None:
    monkeypatch.setattr(bootstrap, "fast_int8_dot", lambda: fast)
    auto = build_dialog_ocr(Settings(data_dir=tmp_path, dialog_ocr_int8="auto"), shared_ocr)
    assert (auto is not shared_ocr) is fast
    # by default the classifier reads with the float model, whatever the CPU
    assert build_dialog_ocr(Settings(data_dir=tmp_path), shared_ocr) is shared_ocr
    assert build_dialog_ocr(Settings(data_dir=tmp_path, dialog_ocr_int8=True), shared_ocr) is not shared_ocr
    assert build_dialog_ocr(Settings(data_dir=tmp_path, dialog_ocr_int8=False), shared_ocr) is shared_ocr
