"""The repository stands on its own: no path of a particular machine in any tracked file."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Written in pieces so that this file does not match itself.
_ROOTS = [
    "/" + "work/",
    "/" + "home/[a-z][\\w-]*/",
    "/" + "root/",
    "/" + "tmp/[\\w.-]+/",
    "[A-Z]:\\\\" + "Users",
    "\\.\\./" + "shared\\b",
]
MACHINE_PATH = re.compile(r"(?<![\w.])(" + "|".join(_ROOTS) + ")")


def tracked_files() -> list[Path]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.fail("the repository scan needs git and a checkout (it lists the tracked files)")
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [ROOT / name for name in out.decode("utf-8").split("\0") if name]


def test_no_tracked_file_names_a_path_of_this_machine() -> None:
    hits = []
    for path in tracked_files():
        if not path.is_file() or path.suffix in (".png", ".jpg"):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if MACHINE_PATH.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    assert hits == []


def test_the_scan_catches_what_it_is_for() -> None:
    for line in ("see /" + "work/shared/x", "cd /" + "home/alice/src", "X=/" + "tmp/abc/def", "../" + "shared/x"):
        assert MACHINE_PATH.search(line), line
    for line in ("an ISO date 2025/03/12", "https://example.org/work/x", "python -m rpa_mcp.screens build"):
        assert not MACHINE_PATH.search(line), line
