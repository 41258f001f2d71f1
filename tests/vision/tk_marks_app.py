"""A Tk window of radio buttons and check buttons in one of the looks Tk draws (run by `test_marks_on_real_toolkits`).

Usage: python tk_marks_app.py LOOK X LAYOUT.json, LOOK one of `LOOKS` (Tk's classic widgets, or a theme of
its themed ones), the window at X on the screen's top. Once drawn, it writes each button's box on the screen,
with its kind and state, to LAYOUT.json; it runs until killed.
"""

import json
import sys
import tkinter as tk
from tkinter import ttk

LOOKS = ("classic", "default", "clam", "alt")


def main(look: str, x: int, layout_path: str) -> None:
    root = tk.Tk()
    root.geometry(f"+{x}+0")
    if look != "classic":
        ttk.Style().theme_use(look)
    frame = tk.Frame(root) if look == "classic" else ttk.Frame(root)
    frame.pack(padx=12, pady=8)
    priority, prescribed, forgotten = tk.StringVar(value="urgent"), tk.IntVar(value=1), tk.IntVar(value=0)
    radio = tk.Radiobutton if look == "classic" else ttk.Radiobutton
    check = tk.Checkbutton if look == "classic" else ttk.Checkbutton
    buttons = [
        ("radio", False, radio(frame, text="Programmé", variable=priority, value="planned")),
        ("radio", True, radio(frame, text="Urgent", variable=priority, value="urgent")),
        ("box", True, check(frame, text="Ordonnance", variable=prescribed)),
        ("box", False, check(frame, text="Oubli", variable=forgotten)),
    ]
    for row, (_kind, _state, button) in enumerate(buttons):
        button.grid(row=row, column=0, sticky="w", pady=2)

    def written() -> None:
        boxes = [
            {
                "kind": kind,
                "state": state,
                "text": button.cget("text"),
                "box": [button.winfo_rootx(), button.winfo_rooty(), button.winfo_width(), button.winfo_height()],
            }
            for kind, state, button in buttons
        ]
        with open(layout_path, "w", encoding="utf-8") as out:
            json.dump(boxes, out)

    root.after(300, written)
    root.mainloop()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
