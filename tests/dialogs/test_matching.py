"""Titles found inside a longer line: at the end of a word, not inside one."""

from __future__ import annotations

from rpa_mcp.dialogs import DialogCatalog
from rpa_mcp.dialogs.matching import Matcher


def _title(catalog: DialogCatalog, entry_id: str, line: str) -> float:
    scores = Matcher(catalog).score([line], [])
    return next(s.title for s in scores if s.entry.id == entry_id)


def test_a_title_that_is_the_stem_of_a_longer_word_is_not_that_title(catalog: DialogCatalog) -> None:
    # "Sign in" (an HTTP sign-in prompt) inside "signing": a passphrase box of another program
    assert _title(catalog, "browser-http-auth", "Unlock the signing key") < 0.5


def test_a_title_inside_a_longer_line_still_counts(catalog: DialogCatalog) -> None:
    assert _title(catalog, "browser-http-auth", "Sign in to intranet.chu.fr") >= 0.95
    # the OCR ran two words together: the title's last word is followed by a whole word
    assert _title(catalog, "browser-http-auth", "Signinrequired") >= 0.95
