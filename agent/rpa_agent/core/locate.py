"""Where to act: coordinates the server put on the action, else the server's `POST /api/v1/resolve_target`.

The workstation agent has no OCR of its own: the server resolves a label or an anchor on the
agent's screenshot (memory, OCR, template, behind its quality guard). A target with a label that
cannot be found is not clicked: the agent reports `target_not_resolved` and the replay pauses. The
recorded position alone is used only for a target with nothing to look for — never for an
irreversible click, never for a record-selecting target (``identity`` in its spec).

A named control the server could not place may be found by the accessibility tree (`by_tree`); the
look a replay begins with asks the same of the run's first step before any input (`first_step_tree`),
under the same rules (`tree_query`).
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from rpa_agent.core import wire
from rpa_agent.core.actions import ANY_CLICK, CHOICES, NEEDS_POINT
from rpa_agent.core.http import Http, Response
from rpa_agent.core.wire import NextAction, WireError
from rpa_agent.port import Box, Element, NamedElements, Window

RESOLVE_PATH = "/api/v1/resolve_target"
TREE_ROLES = frozenset({"Button", "CheckBox", "RadioButton", "ComboBox", "Edit", "MenuItem", "TabItem", "Hyperlink"})
NOT_PLACED = ("not_found", "rejected_low_score", "rejected_drift")  # the server saw no such label where it belongs
MAX_WINDOWS = 64  # the server reads at most 64 windows
HIT_TEST_AGAIN_S = 0.05  # a browser's precise hit test answers within this
SHIFT_FIELD = "content_shift_y"  # how far a scroll moved the content (pixels, down)
MAX_SHIFT = 16384
TREE_QUESTION = "first_step_tree"  # a look's question about the run's first step, and the key of its answer


@dataclass(frozen=True)
class Located:
    x: int | None
    y: int | None
    method: str
    reason: str | None = None
    identity_ms: float | None = None  # the server's identity check of the record there (inside the resolve)

    @property
    def found(self) -> bool:
        return self.x is not None and self.y is not None


def spec_of(action: NextAction) -> dict[str, Any]:
    """The target's spec, with its label in it."""
    target = action.target
    if target is None:
        return {}
    spec = dict(target.spec)
    if target.label and not (spec.get("label") or spec.get("by_text")):
        spec["label"] = target.label
    return spec


def selects_a_record(spec: dict[str, Any]) -> bool:
    """The target chooses a record by who it is (a patient's line): never clicked at its recorded position."""
    identity = spec.get("identity")
    return isinstance(identity, str) and bool(identity.strip())


def has_something_to_find(action: NextAction) -> bool:
    target = action.target
    return target is not None and bool(target.label or target.x is not None)


def recorded_point(action: NextAction, size: tuple[int, int]) -> tuple[int, int] | None:
    target = action.target
    if target is None or target.rel_x is None or target.rel_y is None:
        return None
    rx, ry = (v / 100.0 if v > 1.0 else v for v in (target.rel_x, target.rel_y))  # tolerate percents
    return round(rx * (size[0] - 1)), round(ry * (size[1] - 1))


def refusal_at_recorded_point(action: NextAction, kind: str) -> str | None:
    """Why a target with nothing to look for must not be acted on at its recorded position, else None."""
    if action.irreversible and kind in ANY_CLICK | CHOICES:
        return "target_not_resolved: irreversible step: never clicked at its recorded position alone"
    if selects_a_record(spec_of(action)):
        return "target_not_resolved: a record-selecting step is never clicked at its recorded position"
    return None


def locate_on_server(
    http: Http,
    action: NextAction,
    png: bytes,
    window_title: str | None,
    machine_id: str | None,
    windows: list[dict[str, Any]] | None = None,
    shift: int = 0,
) -> Located:
    """The server's resolution of the target on this screenshot; `windows` (top-most first, with
    boxes) lets it follow a moved window and refuse a covered target (`window_occluded`); `shift`: pixels the
    content moved down since the step's screen (the agent scrolled it)."""
    target = action.target
    if target is not None and target.x is not None and target.y is not None:
        return Located(target.x, target.y, target.method or "server")
    return located(ask_server(http, spec_of(action), png, window_title, machine_id, windows, shift))


