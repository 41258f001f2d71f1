"""A GTK form longer than its window: its "Enregistrer" is out of view until the page is scrolled.

Usage: python3 scrolled_form_app.py LAYOUT.json EFFECTS.jsonl COMBO_ROW. The window (700x720 at 40, 40: the
form shows whole) holds, in a scrolled page, a "Quantité" field, rows of text, a drop-down ("Conditionnement")
at row COMBO_ROW under the button's column, then "Enregistrer", which appends {"kind": "save", "quantity": ...,
"packaging": <the drop-down's choice>} to EFFECTS.jsonl and shows "Formulaire enregistré". A change of the
drop-down appends {"kind": "packaging", ...}. Once drawn, the window writes the field's and the button's boxes
on the screen and its own to LAYOUT.json. It runs until killed.
"""

import json
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

TITLE = "Pharmacie — Préparation"


def main(layout_path: str, effects_path: str, combo_row: int) -> None:
    def effect(**fields: object) -> None:
        with open(effects_path, "a", encoding="utf-8") as out:
            out.write(json.dumps(fields, ensure_ascii=False) + "\n")

    window = Gtk.Window(title=TITLE)
    window.set_default_size(700, 720)
    window.move(40, 40)
    page = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8, margin=20)
    quantity = Gtk.Entry()
    first = Gtk.Box(spacing=12)
    first.pack_start(Gtk.Label(label="Quantité"), False, False, 0)
    first.pack_start(quantity, True, True, 0)
    page.pack_start(first, False, False, 0)
    combo = Gtk.ComboBoxText()
    for name in ("Boîte", "Flacon", "Ampoule"):
        combo.append_text(name)
    combo.set_active(0)
    combo.connect("changed", lambda c: effect(kind="packaging", value=c.get_active_text()))
    for row in range(16):
        if row == combo_row:
            line = Gtk.Box(spacing=12)
            line.pack_start(Gtk.Label(label="Conditionnement"), False, False, 0)
            line.pack_start(combo, True, True, 0)
            page.pack_start(line, False, False, 0)
        else:
            page.pack_start(Gtk.Label(label=f"Consigne de préparation numéro {row + 1}", xalign=0), False, False, 0)
    said = Gtk.Label(label="")
    button = Gtk.Button(label="Enregistrer")

    def save(_: object) -> None:
        effect(kind="save", quantity=quantity.get_text(), packaging=combo.get_active_text())
        said.set_text("Formulaire enregistré")

    button.connect("clicked", save)
    page.pack_start(button, False, False, 0)
    page.pack_start(said, False, False, 0)
    scrolled = Gtk.ScrolledWindow()
    scrolled.add(page)
    window.add(scrolled)
    window.connect("destroy", Gtk.main_quit)
    window.show_all()

    def written() -> bool:
        *_, ox, oy = window.get_window().get_origin()
        bx, by = button.translate_coordinates(window, 0, 0)
        allocation = button.get_allocation()
        qx, qy = quantity.translate_coordinates(window, 0, 0)
        field = quantity.get_allocation()
        layout = {
            "button": [ox + bx, oy + by, allocation.width, allocation.height],
            "quantity": [ox + qx, oy + qy, field.width, field.height],
            "window": [ox, oy, window.get_allocated_width(), window.get_allocated_height()],
        }
        with open(layout_path, "w", encoding="utf-8") as out:
            json.dump(layout, out)
        return False

    GLib.timeout_add(800, written)
    Gtk.main()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
