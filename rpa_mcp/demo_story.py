"""The demonstrations' narrator and scripted MCP client (`rpa-mcp demo`, `rpa-mcp demo --desktop`)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Story:
    """Numbered, readable story lines and the tally of expected outcomes."""

    out: Any = field(default_factory=lambda: sys.stdout)  # read at run time, not at import
    quiet: bool = False
    n: int = 0
    failures: list[str] = field(default_factory=list)
    passed: int = 0

    def step(self, text: str) -> None:
        self.n += 1
        self._print(f"\n{self.n:>2}. {text}")

    def say(self, text: str) -> None:
        self._print(f"    {text}")

    def expect(self, ok: bool, what: str, detail: str = "") -> bool:
        if ok:
            self.passed += 1
            self._print(f"    ✔ {what}")
        else:
            self.failures.append(f"{what}{': ' + detail if detail else ''}")
            self._print(f"    ✘ {what}{' — ' + detail if detail else ''}")
        return ok

    def progress(self, label: str, done: int, total: int) -> None:
        if self.quiet:
            return
        width = 24
        filled = int(width * done / total) if total else width
        bar = f"    {label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}"
        if hasattr(self.out, "isatty") and self.out.isatty():
            self.out.write(f"\r{bar}{chr(10) if done >= total else ''}")
        elif done >= total or done == 0:  # not a terminal: no carriage returns, only the ends
            self.out.write(bar + "\n")
        self.out.flush()

    def _print(self, text: str) -> None:
        if not self.quiet:
            print(text, file=self.out, flush=True)


class StoryFailed(Exception):
    """An outcome the rest of the story depends on did not happen."""


class Mcp:
    """The scripted MCP client: call a tool, get its structured content or its error."""

    def __init__(self, client: Any) -> None:
        self.client = client

    async def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        result = await self.client.call_tool(name, args or {})
        if result.is_error:
            meta = (result.meta or {}).get("rpa/error") or {}
            text = result.content[0].text if result.content else ""
            return {
                "error": {
                    "code": meta.get("code", "unknown"),
                    "message": meta.get("message", text),
                    "details": meta.get("details", {}),
                }
            }
        data: dict[str, Any] = result.structured_content or {}
        return data

    async def tools(self) -> set[str]:
        return {t.name for t in (await self.client.list_tools()).tools}
