"""Incremental segmentation of a session's events into the steps a person would name.

A new step begins at a focus change to another window/app, at a click on another element,
at a click after typing, at Enter/Tab that submits typed text, at a command such as
``ctrl+s``, and after an idle gap. What a person does not count as a step is folded in:

- **noise on one element**: repeated clicks, a context menu opened and dismissed (Escape,
  or a click elsewhere), a select-click then a double-click on the same row are one step,
  whose action is the strongest click (double-click over click; a right-click only when its
  menu was used). Two plain clicks on one spot within `DOUBLE_CLICK_S` are a double-click
  (a recorder of raw input sends them so). A select-click on a row (or a tab) immediately
  replaced by a click on another row (tab) of the same list is one step on the last one.
- **typing**: bursts, pauses, Backspace/Delete and cursor moves in one field are one step
  (`rpa_mcp.shadow.textedit` rebuilds the final text). Enter in a field known to be
  multi-line is a line break; in a single-line field it submits the step (`submit_key`);
  when the element does not say, what follows decides: more typing in the same field
  makes it a line break, anything else a submit. Tab submits too. Tab presses that lead
  to typing (keyboard navigation) belong to the typing step.
- **drop-downs**: a plain click on a combo box opens its list; the next click, within
  `CHOICE_S`, is the option chosen, whatever element the recorder saw under it (a native
  pop-up is often not in the accessibility tree: the element reported is the page beneath).
  Both make one step (`Segment.choice`); a window change while the list is open (the pop-up's
  own window) belongs to it; clicking the combo again closes the list without a choice, and a
  key closes it too (the keys are a step of their own). Without an accessibility tree, the
  screen tells that a click opened a list (`rpa_mcp.shadow.popups`, the `in_list` of `place`).
- **window effects**: a focus change soon after a click or key is what that action did (its
  window after), not a step; so is a slow application's own change seconds later, and a change
  reported just before the click that made it (`rpa_mcp.shadow.window_effects`).
- **detours**: a trip to another application (or window) that comes back to the very
  screen it left, without typing, pasting, saving or deleting on the way, becomes one
  step marked `detour` (suggested for removal, see `rpa_mcp.shadow.suggestions`). A trip
  starts when the application changes, or when the window does by a window switch
  (Alt+Tab); it is abandoned when the person is back in the application on another screen,
  or when it grows too long (see `rpa_mcp.shadow.trips`).

The state is plain data (`Segment.to_dict`) so the observer can persist it after every
event: a restart resumes exactly where it was. `place` returns the first segment position
it changed (a detour rewrites the steps of the trip).
"""

from __future__ import annotations

from rpa_mcp.shadow.elements import (
    COMBO_ROLES,
    ROW_ROLES,
    TAB_ROLES,
    app_key,
    element_key,
    is_menu_item,
    multiline,
    role_of,
    same_place,
    screen_title,
)
from rpa_mcp.shadow.events import CLICK_TYPES, TraceEvent, normalize_keys
from rpa_mcp.shadow.segment import Context, Segment, close
from rpa_mcp.shadow.trips import follow_trip
from rpa_mcp.shadow.window_effects import attach_effect, claims_late_effect, early_effect, effect_of, given_back

IDLE_GAP_S = 10.0
DOUBLE_CLICK_S = 0.5
COLLAPSE_S = 30.0  # clicks on the same element this close are one step (a hesitation included)
CHOICE_S = 30.0  # a drop-down's list open this long is still waiting for its option
SUPERSEDE_S = 5.0  # a selection replaced this quickly by another one of the same list was a slip
SUBMIT_KEYS = frozenset({"enter", "tab", "shift+tab", "numpadenter"})
ENTER_KEYS = frozenset({"enter", "numpadenter"})
NAV_KEYS = frozenset({"tab", "shift+tab"})
LIST_KEYS = frozenset({"up", "down", "pageup", "pagedown", "home", "end"})  # moving in an open drop-down list
EDIT_KEYS = frozenset(
    {"backspace", "delete", "left", "right", "up", "down", "home", "end", "space", "shift", "capslock"}
    | {"shift+left", "shift+right", "shift+home", "shift+end", "ctrl+left", "ctrl+right", "ctrl+backspace"}
    | {"shift+up", "shift+down", "ctrl+home", "ctrl+end", "shift+backspace"}
)
TEXT_COMMANDS = frozenset({"ctrl+a", "ctrl+z", "ctrl+y", "ctrl+x", "ctrl+v", "shift+insert", "ctrl+shift+z"})


