"""Render scenes with headless Chromium (Playwright) and measure their ground truth from the DOM.

What is measured (CSS px x the look's scale = PNG px):
- `[data-gt=dialog]` (attributes `data-id`, `data-kind`, `data-modal`, `data-primary`): box, visible
  box and fraction (sampled with `elementFromPoint`, so occluders and the screen edge count), its
  `[data-gt=title]`, `[data-gt=text]` and every `[data-gt=button]` (`data-key`, label = its text);
- `[data-gt=tab]` (`data-active`): box, label box (`[data-gt-part=label]`), close box;
- `[data-gt=window]` (`data-title`, `data-process`, `data-front`);
- `[data-gt-el=NAME]` (`data-label`): named elements (targets, fields, taskbar icons, the clock).

Playwright drives the browser installed on the machine (`executable_path`, Debian's chromium by
default): nothing is downloaded.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import cv2
import numpy as np

from rpa_mcp.screens.look import Look

CHROMIUM_ARGS = (
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--font-render-hinting=none",
)

MEASURE_JS = """
() => {
  const vw = innerWidth, vh = innerHeight;
  const box = el => { const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; };
  const text = el => (el.innerText || el.textContent || '').replace(/\\s+/g, ' ').trim();
  function visible(el) {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return {frac: 0, box: null};
    const step = Math.max(1.5, Math.min(r.width, r.height) / 20);
    let n = 0, v = 0, x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
    for (let y = r.y + step / 2; y < r.y + r.height; y += step) {
      for (let x = r.x + step / 2; x < r.x + r.width; x += step) {
        n++;
        if (x < 0 || y < 0 || x >= vw || y >= vh) continue;
        const hit = document.elementFromPoint(x, y);
        if (hit && (hit === el || el.contains(hit))) {
          v++; x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
        }
      }
    }
    if (!v) return {frac: 0, box: null};
    const h = step / 2;
    const bx0 = Math.max(r.x, x0 - h), by0 = Math.max(r.y, y0 - h);
    const bx1 = Math.min(r.x + r.width, x1 + h), by1 = Math.min(r.y + r.height, y1 + h);
    return {frac: v / n, box: [bx0, by0, bx1 - bx0, by1 - by0]};
  }
  const dialogs = [...document.querySelectorAll('[data-gt=dialog]')].map(el => {
    const title = el.querySelector('[data-gt=title]');
    const vis = visible(el);
    const tvis = title ? visible(title) : {frac: 0};
    return {
      id: el.dataset.id, kind: el.dataset.kind || 'dialog', modal: el.dataset.modal !== '0',
      primary: el.dataset.primary === '1',
      title: title ? text(title) : '', title_bbox: title ? box(title) : null, title_visible: tvis.frac,
      text: [...el.querySelectorAll('[data-gt=text]')].map(text).join(' '),
      bbox: box(el), visible_bbox: vis.box, visible: vis.frac,
      buttons: [...el.querySelectorAll('[data-gt=button]')].map(b => ({
        label: b.dataset.label || text(b), key: b.dataset.key || null, bbox: box(b), visible: visible(b).frac})),
    };
  });
  const tabs = [...document.querySelectorAll('[data-gt=tab]')].map(el => {
    const label = el.querySelector('[data-gt-part=label]');
    const close = el.querySelector('[data-gt-part=close]');
    return {label: text(label), bbox: box(el), label_bbox: box(label), close_bbox: close ? box(close) : null,
            active: el.dataset.active === '1', visible: visible(label).frac};
  });
  const windows = [...document.querySelectorAll('[data-gt=window]')].map(el => ({
    title: el.dataset.title, process: el.dataset.process || '', bbox: box(el), front: el.dataset.front === '1'}));
  const elements = {};
  for (const el of document.querySelectorAll('[data-gt-el]')) {
    elements[el.dataset.gtEl] = {label: el.dataset.label || text(el), bbox: box(el), visible: visible(el).frac};
  }
  return {dialogs, tabs, windows, elements};
}
"""


@dataclass
class Scene:
    """One screen to render: the page body and what the ground truth must also say."""

    look: Look
    body: str
    css: str = ""
    window_title: str = ""
    process: str = ""
    description: str = ""
    hard_cases: tuple[str, ...] = ()
    dialog_id: str | None = None  # the primary dialog's catalog id, checked against the DOM
    notes: dict[str, Any] = field(default_factory=dict)


@dataclass
class Rendered:
    png: bytes
    measured: dict[str, Any]


def find_chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError("no Chromium found on PATH (apt-get install chromium): the screens are rendered by it")


def scaled(value: Any, scale: float) -> Any:
    """CSS px boxes -> PNG px (edges rounded, so adjacent boxes stay adjacent)."""
    if value is None:
        return None
    x, y, w, h = value
    x0, y0 = round(x * scale), round(y * scale)
    return [x0, y0, round((x + w) * scale) - x0, round((y + h) * scale) - y0]


def to_pixels(measured: dict[str, Any], scale: float) -> dict[str, Any]:
    for d in measured["dialogs"]:
        for key in ("bbox", "visible_bbox", "title_bbox"):
            d[key] = scaled(d[key], scale)
        for b in d["buttons"]:
            b["bbox"] = scaled(b["bbox"], scale)
    for t in measured["tabs"]:
        for key in ("bbox", "label_bbox", "close_bbox"):
            t[key] = scaled(t[key], scale)
    for w in measured["windows"]:
        w["bbox"] = scaled(w["bbox"], scale)
    for e in measured["elements"].values():
        e["bbox"] = scaled(e["bbox"], scale)
    return measured


def palette_png(png: bytes) -> bytes:
    """256 colours (median cut, no dithering): a UI frame's flat colours stay exact, anti-aliased
    edges move by a few levels, and the file is 2-3x smaller (for the committed corpus)."""
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    out = io.BytesIO()
    image.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        out, format="PNG", optimize=True
    )
    return out.getvalue()


def compress_png(png: bytes, size: tuple[int, int] | None = None) -> bytes:
    """Re-encode at the highest zlib level; crop to `size` (a fractional CSS size can add one row)."""
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise RuntimeError("the browser's screenshot is not a PNG OpenCV can read")
    if size is not None:
        width, height = size
        if image.shape[1] < width or image.shape[0] < height:
            image = cv2.copyMakeBorder(
                image, 0, max(0, height - image.shape[0]), 0, max(0, width - image.shape[1]), cv2.BORDER_REPLICATE
            )
        image = image[:height, :width]
    ok, buf = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    if not ok:  # pragma: no cover - OpenCV always encodes a BGR frame
        raise RuntimeError("PNG encoding failed")
    return buf.tobytes()


class Renderer:
    """One headless Chromium for many scenes (a context per look: viewport and scale)."""

    def __init__(self, executable: str | None = None) -> None:
        self.executable = executable or find_chromium()
        self._pw: Any = None
        self._browser: Any = None
        self._pages: dict[tuple[int, int, float], Any] = {}

    def __enter__(self) -> Renderer:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise RuntimeError("rendering needs Playwright: pip install -e '.[test]'") from exc
        self._pw = sync_playwright().start()
        args = list(CHROMIUM_ARGS)
        import os

        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--no-sandbox")  # root cannot use Chromium's sandbox; headless shows no infobar
        self._browser = self._pw.chromium.launch(executable_path=self.executable, args=args)
        return self

    def __exit__(self, *exc: object | TracebackType) -> None:
        for page in self._pages.values():
            page.context.close()
        if self._browser is not None:
            self._browser.close()
        if self._pw is not None:
            self._pw.stop()

    def _page(self, look: Look) -> Any:
        key = (look.css_width, look.css_height, look.scale)
        if key not in self._pages:
            context = self._browser.new_context(
                viewport={"width": look.css_width, "height": look.css_height},
                device_scale_factor=look.scale,
                locale="fr-FR" if look.lang == "fr" else "en-US",
            )
            self._pages[key] = context.new_page()
        return self._pages[key]

    def render(self, html: str, look: Look) -> Rendered:
        page = self._page(look)
        page.set_content(html, wait_until="load")
        page.evaluate("() => document.fonts.ready")
        measured = to_pixels(page.evaluate(MEASURE_JS), look.scale)
        png = page.screenshot(type="png", full_page=False)
        return Rendered(compress_png(png, (look.width, look.height)), measured)


def write_png(path: Path, png: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png)
