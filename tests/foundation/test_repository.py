"""The repository stands on its own: no path of a particular machine in any tracked file, and no
reference to a document that is not in the repository (say the rule, or link the doc that states it)."""

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
# References to documents outside the repository: a product specification by section, numbered
# seed documents, issue numbers, and notes about who does what in the team.
_REFERENCES = [
    "SPEC" + " ?§",
    "\\bseed" + " ?(0\\d|§)",
    "\\bseed" + "'s\\b",
    "\\bissue" + " #?\\d+",
    "\\bthe" + " lead(?:'s)?\\b",
]
FOREIGN_REFERENCE = re.compile("|".join(_REFERENCES), re.IGNORECASE)
BINARY_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".pdf", ".zip", ".gz")


def tracked_files() -> list[Path]:
    if shutil.which("git") is None:
        pytest.fail("the repository scan needs git on PATH (it lists the tracked files with `git ls-files`)")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True)
    if listed.returncode != 0:
        pytest.fail(f"`git ls-files` failed in {ROOT.name}: run the tests from a git checkout ({listed.stderr!r})")
    return [ROOT / name for name in listed.stdout.decode("utf-8").split("\0") if name]


def text_files() -> list[tuple[Path, list[str]]]:
    """Every tracked text file (images and other binaries left out) with its lines."""
    out = []
    for path in tracked_files():
        if not path.is_file() or path.suffix.lower() in BINARY_SUFFIXES:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        out.append((path, text.splitlines()))
    return out


def hits(pattern: re.Pattern[str]) -> list[str]:
    return [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}"
        for path, lines in text_files()
        for number, line in enumerate(lines, 1)
        if pattern.search(line)
    ]


def test_the_scan_reads_the_tracked_text_files() -> None:
    names = {path.relative_to(ROOT).as_posix() for path, _ in text_files()}
    assert len(names) > 100, "the scan found almost nothing: is this a checkout of the project?"
    assert {"README.md", "pyproject.toml", "docs/architecture.md", "rpa_mcp/cli.py"} <= names
    assert not any(name.endswith(".png") for name in names)


def test_no_tracked_file_names_a_path_of_this_machine() -> None:
    assert hits(MACHINE_PATH) == []


def test_no_tracked_file_refers_to_a_document_outside_the_repository() -> None:
    assert hits(FOREIGN_REFERENCE) == []


def test_the_scan_catches_what_it_is_for() -> None:
    for line in ("see /" + "work/shared/x", "cd /" + "home/alice/src", "X=/" + "tmp/abc/def", "../" + "shared/x"):
        assert MACHINE_PATH.search(line), line
    for line in ("C:\\" + "Users\\alice\\rpa", "/" + "root/.cache/x", "/" + "tmp/tmpa1b2c3/data"):
        assert MACHINE_PATH.search(line), line
    for line in ("an ISO date 2025/03/12", "https://example.org/" + "work/x", "python -m rpa_mcp.screens build"):
        assert not MACHINE_PATH.search(line), line
    for line in (
        "(SPEC" + " §4.1)",
        "seed" + " 004 §B",
        "the seed" + "'s machine",
        "see issue" + " 7",
        "the" + " lead commits",
    ):
        assert FOREIGN_REFERENCE.search(line), line
    for line in ('"seed": 0,', "the leader dies", "issues 10-20 statements", "rng = random.Random(seed)"):
        assert not FOREIGN_REFERENCE.search(line), line