def place(
    segments: list[Segment],
    ctx: Context,
    idx: int,
    event: TraceEvent,
    *,
    now: float,
    idle_gap_s: float = IDLE_GAP_S,
    shot: str | None = None,
    in_list: bool = False,
) -> tuple[Segment | None, int]:
    """Put event `idx` into the segments: (the segment it went to or None, first position changed).

    `shot` is the screenshot the screen showed just before this event (kept when a trip starts);
    `in_list`: this click lands in a pop-up the open step's click opened, seen on the screen.
    """
    changed_from = max(len(segments) - 1, 0)
    if event.type == "screenshot":
        return None, len(segments)
    last = segments[-1] if segments else None
    current = last if last is not None and not last.closed else None
    gap = current is not None and ctx.last_ts is not None and event.ts - ctx.last_ts > idle_gap_s
    prev_window, prev_app = ctx.window, ctx.app
    count = len(segments)
    seg = _place(segments, ctx, last, current, idx, event, gap=gap, in_list=in_list)
    if len(segments) > count:
        segments[-1].shot = shot
    if seg is not None:
        seg.last_ts = event.ts
        seg.updated_at = now
    if seg is not None and segments and seg is not segments[-1]:  # an earlier step took it (typing resumed)
        changed_from = min(changed_from, next(i for i in range(len(segments) - 1, -1, -1) if segments[i] is seg))
    merged = follow_trip(segments, ctx, seg, idx, event, prev_window, prev_app, shot)
    if merged is not None:
        seg, changed_from = segments[merged], min(changed_from, merged)
        seg.updated_at = now
    ctx.last_ts = event.ts
    if event.window_title is not None or event.app is not None:
        ctx.window = event.window_title if event.window_title is not None else ctx.window
        ctx.app = event.app if event.app is not None else ctx.app
        key = app_key(event.app)
        if key and key not in ctx.apps_seen:
            ctx.apps_seen.append(key)
    return seg, changed_from


def _new(
    segments: list[Segment],
    current: Segment | None,
    idx: int,
    event: TraceEvent,
    kind: str,
    ctx: Context,
    *,
    closed: bool = False,
) -> Segment:
    if current is not None:
        close(current)
    seg = Segment(
        events=[idx],
        kind=kind,
        first_type=event.type,
        closed=closed,
        window=event.window_title or ctx.window,
        app=app_key(event.app) or app_key(ctx.app),
    )
    segments.append(seg)
    return seg


def _place(
    segments: list[Segment],
    ctx: Context,
    last: Segment | None,
    current: Segment | None,
    idx: int,
    event: TraceEvent,
    *,
    gap: bool,
    in_list: bool = False,
) -> Segment | None:
    kind = "type" if event.type == "key" and event.masked else event.type  # a masked keystroke types a character
    if kind == "focus":
        return _focus(segments, ctx, last, current, idx, event)
    if gap and current is not None and not _continues(current, event, kind, ctx):
        close(current)
        current = None
    if kind in CLICK_TYPES:
        if in_list and current is not None and current.kind == "click" and not current.typed:
            current.popup = True  # the screen showed the list this step's click opened
        return _click(segments, ctx, last, current, idx, event)
    if kind == "type":
        return _type(segments, ctx, current, idx, event)
    if kind == "key":
        return _key(segments, ctx, current, idx, event)
    if kind == "scroll":
        if current is not None and current.kind == "scroll":
            current.events.append(idx)
            return current
        return _new(segments, current, idx, event, "scroll", ctx)
    return None  # pragma: no cover - EventType is closed


def _continues(seg: Segment, event: TraceEvent, kind: str, ctx: Context) -> bool:
    """After a pause, typing on in the same field and clicking the same element again are still the same step."""
    if kind == "type" or (kind == "key" and _edits(normalize_keys(event.keys or ""))):
        return seg.typing and _same_field(seg, event, ctx)
    if kind in CLICK_TYPES:
        return seg.kind == "click" and not seg.typed and (_chooses(seg, event) or _same_element(seg, event, ctx))
    return False


# --- focus ---------------------------------------------------------------------------------
def _focus(
    segments: list[Segment], ctx: Context, last: Segment | None, current: Segment | None, idx: int, event: TraceEvent
) -> Segment | None:
    same = (event.window_title or ctx.window) == ctx.window and (event.app or ctx.app) == ctx.app
    own_popup = current is not None and current.popup and app_key(event.app) in (None, app_key(ctx.app))
    if same or own_popup:  # a drop-down's list may be a window of its own application
        if current is not None:
            current.events.append(idx)
        return current
    if last is not None and effect_of(last, event, ctx):
        attach_effect(last, idx, event, ctx)  # the window change is what the action did
        return last
    seg = _new(segments, current, idx, event, "focus", ctx)
    seg.came_from = ctx.window
    return seg


# --- clicks --------------------------------------------------------------------------------
def _same_element(seg: Segment, event: TraceEvent, ctx: Context) -> bool:
    if screen_title(event.window_title or ctx.window) != screen_title(seg.window):
        return False
    key = element_key(event.element.model_dump() if event.element else None)
    if key is not None and seg.element is not None:
        return key == seg.element
    return same_place(seg.point, [event.x or 0, event.y or 0])


