"""The agent's select_option and set_checked, through its port (no desktop needed)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from rpa_agent.core.choices import STATE_WAIT_S, ChoiceFailed, Mark, MarkKind, carry_out, option_named, wanted_state
from rpa_agent.core.locate import Located
from rpa_agent.core.wire import NextAction, Target

from rpa_mcp.replay import choices as server_choices
from rpa_mcp.validation.model import Expected

COMBO, BOX, OPTION = (400, 300), (300, 420), (400, 372)


class FakePort:
    """A drop-down whose list shows `options` once clicked, and a check box with an accessible state."""

    def __init__(self, *, options: dict[str, tuple[int, int]] | None = None, checked: bool | None = False) -> None:
        self.options = options or {}
        self.checked = checked
        self.screen_state: bool | None = None  # what the server reads beside the label
        self.tree_kind: MarkKind | None = None  # the kind of control the tree names at the box (None: not said)
        self.screen_kind: MarkKind | None = None  # the kind of mark the server reads (None: an older server)
        self.clicks: list[tuple[int, int]] = []
        self.keys: list[str] = []
        self.asked: list[dict[str, Any]] = []
        self.tree: dict[str, tuple[int, int]] = {}  # options the accessibility tree shows once the list is open
        self.now = 0.0  # a fake clock: it moves only when the agent sleeps
        self.settled = 0  # looks at the settled screen
        self.flips_after = 0.0  # the tree shows a clicked box's new state this long after the click
        self.clicked_at: float | None = None
        self.named: str | None = None  # the option the tree names in the drop-down once chosen (None: not said)
        self.openers: list[tuple[int, int]] = []  # where the tree was asked to look for an option's list
        self.opened: tuple[int, int, int, int] | None = None  # the list the screen shows opened (None: not told)

    def opened_list(self, opener: tuple[int, int]) -> tuple[int, int, int, int] | None:
        return self.opened if self.clicks else None

    def shown_at(self, x: int, y: int) -> str | None:
        return self.named if (x, y) == COMBO and len(self.clicks) >= 2 else None

    def option_at(self, option: str, opener: tuple[int, int]) -> tuple[int, int] | None:
        self.openers.append(opener)
        return self.tree.get(option) if self.clicks else None

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def click(self, x: int, y: int) -> None:
        self.clicks.append((x, y))
        self.clicked_at = self.now
        if (x, y) == BOX and self.checked is not None:
            self.checked = not self.checked
        if (x, y) == BOX and self.screen_state is not None:
            self.screen_state = not self.screen_state

    def press(self, keys: str) -> None:
        self.keys.append(keys)

    def settled_png(self) -> bytes:
        self.settled += 1
        return b"png"

    def screen_size(self) -> tuple[int, int]:
        return (1000, 600)

    def find(self, spec: dict[str, Any], png: bytes) -> Located:
        self.asked.append(spec)
        at = self.options.get(spec["label"]) if self.clicks else None
        return Located(*at, "hybrid_text_direct") if at else Located(None, None, "not_found", "not on the screen")

    def checked_at(self, x: int, y: int) -> Mark:
        if (x, y) != BOX:
            return Mark()
        if self.checked is None:
            return Mark(None, self.tree_kind)
        late = self.clicked_at is not None and self.now < self.clicked_at + self.flips_after
        return Mark((not self.checked) if late else self.checked, self.tree_kind)  # the new state shown late

    def checked_on_screen(self, spec: dict[str, Any], png: bytes) -> Mark:
        self.asked.append(spec)
        return Mark(self.screen_state, self.screen_kind)


def action(kind: str, label: str | None = None, **params: Any) -> NextAction:
    return NextAction(
        replay_id="r",
        action_id="a",
        attempt_id="t",
        not_after=1e12,
        server_now=0.0,
        action_type=kind,
        target=Target(label=label, window_title="Pharmacie"),
        params=params,
    )


def test_the_option_is_resolved_in_the_opened_list_and_clicked() -> None:
    port = FakePort(options={"Boîte": OPTION})
    assert carry_out(port, action("select_option", option="Boîte"), COMBO) is None
    assert port.clicks == [COMBO, OPTION]
    assert port.asked == [
        {"label": "Boîte", "by_text": "Boîte", "rel_x": 0.4, "rel_y": 0.5, "window_title": "Pharmacie"}
    ]  # looked for around the drop-down


def test_an_option_not_found_closes_the_list_and_pauses() -> None:
    port = FakePort(options={})
    with pytest.raises(ChoiceFailed) as failed:
        carry_out(port, action("select_option", option="Ampoule"), COMBO)
    assert failed.value.clicked and failed.value.reason.startswith("target_not_resolved")
    assert port.clicks == [COMBO] and port.keys == ["escape"]


def test_an_unticked_box_is_clicked_and_its_state_read_after_is_reported() -> None:
    port = FakePort(checked=False)
    assert carry_out(port, action("set_checked", checked=True), BOX) == {"checked": True}
    assert port.clicks == [BOX]


def test_a_box_already_in_the_wanted_state_is_not_clicked() -> None:
    port = FakePort(checked=True)
    assert carry_out(port, action("set_checked", checked=True), BOX) == {"checked": True}
    assert port.clicks == []


def test_without_an_accessible_state_the_server_reads_the_box_beside_its_label() -> None:
    port = FakePort(checked=None)
    port.screen_state = False
    assert carry_out(port, action("set_checked", "Urgent", checked=True), BOX) == {"checked": True}
    # read around the box about to be clicked (a small region first), never the same words elsewhere first
    assert port.asked[0] == {
        "label": "Urgent",
        "by_text": "Urgent",
        "rel_x": 0.3,
        "rel_y": 0.7,
        "window_title": "Pharmacie",
        "check_state": True,
    }


def test_the_mark_the_step_was_learned_with_goes_with_every_reading_of_the_screen() -> None:
    # the server reads only that mark beside the label: another one (a round letter, another control's) says
    # no state, and nothing is clicked
    learned = {"kind": "box", "side": "left", "gap": 0.5, "size": 1.2}
    port = FakePort(checked=None)
    port.screen_state = False
    step = replace(action("set_checked", "Urgent", checked=True), target=Target("Urgent", spec={"mark": learned}))
    assert carry_out(port, step, BOX) == {"checked": True}
    assert len(port.asked) == 2 and all(spec["mark"] == learned for spec in port.asked)


def test_a_state_nobody_can_read_is_never_guessed() -> None:
    port = FakePort(checked=None)
    with pytest.raises(ChoiceFailed) as failed:
        carry_out(port, action("set_checked", "Urgent", checked=True), BOX)
    assert not failed.value.clicked and port.clicks == []


@pytest.mark.parametrize(
    "value", [True, False, "true", "False", " oui ", "non", "1", "0", "yes", "no", "peut-être", None, 1]
)
def test_the_agent_reads_the_wanted_state_as_the_server_does(value: Any) -> None:
    assert wanted_state({"checked": value}) == server_choices.wanted_state({"checked": value})


def test_a_set_checked_step_without_a_wanted_state_clicks_nothing() -> None:
    port = FakePort(checked=False)
    with pytest.raises(ChoiceFailed) as failed:
        carry_out(port, action("set_checked", "Urgent"), BOX)
    assert not failed.value.clicked and failed.value.reason.startswith("INVALID_ACTION") and port.clicks == []


def test_an_option_the_accessibility_tree_shows_in_the_opened_list_is_clicked_without_reading_the_screen() -> None:
    port = FakePort(options={"Boîte": OPTION})
    port.tree = {"Boîte": OPTION}
    port.opened = (350, 315, 200, 120)  # the list the click opened, below the drop-down: the option inside it
    assert carry_out(port, action("select_option", option="Boîte"), COMBO) is None
    assert port.clicks == [COMBO, OPTION]
    assert port.asked == []  # no server resolution of the list
    assert port.openers == [COMBO]  # the tree asked about the list of the drop-down clicked, not every window


def test_an_option_the_tree_shows_far_from_the_drop_down_is_read_on_the_screen_instead() -> None:
    # the same name in another pop-up across the screen (beyond the drift guard's reach of the drop-down)
    port = FakePort(options={"Boîte": OPTION})
    port.tree = {"Boîte": (950, 40)}
    carry_out(port, action("select_option", option="Boîte"), COMBO)
    assert port.clicks == [COMBO, OPTION]
    assert [a["label"] for a in port.asked] == ["Boîte"]


def test_an_option_the_tree_shows_beside_the_drop_down_but_outside_the_list_it_opened_is_not_clicked() -> None:
    # the same name in another pop-up (another application's, a list of another drop-down) near the drop-down:
    # the tree never says which list this click opened; the screen does, and the option is read there only
    port = FakePort(options={"Boîte": OPTION})
    port.tree = {"Boîte": (560, 250)}  # within a fifth of the screen of the drop-down, outside its list
    port.opened = (350, 315, 200, 120)
    carry_out(port, action("select_option", option="Boîte"), COMBO)
    assert (560, 250) not in port.clicks and port.clicks == [COMBO, OPTION]
    assert [a["label"] for a in port.asked] == ["Boîte"] and port.asked[0]["opened_list"] == [0.35, 0.525, 0.2, 0.2]


def test_an_option_the_tree_shows_when_the_screen_cannot_tell_the_opened_list_is_read_on_the_screen() -> None:
    port = FakePort(options={})
    port.tree = {"Boîte": OPTION}  # beside the drop-down, but no list seen opening there
    with pytest.raises(ChoiceFailed) as failed:
        carry_out(port, action("select_option", option="Boîte"), COMBO)
    assert failed.value.reason.startswith("target_not_resolved") and port.clicks == [COMBO] and port.keys == ["escape"]
    assert [a["label"] for a in port.asked] == ["Boîte"]


def test_a_ticked_box_is_read_from_the_tree_without_waiting_for_the_screen() -> None:
    port = FakePort(checked=False)
    assert carry_out(port, action("set_checked", checked=True), BOX) == {"checked": True}
    assert port.settled == 0 and port.now == 0.0  # neither the screen's settling nor a fixed wait


def test_a_box_whose_state_the_tree_shows_late_is_read_again_until_it_flips() -> None:
    port = FakePort(checked=False)
    port.flips_after = 0.3
    assert carry_out(port, action("set_checked", checked=True), BOX) == {"checked": True}
    assert 0.3 <= port.now < 0.4 and port.clicks == [BOX]


def test_a_box_that_never_flips_is_reported_as_read_after_a_bounded_wait() -> None:
    port = FakePort(checked=False)
    port.flips_after = 60.0
    assert carry_out(port, action("set_checked", checked=True), BOX) == {"checked": False}  # the server pauses
    assert STATE_WAIT_S <= port.now < STATE_WAIT_S + 0.1


def test_a_state_read_before_any_input_uses_the_screen_the_step_began_on_while_it_is_unchanged() -> None:
    from rpa_agent.core.choices import DesktopChoices

    from .fakes import FakeDesktop, FakeHttp, FakeServer

    desktop = FakeDesktop()
    waits: list[object] = []

    def settled(since: object) -> bytes:
        waits.append(since)
        return b"settled"

    controls = DesktopChoices(desktop, FakeHttp(FakeServer()), "PC-1", settled)
    controls.still = (desktop.screen.grab(), b"before")
    assert controls.settled_png() == b"before" and waits == []  # the same pixels: no wait, no encoding
    desktop.screen.shown += 1  # the screen changed since (no input of ours)
    assert controls.settled_png() == b"settled" and len(waits) == 1
    controls.still = (desktop.screen.grab(), b"before")
    controls.click(1, 2)  # an input: the screen before it is no longer the still one
    assert controls.settled_png() == b"settled" and len(waits) == 2


def test_a_caret_blinking_since_the_step_began_leaves_its_screen_the_still_one() -> None:
    # a field focused by the step before keeps its caret blinking: before, the state was read after a wait
    from rpa_agent.core.choices import DesktopChoices
    from rpa_agent.port import Frame

    from .fakes import SIZE, FakeDesktop, FakeHttp, FakeServer

    desktop = FakeDesktop()
    waits: list[object] = []

    def settled(since: object) -> bytes:
        waits.append(since)
        return b"settled"

    plain = desktop.screen.grab()
    caret = bytearray(plain.pixels)
    for y in range(10, 22):  # a bar 2 px wide, 12 px tall
        caret[(y * SIZE[0] + 30) * 4 : (y * SIZE[0] + 32) * 4] = b"\xff" * 8
    desktop.screen.grab = lambda: Frame(SIZE[0], SIZE[1], bytes(caret))  # type: ignore[method-assign]
    controls = DesktopChoices(desktop, FakeHttp(FakeServer()), "PC-1", settled)
    controls.still = (plain, b"before")
    assert controls.settled_png() == b"before" and waits == []


def test_the_option_the_tree_names_in_the_drop_down_after_the_choice_is_reported() -> None:
    port = FakePort(options={"Boîte": OPTION})
    port.named = "Boîte"
    assert carry_out(port, action("select_option", option="Boîte"), COMBO) is None
    assert option_named(port, COMBO) == {"option": "Boîte"}
    port = FakePort(options={"Boîte": OPTION})
    port.named = "Flacon"  # whatever it names is reported: the server compares it with the wanted option
    carry_out(port, action("select_option", option="Boîte"), COMBO)
    assert option_named(port, COMBO) == {"option": "Flacon"}


class Tree:
    """A window in front whose tree holds `elements` {(name, role): box}."""

    def __init__(self, elements: dict[tuple[str, str], tuple[int, int, int, int]], front: str = "Imagerie") -> None:
        self.elements, self.front = elements, front

    def element_named(self, name: str, role: str, window_title: str) -> Any:
        from rpa_agent.port import Element

        if window_title != self.front:
            return None
        box = self.elements.get((name, role))
        return Element(name, role, box) if box else None

    def element_at(self, x: int, y: int) -> Any:
        """The hit test: the element whose box holds the point (the last one: drawn over the others)."""
        from rpa_agent.port import Element

        held = [(n, r) for (n, r), (bx, by, bw, bh) in self.elements.items() if bx <= x < bx + bw and by <= y < by + bh]
        return Element(*held[-1]) if held else None


class BoxesFirst(Tree):
    """A browser's hit test: its first answer by the elements' boxes, the next one what is drawn on top."""

    def __init__(self, elements: dict[tuple[str, str], tuple[int, int, int, int]], over: tuple[str, str]) -> None:
        super().__init__(elements)
        self.over, self.asked = over, 0

    def element_at(self, x: int, y: int) -> Any:
        from rpa_agent.port import Element

        self.asked += 1
        return super().element_at(x, y) if self.asked == 1 else Element(*self.over)


def test_a_control_the_server_could_not_place_is_found_by_its_recorded_element() -> None:
    from dataclasses import replace

    from rpa_agent.core.locate import by_tree

    radio = {"element": {"name": "Urgent", "role": "RadioButton"}, "window_title": "Imagerie"}
    step = replace(action("set_checked", "Urgent", checked=True), target=Target(label="Urgent", spec=radio))
    tree = Tree({("Urgent", "RadioButton"): (1371, 194, 60, 19)})
    low = Located(None, None, "rejected_low_score_hybrid_text_direct", "scored 0.752 < 0.80")
    assert by_tree(step, low, tree) == Located(1401, 203, "accessible_element")
    assert by_tree(step, Located(None, None, "identity_mismatch", "another record"), tree) is None
    assert by_tree(replace(step, irreversible=True), low, tree) is None
    assert by_tree(step, low, Tree({})) is None  # the tree does not say: the step pauses as before
    other = Tree({("Urgent", "RadioButton"): (1371, 194, 60, 19)}, front="Visionneuse PACS")
    assert by_tree(step, low, other) is None  # another window in front: its "Urgent" is never the step's
    untitled = replace(step, target=Target(label="Urgent", spec={"element": radio["element"]}))
    assert by_tree(untitled, low, tree) is None  # no window recorded for the step: no way to tell, no click
    assert by_tree(step, low, object()) is None  # a backend without a tree
    covered = Tree({("Urgent", "RadioButton"): (1371, 194, 60, 19), ("Imagerie", "Text"): (1300, 180, 200, 40)})
    assert by_tree(step, low, covered) is None  # something drawn over its centre: a click there would hit it
    inner = Tree({("Urgent", "RadioButton"): (1371, 194, 60, 19), ("Urgent", "Text"): (1390, 196, 40, 15)})
    assert by_tree(step, low, inner) == Located(1401, 203, "accessible_element")  # its own text, named as it is
    by_boxes = BoxesFirst({("Urgent", "RadioButton"): (1371, 194, 60, 19)}, over=("Imagerie", "Text"))
    assert by_tree(step, low, by_boxes, wait=lambda s: None) is None  # asked again, the hit test tells the truth
    assert by_boxes.asked == 2
    row = replace(step, target=Target(label="Urgent", spec={**radio, "identity": "Urgent"}))
    assert by_tree(row, low, tree) is None  # a record chosen by who it is: never by name alone
    cell = replace(step, target=Target(label="Urgent", spec={"element": {"name": "Urgent", "role": "DataItem"}}))
    assert by_tree(cell, low, tree) is None


class RadioOnScreen(FakePort):
    """A radio button only the screen shows: a click selects it, never clears it."""

    def click(self, x: int, y: int) -> None:
        self.clicks.append((x, y))
        if (x, y) == BOX:
            self.screen_state = True


def test_a_radio_seen_selected_is_not_clicked_and_one_not_selected_is() -> None:
    selected, cleared = RadioOnScreen(checked=None), RadioOnScreen(checked=None)
    selected.screen_state, cleared.screen_state = True, False
    assert carry_out(selected, action("set_checked", "Urgent", checked=True), BOX) == {"checked": True}
    assert carry_out(cleared, action("set_checked", "Urgent", checked=True), BOX) == {"checked": True}
    assert (selected.clicks, cleared.clicks) == ([], [BOX])


def test_a_selected_radio_the_server_reads_on_the_screen_is_never_clicked_to_be_cleared() -> None:
    # a click selects a radio button, never clears it: the step pauses before any input, saying what to do
    port = RadioOnScreen(checked=None)
    port.screen_state, port.screen_kind = True, "radio"
    with pytest.raises(ChoiceFailed) as failed:
        carry_out(port, action("set_checked", "Urgent", checked=False), BOX)
    assert not failed.value.clicked and port.clicks == []
    assert failed.value.reason.startswith("INVALID_ACTION") and "other option of its group" in failed.value.reason


def test_a_selected_radio_button_the_tree_shows_is_never_clicked_to_be_cleared() -> None:
    port = FakePort(checked=True)
    port.tree_kind = "radio"
    with pytest.raises(ChoiceFailed) as failed:
        carry_out(port, action("set_checked", "Urgent", checked=False), BOX)
    assert not failed.value.clicked and port.clicks == []


def test_a_radio_button_the_tree_names_without_its_state_is_known_as_one_when_the_screen_reads_it() -> None:
    # UI Automation names a radio button but gives no toggle state: its state is read on the screen
    port = RadioOnScreen(checked=None)
    port.tree_kind, port.screen_state = "radio", True  # an older server: no kind in its answer
    with pytest.raises(ChoiceFailed) as failed:
        carry_out(port, action("set_checked", "Urgent", checked=False), BOX)
    assert not failed.value.clicked and port.clicks == []


def test_a_radio_wanted_selected_or_already_cleared_is_set_as_a_box_is() -> None:
    cleared = RadioOnScreen(checked=None)
    cleared.screen_state, cleared.screen_kind = False, "radio"
    assert carry_out(cleared, action("set_checked", "Urgent", checked=False), BOX) == {"checked": False}
    assert carry_out(cleared, action("set_checked", "Urgent", checked=True), BOX) == {"checked": True}
    assert cleared.clicks == [BOX]
    box = FakePort(checked=True)
    box.tree_kind = "box"
    assert carry_out(box, action("set_checked", "Urgent", checked=False), BOX) == {"checked": False}


def test_a_mark_of_unknown_kind_wanted_cleared_is_clicked_and_its_state_read_after_goes_to_the_check() -> None:
    # neither the tree nor the server says the kind (an older server): today's behaviour, the server's check
    # compares the state read after with the wanted one and the replay pauses after the harmless click
    port = RadioOnScreen(checked=None)
    port.screen_state = True
    output = carry_out(port, action("set_checked", "Urgent", checked=False), BOX)
    assert output == {"checked": True} and port.clicks == [BOX]
    schema = {"type": "object", "required": ["checked"], "properties": {"checked": {"const": False}}}
    expected = server_choices.state_expected("set_checked", {"checked": False}, Expected(), output)
    assert expected.json_schema == schema and expected.output == output  # the check fails: the replay pauses


def test_the_desktop_port_reads_the_kind_from_the_trees_role_and_the_servers_answer() -> None:
    from rpa_agent.core.choices import DesktopChoices
    from rpa_agent.port import Element

    from .fakes import FakeDesktop, FakeHttp, FakeServer, FakeWindows

    class Shown(FakeWindows):
        element: Element | None = None

        def element_at(self, x: int, y: int) -> Element | None:
            return self.element

    desktop, server, windows = FakeDesktop(), FakeServer(), Shown()
    desktop.windows = windows
    controls = DesktopChoices(desktop, FakeHttp(server), "PC-1", lambda since: b"png")
    for element, mark in [
        (Element("Urgent", "RadioButton", checked=True), Mark(True, "radio")),
        (Element("Urgent", "RadioButton"), Mark(None, "radio")),  # UI Automation: no toggle state
        (Element("A jeun", "CheckBox", checked=False), Mark(False, "box")),
        (Element("Valider", "Button"), Mark()),
        (None, Mark()),
    ]:
        windows.element = element
        assert controls.checked_at(1, 2) == mark
    for answer, mark in [
        ({"checked": True, "mark": "radio"}, Mark(True, "radio")),
        ({"checked": False, "mark": "box"}, Mark(False, "box")),
        ({"checked": True}, Mark(True, None)),  # an older server: the kind is unknown
        ({"checked": None, "mark": "dial"}, Mark()),
    ]:
        server.resolve = {"resolved": True, "x": 1, "y": 2, "method": "hybrid_text_direct", **answer}
        assert controls.checked_on_screen({"label": "Urgent", "check_state": True}, b"png") == mark


def test_the_option_is_looked_for_in_the_list_the_drop_down_opened_when_the_screen_shows_it() -> None:
    port = FakePort(options={"Boîte": OPTION})
    port.opened = (350, 315, 200, 250)
    carry_out(port, action("select_option", option="Boîte"), COMBO)
    assert port.clicks == [COMBO, OPTION]
    assert port.asked[0]["opened_list"] == [0.35, 0.525, 0.2, 250 / 600]  # shares of the screen, as rel_x/rel_y


def test_an_option_the_tree_shows_far_down_the_list_the_drop_down_opened_is_clicked() -> None:
    port = FakePort(options={})
    port.tree = {"Boîte": (420, 545)}  # the last line of a long list: beyond the reach of the point clicked
    port.opened = (350, 315, 200, 250)
    carry_out(port, action("select_option", option="Boîte"), COMBO)
    assert port.clicks == [COMBO, (420, 545)] and port.asked == []
