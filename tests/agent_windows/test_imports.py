from __future__ import annotations

import json
import subprocess
import sys

import pytest

MODULES = [
    "api",
    "com",
    "desktop",
    "dpi",
    "drill",
    "elements",
    "hooks",
    "input",
    "keys",
    "named",
    "screen",
    "secure",
    "selfcheck",
    "win32",
    "windows",
]
ALLOWED_THIRD_PARTY = {"mss"}


def test_the_windows_backend_imports_only_the_standard_library_and_mss() -> None:
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        f"for name in {MODULES!r}: __import__('rpa_agent.windows.' + name)\n"
        "import mss.tools\n"
        "import json; print(json.dumps(sorted({m.split('.')[0] for m in set(sys.modules) - before})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    loaded = set(json.loads(done.stdout))
    third_party = {m for m in loaded if m not in sys.stdlib_module_names and not m.startswith("_")}
    assert third_party <= {"rpa_agent"} | ALLOWED_THIRD_PARTY


@pytest.mark.skipif(sys.platform == "win32", reason="on Windows the real boundary loads")
def test_the_real_boundary_says_it_needs_windows() -> None:
    from rpa_agent.windows.win32 import NativeWin32

    with pytest.raises(OSError):
        NativeWin32()
