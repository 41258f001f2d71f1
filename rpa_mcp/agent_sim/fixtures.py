"""Where the virtual desktops find their screenshots.

Desktop definitions name their frames by file name (`dossier.png`). They are looked up in an
explicit directory first (CLI `--images-dir`, for a desktop of your own), then in the frames
shipped with the package (`rpa_mcp/agent_sim/assets/`, rendered by `python -m rpa_mcp.screens
build`, each with its ground truth beside it), so the demo runs from a wheel install alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from rpa_mcp.errors import NotFound

PACKAGE_DIR = Path(__file__).resolve().parent
ASSETS_DIR = PACKAGE_DIR / "assets"
DESKTOPS_DIR = PACKAGE_DIR / "desktops"


def candidate_dirs(explicit: Path | None = None) -> list[Path]:
    """Directories searched for desktop images, most specific first."""
    return [d for d in (explicit, ASSETS_DIR) if d is not None]


class ImageResolver:
    """Maps a desktop image's file name to a readable path, searching `dirs` in order."""

    def __init__(self, dirs: Sequence[Path]) -> None:
        self.dirs = list(dirs)

    @classmethod
    def default(cls, explicit: Path | None = None) -> ImageResolver:
        return cls(candidate_dirs(explicit))

    def resolve(self, name: str) -> Path:
        base = Path(name).name  # a definition may write "png/x.png"; only the file name counts
        if base != name.replace("\\", "/").split("/")[-1] or base in ("", ".", ".."):
            raise NotFound(f"invalid desktop image name {name!r}", image=name)
        for path in self._candidates(base):
            if path.is_file():
                return path
        raise NotFound(
            f"desktop image {base!r} not found in {', '.join(str(d) for d in self.dirs)}",
            image=base,
        )

    def _candidates(self, base: str) -> Iterable[Path]:
        for d in self.dirs:
            yield d / base
