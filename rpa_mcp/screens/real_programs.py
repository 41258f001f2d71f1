"""Screenshots of real programs other than Chromium, drawn on a virtual X display by the programs.

`python -m rpa_mcp.screens capture-programs --out tests/fixtures/real_programs` starts, per program
and configuration (language, screen size), an Xvfb display with the openbox window manager, runs the
program as an unprivileged user (`runuser -u`, in its own D-Bus session, `LANG`/`LANGUAGE` set),
drives it with xdotool (keys and real clicks) and saves what it shows: PNG frames as drawn (never
scaled) and `manifest.json` per program, the ground truth of each frame (the catalog id or generic
kind of the dialog on screen, its policy) and of each before/after pair (the action, its target box,
the expected verdict). Button and tab boxes come from the program itself (a Tk script reports its
widgets) or from the frame (the label found by OCR in the dialog), then are checked by eye.

The split is by whole program (see `SPLIT`): tuning programs may be used to reproduce and fix a
verdict; held-out programs are only measured. Needs: Xvfb, openbox, xdotool, dbus, xprop, setxkbmap, the programs
(Debian: mousepad gnumeric geany zenity featherpad qttranslations5-l10n python3-tk firefox-esr
firefox-esr-l10n-fr abiword gnome-text-editor pluma thunar
pinentry-gtk2 l3afpad kwrite gedit wine nedit xfe libreoffice-writer libreoffice-calc
libreoffice-l10n-fr fluid texworks gmanedit mtpaint dia jedit gpsprune vim-gtk3
xfig ghex epiphany-browser textedit.app poedit doublecmd-gtk falkon
gtk-4-examples libadwaita-1-examples scite) and the fr_FR and en_US locales.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pwd
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import ImageGrab

from rpa_mcp.screens.real import xvfb

BBox = tuple[int, int, int, int]
USER = "rpacap"
SIZES = ((1920, 1080), (1600, 900), (1366, 768))
FRENCH_FIRST = frozenset(
    {"firefox", "mousepad", "zenity", "geany", "pluma", "pinentry", "kwrite"}
)  # the language at 1920x1080
SPLIT = {
    "mousepad": "tuning",
    "tk": "tuning",
    "gnumeric": "tuning",
    "geany": "tuning",
    "zenity": "held-out",
    "firefox": "held-out",
    "featherpad": "held-out",
    "abiword": "held-out",
    "gnome-text-editor": "held-out",
    "pluma": "tuning",
    "thunar": "tuning",
    "pinentry": "tuning",
    "l3afpad": "held-out",
    "kwrite": "tuning",
    "gedit": "tuning",
    "notepad": "tuning",
    "wordpad": "tuning",
    "nedit": "tuning",
    "xfe": "tuning",
    "writer": "tuning",
    "fluid": "tuning",
    "texworks": "tuning",
    "gmanedit": "tuning",
    "mtpaint": "tuning",
    "dia": "tuning",
    "jedit": "tuning",
    "gpsprune": "tuning",
    "gvim": "tuning",
    "xfig": "tuning",
    "ghex": "tuning",
    "epiphany": "tuning",
    "textedit": "tuning",
    "poedit": "tuning",
    "doublecmd": "tuning",
    "falkon": "tuning",
    "gtk4": "tuning",
    "calc": "tuning",
    "scite": "tuning",
    # the same scenes drawn at 125 % (a Windows workstation's display scaling on a 1920x1080 screen)
    "gedit@125": "tuning",
    "kwrite@125": "tuning",
    "notepad@125": "tuning",
}
SCALED_SIZE = (1920, 1080)  # the only size a scaled program is drawn at, in both languages


@dataclass
class Shot:
    file: str
    expected_id: str | None  # the catalog id or generic kind of the dialog on screen; None: no dialog
    policy: str | None  # the policy the entry must carry
    description: str
    window_title: str = ""
    process: str = ""


@dataclass
class Pair:
    id: str
    before: str
    after: str
    action: dict[str, Any]  # type, label, bbox, point, expected_text
    verdict: str
    failure_category: str | None
    description: str
    observed: dict[str, str] = field(default_factory=dict)


@dataclass
class Config:
    lang: str
    width: int
    height: int
    scale: int = 100  # the display scaling in percent: text (and, where the toolkit can, widgets) drawn larger

    @property
    def tag(self) -> str:
        return f"{self.lang}-{self.width}x{self.height}" + (f"@{self.scale}" if self.scale != 100 else "")


def base_program(program: str) -> str:
    """The program whose scene draws `program` ("gedit@125": gedit)."""
    return program.split("@", 1)[0]


def scale_of(program: str) -> int:
    """The display scaling a program's folder is drawn at, in percent ("gedit@125": 125)."""
    return int(program.split("@", 1)[1]) if "@" in program else 100