def _click(
    segments: list[Segment], ctx: Context, last: Segment | None, current: Segment | None, idx: int, event: TraceEvent
) -> Segment:
    element = event.element.model_dump() if event.element else None
    key, role, point = element_key(element), role_of(element), [event.x or 0, event.y or 0]
    if last is not None and claims_late_effect(last, event):
        last = given_back(segments, last, ctx)
    if early_effect(last, event, ctx):
        assert last is not None
        if ctx.trip is not None and ctx.trip.get("pos") == len(segments) - 1:
            ctx.trip = None  # that window change was no trip: this click made it
        last.events.append(idx)
        last.kind, last.first_type, last.effect, last.window, last.came_from = (
            "click",
            event.type,
            True,
            event.window_title,
            None,
        )
        close(last)
        return _opened(last, key, role, point)
    if current is not None and current.kind == "click" and not current.typed:
        if current.popup and key is not None and key == current.element and event.type == "click":
            current.popup = False  # the combo itself clicked again: its list closed without a choice
            return _grow(current, idx, current.point or point)
        if _chooses(current, event):  # whatever the recorder saw there: the list covered it
            current.events.append(idx)
            current.popup, current.choice = False, idx
            close(current)
            return current
        if _same_element(current, event, ctx) and event.ts - current.last_ts <= COLLAPSE_S:
            _combine(current, event.type, quick=event.ts - current.last_ts <= DOUBLE_CLICK_S)
            return _grow(current, idx, point)
        if current.menu:
            if is_menu_item(element) or key is None:
                close(current)  # the menu was used: the right-click stays, the choice is a step of its own
                return _opened(_new(segments, current, idx, event, "click", ctx), key, role, point)
            current.first_type, current.menu = current.base_type, False  # dismissed by clicking elsewhere
    prev = current if current is not None else last
    if prev is not None and _supersedes(prev, event, role, ctx):
        prev.element, prev.role, prev.first_type, prev.closed, prev.effect = key, role, event.type, False, False
        return _grow(prev, idx, point)
    return _opened(_new(segments, current, idx, event, "click", ctx), key, role, point)


def _opened(seg: Segment, key: str | None, role: str, point: list[int]) -> Segment:
    seg.element, seg.role, seg.point = key, role, point
    if seg.first_type == "right_click":
        seg.menu = True
    seg.popup = seg.first_type == "click" and role in COMBO_ROLES
    return seg


def _chooses(seg: Segment, event: TraceEvent) -> bool:
    """A plain click in the same application while this step's drop-down list is open chooses an option."""
    same_app = app_key(event.app) in (None, seg.app)
    return seg.popup and same_app and event.type == "click" and event.ts - seg.last_ts <= CHOICE_S


def _grow(seg: Segment, idx: int, point: list[int]) -> Segment:
    seg.events.append(idx)
    seg.point = point
    seg.collapsed += 1
    return seg


def _combine(seg: Segment, click: str, *, quick: bool) -> None:
    """The effective click of a step after one more click on the same element."""
    if click == "right_click":
        seg.base_type = seg.first_type if seg.first_type != "right_click" else seg.base_type
        seg.first_type, seg.menu = "right_click", True
    elif click == "double_click" or (quick and seg.first_type == "click"):
        seg.first_type, seg.menu, seg.base_type = "double_click", False, ""
    elif seg.menu:  # a click on the element itself closes its menu
        seg.first_type, seg.menu = seg.base_type or "click", False
    elif seg.first_type != "double_click":
        seg.first_type = "click"


def _kin(role: str) -> str | None:
    if role in ROW_ROLES:
        return "row"
    if role in TAB_ROLES:
        return "tab"
    return None


def _supersedes(prev: Segment, event: TraceEvent, role: str, ctx: Context) -> bool:
    """A plain click on a row (tab) replaced at once by a click on another row (tab) of the same screen."""
    kin = _kin(role)
    if kin is None or prev.kind != "click" or prev.typed or prev.first_type != "click" or prev.menu:
        return False
    if _kin(prev.role) != kin or event.ts - prev.last_ts > SUPERSEDE_S:
        return False
    if prev.effect and kin != "tab":
        return False
    if kin == "row" and screen_title(event.window_title or ctx.window) != screen_title(prev.window):
        return False
    return app_key(event.app) in (None, prev.app)


# --- typing ----------------------------------------------------------------------------------
def _field_key(event: TraceEvent) -> str | None:
    return element_key(event.element.model_dump()) if event.element else None


def _same_field(seg: Segment, event: TraceEvent, ctx: Context) -> bool:
    key = _field_key(event)
    mine = seg.into or seg.element
    if key is not None and mine is not None and key != mine:
        return False
    return screen_title(event.window_title or ctx.window) == screen_title(seg.window) or event.window_title is None


