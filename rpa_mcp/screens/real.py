"""Screenshots of real software: Chromium's own prompts on a virtual X display.

`python -m rpa_mcp.screens capture-real --out tests/fixtures/real` starts, per configuration
(language, screen size, device scale factor), an Xvfb display with the openbox window manager
and a served copy of an Easily page; for each prompt kind it opens a fresh headful Chromium
(new profile: no remembered permission), takes the frame before, presses the key that makes the
page ask (camera, microphone, location, notifications, alert/confirm/prompt, reload or leave
with unsaved changes), and takes the frame after. The page's keys give the user activation a
prompt needs; nothing is clicked, so no focus ring or hover changes the frames.

Ground truth is what was triggered (the catalog id, the title and buttons Chromium shows in
that language), with the dialog box measured from the two frames (the largest region that
changed under the toolbar; for the dimming JavaScript dialogs, the bright box on the dimmed
page), checked by eye on the contact sheet `--sheet` writes. Needs: Xvfb, openbox, xdotool,
ImageMagick's `import`, chromium (+ chromium-l10n for French).
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rpa_mcp.screens.html import easily
from rpa_mcp.screens.html.base import page
from rpa_mcp.screens.look import Look
from rpa_mcp.screens.render import palette_png
from rpa_mcp.screens.scenes.base import ALL_CSS
from rpa_mcp.screens.truth import ActionTruth, FrameTruth, PairTruth, frame_from_json, to_json

KINDS = ("camera", "microphone", "location", "notifications", "alert", "confirm", "prompt", "reload", "leave")
CONFIGS = (
    ("fr", 1920, 1080, 1.0),
    ("en", 1920, 1080, 1.0),
    ("fr", 1600, 900, 1.25),
    ("en", 1600, 900, 1.25),
    ("fr", 1366, 768, 1.0),
    ("en", 1366, 768, 1.0),
)
CHROMIUM_FLAGS = (
    "--test-type",  # no "unsupported flag" infobar for --no-sandbox
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-features=Translate,MediaRouter",
    "--use-fake-device-for-media-stream",  # devices exist; the permission prompt is still shown
    "--password-store=basic",
    "--start-maximized",
)
PAGE_JS = """
<script>
window.addEventListener('keydown', ev => {
  const k = ev.key;
  if (k === 'c') navigator.mediaDevices.getUserMedia({video: true}).catch(() => {});
  if (k === 'm') navigator.mediaDevices.getUserMedia({audio: true}).catch(() => {});
  if (k === 'g') navigator.geolocation.getCurrentPosition(() => {}, () => {});
  if (k === 'n') Notification.requestPermission();
  if (k === 'a') setTimeout(() => alert(MSG.alert), 50);
  if (k === 'o') setTimeout(() => confirm(MSG.confirm), 50);
  if (k === 'p') setTimeout(() => prompt(MSG.prompt, ''), 50);
  const unsaved = () => { window.onbeforeunload = e => { e.preventDefault(); e.returnValue = ''; }; };
  if (k === 'r') { unsaved(); setTimeout(() => location.reload(), 50); }
  if (k === 'l') { unsaved(); setTimeout(() => { location.href = '/other.html'; }, 50); }
});
</script>
"""
KEY = {
    "camera": "c",
    "microphone": "m",
    "location": "g",
    "notifications": "n",
    "alert": "a",
    "confirm": "o",
    "prompt": "p",
    "reload": "r",
    "leave": "l",
}


@dataclass(frozen=True)
class Expected:
    dialog_id: str
    title: str
    buttons: tuple[str, ...]
    kind: str  # bubble | dialog


def expected(kind: str, lang: str, origin: str, host: str) -> Expected:
    fr = lang == "fr"
    wants = f"{origin} {'souhaite' if fr else 'wants to'}"
    stacked = (
        ("Autoriser pendant la visite du site", "Autoriser cette fois-ci", "Ne jamais autoriser")
        if fr
        else ("Allow while visiting the site", "Allow this time", "Never allow")
    )
    says = f"{host} {'indique' if fr else 'says'}"
    ok_cancel = ("Annuler", "OK") if fr else ("Cancel", "OK")
    return {
        "camera": Expected("browser-perm-camera", wants, stacked, "bubble"),
        "microphone": Expected("browser-perm-microphone", wants, stacked, "bubble"),
        "location": Expected("browser-perm-location", wants, stacked, "bubble"),
        "notifications": Expected(
            "browser-perm-notifications", wants, ("Bloquer", "Autoriser") if fr else ("Block", "Allow"), "bubble"
        ),
        "alert": Expected("browser-js-alert", says, ("OK",), "dialog"),
        "confirm": Expected("browser-js-alert", says, ok_cancel, "dialog"),
        "prompt": Expected("browser-js-alert", says, ok_cancel, "dialog"),
        "reload": Expected(
            "browser-leave-site",
            "Actualiser le site Web ?" if fr else "Reload site?",
            ("Annuler", "Actualiser") if fr else ("Cancel", "Reload"),
            "dialog",
        ),
        "leave": Expected(
            "browser-leave-site",
            "Quitter le site Web ?" if fr else "Leave site?",
            ("Annuler", "Quitter") if fr else ("Cancel", "Leave"),
            "dialog",
        ),
    }[kind]


def easily_page(lang: str) -> str:
    look = Look(lang="fr" if lang == "fr" else "en", font="DejaVu Sans")
    who = easily.Patient("DURAND", "Alice", "14/02/1956", "000123456")
    body = easily.shell(look, who, "synthese", easily.synthese(look, 1600))
    msg = {
        "alert": look.t(
            "The record is locked by another user.", "Le dossier a été verrouillé par un autre utilisateur."
        ),
        "confirm": look.t("Delete this prescription?", "Supprimer cette prescription ?"),
        "prompt": look.t("Reason for the change:", "Motif de la modification :"),
    }
    html = page(look, body, ALL_CSS).replace("<title>", "")
    title = look.t("Easily — Patient record", "Easily — Dossier patient")
    return html.replace("<head>", f"<head><title>{title}</title>").replace(
        "</body>", f"<script>const MSG = {json.dumps(msg)};</script>{PAGE_JS}</body>"
    )


@contextlib.contextmanager
def serve(pages: dict[str, str]) -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path.split("#")[0].lstrip("/") or "index.html", "<p>other</p>").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


@contextlib.contextmanager
def xvfb(width: int, height: int) -> Iterator[dict[str, str]]:
    # A display number far from the usual :0..:99 others on the machine pick (or clean up);
    # -displayfd tells when the server is ready.
    number = next(n for n in range(300 + os.getpid() % 200, 900) if not Path(f"/tmp/.X{n}-lock").exists())
    read, write = os.pipe()
    # Its messages are kept: they say why it did not start (a display taken, a pipe closed early).
    log = tempfile.TemporaryFile()  # noqa: SIM115  # closed in the finally below
    proc = subprocess.Popen(
        ["Xvfb", f":{number}", "-displayfd", str(write), "-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    os.close(write)
    with os.fdopen(read, "rb") as pipe:  # the number may come in two writes: closing early kills Xvfb
        ready = pipe.readline().decode().strip()
    if ready != str(number):
        proc.kill()
        log.seek(0)
        tail = log.read()[-400:].decode("utf-8", "replace")
        log.close()
        raise TimeoutError(f"Xvfb did not start on :{number}: {tail}")
    env = dict(os.environ, DISPLAY=f":{number}")
    wm = subprocess.Popen(["openbox"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield env
    finally:
        for p in (wm, proc):
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        log.close()


def grab(env: dict[str, str]) -> np.ndarray:
    png = subprocess.run(["import", "-window", "root", "png:-"], env=env, capture_output=True, check=True).stdout
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None
    return image


def settle(env: dict[str, str], *, differs_from: np.ndarray | None = None, deadline_s: float = 30.0) -> np.ndarray:
    """The screen once it stops changing: two grabs 0.5 s apart identical, or (a live camera preview
    in a prompt) differing from `differs_from` by the same amount within 2 %."""
    end = time.monotonic() + deadline_s
    last = grab(env)
    last_count = -1
    while time.monotonic() < end:
        time.sleep(0.5)
        now = grab(env)
        if differs_from is None:
            if np.array_equal(now, last):
                return now
        else:
            count = int(np.count_nonzero(cv2.absdiff(now, differs_from).max(axis=2) > 24))
            if count > 500 and last_count > 0 and abs(count - last_count) <= 0.02 * count:
                return now
            last_count = count
        last = now
    raise TimeoutError("the screen did not settle")


def _wait_for_window(env: dict[str, str], deadline_s: float = 120.0) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        found = subprocess.run(
            ["xdotool", "search", "--onlyvisible", "--class", "chromium"], env=env, capture_output=True, text=True
        )
        if found.stdout.strip():
            return
        time.sleep(0.3)
    raise TimeoutError("no Chromium window appeared")


def active_title(env: dict[str, str]) -> str:
    out = subprocess.run(["xdotool", "getactivewindow", "getwindowname"], env=env, capture_output=True, text=True)
    return out.stdout.strip()


def dialog_box(before: np.ndarray, after: np.ndarray, kind: str, top: int) -> tuple[int, int, int, int]:
    """The prompt's box: the bright box on a dimmed page; else the largest region that changed under
    `top` (faint changes count: a white bubble over a white page), less its drop shadow."""
    gray_a = cv2.cvtColor(after, cv2.COLOR_BGR2GRAY).astype(np.int16)
    gray_b = cv2.cvtColor(before, cv2.COLOR_BGR2GRAY).astype(np.int16)
    dimmed = kind == "dialog" and float(((gray_b - gray_a) > 40).mean()) >= 0.2
    mask: np.ndarray
    if dimmed:
        # the dialog's bright face over the dimmed page: a JavaScript dialog leaves the browser's
        # toolbar bright, which must not join it (its face over the toolbar is climbed back below)
        mask = (gray_a >= 235).astype(np.uint8)
        page_rows = np.flatnonzero(((gray_b - gray_a) > 8).mean(axis=1) >= 0.5)
        top = max(top, int(page_rows[0])) if page_rows.size else top
        kernel = 9
    else:
        mask = (np.abs(gray_a - gray_b) > 2).astype(np.uint8)
        kernel = 41
    mask[:top] = 0
    if not dimmed:  # anti-aliasing noise of repainted text is thin: open it away first
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((kernel, kernel), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count < 2:
        raise ValueError("no prompt found between the two frames")
    best = max(range(1, count), key=lambda i: stats[i, 4])
    x, y, w, h = (int(v) for v in stats[best, :4])
    if dimmed:
        inner = slice(x + 8, x + w - 8)  # up the bright face to the dialog's top border
        limit = y - 16
        while y > max(0, limit) and float(np.median(gray_a[y - 1, inner])) >= 235:
            y, h = y - 1, h + 1
        return x, y, w, h
    x0, y0, x1, y1 = x, y, x + w, y + h
    if y0 <= top + 12:  # a bubble overlaps the toolbar's bottom by a few pixels, white on white: no change there
        y0 = top - 2
    darker = (gray_b - gray_a >= 2) & (gray_b - gray_a <= 90) & (gray_a < 250)

    def shadow(region: np.ndarray) -> bool:  # a border line made of darkened pixels is the drop shadow
        return region.size > 0 and float(region.mean()) > 0.5

    while x1 - x0 > 20 and shadow(darker[y0:y1, x0]):
        x0 += 1
    while x1 - x0 > 20 and shadow(darker[y0:y1, x1 - 1]):
        x1 -= 1
    while y1 - y0 > 20 and shadow(darker[y1 - 1, x0:x1]):
        y1 -= 1
    while y1 - y0 > 20 and shadow(darker[y0, x0:x1]):
        y0 += 1
    return x0, y0, x1 - x0, y1 - y0


def capture(out: Path, *, configs: tuple[tuple[str, int, int, float], ...], kinds: tuple[str, ...]) -> list[str]:
    for tool in ("Xvfb", "openbox", "xdotool", "import", "chromium"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"{tool} is not installed (see the module docstring)")
    out.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    for lang, width, height, dsf in configs:
        pages = {"index.html": easily_page(lang)}
        with serve(pages) as base:
            host = base.removeprefix("http://")
            for kind in kinds:
                name = f"r-{kind}-{lang}-{width}x{height}@{round(dsf * 100)}"
                if (out / f"{name}.json").is_file():  # a run can be resumed: captured prompts stay
                    written.append(name)
                    continue
                for attempt in range(3):  # a fresh display each time: a shared machine may lose one
                    try:
                        with xvfb(width, height) as env:
                            written.append(_one(out, env, base, host, lang, (width, height), dsf, kind, name))
                        break
                    except (subprocess.CalledProcessError, TimeoutError) as exc:
                        print(f"  {name}: attempt {attempt + 1} failed ({exc})", flush=True)
                else:
                    raise RuntimeError(f"{name}: no capture after 3 attempts")
                print(f"  {name}", flush=True)
    return written


def _one(
    out: Path,
    env: dict[str, str],
    base: str,
    host: str,
    lang: str,
    size: tuple[int, int],
    dsf: float,
    kind: str,
    name: str,
) -> str:
    with tempfile.TemporaryDirectory() as profile:
        args = [
            "chromium",
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            f"--lang={lang}",
            f"--force-device-scale-factor={dsf:g}",
            f"{base}/index.html",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.insert(1, "--no-sandbox")
        browser_env = dict(env, LANGUAGE=lang, LANG="fr_FR.UTF-8" if lang == "fr" else "en_US.UTF-8")
        log = Path(profile) / "chromium.log"
        with log.open("wb") as sink:
            proc = subprocess.Popen(args, env=browser_env, stdout=sink, stderr=sink)
        try:
            try:
                _wait_for_window(env)
            except TimeoutError:
                tail = log.read_bytes()[-600:].decode("utf-8", "replace")
                raise TimeoutError(f"no Chromium window appeared; its log ends: {tail}") from None
            before = settle(env)
            title_before = active_title(env)
            subprocess.run(["xdotool", "key", KEY[kind]], env=env, check=True)
            after = settle(env, differs_from=before)
            title_after = active_title(env)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
    want = expected(kind, lang, f"http://{host}" if kind in KINDS[:4] else host, host)
    top = round(78 * dsf)  # under the toolbar: the address bar's chip changes too
    box = dialog_box(before, after, want.kind, top)
    width, height = size
    look = {"os": "linux", "theme": "light", "scale": dsf, "lang": lang, "font": "DejaVu Sans", "browser": "chromium"}

    def frame(file: str, dialog: dict[str, Any] | None, title: str) -> FrameTruth:
        return frame_from_json(
            {
                "file": file,
                "size": [width, height],
                "look": look,
                "dialog": dialog,
                "dialogs": [dialog] if dialog else [],
                "window_title": title,
                "process": "chromium",
                "source": "real",
                "description": f"Chromium 15x, {kind} ({lang})",
            }
        )

    dialog = {
        "id": want.dialog_id,
        "title": want.title,
        "bbox": list(box),
        "visible_bbox": list(box),
        "kind": want.kind,
        "modal": want.kind == "dialog",
        "buttons": [{"label": b, "bbox": list(box)} for b in want.buttons],
    }
    before_truth = frame(f"{name}.before.png", None, title_before)
    after_truth = frame(f"{name}.after.png", dialog, title_after)
    (out / before_truth.file).write_bytes(palette_png(cv2.imencode(".png", before)[1].tobytes()))
    (out / after_truth.file).write_bytes(palette_png(cv2.imencode(".png", after)[1].tobytes()))
    pair = PairTruth(
        id=name,
        category="real-prompt",
        before=before_truth,
        after=after_truth,
        action=ActionTruth("key_press", None, None, None),
        verdict="FAILURE",
        failure_category="UNEXPECTED_DIALOG",
        description=f"a key press makes the page ask: Chromium shows its {kind} prompt",
        observed={"window_title_before": title_before, "window_title_after": title_after, "process_after": "chromium"},
        source="real",
    )
    (out / f"{name}.json").write_text(json.dumps(to_json(pair), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return name


def contact_sheet(folder: Path, target: Path) -> None:
    """Every AFTER frame, its measured box drawn in red: what a person checks before committing."""
    tiles = []
    for path in sorted(folder.glob("r-*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        image = cv2.imread(str(folder / raw["after"]["file"]))
        assert image is not None
        x, y, w, h = raw["after"]["dialog"]["bbox"]
        cv2.rectangle(image, (x, y), (x + w, y + h), (0, 0, 255), 3)
        tile = cv2.resize(image, (480, 270))
        cv2.putText(tile, path.stem, (4, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 255), 1)
        tiles.append(tile)
    while len(tiles) % 4:
        tiles.append(np.zeros_like(tiles[0]))
    cv2.imwrite(str(target), np.vstack([np.hstack(tiles[i : i + 4]) for i in range(0, len(tiles), 4)]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rpa_mcp.screens capture-real")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--sheet", type=Path, default=None, help="write a contact sheet of the boxes to check")
    parser.add_argument("--quick", action="store_true", help="one configuration only (fr, 1920x1080)")
    args = parser.parse_args(argv)
    kinds = tuple(k for k in args.kinds.split(",") if k)
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        parser.error(f"unknown kinds {unknown}; known: {', '.join(KINDS)}")
    capture(args.out, configs=CONFIGS[:1] if args.quick else CONFIGS, kinds=kinds)
    if args.sheet:
        contact_sheet(args.out, args.sheet)
    return 0
