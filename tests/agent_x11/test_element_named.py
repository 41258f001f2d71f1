"""The element a step names is looked up only in the window in front when it is the step's own window."""

from __future__ import annotations

from typing import Any

from rpa_agent.x11.atspi import Element
from rpa_agent.x11.desktop import X11Windows
from rpa_agent.x11.windows import WindowInfo

URGENT = Element("Urgent", "radio button", (1371, 194, 60, 19), is_password=False)


class FrontOnly:
    def __init__(self, title: str) -> None:
        self.front = WindowInfo(7, title, 42, "python3", "imaging", (0, 0, 1280, 800))

    def foreground(self) -> WindowInfo:
        return self.front


class OneRadio:
    def __init__(self) -> None:
        self.asked: list[tuple[str, str, str | None]] = []

    def only_element(self, name: str, role: str, window_title: str | None) -> Element | None:
        self.asked.append((name, role, window_title))
        return URGENT


def named(front_title: str, step_window: str) -> tuple[Any, list[tuple[str, str, str | None]]]:
    access = OneRadio()
    windows = X11Windows(FrontOnly(front_title), access)  # type: ignore[arg-type]
    return windows.element_named("Urgent", "RadioButton", step_window), access.asked


def test_the_step_s_own_window_in_front_is_asked_for_its_element() -> None:
    found, asked = named("Imagerie — RDV — CARON Frédéric", "Imagerie — RDV — CARON Frédéric")
    assert found is not None and found.box == (1371, 194, 60, 19)
    assert asked == [("Urgent", "RadioButton", "Imagerie — RDV — CARON Frédéric")]


def test_a_window_named_by_a_template_is_the_step_s_when_its_fixed_words_are_in_the_title() -> None:
    found, asked = named("Imagerie — RDV — LEGRAND Aurélie", "Imagerie — RDV — LEGRAND {{*}}")
    assert found is not None and asked == [("Urgent", "RadioButton", "Imagerie — RDV — LEGRAND Aurélie")]


def test_another_window_in_front_is_never_asked() -> None:
    for front, step in (
        ("Imagerie — RDV — CARON Frédéric", "Imagerie — RDV — LEGRAND {{*}}"),  # another record's window
        ("Imagerie — Recherche", "Imagerie — RDV — CARON Frédéric"),
    ):
        found, asked = named(front, step)
        assert (found, asked) == (None, []), front