def _fresh_click(seg: Segment) -> bool:
    """Typing after a plain click goes into the clicked field (not after a right/double click, nor its effect)."""
    return seg.kind == "click" and not seg.effect and seg.first_type == "click" and not seg.typed and not seg.menu


def _start_typing(seg: Segment, event: TraceEvent) -> None:
    seg.typed, seg.popup = True, False  # typed into an editable combo: no option clicked
    seg.into = _field_key(event) or seg.into or seg.element
    if seg.multiline is None and event.element is not None:
        seg.multiline = multiline(event.element.model_dump())


def _type(segments: list[Segment], ctx: Context, current: Segment | None, idx: int, event: TraceEvent) -> Segment:
    if current is not None and current.typing and _same_field(current, event, ctx):
        if current.enter is not None:  # typing went on after Enter: it was a line break
            current.newlines.append(current.enter)
            current.enter = None
            current.multiline = True
        current.events.append(idx)
        return current
    resumed = _resumed(segments, current, event, ctx)
    if resumed is not None:  # back from a detour, typing on in the same field: the same step
        if resumed.submit is not None and resumed.submit in resumed.events and resumed.submit not in resumed.newlines:
            resumed.newlines.append(resumed.submit)  # the Enter before leaving was a line break after all
            resumed.submit, resumed.multiline = None, True
        resumed.events.append(idx)
        resumed.closed = False
        return resumed
    if current is not None and (_fresh_click(current) or (current.nav and not current.typed)):
        current.events.append(idx)
        if current.nav:
            current.kind = "type"
        _start_typing(current, event)
        return current
    seg = _new(segments, current, idx, event, "type", ctx)
    _start_typing(seg, event)
    return seg


def _resumed(segments: list[Segment], current: Segment | None, event: TraceEvent, ctx: Context) -> Segment | None:
    """The typing step a detour interrupted, when this typing goes on in its field."""
    if current is not None or len(segments) < 2 or segments[-1].kind != "detour":
        return None
    before = segments[-2]
    if not before.typing or (before.submit is not None and before.submit_keys not in ENTER_KEYS):
        return None  # a Tab left the field
    return before if _same_field(before, event, ctx) else None


def _edits(keys: str) -> bool:
    return keys in EDIT_KEYS or keys in TEXT_COMMANDS or len(keys) == 1 or keys == "shift+space" or _shifted_char(keys)


def _shifted_char(keys: str) -> bool:
    return keys.startswith("shift+") and len(keys) == 7


def _key(segments: list[Segment], ctx: Context, current: Segment | None, idx: int, event: TraceEvent) -> Segment:
    keys = normalize_keys(event.keys or "")
    if current is not None and current.popup:
        if keys in LIST_KEYS:  # the person moves in the open list with the arrows
            current.events.append(idx)
            current.keyed = True
            return current
        current.popup = False  # the list closed (Escape) or was driven by keys: no option clicked
        if keys == "escape":
            current.events.append(idx)
            current.collapsed += 1
            return current
        if current.keyed and (keys in ENTER_KEYS or keys == "tab"):  # the option reached by the arrows, chosen
            current.events.append(idx)
            current.choice = idx
            close(current)
            return current
    typing = current is not None and current.typing
    if current is not None and typing:
        if keys in ENTER_KEYS:
            current.events.append(idx)
            if current.multiline is True:
                current.newlines.append(idx)
            elif current.multiline is False:
                current.submit, current.submit_keys = idx, keys
                close(current)
            else:
                if current.enter is not None:  # two Enters in a row: the first one was a line break
                    current.newlines.append(current.enter)
                    current.multiline = True
                current.enter = idx  # what comes next decides
            return current
        if keys in NAV_KEYS:
            current.events.append(idx)
            if current.enter is not None:
                current.newlines.append(current.enter)
                current.enter = None
            current.submit, current.submit_keys = idx, keys
            close(current)
            return current
        if _edits(keys) and _same_field(current, event, ctx):
            if current.enter is not None:  # editing on after Enter: it was a line break
                current.newlines.append(current.enter)
                current.enter, current.multiline = None, True
            current.events.append(idx)
            return current
    if keys == "escape" and current is not None and current.menu:
        current.first_type, current.menu = current.base_type, False  # the context menu was dismissed
        current.events.append(idx)
        current.collapsed += 1
        return current
    if keys in NAV_KEYS:
        if current is not None and current.nav and not current.typed:
            current.events.append(idx)
            return current
        seg = _new(segments, current, idx, event, "key", ctx)
        seg.nav = True
        return seg
    seg = _new(segments, current, idx, event, "key", ctx, closed=True)
    seg.keys = keys
    return seg
