"""Virtual desktop definitions (YAML), validated at load.

A desktop is a set of screens (one screenshot each), hotspots that react to clicks, text
fields that render what is typed, dialogs (a fixture frame pasted over the current screen,
or drawn), keyboard shortcuts and triggers (a dialog that pops up on its own). Bounding
boxes are `[x, y, w, h]` in screen pixels, like the fixtures manifest.

YAML is parsed with a safe loader that refuses anchors and aliases (alias bombs) and
files over 256 KB; every reference (screen, dialog, field) is checked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rpa_mcp.errors import InvalidInput

MAX_SPEC_BYTES = 256 * 1024
BBox = Annotated[list[int], Field(min_length=4, max_length=4)]
SystemKind = Literal["uac", "windows_hello", "smartscreen", "defender", "credential", "other"]


class SpecModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class OnClick(SpecModel):
    """What a click (or a key press) does: exactly one effect; none of them = no-op."""

    goto: str | None = Field(None, description="Screen to show.")
    raise_dialog: str | None = Field(None, alias="raise", description="Dialog to open over the current screen.")
    focus: str | None = Field(None, description="Text field that receives the keyboard.")
    close: bool = Field(False, description="Close the top dialog (dialog buttons).")
    noop: bool = Field(False, description="Explicitly nothing (documents a dead zone).")

    @model_validator(mode="after")
    def _one_effect(self) -> OnClick:
        effects = [self.goto, self.raise_dialog, self.focus, self.close or None, self.noop or None]
        if sum(e is not None for e in effects) > 1:
            raise ValueError("on_click takes one effect: goto, raise, focus, close or noop")
        return self


class Screen(SpecModel):
    id: str
    image: str = Field(description="Fixture PNG file name.")
    window_title: str = Field(description="Foreground window title on this screen.")
    process: str = Field(description="Foreground process (msedge.exe, ...).")


class Hotspot(SpecModel):
    screen: str
    bbox: BBox
    label: str = Field(description="Visible text of the element (what the agent's vision resolves).")
    text: str | None = Field(
        None, description="Everything written on the element's line (a result row's name, birth date, identifier)."
    )
    on_click: OnClick = Field(default_factory=OnClick)


class TextField(SpecModel):
    id: str
    screens: list[str] = Field(min_length=1, description="Screens on which the field is visible.")
    bbox: BBox = Field(description="Area where the typed text is drawn (cleared first).")
    label: str = ""
    font_scale: float = Field(0.7, gt=0, le=4)
    color: list[int] = Field(default_factory=lambda: [30, 30, 30], min_length=3, max_length=3)


class Choice(SpecModel):
    """A drop-down (combo box): a click opens its list below it, one row of the box's height per option."""

    id: str
    screens: list[str] = Field(min_length=1, description="Screens on which it is visible.")
    bbox: BBox = Field(description="The closed drop-down; it shows the chosen option (else its placeholder).")
    label: str = Field(description="Its accessible name (the label beside it).")
    options: list[str] = Field(min_length=1, max_length=50)
    placeholder: str = "-- choisir --"


class CheckBox(SpecModel):
    """A check box: a click flips it; its accessible state says whether it is ticked."""

    id: str
    screens: list[str] = Field(min_length=1)
    bbox: BBox = Field(description="The box and its label (what a click reaches).")
    label: str
    checked: bool = Field(False, description="Its state when the screen is first shown.")


class DialogButton(SpecModel):
    label: str
    bbox: BBox
    on_click: OnClick = Field(default_factory=lambda: OnClick(close=True))


class DialogDrawing(SpecModel):
    """A dialog drawn on top of the screen (for catalog dialogs without a fixture frame)."""

    title: str
    text: str = ""
    backdrop: BBox | None = Field(None, description="Area dimmed behind a web modal (default: whole screen).")
    backdrop_alpha: float = Field(0.35, ge=0, le=1)
    primary: str | None = Field(None, description="Label of the filled (default) button.")


class Dialog(SpecModel):
    id: str
    dialog_id: str = Field(description="Catalog id (windows-uac, easily-save-confirm, ...).")
    window_title: str
    process: str
    bbox: BBox
    image: str | None = Field(None, description="Fixture frame that shows the dialog.")
    crop: bool = Field(True, description="Paste only `bbox` of `image` over the current screen.")
    dim: float | None = Field(None, gt=0, le=1, description="Multiply the screen behind (secure desktop).")
    draw: DialogDrawing | None = None
    system: SystemKind | None = Field(None, description="OS/secure-desktop dialog: the agent never clicks it.")
    buttons: list[DialogButton] = Field(default_factory=list)

    @model_validator(mode="after")
    def _image_or_draw(self) -> Dialog:
        if (self.image is None) == (self.draw is None):
            raise ValueError(f"dialog {self.id}: give exactly one of image or draw")
        return self


