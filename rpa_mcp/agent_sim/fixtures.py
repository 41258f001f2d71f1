"""Where the virtual desktops find their screenshots.

Desktop definitions name fixture PNGs by file name (`p01_tab_switch_imagerie_ok_before.png`).
They are looked up, in order, in: an explicit directory (CLI `--fixtures-dir`, or the
`fixtures_dir` setting), `/work/shared/fixtures`, `../shared/fixtures` beside the repository,
and finally the PNGs bundled in `rpa_mcp/agent_sim/assets/` (copied unchanged, never
downscaled), so the demo runs on a machine that has no fixtures checkout.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from rpa_mcp.errors import NotFound

PACKAGE_DIR = Path(__file__).resolve().parent
ASSETS_DIR = PACKAGE_DIR / "assets"
DESKTOPS_DIR = PACKAGE_DIR / "desktops"
REPO_ROOT = PACKAGE_DIR.parent.parent
WELL_KNOWN_FIXTURES = Path("/work/shared/fixtures")


def candidate_dirs(explicit: Path | None = None) -> list[Path]:
    """Directories searched for fixture images, most specific first (duplicates removed)."""
    dirs: list[Path] = []
    for d in (explicit, WELL_KNOWN_FIXTURES, REPO_ROOT.parent / "shared" / "fixtures", ASSETS_DIR):
        if d is not None and d not in dirs:
            dirs.append(d)
    return dirs


class ImageResolver:
    """Maps a fixture file name to a readable path, searching `dirs` then their `png/` folder."""

    def __init__(self, dirs: Sequence[Path]) -> None:
        self.dirs = list(dirs)

    @classmethod
    def default(cls, explicit: Path | None = None) -> ImageResolver:
        return cls(candidate_dirs(explicit))

    def resolve(self, name: str) -> Path:
        base = Path(name).name  # a definition may write "png/x.png"; only the file name counts
        if base != name.replace("\\", "/").split("/")[-1] or base in ("", ".", ".."):
            raise NotFound(f"invalid fixture image name {name!r}", image=name)
        for path in self._candidates(base):
            if path.is_file():
                return path
        raise NotFound(
            f"fixture image {base!r} not found in {', '.join(str(d) for d in self.dirs)}",
            image=base,
        )

    def _candidates(self, base: str) -> Iterable[Path]:
        for d in self.dirs:
            yield d / "png" / base
            yield d / base
