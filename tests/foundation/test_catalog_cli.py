"""`rpa-mcp catalog check` validates every catalog and names what is wrong."""

from __future__ import annotations

import shutil

from rpa_mcp.cli import main
from rpa_mcp.settings import shipped_dir


def test_the_shipped_catalogs_are_valid(monkeypatch, capsys):
    monkeypatch.delenv("RPA_CATALOG_DIR", raising=False)
    assert main(["catalog", "check"]) == 0
    assert "catalog OK" in capsys.readouterr().out


def test_a_broken_catalog_is_reported_with_its_file(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "catalog"
    shutil.copytree(shipped_dir("catalog"), folder)
    with (folder / "thresholds.yaml").open("a", encoding="utf-8") as f:
        f.write("nonsense_key: 1\n")
    monkeypatch.setenv("RPA_CATALOG_DIR", str(folder))
    assert main(["catalog", "check"]) == 1
    assert "thresholds.yaml" in capsys.readouterr().out
