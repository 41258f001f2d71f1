"""A Tk search window whose record opens seconds after its button is clicked (a record slow to load).

Usage: python3 slow_record_app.py LAYOUT.json EFFECTS.jsonl DELAY_S [SAVED_S]. "Ouvrir le dossier" changes nothing
on the screen for DELAY_S seconds (the application answers, it only waits for its server), then the window is
retitled after the patient and shows the record with its own "Enregistrer", which appends the record shown to
EFFECTS.jsonl at once and says "Dossier enregistré" SAVED_S seconds later (0: at once). Once drawn, the window
writes its buttons' boxes on the screen to LAYOUT.json (the record's button is placed where it will show). It runs
until killed.
"""

import json
import sys
import tkinter as tk

SEARCH = "Admission — recherche"
RECORD = "Admission — FAURE Céline"


def main(layout_path: str, effects_path: str, delay_s: float, saved_s: float) -> None:
    root = tk.Tk()
    root.title(SEARCH)
    root.geometry("760x320+40+40")
    root.configure(background="#f2f2f2")
    font = ("DejaVu Sans", 16)
    heading = tk.Label(root, text="Patient trouvé : FAURE Céline", font=font, background="#f2f2f2")
    heading.place(x=30, y=30)
    opener = tk.Button(root, text="Ouvrir le dossier", font=font)
    opener.place(x=30, y=90)
    record = tk.Frame(root, background="#ffffff", width=700, height=150)
    shown = tk.Label(record, text="Dossier de FAURE Céline — admission du jour", font=font, background="#ffffff")
    shown.place(x=10, y=10)

    said = tk.Label(record, text="Dossier enregistré", font=font, background="#ffffff", foreground="#1b5e20")

    def save() -> None:
        with open(effects_path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"kind": "save", "record": root.title()}, ensure_ascii=False) + "\n")
        root.after(int(saved_s * 1000), lambda: said.place(x=260, y=86))

    saver = tk.Button(record, text="Enregistrer", font=font, command=save)
    saver.place(x=10, y=80)

    def opened() -> None:
        root.title(RECORD)
        record.place(x=30, y=150)

    opener.configure(command=lambda: root.after(int(delay_s * 1000), opened))

    def written() -> None:
        ox, oy = opener.winfo_rootx(), opener.winfo_rooty()
        boxes = {
            "opener": [ox, oy, opener.winfo_width(), opener.winfo_height()],
            # where the record's button shows once opened: the frame at (30, 150) in the window, the button at
            # (10, 80) in the frame; its size as Tk asks for it
            "saver": [
                root.winfo_rootx() + 40,
                root.winfo_rooty() + 230,
                saver.winfo_reqwidth(),
                saver.winfo_reqheight(),
            ],
        }
        with open(layout_path, "w", encoding="utf-8") as out:
            json.dump(boxes, out)

    root.after(500, written)
    root.mainloop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]) if len(sys.argv) > 4 else 0.0)
