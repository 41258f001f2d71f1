"""Whether this CPU multiplies int8 vectors fast (the int8 recognizer pays off only there).

onnxruntime's int8 kernels gain their speed from dot-product instructions on bytes: AVX-512 VNNI
or AVX-VNNI on x86-64, the dot-product extension on Arm. Without them an int8 recognition costs
what a float one does or more (measured: 1.09-1.12x per read on an AVX2 machine, 0.64x with AVX-512 VNNI; see
docs/decisions/ocr-engine.md), and reading with it first then again with the float model costs
more than the float model alone.
"""

from __future__ import annotations

from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")
# names of the instructions, as numpy's runtime dispatch and Linux's /proc/cpuinfo spell them
NUMPY_FEATURES = ("AVX512VNNI", "AVX512_CLX", "AVX512_ICL", "AVX512_SPR", "ASIMDDP")
LINUX_FLAGS = frozenset({"avx512_vnni", "avx_vnni", "amx_int8", "asimddp"})


def fast_int8_dot(cpuinfo: Path = CPUINFO) -> bool:
    """True when this CPU has byte dot-product instructions (numpy's runtime checks, then Linux's flags)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # pragma: no cover - a numpy that moved it: the flags below still answer on Linux
        features = {}
    if any(features.get(name) for name in NUMPY_FEATURES):
        return True
    return bool(LINUX_FLAGS & cpu_flags(cpuinfo))


def cpu_flags(cpuinfo: Path = CPUINFO) -> set[str]:
    """The flags Linux lists for the CPU (x86 `flags`, Arm `Features`); empty elsewhere."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return set(value.split())
    return set()