class Session:
    """One program on one virtual display: start it, drive it, grab and record frames."""

    def __init__(self, program: str, config: Config, env: dict[str, str], out: Path, ocr: Any) -> None:
        self.program, self.config, self.env, self.out, self.ocr = program, config, env, out, ocr
        self.process = program  # the process name an agent reports for the program's windows
        self.shots: list[Shot] = []
        self.pairs: list[Pair] = []
        self.procs: list[subprocess.Popen[bytes]] = []
        self.home = Path(pwd.getpwnam(USER).pw_dir)

    @property
    def fr(self) -> bool:
        return self.config.lang == "fr"

    def t(self, en: str, fr: str) -> str:
        return fr if self.fr else en

    # -- programs and input --------------------------------------------------------------------
    def run(self, *argv: str) -> subprocess.Popen[bytes]:
        locale = "fr_FR.UTF-8" if self.fr else "en_US.UTF-8"
        env = {
            "DISPLAY": self.env["DISPLAY"],
            "HOME": str(self.home),
            "USER": USER,
            "PATH": "/usr/bin:/bin",
            "LANG": locale,
            "LC_ALL": locale,
            "LANGUAGE": self.config.lang,
            "NO_AT_BRIDGE": "1",
            "GTK_OVERLAY_SCROLLING": "0",
        }
        if self.config.scale != 100:  # GTK 3 scales its text only (no fractional widget scale); Qt all of it
            factor = f"{self.config.scale / 100:g}"
            env |= {"GDK_DPI_SCALE": factor, "QT_SCALE_FACTOR": factor}
        cmd = ["runuser", "-u", USER, "--", "env", *[f"{k}={v}" for k, v in env.items()], "dbus-run-session", "--"]
        proc = subprocess.Popen(
            [*cmd, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.home, start_new_session=True
        )
        self.procs.append(proc)
        return proc

    def xdo(self, *args: str) -> str:
        out = subprocess.run(["xdotool", *args], env=self.env, capture_output=True, text=True, timeout=30)
        return out.stdout.strip()

    def key(self, *keys: str) -> None:
        self.xdo("key", "--clearmodifiers", *keys)

    def type(self, text: str) -> None:
        self.xdo("type", "--delay", "40", text)

    def click(self, point: tuple[int, int]) -> None:
        self.xdo("mousemove", str(point[0]), str(point[1]))
        time.sleep(0.2)
        self.xdo("click", "1")
        self.xdo("mousemove", "1", str(self.config.height // 2))  # no hover left on what was clicked

    def wait_window(self, name: str, deadline_s: float = 60.0) -> str:
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            found = self.xdo("search", "--onlyvisible", "--name", name)
            if found:
                return found.split()[-1]
            time.sleep(0.3)
        raise TimeoutError(f"{self.program}: no window named like {name!r}")

    def maximize(self, wid: str) -> None:
        self.xdo("windowactivate", "--sync", wid)
        self.xdo("windowmove", "--sync", wid, "0", "0")
        self.xdo("windowsize", "--sync", wid, "100%", "95%")  # room for the window's own title bar
        time.sleep(0.8)

    def title(self) -> str:
        return self.xdo("getactivewindow", "getwindowname")

    # -- frames ------------------------------------------------------------------------------------
    def grab(self) -> np.ndarray:
        image = ImageGrab.grab(xdisplay=self.env["DISPLAY"]).convert("RGB")
        return cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR)

    def settle(self, deadline_s: float = 20.0, ignore_small: int = 60) -> np.ndarray:
        """The screen once it stops changing (a blinking caret, under `ignore_small` pixels, aside)."""
        end = time.monotonic() + deadline_s
        last = self.grab()
        while time.monotonic() < end:
            time.sleep(0.6)
            now = self.grab()
            if int(np.count_nonzero(cv2.absdiff(now, last).max(axis=2) > 24)) <= ignore_small:
                return now
            last = now
        return last

    def first_change(self, before: np.ndarray, tries: int = 20) -> np.ndarray:
        """The first frame that differs from `before` (a caret's blink counts), or the last one grabbed."""
        after = before
        for _ in range(tries):
            time.sleep(0.15)
            after = self.grab()
            if int(np.count_nonzero(cv2.absdiff(after, before).max(axis=2) > 24)) > 0:
                break
        return after

    def save(self, name: str, image: np.ndarray) -> str:
        file = f"{self.program}-{name}-{self.config.tag}.png"
        cv2.imwrite(str(self.out / file), image, [cv2.IMWRITE_PNG_COMPRESSION, 9])
        return file

    def shot(self, name: str, image: np.ndarray, expected_id: str | None, policy: str | None, description: str) -> str:
        file = self.save(name, image)
        self.shots.append(Shot(file, expected_id, policy, description, self.title(), self.process))
        return file

    def find_text(self, image: np.ndarray, words: tuple[str, ...], region: BBox | None = None) -> tuple[BBox, str]:
        """The box and text of the OCR line that reads one of `words` (case-insensitive), in screen pixels."""
        x0, y0, w, h = region or (0, 0, image.shape[1], image.shape[0])
        crop = image[y0 : y0 + h, x0 : x0 + w]
        wanted = [w.lower() for w in words]
        read: list[str] = []
        # a small dialog's short label ("OK" in a Win32 box) may be read only twice as large
        for scale in (1, 2):
            seen = crop if scale == 1 else cv2.resize(crop, None, fx=scale, fy=scale)
            lines = self.ocr.read(seen)
            read += [ln.text for ln in lines]
            texts = [(line, _label(line.text)) for line in sorted(lines, key=lambda ln: -ln.score)]
            # a label read whole first: a sentence that holds the words ("... if you don't save them") is no button
            exact = [line for line, text in texts if text in wanted]
            for line in exact:
                bx, by, bw, bh = (round(v / scale) for v in line.bbox)
                return (x0 + bx, y0 + by, bw, bh), line.text.strip()
            # a label read within a longer line (two buttons or two tabs side by side read as one line:
            # "Add To Queue Cancel"): the part of the line the label takes, never the line's middle
            for line, text in texts:
                word = next((w for w in wanted if len(w) > 4 and w in text), None)
                if word is None:
                    continue
                box, label = line.bbox, line.text.strip()
                if word in line.text.lower():  # else read with a mnemonic's underscore: the whole line
                    start = line.text.lower().index(word)
                    box = to_word_gaps(seen, word_box(line.bbox, line.text, word), line.bbox, 3 * scale)
                    label = line.text[start : start + len(word)]
                bx, by, bw, bh = (round(v / scale) for v in box)
                return (x0 + bx, y0 + by, bw, bh), label
        raise LookupError(f"{self.program}: none of {words} read in {region}: {read}")

    def active_geometry(self, wid: str | None = None) -> BBox:
        """The active window's box (or window `wid`'s)."""
        for _ in range(20):  # no window is active for a moment while one opens or closes
            out = self.xdo(
                *(["getactivewindow"] if wid is None else []), "getwindowgeometry", "--shell", *([wid] if wid else [])
            )
            values = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
            if {"X", "Y", "WIDTH", "HEIGHT"} <= values.keys():
                return (int(values["X"]), int(values["Y"]), int(values["WIDTH"]), int(values["HEIGHT"]))
            time.sleep(0.3)
        raise LookupError(f"{self.program}: no active window")

    def pair(
        self,
        name: str,
        before: str,
        after: str,
        action: dict[str, Any],
        verdict: str,
        category: str | None,
        description: str,
        observed: dict[str, str] | None = None,
    ) -> None:
        pid = f"{self.program}-{name}-{self.config.tag}"
        full = {"type": "", "label": None, "bbox": None, "point": None, "expected_text": None} | action
        self.pairs.append(Pair(pid, before, after, full, verdict, category, description, observed or {}))

    def close(self) -> None:
        for proc in self.procs:  # each program runs in its own process group: end that group only
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)


def _label(text: str) -> str:
    """A line as a label: lower case, no mnemonic underscore, no icon read as a sign or as a glyph of
    another script before it ("●Non", "企OK")."""
    label = text.strip().lower().replace("_", "").lstrip("●•◉○×*+-=> ")
    return label.lstrip("".join(c for c in label if ord(c) > 0x24F))


def word_box(line_box: BBox, text: str, word: str) -> BBox:
    """The part of a line's box that `word` takes, by its characters' place in the line (OCR reads a
    toolbar's labels as one line: "Save Save As  Undo Redo")."""
    start = text.lower().index(word.lower())
    x, y, w, h = line_box
    per_char = w / max(1, len(text))
    return (x + round(start * per_char), y, max(1, round(len(word) * per_char)), h)


def to_word_gaps(image: np.ndarray, box: BBox, line_box: BBox, gap: int) -> BBox:
    """`box`, a word's place guessed from its characters, widened on each side to the first run of `gap`
    inkless columns (a space: the word's own letters, wider than the line's average, stay in), within
    `line_box`."""
    x, y, w, h = box
    lx, _, lw, _ = line_box
    band = image[max(0, y) : y + h].astype(np.int16)
    if not band.size:
        return box
    background = np.median(band.reshape(-1, band.shape[-1]), axis=0)
    inked = np.abs(band - background).max(axis=2) > 60
    inked = inked[inked.mean(axis=1) < 0.6]  # a border drawn along the line (a scroll bar's) is no letter
    ink = inked.any(axis=0)

    def blank_run(start: int, step: int) -> bool:
        cols = [start + i * step for i in range(gap)]
        return all(0 <= c < len(ink) and not ink[c] for c in cols) or not 0 <= start < len(ink)

    left, right = x, x + w
    while left > lx and not blank_run(left - 1, -1):
        left -= 1
    while right < lx + lw and not blank_run(right, 1):
        right += 1
    return (left, y, right - left, h)


def center(box: BBox) -> tuple[int, int]:
    return (box[0] + box[2] // 2, box[1] + box[3] // 2)


def grow(box: BBox, margin: int) -> BBox:
    """`box` with `margin` pixels around it, cut at the frame's top and left edges (a menu at the screen's
    corner)."""
    x, y = box[0] - margin, box[1] - margin
    return (max(0, x), max(0, y), box[2] + 2 * margin - max(0, -x), box[3] + 2 * margin - max(0, -y))


def changed_box(before: np.ndarray, after: np.ndarray, margin: int = 8) -> BBox:
    ys, xs = np.nonzero(cv2.absdiff(before, after).max(axis=2) > 24)
    if not len(xs):
        raise LookupError("nothing changed")
    x, y, w, h = grow(
        (int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)), margin
    )
    return (x, y, min(w, before.shape[1] - x), min(h, before.shape[0] - y))  # never off the frame


def ensure_user() -> None:
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "-m", USER], check=True)


