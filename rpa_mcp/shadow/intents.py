"""Name a step from its evidence (SPEC §3.2), in the session's language.

Evidence, strongest first: the UI Automation element name, OCR of the region around the
click (taken on the screenshot before it), the window title, the raw event. The
confidence says which one was used. Screen text is data: it is cleaned and capped, and
only ever quoted inside an intent.

Masked input (a password typed while observed, see `rpa_mcp.shadow.masking`) makes a
"Type the password in '<field>'" step whose text is the placeholder ``{{secret:<field>}}``
(``params.secret = true``): never the value, which the server never had.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rpa_mcp.shadow.boxes import same_text
from rpa_mcp.shadow.events import CLICK_TYPES, normalize_keys
from rpa_mcp.shadow.masking import secret_placeholder

CONFIDENCE = {"uia": 0.9, "ocr": 0.75, "window_title": 0.45, "raw": 0.25}
BROWSERS = frozenset({"msedge", "chrome", "firefox", "brave", "opera", "iexplore"})
TAB_STRIP_MAX_Y = 44  # pixels from the top of the screen where a maximised browser shows its tabs
MAX_LABEL = 60
MAX_MATCH_TEXT = 200

# process -> (English name, French name with its article)
APPS: dict[str, tuple[str, str]] = {
    "notepad": ("Notepad", "le Bloc-notes"),
    "msedge": ("Edge", "Edge"),
    "chrome": ("Chrome", "Chrome"),
    "firefox": ("Firefox", "Firefox"),
    "explorer": ("File Explorer", "l'Explorateur de fichiers"),
    "winword": ("Word", "Word"),
    "excel": ("Excel", "Excel"),
    "outlook": ("Outlook", "Outlook"),
    "calc": ("Calculator", "la Calculatrice"),
    "mspaint": ("Paint", "Paint"),
}
KEY_NAMES_FR = {
    "enter": "Entrée",
    "tab": "Tab",
    "escape": "Échap",
    "delete": "Suppr",
    "backspace": "Retour arrière",
    "space": "Espace",
    "up": "Haut",
    "down": "Bas",
    "left": "Gauche",
    "right": "Droite",
}

TEXTS = {
    "en": {
        "click": "Click '{label}'",
        "click_in": "Click in '{label}'",
        "click_at": "Click at ({x}, {y})",
        "double_click": "Double-click '{label}'",
        "double_click_in": "Double-click in '{label}'",
        "double_click_at": "Double-click at ({x}, {y})",
        "right_click": "Right-click '{label}'",
        "right_click_in": "Right-click in '{label}'",
        "right_click_at": "Right-click at ({x}, {y})",
        "switch_tab": "Switch to tab '{label}'",
        "type_in": "Type text in '{label}'",
        "type": "Type text",
        "type_secret_in": "Type the password in '{label}'",
        "type_secret": "Type the password",
        "save": "Save ({keys})",
        "shortcut": "Press {keys}",
        "key": "Press {keys}",
        "scroll_in": "Scroll {direction} in '{label}'",
        "scroll": "Scroll {direction}",
        "up": "up",
        "down": "down",
        "left": "left",
        "right": "right",
        "open_app": "Open {app}",
        "focus": "Switch to window '{label}'",
    },
    "fr": {
        "click": "Cliquer sur '{label}'",
        "click_in": "Cliquer dans '{label}'",
        "click_at": "Cliquer en ({x}, {y})",
        "double_click": "Double-cliquer sur '{label}'",
        "double_click_in": "Double-cliquer dans '{label}'",
        "double_click_at": "Double-cliquer en ({x}, {y})",
        "right_click": "Clic droit sur '{label}'",
        "right_click_in": "Clic droit dans '{label}'",
        "right_click_at": "Clic droit en ({x}, {y})",
        "switch_tab": "Aller sur l'onglet '{label}'",
        "type_in": "Saisir du texte dans '{label}'",
        "type": "Saisir du texte",
        "type_secret_in": "Saisir le mot de passe dans '{label}'",
        "type_secret": "Saisir le mot de passe",
        "save": "Enregistrer ({keys})",
        "shortcut": "Appuyer sur {keys}",
        "key": "Appuyer sur {keys}",
        "scroll_in": "Faire défiler vers le {direction} dans '{label}'",
        "scroll": "Faire défiler vers le {direction}",
        "up": "haut",
        "down": "bas",
        "left": "gauche",
        "right": "droite",
        "open_app": "Ouvrir {app}",
        "focus": "Passer à la fenêtre '{label}'",
    },
}


@dataclass(frozen=True)
class Evidence:
    label: str | None
    source: str  # uia | ocr | window_title | raw

    @property
    def confidence(self) -> float:
        return CONFIDENCE[self.source]


def clean_label(text: str | None) -> str | None:
    """Screen or UIA text fit to quote in an intent: one line, no control characters, capped."""
    if not text:
        return None
    text = re.sub(r"[\x00-\x1f\x7f]+", " ", text)
    text = " ".join(text.replace("'", "’").split())
    if len(text) > MAX_LABEL:
        text = text[: MAX_LABEL - 1].rstrip() + "…"
    return text or None


def app_key(app: str | None) -> str | None:
    if not app:
        return None
    name = app.strip().lower().replace("/", "\\").rsplit("\\", 1)[-1]
    return name[:-4] if name.endswith(".exe") else name


def app_name(app: str | None, title: str | None, locale: str) -> str | None:
    key = app_key(app)
    if key in APPS:
        en, fr = APPS[key]
        return fr if locale == "fr" else en
    if title and " - " in title:
        return clean_label(title.rsplit(" - ", 1)[-1])
    return clean_label(key) if key else None


def pretty_keys(keys: str, locale: str) -> str:
    parts = normalize_keys(keys).split("+")
    out = []
    for p in parts:
        if locale == "fr" and p in KEY_NAMES_FR:
            out.append(KEY_NAMES_FR[p])
        elif len(p) == 1:
            out.append(p.upper())
        else:
            out.append(p[:1].upper() + p[1:])
    return "+".join(out)


def click_evidence(event: dict[str, Any], facts: dict[str, Any]) -> Evidence:
    element = event.get("element") or {}
    if clean_label(element.get("name")):
        return Evidence(clean_label(element.get("name")), "uia")
    ocr = facts.get("ocr") or {}
    if clean_label(ocr.get("text")):
        return Evidence(clean_label(ocr.get("text")), "ocr")
    title = clean_label(event.get("window_title") or facts.get("wb"))
    if title:
        return Evidence(title, "window_title")
    return Evidence(None, "raw")


def is_tab_click(event: dict[str, Any]) -> bool:
    role = ((event.get("element") or {}).get("role") or "").lower().replace(" ", "")
    if role in ("tabitem", "tab"):
        return True
    return app_key(event.get("app")) in BROWSERS and 0 <= int(event.get("y") or 9999) <= TAB_STRIP_MAX_Y and not role


def typed_text(events: Iterable[dict[str, Any]]) -> str:
    """The text as it ended up: typed chunks, with Backspace applied."""
    out: list[str] = []
    for e in events:
        if e.get("type") == "type":
            out.extend(e.get("text") or "")
        elif e.get("type") == "key" and normalize_keys(e.get("keys") or "") == "backspace" and out:
            out.pop()
    return "".join(out)


@dataclass
class Described:
    intent: str
    action_type: str
    confidence: float
    evidence: str
    target: dict[str, Any]
    params: dict[str, Any]


def describe(events: Sequence[tuple[int, dict[str, Any], dict[str, Any]]], locale: str) -> Described:
    """Intent, action type, confidence, target and params of a step from its (idx, event, facts)."""
    t = TEXTS["fr" if locale == "fr" else "en"]
    actions = [(i, e, f) for i, e, f in events if e.get("type") != "screenshot"]
    if not actions:
        return Described(t["type"], "wait", 0.1, "raw", {}, {})
    typed = typed_text(e for _, e, _ in actions)
    has_typing = any(_kind(e) == "type" for _, e, _ in actions)
    secret = next((e for _, e, _ in actions if e.get("masked")), None)
    submit = next(
        (
            normalize_keys(e.get("keys") or "")
            for _, e, _ in actions
            if e.get("type") == "key" and normalize_keys(e.get("keys") or "") in ("enter", "tab")
        ),
        None,
    )
    _, first, facts = actions[0]
    kind = _kind(first)
    params: dict[str, Any] = {}

    if kind in CLICK_TYPES:
        ev = click_evidence(first, facts)
        target = click_target(first, facts, ev)
        if has_typing and kind == "click":
            if secret is not None:
                label = secret.get("masked_field") or (ev.label if ev.source in ("uia", "ocr") else None)
                intent, params = secret_typing(t, label, submit)
                return Described(intent, "type_text", ev.confidence, ev.source, target, params)
            params = {"text": typed} | ({"submit_key": submit} if submit else {})
            intent = t["type_in"].format(label=ev.label) if ev.label else t["type"]
            return Described(intent, "type_text", ev.confidence, ev.source, target, params)
        launched = next((e for _, e, f in actions[1:] if e.get("type") == "focus" and f.get("new_app")), None)
        if launched is not None and kind in ("click", "double_click"):
            name = app_name(launched.get("app"), launched.get("window_title"), locale)
            if name:  # the click brought up an application not seen before in this session
                action = "double_click_anchor" if kind == "double_click" else "click_anchor"
                return Described(
                    t["open_app"].format(app=name), action, max(ev.confidence, 0.8), ev.source, target, params
                )
        if kind == "click" and is_tab_click(first):
            label = ev.label if ev.source in ("uia", "ocr") else None
            if label:
                return Described(
                    t["switch_tab"].format(label=label), "switch_tab", ev.confidence, ev.source, target, params
                )
        action = {"click": "click_anchor", "double_click": "double_click_anchor", "right_click": "right_click_anchor"}[
            kind
        ]
        if ev.source in ("uia", "ocr"):
            intent = t[kind].format(label=ev.label)
        elif ev.source == "window_title":
            intent = t[f"{kind}_in"].format(label=ev.label)
        else:
            intent = t[f"{kind}_at"].format(x=first.get("x"), y=first.get("y"))
        return Described(intent, action, ev.confidence, ev.source, target, params)

    if kind == "type":
        element = first.get("element") or {}
        field_name = clean_label(element.get("name"))
        title = clean_label(first.get("window_title") or facts.get("wb"))
        target = {
            "by_text": field_name,
            **({"label": label} if (label := plain_text(element.get("name"))) else {}),
            "element": element or None,
            "window_title": first.get("window_title"),
        }
        params = {"text": typed} | ({"submit_key": submit} if submit else {})
        if secret is not None:
            label = secret.get("masked_field") or field_name
            intent, params = secret_typing(t, label, submit)
            return Described(intent, "type_text", 0.85 if label else 0.5, "uia" if label else "raw", target, params)
        if field_name:
            return Described(t["type_in"].format(label=field_name), "type_text", 0.85, "uia", target, params)
        if title:
            return Described(t["type_in"].format(label=title), "type_text", 0.5, "window_title", target, params)
        return Described(t["type"], "type_text", 0.4, "raw", target, params)

    if kind == "key":
        keys = normalize_keys(first.get("keys") or "")
        target = {"window_title": first.get("window_title") or facts.get("wb")}
        params = {"keys": keys}
        if keys in ("ctrl+s", "cmd+s"):
            return Described(t["save"].format(keys=pretty_keys(keys, locale)), "save", 0.9, "raw", target, params)
        action = "keyboard_shortcut" if "+" in keys or re.fullmatch(r"f\d{1,2}", keys) else "key_press"
        text = t["shortcut" if action == "keyboard_shortcut" else "key"].format(keys=pretty_keys(keys, locale))
        return Described(text, action, 0.8, "raw", target, params)

    if kind == "scroll":
        total = sum(float(e.get("delta", e.get("dy", -1)) or 0) for _, e, _ in actions)
        direction = "up" if total > 0 else "down"
        title = clean_label(first.get("window_title") or facts.get("wb"))
        params = {"direction": direction, "amount": abs(total) or len(actions)}
        target = {
            "window_title": first.get("window_title") or facts.get("wb"),
            "x_pct": facts.get("x_pct"),
            "y_pct": facts.get("y_pct"),
        }
        if title:
            intent = t["scroll_in"].format(direction=t[direction], label=title)
            return Described(intent, "scroll", 0.6, "window_title", target, params)
        return Described(t["scroll"].format(direction=t[direction]), "scroll", 0.5, "raw", target, params)

    # focus: a window of another app came to the front
    title = first.get("window_title")
    target = {"window_title": title, "app": first.get("app")}
    if first.get("launched") is True:  # the agent saw the process start
        name = app_name(first.get("app"), title, locale)
        if name:
            params = {"app": first.get("app")}
            return Described(t["open_app"].format(app=name), "open_application", 0.8, "window_title", target, params)
    label = clean_label(title) or app_name(first.get("app"), title, locale)
    return Described(t["focus"].format(label=label), "focus_window", 0.7, "window_title", target, params)


def _kind(event: dict[str, Any]) -> str | None:
    """A masked keystroke counts as typing (its key is not known any more)."""
    kind = event.get("type")
    return "type" if kind == "key" and event.get("masked") else kind


def secret_typing(t: dict[str, str], label: str | None, submit: str | None) -> tuple[str, dict[str, Any]]:
    """Intent and params of a step that typed a secret: a placeholder, never the value."""
    label = clean_label(label)
    intent = t["type_secret_in"].format(label=label) if label else t["type_secret"]
    params: dict[str, Any] = {"text": secret_placeholder(label), "secret": True}
    return intent, params | ({"submit_key": submit} if submit else {})


def click_target(event: dict[str, Any], facts: dict[str, Any], ev: Evidence) -> dict[str, Any]:
    element = event.get("element") or None
    bbox = target_bbox(event, facts, ev)
    label = evidence_text(event, facts, ev)
    found: dict[str, Any] = {"label": label} if label else {}
    if bbox:  # in the pixels of the frame before the click, whose size is given beside it
        found |= {"bbox": bbox, "frame_size": facts.get("frame_size")}
    return {
        "by_text": ev.label if ev.source in ("uia", "ocr") else None,
        **found,
        "element": element,
        "x_pct": facts.get("x_pct"),
        "y_pct": facts.get("y_pct"),
        "window_title": event.get("window_title") or facts.get("wb"),
        "anchor_ref": f"rpa://screenshots/{facts['anchor']}" if facts.get("anchor") else None,
        "anchor_offset": facts.get("anchor_offset"),
    }


def plain_text(text: str | None) -> str | None:
    """Screen or UIA text as it reads (one line, no control characters), for matching it on screen later."""
    if not text:
        return None
    text = " ".join(re.sub(r"[\x00-\x1f\x7f]+", " ", text).split())
    return text[:MAX_MATCH_TEXT] or None


def evidence_text(event: dict[str, Any], facts: dict[str, Any], ev: Evidence) -> str | None:
    """The text that named the intent (UIA name or OCR line), unabridged: what a validator looks for."""
    if ev.source == "uia":
        return plain_text((event.get("element") or {}).get("name"))
    if ev.source == "ocr":
        return plain_text((facts.get("ocr") or {}).get("text"))
    return None


def target_bbox(event: dict[str, Any], facts: dict[str, Any], ev: Evidence) -> list[int] | None:
    """[x, y, w, h] of the clicked element in the frame before the click: UIA rectangle, else OCR line, else None."""
    if facts.get("element_bbox"):
        return list(facts["element_bbox"])
    ocr = facts.get("ocr") or {}
    box = ocr.get("bbox")
    if not box:
        return None
    if ev.source == "ocr":
        return list(box)
    if ev.source == "uia" and same_text(ocr.get("text"), (event.get("element") or {}).get("name")):
        return list(box)  # the line under the click reads the element's name: it is its label
    return None
