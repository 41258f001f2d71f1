"""The screenshots of real software: complete, boxed where the dialog is, and a half-rendered set resumes."""

from __future__ import annotations

from pathlib import Path

import pytest

from rpa_mcp.screens import corpus
from rpa_mcp.screens.real import KINDS, dialog_box
from rpa_mcp.screens.truth import ScreenSet

REAL_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "real"
REAL = ScreenSet(REAL_DIR)


def test_every_kind_is_there_in_both_languages() -> None:
    names = {p.id for p in REAL.pairs}
    for kind in KINDS:
        for lang in ("fr", "en"):
            assert any(n.startswith(f"r-{kind}-{lang}-") for n in names), (kind, lang)


def test_the_real_set_stays_small() -> None:
    assert sum(p.stat().st_size for p in REAL_DIR.iterdir()) < 6_000_000


@pytest.mark.parametrize("pair_id", sorted(p.id for p in REAL.pairs if p.after.dialog and p.after.dialog.modal))
def test_a_dialog_over_the_dimmed_page_is_boxed_alone_not_with_the_toolbar(pair_id: str) -> None:
    pair = REAL.pair(pair_id)
    assert pair.after.dialog is not None
    x, y, w, h = pair.after.dialog.bbox
    width, height = pair.after.size
    assert w < 0.5 * width and h < 0.5 * height  # not the whole bright band of the toolbar
    assert x > 0 and x + w < width
    before, after = REAL.image(pair.before.file), REAL.image(pair.after.file)
    top = round(78 * float(pair.after.look["scale"]))
    assert dialog_box(before, after, "dialog", top) == (x, y, w, h)  # the committed truth is this code's


def test_an_interrupted_set_is_completed_not_rendered_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    frames, _ = corpus.sampled_specs("tuning", scale=0.125)
    rendered: list[str] = []

    def fake_render(_renderer: object, spec: corpus.FrameSpec, _split: str) -> tuple[bytes, object]:
        rendered.append(spec.name)
        raise RuntimeError("stop here")

    (tmp_path / f"{frames[0].name}.json").write_text("{}", encoding="utf-8")  # the first one was done
    monkeypatch.setattr(corpus, "render_frame", fake_render)
    with pytest.raises(RuntimeError):
        corpus.write_set(tmp_path, None, frames, [], "tuning", clean=False)  # type: ignore[arg-type]
    assert rendered == [frames[1].name]
    assert (tmp_path / f"{frames[0].name}.json").is_file()
