"""`python -m rpa_mcp.screens build | sample`: regenerate the committed screens or render a seeded set.

    python -m rpa_mcp.screens build            # tests/fixtures/screens, agent_sim assets, recorded demos
    python -m rpa_mcp.screens sample evaluation --out DIR [--salt 1] [--scale 1]
    python -m rpa_mcp.screens capture-real --out tests/fixtures/real --sheet sheet.png   # real Chromium prompts
    python -m rpa_mcp.screens capture-programs --out tests/fixtures/real_programs  # other real programs

Needs Playwright (a test dependency) and a Chromium on PATH (Debian: apt-get install chromium).
"""

from __future__ import annotations

import argparse
import runpy
import sys
from pathlib import Path

from rpa_mcp.screens.canonical import build_assets, build_canonical
from rpa_mcp.screens.corpus import sampled_specs, write_set
from rpa_mcp.screens.render import Renderer

PACKAGE_DIR = Path(__file__).resolve().parent
REPO = PACKAGE_DIR.parent.parent


def _progress(name: str) -> None:
    print(f"  {name}", flush=True)


def build(repo: Path) -> int:
    if not (repo / "pyproject.toml").is_file():
        print(
            f"{repo} is not a checkout of the project (no pyproject.toml): build writes into the checkout",
            file=sys.stderr,
        )
        return 2
    with Renderer() as renderer:
        print("tests/fixtures/screens")
        build_canonical(repo / "tests" / "fixtures" / "screens", renderer, _progress)
        print("rpa_mcp/agent_sim/assets")
        build_assets(repo / "rpa_mcp" / "agent_sim" / "assets", renderer, _progress)
    demos = repo / "tests" / "fixtures" / "demos" / "make_demos.py"
    if demos.is_file():
        print("tests/fixtures/demos")
        runpy.run_path(str(demos), run_name="__main__")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["capture-real"]:
        from rpa_mcp.screens.real import main as capture_real

        return capture_real(argv[1:])
    if argv[:1] == ["capture-programs"]:
        from rpa_mcp.screens.real_programs import main as capture_programs

        return capture_programs(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m rpa_mcp.screens", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="regenerate the committed screens (writes into the checkout)")
    b.add_argument("--repo", type=Path, default=REPO)
    s = sub.add_parser("sample", help="render a seeded tuning or evaluation set into a folder")
    s.add_argument("split", choices=("tuning", "evaluation"))
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--salt", default="1", help="evaluation seeds are drawn from it: change it for a fresh set")
    s.add_argument("--scale", type=float, default=1.0, help="multiply the number of frames per family")
    sub.add_parser("capture-real", help="screenshots of Chromium's own prompts on Xvfb (see rpa_mcp.screens.real)")
    sub.add_parser(
        "capture-programs", help="real programs' dialogs and actions on Xvfb (rpa_mcp.screens.real_programs)"
    )
    args = parser.parse_args(argv)
    if args.cmd == "build":
        return build(args.repo)
    frames, pairs = sampled_specs(args.split, salt=args.salt, scale=args.scale)
    with Renderer() as renderer:
        write_set(args.out, renderer, frames, pairs, args.split, progress=_progress)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
