"""A GTK 3 window of radio buttons and check buttons (run by `test_marks_on_real_toolkits` under the system's Python).

Usage: python3 gtk_marks_app.py X LAYOUT.json: the window at X on the screen's top. Once drawn, it writes each
button's box on the screen, with its kind and state, to LAYOUT.json; it runs until killed.
"""

import json
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402


def main(x: int, layout_path: str) -> None:
    window = Gtk.Window()
    window.move(x, 0)
    column = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4)
    column.set_border_width(12)
    window.add(column)
    planned = Gtk.RadioButton.new_with_label(None, "Programmé")
    urgent = Gtk.RadioButton.new_with_label_from_widget(planned, "Urgent")
    urgent.set_active(True)
    prescribed, forgotten = Gtk.CheckButton(label="Ordonnance"), Gtk.CheckButton(label="Oubli")
    prescribed.set_active(True)
    buttons = [("radio", False, planned), ("radio", True, urgent), ("box", True, prescribed), ("box", False, forgotten)]
    for _kind, _state, button in buttons:
        column.pack_start(button, False, False, 0)
    window.show_all()

    def written() -> bool:
        boxes = []
        for kind, state, button in buttons:
            box = button.get_allocation()
            _, left, top = button.get_window().get_origin()
            boxes.append(
                {
                    "kind": kind,
                    "state": state,
                    "text": button.get_label(),
                    "box": [left + box.x, top + box.y, box.width, box.height],
                }
            )
        with open(layout_path, "w", encoding="utf-8") as out:
            json.dump(boxes, out)
        return False

    GLib.timeout_add(500, written)
    Gtk.main()


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
