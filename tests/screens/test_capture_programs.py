"""What `capture-programs` records: a target box on the frame, both languages for every program."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.screens.real_programs import SPLIT, Config, base_program, changed_box, configs_for, grow, scale_of


def test_a_change_at_the_frames_edge_gives_a_box_on_the_frame() -> None:
    before = np.zeros((100, 200, 3), np.uint8)
    after = before.copy()
    after[2:40, 0:60] = 255
    x, y, w, h = changed_box(before, after)
    assert (x, y) == (0, 0) and x + w <= 200 and y + h <= 100 and w >= 60 and h >= 40


def test_a_box_grown_at_the_screens_corner_stays_on_the_frame() -> None:
    assert grow((2, 80, 50, 20), 6) == (0, 74, 58, 32)  # a menu's item at the screen's left edge
    assert grow((0, 0, 70, 20), 6) == (0, 0, 76, 26)
    assert grow((100, 100, 10, 10), 6) == (94, 94, 22, 22)


def test_every_program_runs_in_both_languages_and_keeps_its_first_one() -> None:
    for program in SPLIT:
        assert {c.lang for c in configs_for(program)} == {"fr", "en"}
    assert configs_for("mousepad")[0].lang == "fr" and configs_for("gnumeric")[0].lang == "en"
    assert set(SPLIT.values()) == {"tuning", "held-out"}


def test_a_scaled_program_is_drawn_by_its_programs_scene_at_1920x1080_in_both_languages() -> None:
    scaled = [program for program in SPLIT if scale_of(program) != 100]
    assert {base_program(program) for program in scaled} == {"gedit", "kwrite", "notepad"}  # GTK 3, Qt 5, Win32
    assert all(SPLIT[program] == SPLIT[base_program(program)] == "tuning" for program in scaled)
    assert configs_for("kwrite@125") == (Config("fr", 1920, 1080, 125), Config("en", 1920, 1080, 125))
    assert configs_for("gedit@125")[0].tag == "en-1920x1080@125"  # its files and pair ids apart from 100 %'s
    assert configs_for("gedit")[0].tag == "en-1920x1080" and scale_of("gedit") == 100


def test_every_program_of_the_split_has_a_scene_and_the_later_ones_are_held_out() -> None:
    from rpa_mcp.screens.gtk4_scenes import SCENES  # the last module of scenes: every one registered

    assert set(SCENES) == {base_program(program) for program in SPLIT}
    assert SPLIT["abiword"] == SPLIT["gnome-text-editor"] == SPLIT["l3afpad"] == "held-out"
    assert SPLIT["pluma"] == SPLIT["thunar"] == SPLIT["pinentry"] == "tuning"
    assert SPLIT["kwrite"] == SPLIT["gedit"] == "tuning"
    assert SPLIT["notepad"] == SPLIT["wordpad"] == SPLIT["nedit"] == SPLIT["xfe"] == "tuning"
    assert (
        SPLIT["writer"]
        == SPLIT["fluid"]
        == SPLIT["texworks"]
        == SPLIT["gmanedit"]
        == SPLIT["mtpaint"]
        == SPLIT["dia"]
        == SPLIT["jedit"]
        == SPLIT["gpsprune"]
        == SPLIT["gvim"]
        == SPLIT["xfig"]
        == SPLIT["ghex"]
        == SPLIT["epiphany"]
        == SPLIT["textedit"]
        == SPLIT["poedit"]
        == SPLIT["doublecmd"]
        == SPLIT["falkon"]
        == SPLIT["gtk4"]
        == "tuning"
    )


def test_a_buttons_icon_read_as_a_cross_before_its_label_still_finds_the_button() -> None:
    from rpa_mcp.screens.real_program_scenes import NO
    from rpa_mcp.screens.real_programs import Session
    from rpa_mcp.vision.ocr import OcrLine

    class Reads:
        def read(self, image: np.ndarray) -> list[OcrLine]:
            return [
                OcrLine("bilan.tex already exists.", (10, 10, 200, 14), 0.99),
                OcrLine("× No", (20, 60, 50, 18), 0.9),
            ]

    session = Session.__new__(Session)  # no display, no user: only the OCR is asked
    session.program, session.ocr = "texworks", Reads()
    assert session.find_text(np.zeros((100, 400, 3), np.uint8), NO) == ((20, 60, 50, 18), "× No")


def test_a_button_read_whole_is_clicked_rather_than_a_sentence_holding_its_words() -> None:
    from rpa_mcp.screens.real_program_scenes import DONT_SAVE
    from rpa_mcp.screens.real_programs import Session
    from rpa_mcp.vision.ocr import OcrLine

    class Reads:
        def read(self, image: np.ndarray) -> list[OcrLine]:
            return [
                OcrLine("Your changes will be lost if you don't save them.", (10, 10, 300, 14), 0.99),
                OcrLine("Close Without Saving", (20, 60, 120, 18), 0.9),
            ]

    session = Session.__new__(Session)  # no display, no user: only the OCR is asked
    session.program, session.ocr = "abiword", Reads()
    box, label = session.find_text(np.zeros((100, 400, 3), np.uint8), DONT_SAVE)
    assert (box, label) == ((20, 60, 120, 18), "Close Without Saving")


def test_a_short_label_missed_at_its_size_is_read_twice_as_large() -> None:
    from rpa_mcp.screens.real_program_scenes import OK
    from rpa_mcp.screens.real_programs import Session
    from rpa_mcp.vision.ocr import OcrLine

    class ReadsWhenLarge:
        def read(self, image: np.ndarray) -> list[OcrLine]:
            return [OcrLine("OK", (120, 80, 40, 30), 0.9)] if image.shape[1] >= 300 else []

    session = Session.__new__(Session)
    session.program, session.ocr = "notepad", ReadsWhenLarge()
    box, label = session.find_text(np.zeros((100, 400, 3), np.uint8), OK, (50, 20, 150, 60))
    assert (box, label) == ((110, 60, 20, 15), "OK")  # in screen pixels


def test_a_buttons_icon_read_as_a_glyph_of_another_script_still_finds_the_button() -> None:
    from rpa_mcp.screens.real_program_scenes import OK
    from rpa_mcp.screens.real_programs import Session
    from rpa_mcp.vision.ocr import OcrLine

    class Reads:
        def read(self, image: np.ndarray) -> list[OcrLine]:
            return [
                OcrLine("No such file or directory", (10, 10, 200, 14), 0.99),
                OcrLine("企OK", (20, 60, 50, 18), 0.9),
            ]

    session = Session.__new__(Session)
    session.program, session.ocr = "gmanedit", Reads()
    assert session.find_text(np.zeros((100, 400, 3), np.uint8), OK) == ((20, 60, 50, 18), "企OK")


def test_a_button_read_on_one_line_with_its_neighbour_is_cut_to_its_own_label() -> None:
    """Fails on the old code: the whole line's box was taken, its middle (the neighbour) clicked."""
    from rpa_mcp.screens.desktop_scenes import CANCEL
    from rpa_mcp.screens.real_programs import Session
    from rpa_mcp.vision.ocr import OcrLine

    class Reads:
        def read(self, image: np.ndarray) -> list[OcrLine]:
            return [OcrLine("Ajoute à la file d'attente Annuler", (100, 60, 340, 20), 0.9)]

    session = Session.__new__(Session)  # no display, no user: only the OCR is asked
    session.program, session.ocr = "doublecmd", Reads()
    (x, y, w, h), label = session.find_text(np.zeros((100, 500, 3), np.uint8), CANCEL)
    assert label == "Annuler" and (y, h) == (60, 20)
    assert x > 100 + 340 * 3 // 4 and x + w <= 441  # the line's right end, where "Annuler" is read


def test_a_word_cut_from_its_line_keeps_its_letters_wider_than_the_lines_average() -> None:
    """Fails on the old code: the box guessed from the characters' count cut "Sélectionnés" at its "é"."""
    from rpa_mcp.screens.real_programs import to_word_gaps

    image = np.full((30, 400, 3), 240, np.uint8)
    cv2.putText(image, "Mmmmmwww : 0 de 47, fichiers", (4, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1)
    ink = np.flatnonzero((image < 180).any(axis=2).any(axis=0))  # darker than the background by 60
    first_gap = int(np.argmax(np.diff(ink) > 3))  # the space after the first word
    word_end = int(ink[first_gap]) + 1
    line = (int(ink[0]), 4, int(ink[-1]) + 1 - int(ink[0]), 22)
    guessed = (int(ink[0]), 4, word_end // 2, 22)  # wide letters: the average char cut the word short
    assert to_word_gaps(image, guessed, line, 3) == (int(ink[0]), 4, word_end - int(ink[0]), 22)
    image[4] = 90  # a border drawn along the line, inside its box
    assert to_word_gaps(image, guessed, line, 3) == (int(ink[0]), 4, word_end - int(ink[0]), 22)
