"""ChildLines: the output of a child process, waited on line by line (the rig's agent, Wine's programs)."""

from __future__ import annotations

import os
import signal
import sys
from typing import Literal

import pytest

from rpa_mcp.desktop_rig.child import ChildLines


class Failed(Exception):
    pass


def child(code: str, stream: Literal["stdout", "stderr"] = "stderr") -> ChildLines:
    argv = [sys.executable, "-c", code]
    return ChildLines(argv, env=dict(os.environ), stream=stream, what="child", error=Failed)


def test_a_line_said_on_stderr_is_found_and_counted() -> None:
    proc = child("import sys; sys.stderr.write('ready\\r\\nready again\\n'); print('not kept')")
    assert proc.wait_line("ready", after=1, timeout=30) == "ready again"
    assert proc.wait() == 0
    assert proc.lines == ["ready", "ready again"] and proc.count("ready") == 2
    proc.stop()


def test_stdout_mode_keeps_both_streams() -> None:
    proc = child("import sys; print('out', flush=True); sys.stderr.write('err\\n')", stream="stdout")
    assert proc.wait() == 0
    assert sorted(proc.lines) == ["err", "out"]
    proc.stop()


def test_a_child_that_ends_without_saying_it_raises_the_given_error() -> None:
    proc = child("pass")
    with pytest.raises(Failed):
        proc.wait_line("never", timeout=30)
    with pytest.raises(Failed):
        proc.wait_count("never", 1, timeout=30)
    proc.stop()


def test_stop_ends_a_child_that_runs_on() -> None:
    proc = child("import sys, time; sys.stderr.write('up\\n'); sys.stderr.flush(); time.sleep(60)")
    proc.wait_line("up", timeout=30)
    assert proc.stop(signal.SIGKILL) == -signal.SIGKILL
