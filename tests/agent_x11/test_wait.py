"""`wait_until`, the desktop tests' only way to wait: what its timeout says."""

from __future__ import annotations

import pytest

from rpa_mcp.desktop_rig.harness import DesktopError, wait_until


def test_a_condition_that_holds_returns_its_value_at_once():
    assert wait_until(lambda: "window 7", timeout=-1, what="a window") == "window 7"


def test_the_timeout_names_what_was_awaited_and_what_was_seen_instead():
    # a deadline already past: one look at the condition, then the error (no clock, no sleep)
    with pytest.raises(DesktopError) as caught:
        wait_until(
            lambda: None, timeout=-1, what="a window titled 'Recherche patient'", seen=lambda: "'Erreur' (chromium)"
        )
    assert "a window titled 'Recherche patient'" in str(caught.value)
    assert "seen instead: 'Erreur' (chromium)" in str(caught.value)


def test_without_a_witness_the_timeout_says_only_what_was_awaited():
    with pytest.raises(DesktopError, match=r"waiting for the session$"):
        wait_until(lambda: [], timeout=-1, what="the session")


def test_the_timeout_raises_the_error_a_caller_names():
    class WineError(RuntimeError):
        pass

    with pytest.raises(WineError):
        wait_until(lambda: None, timeout=-1, what="notepad", error=WineError)
