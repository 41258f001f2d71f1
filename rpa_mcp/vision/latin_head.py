"""A copy of the text recognizer whose CTC head keeps only the classes of Latin-script text.

The recognizer ends with a head shared by every time step (one per 8 columns of the crop): a
MatMul from 120 features to 18710 classes (the CTC blank, the 18708 characters of its dictionary —
Chinese, Japanese, Korean, Latin, symbols — and a space), a bias, and a Softmax over the 18710.
The screens read here are French and English: the head, its Softmax and the decoder's argmax over
classes no such text holds cost ~20 % of a recognition for nothing. The copy keeps the classes of
one general rule (`kept_character`: Latin letters, ASCII, the Latin-1 signs, typographic
punctuation, currency and letter-like signs, arrows, geometric shapes; not fitted to any picture)
— the blank, ~1500 characters and the space — by slicing the head's weight and bias columns (and,
in the int8 copy, the per-column scales of its weight), and carries its own dictionary (the model's
`character` metadata, which the decoder reads). Everything else in the graph is untouched.

What changes: a time step whose best class is a dropped one (a Chinese character read in an icon)
answers its best kept class instead, and the Softmax no longer spreads probability over the dropped
classes, so a read's score (the mean of its characters' probabilities) is a little higher.
docs/decisions/ocr-engine.md has the measurements and why no decision moved.

The copy is made at first use from the model it is given (the wheel's float model, or the int8
copy of `vision.int8`), written under the cache folder named by that model's digest and the kept
dictionary's, through a temporary file and an atomic rename, and checked against its source on a
rendered line before it is used. Any failure answers the source model unchanged: slower, never wrong.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rpa_mcp.vision.int8 import file_digest

log = logging.getLogger(__name__)

SURGERY_VERSION = "1"  # part of the cache name: a change to how the head is cut makes a new file
_build_lock = threading.Lock()

# Blocks kept whole (besides ASCII and every letter whose Unicode name says LATIN): the signs of
# Latin-script typography and of user interfaces.
KEPT_BLOCKS: tuple[tuple[int, int], ...] = (
    (0x00A0, 0x00FF),  # Latin-1 Supplement: « » ° © ± × ÷ ¿ ...
    (0x2000, 0x206F),  # General Punctuation: ’ “ ” … – — • ‰
    (0x2070, 0x209F),  # Superscripts and Subscripts
    (0x20A0, 0x20CF),  # Currency Symbols: €
    (0x2100, 0x214F),  # Letterlike Symbols: ™ № ℃
    (0x2150, 0x218F),  # Number Forms: Ⅰ Ⅱ ½
    (0x2190, 0x21FF),  # Arrows
    (0x2200, 0x22FF),  # Mathematical Operators: ≤ ≥ ≠ −
    (0x25A0, 0x25FF),  # Geometric Shapes: ■ □ ▲ ▼ ● ○
    (0x2600, 0x27BF),  # Miscellaneous Symbols and Dingbats: ☐ ☑ ✓ ✔ ✗ ★
)


def kept_character(char: str) -> bool:
    """The rule: a character of French or English screen text (one code point)."""
    if len(char) != 1:
        return False
    code = ord(char)
    if 0x20 <= code < 0x7F:
        return True
    if "LATIN" in unicodedata.name(char, "") and not 0xFF00 <= code <= 0xFFEF:
        return True  # a Latin letter, accented, a ligature (œ, ﬁ); not the East Asian full-width forms
    return any(low <= code <= high for low, high in KEPT_BLOCKS)


def kept_classes(dictionary: Sequence[str]) -> list[int]:
    """The head's class indices kept for `dictionary` (the model's `character` list): the blank (0),
    the kept characters in their order (i + 1), and the space rapidocr appends (len + 1)."""
    return [0, *(i + 1 for i, c in enumerate(dictionary) if kept_character(c)), len(dictionary) + 1]


def latin_recognizer(source: Path | None, cache_dir: Path) -> Path | None:
    """The copy of `source` with the Latin head under `cache_dir` (made on first call), or `source`
    itself when it cannot be made (None stays None: the caller's own fallback)."""
    if source is None:
        return None
    try:
        import onnx

        model = onnx.load(str(source))
        dictionary = _dictionary(model)
        keep = kept_classes(dictionary)
        kept_digest = hashlib.sha256(
            "\n".join([SURGERY_VERSION, *(dictionary[i - 1] for i in keep[1:-1])]).encode()
        ).hexdigest()
        target = cache_dir / f"{source.stem}-latin-{file_digest(source)[:12]}-{kept_digest[:12]}.onnx"
        with _build_lock:
            if not target.is_file():
                _build(model, keep, dictionary, source, target)
        return target
    except Exception as exc:  # any failure keeps the source model: slower, never wrong
        log.warning("Latin-head recognizer not made (%s: %s); %s is used", type(exc).__name__, exc, source.name)
        return source


def _dictionary(model: Any) -> list[str]:
    """The model's dictionary as rapidocr's decoder reads it (metadata `character`, one per line)."""
    meta = {p.key: p.value for p in model.metadata_props}
    if "character" not in meta:
        raise ValueError("the model carries no 'character' dictionary")
    dictionary: list[str] = meta["character"].splitlines()
    return dictionary


def prune(model: Any, keep: Sequence[int], dictionary: Sequence[str]) -> Any:
    """`model` with its head cut to the classes `keep` (in place; returned). Every initializer whose
    last axis spans the classes (the head's weight and bias, the int8 copy's per-column scales and
    zero points) is sliced on that axis, and every shape that named the class count names the new one."""
    from onnx import numpy_helper

    classes, kept = len(dictionary) + 2, len(keep)
    index = np.asarray(keep, dtype=np.int64)
    graph, sliced = model.graph, []
    for init in graph.initializer:
        if init.dims and init.dims[-1] == classes:
            array = numpy_helper.to_array(init)
            init.CopyFrom(numpy_helper.from_array(np.ascontiguousarray(np.take(array, index, axis=-1)), init.name))
            sliced.append(init.name)
    weights = [n for n in sliced if len(_dims(graph, n)) == 2]
    if not weights or len(sliced) < 2:
        raise ValueError(f"no head of {classes} classes found (sliced {sliced})")
    for value in [*graph.value_info, *graph.output]:
        for dim in value.type.tensor_type.shape.dim:
            if dim.HasField("dim_value") and dim.dim_value == classes:
                dim.dim_value = kept
    for prop in model.metadata_props:
        if prop.key == "character":
            prop.value = "\n".join(dictionary[i - 1] for i in keep[1:-1])
    return model


def _dims(graph: Any, name: str) -> list[int]:
    return next(list(i.dims) for i in graph.initializer if i.name == name)


def _build(model: Any, keep: Sequence[int], dictionary: Sequence[str], source: Path, target: Path) -> None:
    import onnx

    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rec-latin-", dir=target.parent) as tmp:
        out = Path(tmp) / "latin.onnx"
        onnx.save(prune(model, keep, dictionary), str(out))
        check(source, out, keep)
        os.replace(out, target)
    log.info("Latin-head recognizer written to %s", target)


def probe() -> np.ndarray:
    """A rendered line of French text as the recognizer's input (the check before a copy is used)."""
    import cv2

    from rpa_mcp.vision.ocr import rec_input

    image = np.full((40, 560, 3), 245, np.uint8)
    cv2.putText(image, "Enregistrer les 12 fichiers ? (Oui)", (8, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (25, 25, 25), 2)
    return rec_input(image)


def check(source: Path, pruned: Path, keep: Sequence[int]) -> None:
    """Raise unless `pruned` answers, on the probe, the best kept class of `source` at every time
    step (where that best is unique: the int8 copy's probabilities are quantized)."""
    from rpa_mcp.vision.ocr import _session

    batch = probe()
    outputs = []
    for model in (source, pruned):
        session = _session(model)
        outputs.append(session.run(None, {session.get_inputs()[0].name: batch})[0][0])
    full, cut = outputs
    if cut.shape != (full.shape[0], len(keep)):
        raise ValueError(f"the copy answers {cut.shape}, expected {(full.shape[0], len(keep))}")
    restricted = full[:, np.asarray(keep)]
    best = restricted.max(axis=1, keepdims=True)
    unique = (restricted == best).sum(axis=1) == 1
    if not np.array_equal(restricted.argmax(axis=1)[unique], cut.argmax(axis=1)[unique]):
        raise ValueError("the copy's best classes differ from its source's on the probe")
