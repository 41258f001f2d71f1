"""Name a step from its evidence and its effect, in the session's language.

The evidence that names the element (see `rpa_mcp.shadow.targets`) sets the base
confidence; the step's shape (noise folded in, text rebuilt from edits, an Enter judged
from what followed) is kept in `Described.pattern` for the calibration
(`rpa_mcp.shadow.calibration`) to turn into a confidence that means something.

Masked input (a password typed while observed, see `rpa_mcp.shadow.masking`) makes a
"Type the password in '<field>'" step whose text is the placeholder ``{{secret:<field>}}``
(``params.secret = true``): never the value, which the server never had.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rpa_mcp.shadow.choices import chosen_option, set_checked
from rpa_mcp.shadow.described import Described
from rpa_mcp.shadow.elements import (
    app_key,
    is_checkable,
    is_container,
    is_field,
    is_menu_item,
    is_row,
    is_tab,
    multiline,
    role_of,
)
from rpa_mcp.shadow.events import CLICK_TYPES, normalize_keys
from rpa_mcp.shadow.masking import secret_placeholder
from rpa_mcp.shadow.parameters import classify
from rpa_mcp.shadow.phrases import TEXTS, is_verb_label, names_record, noun_phrase, search_object
from rpa_mcp.shadow.postconditions import RECORD_KINDS
from rpa_mcp.shadow.segment import Segment
from rpa_mcp.shadow.segmenter import ENTER_KEYS, NAV_KEYS
from rpa_mcp.shadow.targets import clean_label, click_evidence, click_target, is_tab_click, plain_text
from rpa_mcp.shadow.textedit import final_text
from rpa_mcp.vision.ocr import normalize_text

SHORT_VALUE = 60  # a typed value this long or shorter, on one line, is quoted in the intent
QUOTED_TEXT = 20  # ... unless it is free text longer than this in a field named by a noun: "Saisir l'observation"
EDITING = frozenset({"backspace", "delete", "ctrl+backspace", "left", "right", "home", "end", "ctrl+a", "up", "down"})

# process -> (English name, French name with its article)
APPS: dict[str, tuple[str, str]] = {
    "notepad": ("Notepad", "le Bloc-notes"),
    "msedge": ("Edge", "Edge"),
    "chrome": ("Chrome", "Chrome"),
    "chromium": ("Chromium", "Chromium"),
    "firefox": ("Firefox", "Firefox"),
    "explorer": ("File Explorer", "l'Explorateur de fichiers"),
    "winword": ("Word", "Word"),
    "excel": ("Excel", "Excel"),
    "outlook": ("Outlook", "Outlook"),
    "thunderbird": ("Thunderbird", "Thunderbird"),
    "calc": ("Calculator", "la Calculatrice"),
    "mspaint": ("Paint", "Paint"),
}
BROWSER_TITLES = frozenset(
    {"chromium", "google chrome", "chrome", "microsoft edge", "edge", "mozilla firefox", "firefox"}
)
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

Event = tuple[int, dict[str, Any], dict[str, Any]]


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


def describe(seg: Segment, events: Sequence[Event], locale: str, *, window_after: str | None = None) -> Described:
    """Intent, action type, base confidence, target and params of a step from its (idx, event, facts)."""
    lang = "fr" if locale == "fr" else "en"
    t = TEXTS[lang]
    actions = [(i, e, f) for i, e, f in events if e.get("type") != "screenshot"]
    if not actions:
        return Described(t["type"], "wait", 0.1, "raw", {}, {})
    if seg.kind == "detour" and seg.detour:
        return _detour(seg, t, lang)
    if any(_kind(e) == "type" for _, e, _ in actions):
        return _typing(seg, actions, t, lang)
    kind = _kind(actions[0][1])
    if seg.kind == "click" or kind in CLICK_TYPES:
        return _click(seg, actions, t, lang, window_after)
    if kind == "key":
        return _key(actions, t, lang)
    if kind == "scroll":
        return _scroll(actions, t)
    return _focus(actions[0][1], t, lang)


def _kind(event: dict[str, Any]) -> str | None:
    """A masked keystroke counts as typing (its key is not known any more)."""
    kind = event.get("type")
    return "type" if kind == "key" and event.get("masked") else kind


def _keys(event: dict[str, Any]) -> str:
    return normalize_keys(event.get("keys") or "") if event.get("type") == "key" else ""


# --- typing ----------------------------------------------------------------------------------
def _typing(seg: Segment, actions: list[Event], t: dict[str, str], lang: str) -> Described:
    click = next(((i, e, f) for i, e, f in actions if e.get("type") in CLICK_TYPES), None)
    typed = next((e for _, e, _ in actions if _kind(e) == "type"), {})
    field_element = typed.get("element") or {}
    if click is not None:
        ev = click_evidence(click[1], click[2])
        target = click_target(click[1], click[2], ev, into_field=True)
        named = None if click[2].get("label_text") else clean_label(field_element.get("name"))  # not its placeholder
        label = named or (ev.label if ev.source in ("uia", "ocr") else None)
        source, base = ev.source, ev.confidence
    else:
        label = clean_label(field_element.get("name"))
        title = clean_label(typed.get("window_title") or actions[0][2].get("wb"))
        target = {
            "by_text": label,
            **({"label": text} if (text := plain_text(field_element.get("name"))) else {}),
            "element": field_element or None,
            "window_title": typed.get("window_title"),
        }
        source, base = ("uia", 0.85) if label else ("window_title", 0.5) if title else ("raw", 0.4)
        label = label or (title if source == "window_title" else None)
    indexes = {i for i, _, _ in actions}
    submit = _submit(seg, actions, indexes)
    secret = next((e for _, e, _ in actions if e.get("masked")), None)
    if secret is not None:
        name = secret.get("masked_field") or label
        intent, hidden = secret_typing(t, name, submit)
        return Described(intent, "type_text", base if name else 0.5, source if name else "raw", target, hidden)
    text, certain = final_text(((i, e) for i, e, _ in actions if i != (click[0] if click else None)), seg.newlines)
    params: dict[str, Any] = {"text": text} | ({"submit_key": submit} if submit else {})
    keys = {_keys(e) for _, e, _ in actions}
    has_enter = bool(keys & ENTER_KEYS)
    if not certain:
        pattern = "uncertain"
    elif has_enter and seg.multiline is not False and not _said_multiline(actions):
        pattern = "inferred"
    elif keys & EDITING or seg.collapsed:
        pattern = "edited"
    else:
        pattern = "plain"
    element = field_element or (click[1].get("element") or {} if click else {})
    intent = _typing_intent(t, lang, label, text, element, submit)
    return Described(intent, "type_text", base, source, target, params, text, pattern, label)


def _said_multiline(actions: list[Event]) -> bool:
    return any(multiline(e.get("element")) is not None for _, e, _ in actions)


def _submit(seg: Segment, actions: list[Event], indexes: set[int]) -> str | None:
    for idx in (seg.submit, seg.enter):
        if idx is not None and idx in indexes:
            return next(_keys(e) for i, e, _ in actions if i == idx) or None
    last = _keys(actions[-1][1])  # merged by a person: a final Enter or Tab is the submit
    if (last in ENTER_KEYS or last in NAV_KEYS) and actions[-1][0] not in seg.newlines:
        return last
    return None


def _typing_intent(
    t: dict[str, str], lang: str, label: str | None, text: str, element: dict[str, Any], submit: str | None
) -> str:
    one_line = "\n" not in text and "\r" not in text and 0 < len(text) <= SHORT_VALUE
    value = clean_label(text, limit=40)
    noun = noun_phrase(label, lang) if label else None
    free_text = bool(noun) and len(text) > QUOTED_TEXT and classify(text, label) is None and not submit
    if one_line and value and not free_text:
        search, noun = search_object(label or "", lang)
        aid = str(element.get("automation_id") or "").lower()
        if submit in ENTER_KEYS and (search or "search" in aid or "recherch" in aid):  # typed, then searched
            if noun:
                return t["search_for"].format(noun=noun, value=value)
            if label and not search:
                return t["search_in"].format(value=value, label=label)
            return t["search"].format(value=value)
        if label:
            return t["type_value_in"].format(value=value, label=label)
        return t["type_value"].format(value=value)
    if noun:
        return t["enter_field"].format(noun=noun)
    return t["type_in"].format(label=label) if label else t["type"]


def secret_typing(t: dict[str, str], label: str | None, submit: str | None) -> tuple[str, dict[str, Any]]:
    """Intent and params of a step that typed a secret: a placeholder, never the value."""
    label = clean_label(label)
    intent = t["type_secret_in"].format(label=label) if label else t["type_secret"]
    params: dict[str, Any] = {"text": secret_placeholder(label), "secret": True}
    return intent, params | ({"submit_key": submit} if submit else {})


# --- clicks ----------------------------------------------------------------------------------
def _click(seg: Segment, actions: list[Event], t: dict[str, str], lang: str, window_after: str | None) -> Described:
    clicks = [(i, e, f) for i, e, f in actions if e.get("type") in CLICK_TYPES]
    _, first, facts = clicks[-1] if clicks else actions[0]  # the last click is the one that counted
    kind = seg.first_type if seg.kind == "click" and seg.first_type in CLICK_TYPES else _kind(first)
    noise = seg.kind == "click" and seg.first_type == "" and bool(clicks)
    if kind not in CLICK_TYPES:
        kind = "right_click" if noise else "click"
    if seg.kind == "click" and seg.choice is not None:
        return chosen_option(seg, actions, t)
    ev = click_evidence(first, facts)
    target = click_target(first, facts, ev)
    pattern = "noise" if noise else "collapsed" if seg.collapsed else "plain"
    element = first.get("element") or {}
    action = {"click": "click_anchor", "double_click": "double_click_anchor", "right_click": "right_click_anchor"}[kind]
    named = ev.label if ev.source in ("uia", "ocr") else None
    if kind in ("click", "double_click") and is_checkable(element):
        return set_checked(first, target, named, ev.source, ev.confidence, pattern, t)
    if noise and named:
        return Described(
            t["menu_noise"].format(label=named), action, ev.confidence, ev.source, target, {}, None, pattern
        )
    launched = next((e for _, e, f in actions[1:] if e.get("type") == "focus" and f.get("new_app")), None)
    if launched is not None and kind in ("click", "double_click"):
        name = app_name(launched.get("app"), launched.get("window_title"), lang)
        if name:  # the click brought up an application not seen before in this session
            confidence = max(ev.confidence, 0.8)
            return Described(t["open_app"].format(app=name), action, confidence, ev.source, target, {}, None, pattern)
    if kind == "click" and named and (is_tab_click(first) or _names_the_view(element, named, first, window_after)):
        intent = t["switch_tab"].format(label=named)
        return Described(intent, "switch_tab", ev.confidence, ev.source, target, {}, named, pattern)
    if named:
        value = (
            plain_text(element.get("name"))
            if is_row(element)
            else _chosen_by_label(element, named, first, window_after)
        )
        return Described(
            _click_intent(t, kind, element, named, window_after),
            action,
            ev.confidence,
            ev.source,
            target,
            {},
            value,
            pattern,
        )
    if ev.source == "window_title":
        intent = t[f"{kind}_in"].format(label=ev.label)
    else:
        intent = t[f"{kind}_at"].format(x=first.get("x"), y=first.get("y"))
    return Described(intent, action, ev.confidence, ev.source, target, {}, None, pattern)


def _chosen_by_label(
    element: dict[str, Any], label: str, event: dict[str, Any], window_after: str | None
) -> str | None:
    """A click only the screen named (no element said what it is) after which the window's title newly
    names what was clicked ('Pharmacie — DUBOIS Marcel' after a click on 'Marcel'): a record chosen by
    its label, as a row is; None otherwise."""
    if element.get("role") and not is_container(element) and role_of(element) != "text":
        return None
    words = re.findall(r"\w+", normalize_text(label))

    def names(title: str | None) -> bool:
        said = " ".join(re.findall(r"\w+", normalize_text(title or "")))
        return bool(words) and f" {' '.join(words)} " in f" {said} "

    return (
        plain_text(label)
        if len("".join(words)) >= 2 and names(window_after) and not names(event.get("window_title"))
        else None
    )


def _names_the_view(element: dict[str, Any], label: str, event: dict[str, Any], window_after: str | None) -> bool:
    """A click whose element the agent could not say (OCR named it) and after which the window title names
    the view by that label ('… — Imaging – Chromium'): a tab. A label that reads as a person's name or an
    identifier ('GAUTHIER Édith', a list's line) names a record the click opened, not a view: the title
    naming it is no tab evidence (the click chose the record by its content, `_chosen_by_label`)."""
    if element.get("role") and not is_container(element) and role_of(element) != "text":
        return False
    if classify(label) in RECORD_KINDS:
        return False
    parts = {normalize_text(p) for p in re.split(r"\s+[-–—]\s+", window_after or "")}
    before = {normalize_text(p) for p in re.split(r"\s+[-–—]\s+", event.get("window_title") or "")}
    return normalize_text(label) in parts - before


def _click_intent(t: dict[str, str], kind: str, element: dict[str, Any], named: str, window_after: str | None) -> str:
    """Named by the effect when the element says what it is: a menu item, a row opened or selected, a verb button."""
    if kind == "click" and is_menu_item(element):
        return t["choose_menu"].format(label=named)
    if is_row(element) and kind == "double_click":
        opened = names_record(element.get("window_title"), window_after, named)
        return t["open_record" if opened else "open_item"].format(label=named)
    if is_row(element) and kind == "click":
        return t["select"].format(label=named)
    if kind == "click" and is_verb_label(named) and not (is_field(element) or is_tab(element)):
        return named  # a button or link that says what it does ("Enregistrer", "Ouvrir le dossier")
    return t[kind].format(label=named)


# --- keys, scroll, focus, detour -------------------------------------------------------------
def _key(actions: list[Event], t: dict[str, str], lang: str) -> Described:
    first, facts = actions[0][1], actions[0][2]
    keys = normalize_keys(first.get("keys") or "")
    target = {"window_title": first.get("window_title") or facts.get("wb")}
    params = {"keys": keys}
    if keys in ("ctrl+s", "cmd+s"):
        return Described(t["save"].format(keys=pretty_keys(keys, lang)), "save", 0.9, "raw", target, params)
    action = "keyboard_shortcut" if "+" in keys or re.fullmatch(r"f\d{1,2}", keys) else "key_press"
    text = t["shortcut" if action == "keyboard_shortcut" else "key"].format(keys=pretty_keys(keys, lang))
    return Described(text, action, 0.8, "raw", target, params)


def _scroll(actions: list[Event], t: dict[str, str]) -> Described:
    first, facts = actions[0][1], actions[0][2]
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


def _focus(first: dict[str, Any], t: dict[str, str], lang: str) -> Described:
    """A window of another app came to the front."""
    title = first.get("window_title")
    target = {"window_title": title, "app": first.get("app")}
    if first.get("launched") is True:  # the agent saw the process start
        name = app_name(first.get("app"), title, lang)
        if name:
            params = {"app": first.get("app")}
            return Described(t["open_app"].format(app=name), "open_application", 0.8, "window_title", target, params)
    label = clean_label(title) or app_name(first.get("app"), title, lang)
    return Described(t["focus"].format(label=label), "focus_window", 0.7, "window_title", target, {})


def _detour(seg: Segment, t: dict[str, str], lang: str) -> Described:
    """A trip elsewhere that came back: replayed (if kept) as bringing the screen it left to the front."""
    detour = seg.detour or {}
    visited = detour.get("visited")
    if app_key(detour.get("visited_app")) == seg.app and visited:  # another window of the same application
        name = f"'{clean_label(_without_app_suffix(visited)) or '?'}'"
    else:
        name = app_name(detour.get("visited_app"), visited, lang) or clean_label(visited) or "?"
    target = {"window_title": detour.get("back_to"), "app": seg.app}
    params = {"visited": visited}
    return Described(t["detour"].format(app=name), "focus_window", 0.7, "window_title", target, params, None, "detour")


def _without_app_suffix(title: str) -> str:
    """'Messagerie - Boîte de réception – Chromium' -> 'Messagerie - Boîte de réception'."""
    found = re.search(r"\s+[-–—]\s+([^-–—]+)$", title)
    if found and found.group(1).strip().lower() in BROWSER_TITLES:
        return title[: found.start()]
    return title
