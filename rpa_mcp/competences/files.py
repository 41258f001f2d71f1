"""Filesystem primitives of the competence store: durable writes, keep-a-copy, folder scans.

Nothing here overwrites a file that holds a version: the current file is first kept as
`<slug>.v<N>.yaml` (hard link, or an exclusive-create copy), then replaced atomically.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from rpa_mcp.competences.slug import is_slug

ARCHIVE_RE = re.compile(r"^(?P<slug>[a-z0-9]+(?:-[a-z0-9]+)*)\.v(?P<version>[1-9][0-9]{0,8})\.yaml$")
TMP_PREFIX = "."


def fsync_dir(folder: Path) -> None:
    """Make a rename/link in `folder` durable (no-op where directories cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_new(path: Path, data: bytes) -> None:
    """Create `path` (must not exist), write, fsync."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o640)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes) -> None:
    """tmp file + fsync + os.replace + fsync of the folder: readers see the old or the new file, whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{TMP_PREFIX}{path.name}.tmp-{secrets.token_hex(6)}")
    try:
        _write_new(tmp, data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(path.parent)


def keep_copy(source: Path, target: Path) -> bool:
    """Make `target` hold the bytes of `source` without overwriting anything.

    Returns False when `target` already holds exactly those bytes (an interrupted save
    left it), raises FileExistsError when it holds something else.
    """
    try:
        os.link(source, target)
    except FileExistsError:
        if target.read_bytes() == source.read_bytes():
            return False
        raise
    except OSError:  # filesystem without hard links
        try:
            _write_new(target, source.read_bytes())
        except FileExistsError:
            if target.read_bytes() == source.read_bytes():
                return False
            raise
    fsync_dir(target.parent)
    return True


def move_new(source: Path, target: Path) -> None:
    """Move `source` to a `target` that must not exist (link + unlink: never overwrites)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    keep_copy(source, target)
    source.unlink()
    fsync_dir(source.parent)
    fsync_dir(target.parent)


def read_capped(path: Path, limit: int) -> bytes:
    with path.open("rb") as fh:
        data = fh.read(limit + 1)
    return data


def inside(path: Path, folder: Path) -> bool:
    """True when `path` (symlinks followed) lies inside `folder`."""
    try:
        return path.resolve(strict=True).is_relative_to(folder.resolve(strict=True))
    except (OSError, RuntimeError):
        return False


@dataclass
class SlugFiles:
    """The files of one slug in one status folder."""

    current: Path | None = None
    archives: dict[int, Path] = field(default_factory=dict)


@dataclass
class FolderScan:
    slugs: dict[str, SlugFiles] = field(default_factory=dict)
    strays: list[tuple[Path, str]] = field(default_factory=list)  # (file, why it is not picked up)


def scan(folder: Path) -> FolderScan:
    """Classify every entry of a status folder; nothing unexpected is dropped silently."""
    out = FolderScan()
    if not folder.is_dir():
        return out
    for entry in sorted(folder.iterdir()):
        name = entry.name
        if name.startswith(TMP_PREFIX):
            if ".tmp-" in name:
                out.strays.append((entry, "leftover temporary file of an interrupted save (safe to delete)"))
            continue  # other hidden files (.DS_Store, ...) are not competence candidates
        if entry.is_dir():
            out.strays.append((entry, "folders are not read here; put <slug>.yaml files directly in this folder"))
            continue
        match = ARCHIVE_RE.match(name)
        if match:
            out.slugs.setdefault(match["slug"], SlugFiles()).archives[int(match["version"])] = entry
            continue
        stem, dot, ext = name.rpartition(".")
        if dot and ext == "yaml" and is_slug(stem):
            out.slugs.setdefault(stem, SlugFiles()).current = entry
        elif dot and ext.lower() in ("yaml", "yml"):
            out.strays.append((entry, "not picked up: name the file <slug>.yaml (lowercase a-z, 0-9 and '-')"))
        else:
            out.strays.append((entry, "not picked up: competence files end in .yaml"))
    return out
