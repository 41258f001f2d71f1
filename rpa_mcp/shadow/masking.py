"""Secret input (passwords, PINs, CPS card codes) is masked at ingestion, before anything is stored.

Secrets are redacted from every result returned to an LLM; a password the person
types while observed must not even reach the disk. The rule:

1. A field is **secret** when its UI Automation element says so: ``is_password: true``; a
   role naming a password box (``password``, ``PasswordBox``, ``edit (password)``, ...); or an
   ``automation_id`` or ``name`` that reads password, passwd, pwd, passcode, mot de passe, mdp,
   pin, nip, code secret, code confidentiel or code porteur. Names are compared with
   `normalize_text` (case and accent-insensitive) after splitting ``camelCase``/``snake_case``
   ids into words (``txtMotDePasse``, ``pin_code``); short words (pin, nip, mdp, pwd) must be whole
   words (``Spinner`` is not a PIN).
2. An event is **secret input** when it types (a ``type`` event, or a ``key`` event that
   produces a character: anything but Enter/Tab/Escape, editing and arrow keys, function keys
   and single ``ctrl+<key>`` shortcuts) and any of:
   - the event itself says ``secret: true``, ``is_password: true`` or ``masked: true`` (the agent knows);
   - its own ``element`` is secret;
   - the focus is in a secret field: a click or focus event on a secret element (or flagged
     secret) puts it there; a click or focus event on another element, a focus change to
     another window, Enter, Tab or Escape take it out. A click without any element tells
     nothing and keeps it (over-masking is the safe failure).
3. Its ``text`` (or ``keys``) is replaced by a fixed mask (`MASK`, `MASK_KEY`: the length of
   the secret is not kept), the event is marked ``masked: true`` with the field's label in
   ``masked_field``, and its unknown fields holding text are dropped (they could carry the
   value). The original is never stored: not in the events table, not in the observer's state
   (screenshots are kept as they are: a password box shows dots).
4. A step made of masked input types the placeholder ``{{secret:<slug of the field>}}`` with
   ``params.secret = true`` (see `secret_placeholder`): workflows and competence files only
   ever hold the placeholder; the value is given at replay time in ``start_replay`` params
   under the placeholder's name (``secret:mot_de_passe``), and only the desktop agent gets it.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from rpa_mcp.shadow.events import CLICK_TYPES, TraceEvent, UiElement, normalize_keys
from rpa_mcp.shadow.segmenter import EDIT_KEYS, SUBMIT_KEYS
from rpa_mcp.vision.ocr import normalize_text

MASK = "••••••••"
MASK_KEY = "•"  # one masked keystroke (one character long, so the segmenter still sees typing)
SECRET_PREFIX = "secret:"

_SECRET_WORDS = re.compile(
    r"pass ?word|passwd|passcode|mot ?de ?passe|code ?secret|code ?confidentiel|code ?porteur"
    r"|\b(pwd|mdp|pin|nip)\b"
)
_SECRET_ROLE = re.compile(r"password|passwd")
# Keys that type nothing: they are kept as they came, even in a secret field.
_NON_CHAR_KEYS = (SUBMIT_KEYS | EDIT_KEYS | {"escape", "insert", "pageup", "pagedown", "ctrl", "alt", "win"}) - {
    "space"
}
_LEAVE_FIELD_KEYS = SUBMIT_KEYS | {"escape"}
_KEPT_SCALARS = (bool, int, float)


def words(text: str) -> str:
    """'txtMotDePasse' -> 'txt mot de passe'; accents, case and separators folded."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", text)
    return normalize_text(re.sub(r"[_\-.:/\\]+", " ", spaced))


def is_secret_element(element: UiElement | dict[str, Any] | None) -> bool:
    if element is None:
        return False
    data = element.model_dump() if isinstance(element, UiElement) else element
    if data.get("is_password") is True:
        return True
    role = normalize_text(str(data.get("role") or "")).replace(" ", "")
    if role and _SECRET_ROLE.search(role):
        return True
    return any(_SECRET_WORDS.search(words(str(data.get(key) or ""))) for key in ("automation_id", "name"))


def flagged_secret(event: TraceEvent) -> bool:
    """The agent itself says this input is secret."""
    return any(getattr(event, flag) is True for flag in ("secret", "is_password", "masked"))


def types_a_character(keys: str) -> bool:
    k = normalize_keys(keys)
    if k in _NON_CHAR_KEYS or re.fullmatch(r"f\d{1,2}", k):
        return False
    mods = k.split("+")[:-1]
    return mods != ["ctrl"]  # ctrl+v, ctrl+a, ...: a shortcut; AltGr (ctrl+alt+x) types a character


def field_label(element: UiElement | None) -> str:
    if element is None:
        return ""
    return " ".join((element.name or "").split())[:100]


def mask_event(event: TraceEvent, focus: str | None, *, window_changed: bool = False) -> tuple[TraceEvent, str | None]:
    """The event as it may be stored, and where the focus is after it.

    `focus` is the label ("" when unknown) of the secret field that has the focus, None when
    the focus is not in a secret field; `window_changed`: this focus event brings another window.
    """
    kind = event.type
    if kind in CLICK_TYPES or kind == "focus":
        if is_secret_element(event.element) or flagged_secret(event):
            return event, field_label(event.element)
        if event.element is not None or (kind == "focus" and window_changed):
            return event, None
        return event, focus  # a click without an element tells nothing about the focus
    if kind == "type" or (kind == "key" and types_a_character(event.keys or "")):
        own = is_secret_element(event.element)
        if not (own or flagged_secret(event) or focus is not None):
            return event, focus
        label = field_label(event.element) if own else (focus or field_label(event.element))
        return _masked(event, label), (label if own else focus)
    if kind == "key" and normalize_keys(event.keys or "") in _LEAVE_FIELD_KEYS:
        return event, None
    return event, focus


def _masked(event: TraceEvent, label: str) -> TraceEvent:
    data = event.model_dump(mode="python", exclude_none=True)
    for key, value in event.extras.items():
        if value is not None and not isinstance(value, _KEPT_SCALARS):
            data.pop(key, None)  # text, lists or objects beside the event could hold the value
    if event.type == "type":
        data["text"] = MASK
    else:
        data["keys"] = MASK_KEY
    data["masked"] = True
    if label:
        data["masked_field"] = label
    else:
        data.pop("masked_field", None)
    return TraceEvent.model_validate(data)


def slug(label: str | None) -> str:
    text = unicodedata.normalize("NFKD", normalize_text(label or ""))
    text = re.sub(r"[^a-z0-9]+", "_", text.encode("ascii", "ignore").decode()).strip("_")
    return text[:40].rstrip("_") or "password"


def secret_placeholder(label: str | None) -> str:
    return "{{" + SECRET_PREFIX + slug(label) + "}}"
