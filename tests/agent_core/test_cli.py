"""`rpa-agent` says in one line why a backend or the self-check cannot run here."""

from __future__ import annotations

import sys

import pytest
from rpa_agent import cli


@pytest.mark.skipif(sys.platform == "win32", reason="the Linux answer of the Windows backend")
def test_the_windows_backend_off_windows_is_one_line_not_a_traceback(tmp_path):
    args = cli.parser().parse_args(["run", "--backend", "windows"])
    with pytest.raises(SystemExit) as stopped:
        cli.open_desktop(args)
    assert str(stopped.value).startswith("rpa-agent: the windows backend cannot")


@pytest.mark.skipif(sys.platform == "win32", reason="the Linux answer of the self-check")
def test_selfcheck_off_windows_says_where_to_run_it():
    with pytest.raises(SystemExit) as stopped:
        cli.main(["selfcheck", "--json"])
    assert "Windows" in str(stopped.value)
