"""A Tk form whose name field looks the name up after its fourth letter, holding its window meanwhile.

Usage: python3 slow_lookup_app.py LAYOUT.json EFFECTS.jsonl HOLD_S WHEN. A slow application does this: the
fourth letter is drawn (WHEN `letter`; `key`: the first key comes, before it is drawn), then the window draws
nothing for HOLD_S seconds (a synchronous lookup), then the letters typed meanwhile. Once drawn, the window
writes its field's, label's and button's boxes on the screen to LAYOUT.json; "Enregistrer" appends what the
field holds to EFFECTS.jsonl and says "Admission enregistrée". It runs until killed.
"""

import json
import sys
import time
import tkinter as tk

LOOKUP_AFTER = 4  # letters typed before the lookup


def main(layout_path: str, effects_path: str, hold_s: float, when: str) -> None:
    root = tk.Tk()
    root.title("Admission — recherche")
    root.geometry("760x260+40+40")
    root.configure(background="#f2f2f2")
    font = ("DejaVu Sans", 16)
    label = tk.Label(root, text="Nom du patient", font=font, background="#f2f2f2")
    label.place(x=30, y=40)
    name = tk.StringVar()
    field = tk.Entry(root, textvariable=name, font=font, width=24)
    field.place(x=260, y=38)
    looked_up = False

    def lookup(_: object) -> None:
        nonlocal looked_up
        if looked_up or (when == "letter" and len(name.get()) < LOOKUP_AFTER):
            return
        looked_up = True
        root.update_idletasks()  # the letters so far are drawn, then nothing until the lookup returns
        time.sleep(hold_s)

    # `letter`: the window's binding, after the field's own, which drew the letter; `key`: the field's, before
    (field if when == "key" else root).bind("<KeyPress>", lookup)

    said = tk.Label(root, text="", font=font, background="#f2f2f2")
    said.place(x=260, y=200)

    def save() -> None:
        with open(effects_path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"kind": "save", "name": name.get()}, ensure_ascii=False) + "\n")
        said.configure(text="Admission enregistrée")  # a save that says so: only that proves it was done

    button = tk.Button(root, text="Enregistrer", font=font, command=save)
    button.place(x=260, y=130)

    def written() -> None:
        boxes = {
            what: [w.winfo_rootx(), w.winfo_rooty(), w.winfo_width(), w.winfo_height()]
            for what, w in (("label", label), ("field", field), ("button", button))
        }
        with open(layout_path, "w", encoding="utf-8") as out:
            json.dump(boxes, out)

    root.after(500, written)
    root.mainloop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4])