def _wait_for_window_manager(env: dict[str, str], deadline_s: float = 20.0) -> None:
    """openbox owns the screen (a window mapped before it is left undecorated and never focused)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        out = subprocess.run(["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], env=env, capture_output=True, text=True)
        if "window id" in out.stdout:
            return
        time.sleep(0.3)
    raise TimeoutError("the window manager did not start")


@contextlib.contextmanager
def session(program: str, config: Config, out: Path, ocr: Any) -> Iterator[Session]:
    with xvfb(config.width, config.height) as env:
        _wait_for_window_manager(env)
        s = Session(program, config, env, out, ocr)
        # the keyboard of the language: xdotool then types accents with real keys, not remapped ones
        subprocess.run(["setxkbmap", config.lang if config.lang == "fr" else "us"], env=env, check=False)
        try:
            yield s
        finally:
            s.close()


def configs_for(program: str) -> tuple[Config, ...]:
    """Three sizes per program, languages alternating so each program and each size has fr and en; a
    scaled program ("gedit@125"): both languages at 1920x1080 only."""
    first = "fr" if base_program(program) in FRENCH_FIRST else "en"
    other = "en" if first == "fr" else "fr"
    if scale_of(program) != 100:
        return tuple(Config(lang, *SCALED_SIZE, scale_of(program)) for lang in (first, other))
    langs = (first, other, first)
    return tuple(Config(lang, w, h) for lang, (w, h) in zip(langs, SIZES, strict=True))


def capture(out: Path, programs: tuple[str, ...], scenes: dict[str, Callable[[Session], None]], ocr: Any) -> None:
    ensure_user()
    for program in programs:
        folder = out / program
        folder.mkdir(parents=True, exist_ok=True)
        manifest: dict[str, Any] = {"program": program, "split": SPLIT[program], "frames": [], "pairs": []}
        for config in configs_for(program):
            print(f"{program} {config.tag}", flush=True)
            with session(base_program(program), config, folder, ocr) as s:
                try:
                    scenes[base_program(program)](s)
                except (LookupError, TimeoutError) as exc:  # keep what was recorded; say what failed
                    print(f"  stopped: {exc}", flush=True)
                drawn: dict[str, Any] = {"lang": config.lang, "size": [config.width, config.height]}
                if config.scale != 100:
                    drawn["scale"] = config.scale
                manifest["frames"] += [asdict(shot) | drawn for shot in s.shots]
                manifest["pairs"] += [asdict(p) | drawn for p in s.pairs]
        (folder / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", "utf-8")


def main(argv: list[str] | None = None) -> int:
    from rpa_mcp.screens.gtk4_scenes import SCENES
    from rpa_mcp.vision.ocr import RapidOcrEngine

    parser = argparse.ArgumentParser(prog="python -m rpa_mcp.screens capture-programs")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--programs", default=",".join(SPLIT))
    args = parser.parse_args(argv)
    programs = tuple(p for p in args.programs.split(",") if p)
    unknown = [p for p in programs if base_program(p) not in SCENES or p not in SPLIT]
    if unknown:
        parser.error(f"unknown programs {unknown}; known: {', '.join(SCENES)}")
    missing = [
        tool
        for tool in ("Xvfb", "openbox", "xdotool", "dbus-run-session", "xprop", "setxkbmap")
        if shutil.which(tool) is None
    ]
    if missing:
        parser.error(f"missing tools {missing}: apt-get install xvfb openbox xdotool dbus x11-utils x11-xkb-utils")
    capture(args.out, programs, SCENES, RapidOcrEngine())
    return 0
