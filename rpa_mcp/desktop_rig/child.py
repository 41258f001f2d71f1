"""A child process in a session of its own whose output lines a thread keeps, to wait on what it says.

The desktop rig's agent (`harness.AgentProcess`, its stderr) and the Wine tests' Windows programs
(their stdout and stderr together) are both one of these.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Literal


class ChildLines:
    """`argv` started with `stream` piped ("stderr": stdout discarded; "stdout": stderr merged into it);
    its lines in `.lines`. A wait that fails raises `error` naming `what`."""

    def __init__(
        self,
        argv: list[str],
        *,
        env: dict[str, str],
        stream: Literal["stdout", "stderr"],
        what: str,
        error: type[Exception],
        cwd: Path | None = None,
    ) -> None:
        self.argv, self.what, self.error = argv, what, error
        self.lines: list[str] = []
        self._cond = threading.Condition()
        self.proc = subprocess.Popen(
            argv,
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE if stream == "stdout" else subprocess.DEVNULL,
            stderr=subprocess.STDOUT if stream == "stdout" else subprocess.PIPE,
            start_new_session=True,
        )
        pipe = self.proc.stdout if stream == "stdout" else self.proc.stderr
        assert pipe is not None
        self._pipe: IO[bytes] = pipe
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for raw in self._pipe:
            with self._cond:
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\r\n"))
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def tail(self, n: int = 15) -> str:
        return "\n".join(self.lines[-n:])

    def wait_line(self, needle: str, *, timeout: float = 60.0, after: int = 0) -> str:
        """The first line (from index `after`) containing `needle`; `error` after `timeout` or once it ended."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for line in self.lines[after:]:
                    if needle in line:
                        return line
                remaining = deadline - time.monotonic()
                if remaining <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    raise self.error(
                        f"{self.what} never said {needle!r} (exit {self.proc.poll()}); last lines:\n{self.tail()}"
                    )
                self._cond.wait(min(remaining, 0.5))

    def count(self, needle: str) -> int:
        with self._cond:
            return sum(needle in line for line in self.lines)

    def wait_count(self, needle: str, n: int, *, timeout: float = 60.0) -> None:
        """Until `n` lines contain `needle`."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while sum(needle in line for line in self.lines) < n:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.proc.poll() is not None:
                    raise self.error(f"{self.what} said {needle!r} fewer than {n} times; last lines:\n{self.tail()}")
                self._cond.wait(min(remaining, 0.5))

    def wait(self, timeout: float = 120.0) -> int:
        """Its exit status, once it ended by itself (stopped, and `error`, after `timeout`)."""
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            raise self.error(f"{self.argv} still running after {timeout:.0f} s:\n{self.tail()}") from None
        self._reader.join(10)
        return code

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60.0) -> int:
        """Signal its whole session (SIGKILL after `timeout`); its exit status."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self._reader.join(10)
        self._pipe.close()
        return int(self.proc.returncode)
