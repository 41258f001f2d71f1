"""The record pages a browser's scene serves (GNOME Web's, Falkon's): three pages of one patient, each with
the scene's form and a script that makes the page ask on a key, and how the scene makes it ask."""

from __future__ import annotations

import json
import time

from rpa_mcp.screens.real_programs import Session

LOREM = "Lorem ipsum dolor sit amet. " * 12


def record_pages(s: Session, form: str, msg: dict[str, str], script: str, *, lang: bool = False) -> dict[str, str]:
    """Biologie, Imagerie and a summary page; `lang`: the page says its language (`<html lang>`)."""
    said = f" lang='{s.config.lang}'" if lang else ""
    pages = {}
    for name, title in (("bio", "Biologie"), ("img", "Imagerie"), ("syn", s.t("Summary", "Synthèse"))):
        body = f"<h1>{title}</h1><p>DURAND Alice — 14/02/1956</p><p>{LOREM}</p>"
        pages[f"{name}.html"] = (
            f"<!doctype html><html{said}><head><meta charset='utf-8'><title>{title}</title></head>"
            f"<body style='font-family:DejaVu Sans'>{body}{form}<script>const MSG = {json.dumps(msg)};</script>"
            f"{script}</body></html>"
        )
    return pages


def ask(s: Session, key: str, *, heading_y: int) -> None:
    """The page gets the keyboard (a click on its heading, `heading_y` px from the screen's top), then the key
    that makes it ask."""
    s.click((s.config.width // 3, heading_y))
    time.sleep(0.5)
    s.key(key)
    time.sleep(2.0)
