"""`rpa-mcp demo --desktop`: the story on a real (virtual) desktop, with an animation of the replays."""

from __future__ import annotations

import pytest

from rpa_mcp import demo


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
    assert "0 missing" in printed and "0 missing" in report
    for seen in ("shadow_start", "every verdict SUCCESS", "each effect exactly once", "paused, nothing clicked"):
        assert seen in report, seen
    with Image.open(out / "replay.gif") as gif:
        assert gif.format == "GIF" and gif.n_frames > 5 and gif.size == (960, 540)


def test_without_a_desktop_it_says_what_to_install_and_plays_the_virtual_story(monkeypatch, capsys):
    played = []
    monkeypatch.setattr(demo, "_desktop_missing", lambda: "Debian packages: apt-get install -y xvfb openbox")

    async def virtual_story(args):
        played.append(args.desktop)
        return 0

    monkeypatch.setattr(demo, "_main", virtual_story)
    assert demo.main(["--desktop", "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "apt-get install -y xvfb openbox" in printed and "virtual-desktop story instead" in printed
    assert played == [True]