def ask_server(
    http: Http,
    spec: dict[str, Any],
    png: bytes,
    window_title: str | None,
    machine_id: str | None,
    windows: list[dict[str, Any]] | None = None,
    shift: int = 0,
) -> dict[str, Any]:
    """`POST /api/v1/resolve_target` for `spec` on this screenshot: the answer, checked against the wire's
    schema; an HTTP error or a broken answer is an unresolved answer (`method: server_error`)."""
    body: dict[str, Any] = {
        "image": {"png_base64": base64.b64encode(png).decode("ascii")},
        "target_spec": spec,
        "window_title": window_title,
        "machine_id": machine_id,  # the target memory read is this workstation's own
    }
    if windows and "windows" not in http.refused_fields:
        body["windows"] = windows[:MAX_WINDOWS]
    if shift and SHIFT_FIELD not in http.refused_fields:
        body[SHIFT_FIELD] = max(-MAX_SHIFT, min(MAX_SHIFT, shift))
    wire.outgoing("resolve", body)
    response = http.post(RESOLVE_PATH, body)
    for field in ("windows", SHIFT_FIELD):
        if field in body and refuses_field(response, field):
            # A server of the protocol's previous release knows no such field: ask without it, from now on.
            http.refused_fields.add(field)
            del body[field]
            response = http.post(RESOLVE_PATH, body)
    if response.status_code >= 400:
        return _unresolved(f"resolve_target answered HTTP {response.status_code}")
    try:
        return wire.answer("resolve-target-answer", response.json())
    except (ValueError, WireError) as exc:
        return _unresolved(f"resolve_target's answer breaks the wire contract: {exc}")


def refuses_field(response: Response, name: str) -> bool:
    """Whether the server answered 422 naming the request field `name` (a field it does not know)."""
    if response.status_code != 422:
        return False
    try:
        details = response.json().get("details") or {}
    except (ValueError, AttributeError):
        return False
    named = [details.get("field"), *((e or {}).get("field") for e in details.get("errors") or [])]
    return name in named


def located(data: dict[str, Any]) -> Located:
    """Where a resolve_target answer puts the target (not found: its method and reason)."""
    checks = [t["identity_ms"] for t in data.get("tried") or [] if isinstance(t.get("identity_ms"), int | float)]
    identity_ms = float(sum(checks)) if checks else None
    if not data.get("resolved") or data.get("x") is None or data.get("y") is None:
        reason = data.get("reason") or "not found"
        return Located(None, None, str(data.get("method") or "not_found"), reason, identity_ms)
    return Located(int(data["x"]), int(data["y"]), str(data.get("method") or "server"), None, identity_ms)


def _unresolved(reason: str) -> dict[str, Any]:
    return {"resolved": False, "method": "server_error", "reason": reason}


def tree_target(action: NextAction) -> tuple[str, str] | None:
    """(name, control type) of the accessible element the step's target was demonstrated on, when the tree may
    stand in for the screen: a named control (not a record chosen by who it is) named as the step's label."""
    spec = spec_of(action)
    element = spec.get("element")
    label = action.target.label if action.target is not None else None
    if not isinstance(element, dict) or selects_a_record(spec) or not label:
        return None
    name, role = element.get("name"), element.get("role")
    if not isinstance(name, str) or name.strip() != label.strip() or role not in TREE_ROLES:
        return None
    return name.strip(), str(role)


def tree_query(action: NextAction) -> tuple[str, str, str] | None:
    """(name, control type, window title) by which the accessibility tree may stand in for the step's target:
    a step that acts at a point, not irreversible, on a named control (`tree_target`) of a recorded window (the
    run's values filled in); None when the tree never stands in for it. The rules of `by_tree` and of a look's
    answer about the run's first step (`first_step_tree`), in one place."""
    if action.irreversible or action.action_type.lower() not in NEEDS_POINT:
        return None
    wanted = tree_target(action)
    window = spec_of(action).get("window_title")  # the step's window (the run's values filled in)
    if wanted is None or not isinstance(window, str) or not window.strip():
        return None
    return wanted[0], wanted[1], window.strip()


