"""The agent core loads where only the standard library and pure-Python wheels do (Windows' embeddable Python)."""

from __future__ import annotations

import subprocess
import sys

NATIVE_OR_SERVER = ("numpy", "pydantic", "pydantic_core", "httpx", "httpx2", "jsonschema", "rpds", "cv2", "rpa_mcp")


def test_the_core_the_cli_and_the_port_recorder_import_nothing_native_nor_of_the_server() -> None:
    code = (
        "import sys, rpa_agent.cli, rpa_agent.config, rpa_agent.core.agent, rpa_agent.core.record, rpa_agent.wire\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({NATIVE_OR_SERVER!r})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == "[]"
