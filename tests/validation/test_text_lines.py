"""Text lines found in a region, so that a recognition-only OCR reads a whole line at once."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.validation.text import ink_mask, text_contains, text_line_boxes


def field_with_text(words: list[str], *, gap: int = 14, caret: bool = True) -> tuple[np.ndarray, int]:
    """A text area (a dark border) holding one line of words spaced like a browser draws them, and the
    x where the line ends (the caret)."""
    image = np.full((170, 950, 3), 255, np.uint8)
    cv2.rectangle(image, (16, 16), (934, 150), (40, 40, 40), 2)
    x = 26
    for word in words:
        cv2.putText(image, word, (x, 44), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (20, 20, 20), 1, cv2.LINE_AA)
        (w, _), _ = cv2.getTextSize(word, cv2.FONT_HERSHEY_SIMPLEX, 0.6, 1)
        x += w + gap
    end = x - gap + 3
    if caret:
        cv2.line(image, (end, 26), (end, 50), (0, 0, 0), 1)
    return image, end


def test_the_words_of_a_typed_line_are_one_line_box_caret_included():
    image, end = field_with_text(["Deuxieme", "note:", "tout", "va", "bien."])
    boxes = text_line_boxes(image)
    assert len(boxes) == 1
    x, y, w, h = boxes[0]
    assert x <= 28 and x + w >= end and 20 <= y + h <= 60


def test_two_lines_stay_two_boxes_in_reading_order():
    image, _ = field_with_text(["Patient", "calme"], caret=False)
    cv2.putText(image, "douleur 2/10", (26, 90), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (20, 20, 20), 1, cv2.LINE_AA)
    boxes = text_line_boxes(image)
    assert len(boxes) == 2 and boxes[0][1] < boxes[1][1]


def test_words_far_apart_are_separate_lines():
    boxes = text_line_boxes(field_with_text(["Nom", "Prenom"], gap=200, caret=False)[0])
    assert len(boxes) == 2


def test_a_banner_s_frame_is_not_read_as_its_line():
    """A success banner (a pale box, a dark 1 px border, its text 8 px inside): the line is the text's,
    not the whole box with the text joined to its border, which a recognizer reads at a third of its height."""
    image = np.full((40, 624, 3), 217, np.uint8)
    cv2.rectangle(image, (4, 4), (619, 35), (201, 230, 200), -1)
    cv2.rectangle(image, (4, 4), (619, 35), (60, 110, 60), 1)
    cv2.putText(
        image, "Dispensation enregistree", (13, 25), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (20, 20, 20), 1, cv2.LINE_AA
    )
    (w, _), _ = cv2.getTextSize("Dispensation enregistree", cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)
    boxes = text_line_boxes(image)
    assert len(boxes) == 1
    x, _y, bw, bh = boxes[0]
    assert 8 <= x <= 14 and bw <= w + 10 and bh <= 16, boxes


def test_an_underlined_link_keeps_its_letters():
    image = np.full((30, 300, 3), 255, np.uint8)
    cv2.putText(image, "Ouvrir le dossier", (10, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (200, 40, 0), 1, cv2.LINE_AA)
    (w, _), _ = cv2.getTextSize("Ouvrir le dossier", cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)
    cv2.line(image, (10, 23), (10 + w, 23), (200, 40, 0), 1)
    boxes = text_line_boxes(image)
    assert len(boxes) == 1 and boxes[0][0] <= 11 and boxes[0][0] + boxes[0][2] >= 8 + w, boxes


def reference_ink(image: np.ndarray) -> np.ndarray:
    """The ink as first written: each pixel's largest channel distance from the region's median colour, over 60."""
    background = np.median(image.reshape(-1, 3), axis=0).astype(np.int16)
    return (np.abs(image.astype(np.int16) - background).max(axis=2) > 60).astype(np.uint8)


def test_the_ink_is_the_same_as_the_median_colour_and_distance_computed_pixel_by_pixel():
    rng = np.random.default_rng(7)
    for _ in range(200):
        h, w = int(rng.integers(1, 80)), int(rng.integers(1, 260))
        frame = np.empty((h + 12, w + 12, 3), np.uint8)
        frame[:] = rng.integers(0, 256, 3, dtype=np.uint8)
        spots = rng.random(frame.shape[:2]) < rng.random()  # from none to every pixel, odd and even counts
        frame[spots] = rng.integers(0, 256, (int(spots.sum()), 3), dtype=np.uint8)
        region = frame[5 : 5 + h, 7 : 7 + w]  # a view into a frame, as the checkers pass it
        assert np.array_equal(ink_mask(region), reference_ink(region)), region.shape


def test_a_capital_i_read_as_a_small_l_is_still_the_option_written() -> None:
    assert text_contains("lonogramme sanguin", "Ionogramme sanguin")  # a sans-serif I and l look alike
    assert text_contains("Examen : Ionogramme sanguin", "Ionogramme sanguin")
    assert not text_contains("Gaz du sang", "Ionogramme sanguin")


def test_r_and_n_set_tight_and_read_as_an_m_are_still_the_text_typed() -> None:
    from rpa_mcp.validation.text import text_equals

    typed = "The patient was told the results of the blood test this morning."
    assert text_equals("The patient was told the results of the blood test this moming.", typed)
    assert text_contains("Compte rendu : Infirmière de garde", "Infirrnière")
    assert not text_equals("The patient was told the results of the blood test this evening.", typed)


def test_a_grid_row_s_cells_are_found_though_their_text_nearly_touches_the_cell_borders():
    # a band cut across a grid's row: its rules (the row's borders, each cell's side) run the band's
    # height and the table's width; each cell's text starts 3 px after its border (a Qt table)
    image = np.full((38, 800, 3), 255, np.uint8)
    for y in (3, 34):
        cv2.line(image, (0, y), (600, y), (160, 160, 160), 1)
    cells = [(0, "IM-30411"), (104, "LEGRAND"), (208, "Aurelie"), (312, "04/02/1976")]
    for x, word in cells:
        cv2.line(image, (x, 0), (x, 37), (160, 160, 160), 1)
        cv2.putText(image, word, (x + 3, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1, cv2.LINE_AA)
    runs = text_line_boxes(image, max_lines=48, across=True)
    starts = sorted(x for x, _y, _w, h in runs if h < 20)
    assert len(starts) == len(cells) and all(abs(s - x) <= 4 for s, (x, _w) in zip(starts, cells, strict=True))


def test_a_ligature_read_as_its_letters_or_one_of_them_is_the_typed_text():
    from rpa_mcp.validation.text import text_equals

    for read in ("Edème dumollet gauche", "OEdème du mollet gauche", "CEdème du mollet gauche"):
        assert text_equals(read, "Œdème du mollet gauche"), read
        assert text_contains(f"Motif : {read}", "Œdème du mollet")
    assert not text_equals("Adème du mollet gauche", "Œdème du mollet gauche")
    assert not text_equals("Edème du mollet droit", "Œdème du mollet gauche")
    assert text_equals("ex aequo", "ex æquo") and not text_equals("ex equo", "ex aequo")


def test_letters_set_tight_fold_within_a_word_never_across_two() -> None:
    from rpa_mcp.validation.text import text_equals

    # "CHARPENTIER Noël": the last r of one word and the N of the next are no "m" (the patient's title held
    # its surname, the first name any: it must still be found)
    assert text_contains("Transfusion — Demande — CHARPENTIER Noël", "Transfusion — Demande — CHARPENTIER {{*}}")
    assert text_equals("Demande — CHARPENTIER Noël", "Demande — CHARPENTIER {{*}}")
    assert text_equals("this moming", "this morning")  # inside a word, as before
