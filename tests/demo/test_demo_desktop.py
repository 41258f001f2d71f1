"""`rpa-mcp demo --desktop`: the story on a real (virtual) desktop, with an animation of the replays."""

from __future__ import annotations

import pytest

from rpa_mcp import demo
from rpa_mcp.desktop_rig.film import BAND_PX


@pytest.mark.desktop
def test_the_desktop_story_runs_and_writes_its_report_and_an_animated_gif(tmp_path, capsys):
    from PIL import Image

    from tests.agent_x11.conftest import require_desktop

    require_desktop()
    out = tmp_path / "story"
    status = demo.main(["--desktop", "--quiet", "--out", str(out)])
    printed = capsys.readouterr().out
    report = (out / "report.txt").read_text(encoding="utf-8")
    assert status == 0, report[-3000:]
    assert "0 missing" in printed and "Everything expected happened" in report
    for seen in (
        "What the platform learnt",
        "verdict SUCCESS",
        "The person: brought the record back",
        "End: completed",
    ):
        assert seen in report, seen
    # the PACS in front: refused before the first input, or paused at the first step; never clicked through
    assert "Refused before the first input" in report or "It paused" in report
    assert "✔" not in report  # a report, not the console's commentary again
    with Image.open(out / "replay.gif") as gif:
        assert gif.format == "GIF" and gif.n_frames > 5 and gif.size == (960, 540 + BAND_PX)


def test_without_a_desktop_it_exits_non_zero_and_leaves_the_reason_in_out(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(demo, "_desktop_missing", lambda: "Debian packages: apt-get install -y xvfb chromium")
    monkeypatch.setattr(demo, "_main", lambda args: pytest.fail("the virtual story is not played instead"))
    out = tmp_path / "film"
    assert demo.main(["--desktop", "--quiet", "--out", str(out)]) == demo.EXIT_CANNOT_FILM != 0
    said = capsys.readouterr().err.strip()
    assert len(said.splitlines()) == 1 and "apt-get install -y xvfb chromium" in said
    assert (out / "report.txt").read_text(encoding="utf-8").strip() == said


def test_a_run_that_crashes_is_reported_as_such_never_as_complete(monkeypatch, tmp_path, capsys):
    from rpa_mcp import demo_desktop

    async def crashes(story, report, out_dir):
        story.expect(True, "a first check")
        raise RuntimeError("Xvfb went away")

    monkeypatch.setattr(demo_desktop, "main_desktop", crashes)
    with pytest.raises(RuntimeError):
        demo_desktop.run_desktop_demo(tmp_path, quiet=True)
    report = (tmp_path / "report.txt").read_text(encoding="utf-8")
    assert "NOT everything expected happened: 1 seen, 1 missing" in report
    assert "RuntimeError: Xvfb went away" in report and "Everything expected" not in report