def element_by_tree(action: NextAction, windows: object, wait: Callable[[float], None] = time.sleep) -> Element | None:
    """The one showing element of the window in front that the step's target was demonstrated on, with its box,
    only while the window in front is the step's own and nothing is drawn over its centre (`uncovered`); None
    when the tree may not stand in or does not say."""
    query = tree_query(action)
    if query is None or not isinstance(windows, NamedElements):
        return None
    element = windows.element_named(*query)  # only while that window is in front
    return element if element is not None and element.box is not None and uncovered(element, windows, wait) else None


def uncovered(element: Element, windows: object, wait: Callable[[float], None] = time.sleep) -> bool:
    """The tree's hit test at the element's centre answers that element (its name), asked twice: a "showing" element
    may lie under something drawn over it (a page's sticky header over a tab scrolled under it), which a click
    there would hit, and a browser's first answer may go by the elements' boxes alone (Chromium: asked again,
    it answers what is drawn on top). Unanswered (no hit test): covered, as far as anyone can tell."""
    hit_test = getattr(windows, "element_at", None)
    if element.box is None or not callable(hit_test):
        return False
    for attempt in range(2):
        if attempt:
            wait(HIT_TEST_AGAIN_S)
        hit = hit_test(*centre(element.box))
        if hit is None or hit.name.strip() != element.name.strip():  # the text inside a button carries its name
            return False
    return True


def by_tree(
    action: NextAction, found: Located, windows: object, wait: Callable[[float], None] = time.sleep
) -> Located | None:
    """The step's control found by its accessible element when the server could not place its label on the
    screen (read joined with a neighbour's, "Programmé Urgent"): the one showing element of the window in
    front with the recorded name and control type, clicked at its centre, only while the window in front is
    the step's own (its title, or the title's fixed words where `{{*}}` stands for the record's). Never for
    an identity mismatch, an irreversible step or a record's row; None when the tree does not say (none, or
    more than one) or another window is in front."""
    if found.found or not found.method.startswith(NOT_PLACED):
        return None
    element = element_by_tree(action, windows, wait)
    if element is None or element.box is None:
        return None
    x, y = centre(element.box)
    return Located(x, y, "accessible_element")


def first_step_tree(
    look: NextAction, front: Window | None, windows: object, wait: Callable[[float], None] = time.sleep
) -> dict[str, Any] | None:
    """A look's answer about the run's first step (`params.first_step_tree`, asked by the look a replay begins
    with): whether `by_tree` would find its control on this screen, by the same rules (`tree_query`), with its
    centre and the window in front (`front`) with its box. None when the look asks nothing, asks something
    that breaks the wire, or the backend has no tree: the server then checks the screen by OCR alone."""
    asked = look.params.get(TREE_QUESTION)
    if asked is None or not isinstance(windows, NamedElements):
        return None
    try:
        question = wire.validate("preflight-tree-question", asked)
        step = replace(
            look,
            action_type=str(question["action_type"]),
            irreversible=bool(question["irreversible"]),
            target=wire.Target(**question["target"]),
        )
        answer = _tree_answer(step, front, windows, wait)
        wire.outgoing("tree-answer", answer)
    except (WireError, TypeError):
        return None
    return answer


def _tree_answer(
    step: NextAction, front: Window | None, windows: object, wait: Callable[[float], None]
) -> dict[str, Any]:
    query = tree_query(step)
    if query is None:
        return {"found": False, "reason": "the accessibility tree never stands in for this step's target"}
    name, role = query[0][:1000], query[1][:100]
    element = element_by_tree(step, windows, wait)
    if element is None or element.box is None:
        reason = "no single showing element of that name and type, uncovered, in the step's window in front"
        return {"found": False, "name": name, "role": role, "reason": reason}
    return {
        "found": True,
        "name": name,
        "role": role,
        "point": list(centre(element.box)),
        "box": list(element.box),
        "window_title": front.title[:1000] if front is not None else None,
        "window_box": list(front.box) if front is not None and front.box is not None else None,
    }


def centre(box: Box) -> tuple[int, int]:
    x, y, w, h = box
    return x + w // 2, y + h // 2
