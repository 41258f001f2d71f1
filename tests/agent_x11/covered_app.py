"""A Tk record window whose "Voir l'image" opens an image viewer over its "Valider" button.

Usage: python3 covered_app.py LAYOUT.json EFFECTS.jsonl. The record window ("Dossier — DURAND Alice", 1500x850
at 60, 60) has "Voir l'image" and "Valider"; the first opens "Visionneuse PACS" (a window of its own, 420x300)
right over the second, in front. "Valider" appends {"kind": "validate"} to EFFECTS.jsonl and says "Dossier
validé". Once drawn, the record window writes its buttons' boxes on the screen to LAYOUT.json. It runs until
killed.
"""

import json
import sys
import tkinter as tk

RECORD = "Dossier — DURAND Alice"
VIEWER = "Visionneuse PACS"


def main(layout_path: str, effects_path: str) -> None:
    root = tk.Tk()
    root.title(RECORD)
    root.geometry("1500x850+60+60")
    font = ("DejaVu Sans", 16)
    opener = tk.Button(root, text="Voir l'image", font=font)
    opener.place(x=30, y=40)
    validate = tk.Button(root, text="Valider", font=font)
    validate.place(x=30, y=220)

    said = tk.Label(root, text="Dossier validé", font=font, foreground="#1b5e20")

    def validated() -> None:
        with open(effects_path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"kind": "validate"}) + "\n")
        said.place(x=200, y=226)

    validate.configure(command=validated)

    def view() -> None:
        viewer = tk.Toplevel(root)
        viewer.title(VIEWER)
        viewer.geometry(f"420x300+{validate.winfo_rootx() - 20}+{validate.winfo_rooty() - 120}")
        tk.Label(viewer, text="Radiographie thoracique", font=font, background="#202020", foreground="#f0f0f0").pack(
            expand=True, fill="both"
        )
        viewer.lift()
        viewer.focus_force()

    opener.configure(command=view)

    def written() -> None:
        boxes = {
            name: [b.winfo_rootx(), b.winfo_rooty(), b.winfo_width(), b.winfo_height()]
            for name, b in (("opener", opener), ("validate", validate))
        }
        with open(layout_path, "w", encoding="utf-8") as out:
            json.dump(boxes, out)

    root.after(500, written)
    root.mainloop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
