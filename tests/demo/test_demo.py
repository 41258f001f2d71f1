"""`rpa-mcp demo` plays the whole story over real HTTP and exits 0 only when every outcome happened."""

from __future__ import annotations

from rpa_mcp import demo


def test_the_demo_story_runs_end_to_end(capsys):
    status = demo.main(["--fast", "--quiet"])
    summary = capsys.readouterr().out
    assert status == 0, summary
    assert "0 missing" in summary