class Shortcut(SpecModel):
    screen: str
    keys: str = Field(description="Key combo as the agent receives it (ctrl+s).")
    on_press: OnClick


class Trigger(SpecModel):
    """A dialog that appears by itself: when a screen is entered, or before the next action on it."""

    raise_dialog: str = Field(alias="raise")
    when: Literal["enter", "before_action"]
    screen: str
    once: bool = True


class DesktopSpec(SpecModel):
    name: str
    description: str = ""
    start: str
    screens: list[Screen] = Field(min_length=1)
    hotspots: list[Hotspot] = Field(default_factory=list)
    fields: list[TextField] = Field(default_factory=list)
    dialogs: list[Dialog] = Field(default_factory=list)
    shortcuts: list[Shortcut] = Field(default_factory=list)
    triggers: list[Trigger] = Field(default_factory=list)
    choices: list[Choice] = Field(default_factory=list)
    checkboxes: list[CheckBox] = Field(default_factory=list)

    @model_validator(mode="after")
    def _references(self) -> DesktopSpec:
        screens = {s.id for s in self.screens}
        dialogs = {d.id for d in self.dialogs}
        fields = {f.id for f in self.fields}
        problems: list[str] = []

        def check(kind: str, ref: str | None, known: set[str]) -> None:
            if ref is not None and ref not in known:
                problems.append(f"unknown {kind} {ref!r}")

        def check_effect(effect: OnClick) -> None:
            check("screen", effect.goto, screens)
            check("dialog", effect.raise_dialog, dialogs)
            check("field", effect.focus, fields)

        check("screen", self.start, screens)
        for h in self.hotspots:
            check("screen", h.screen, screens)
            check_effect(h.on_click)
        for f in self.fields:
            for s in f.screens:
                check("screen", s, screens)
        for d in self.dialogs:
            for b in d.buttons:
                check_effect(b.on_click)
        for k in self.shortcuts:
            check("screen", k.screen, screens)
            check_effect(k.on_press)
        for shown in [c.screens for c in self.choices] + [b.screens for b in self.checkboxes]:
            for s in shown:
                check("screen", s, screens)
        for t in self.triggers:
            check("screen", t.screen, screens)
            check("dialog", t.raise_dialog, dialogs)
        for kind, ids in (("screen", [s.id for s in self.screens]), ("dialog", [d.id for d in self.dialogs])):
            if len(ids) != len(set(ids)):
                problems.append(f"duplicate {kind} ids")
        if problems:
            raise ValueError("; ".join(sorted(set(problems))))
        return self


class _NoAliasLoader(yaml.SafeLoader):
    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            raise yaml.YAMLError("anchors and aliases are not allowed in desktop definitions")
        event = self.peek_event()  # type: ignore[no-untyped-call]  # types-PyYAML leaves Parser.peek_event unannotated
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise yaml.YAMLError("anchors and aliases are not allowed in desktop definitions")
        return super().compose_node(parent, index)


def parse_desktop(text: str, *, source: str = "<desktop>") -> DesktopSpec:
    if len(text.encode()) > MAX_SPEC_BYTES:
        raise InvalidInput(f"{source}: desktop definition is larger than {MAX_SPEC_BYTES} bytes", field="desktop")
    try:
        data = yaml.load(text, Loader=_NoAliasLoader)  # safe loader subclass, aliases refused
    except yaml.YAMLError as exc:
        raise InvalidInput(f"{source}: not valid YAML ({exc})", field="desktop") from exc
    try:
        return DesktopSpec.model_validate(data)
    except ValidationError as exc:
        raise InvalidInput(f"{source}: invalid desktop definition: {exc}", field="desktop") from exc


def load_desktop_spec(name_or_path: str | Path, *, desktops_dir: Path) -> DesktopSpec:
    """`incident` -> `<desktops_dir>/incident.yaml`; a path to a .yaml file is read as is."""
    path = Path(name_or_path)
    if path.suffix not in (".yaml", ".yml"):
        if not str(name_or_path).replace("-", "").replace("_", "").isalnum():
            raise InvalidInput(f"desktop name {name_or_path!r} is not a simple name", field="desktop")
        path = desktops_dir / f"{name_or_path}.yaml"
    if not path.is_file():
        known = sorted(p.stem for p in desktops_dir.glob("*.yaml"))
        raise InvalidInput(f"no desktop definition {str(name_or_path)!r} (known: {', '.join(known)})", field="desktop")
    return parse_desktop(path.read_text(encoding="utf-8"), source=str(path))
