"""The committed reference pages are what the generator produces from the code."""

from __future__ import annotations

from rpa_mcp import docs_gen


def test_the_committed_reference_matches_the_code():
    differ = docs_gen.stale()
    assert not differ, f"docs/{', docs/'.join(differ)} out of date: run python -m rpa_mcp.docs_gen"


def test_every_tool_setting_and_error_code_is_documented():
    from rpa_mcp.errors import all_error_classes
    from rpa_mcp.ops import build_registry
    from rpa_mcp.settings import Settings

    pages = docs_gen.render_all()
    assert all(f"## {name}\n" in pages["reference/tools.md"] for name in build_registry().operations)
    assert all(f"## {t.pattern}\n" in pages["reference/tools.md"] for t in build_registry().templates)
    assert all(f"`RPA_{name.upper()}`" in pages["reference/settings.md"] for name in Settings.model_fields)
    assert all(f"`{cls.code}`" in pages["reference/errors.md"] for cls in all_error_classes())


def test_the_check_mode_reports_a_stale_file(tmp_path, capsys):
    assert docs_gen.main(["--out", str(tmp_path)]) == 0
    (tmp_path / "reference" / "errors.md").write_text("edited by hand\n", encoding="utf-8")
    assert docs_gen.main(["--out", str(tmp_path), "--check"]) == 1
    assert "run python -m rpa_mcp.docs_gen" in capsys.readouterr().out
