"""MCP prompts stored as Markdown files with YAML front matter under prompts/."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from rpa_mcp.errors import InvalidInput


@dataclass(frozen=True)
class PromptArg:
    name: str
    description: str
    required: bool = False


@dataclass(frozen=True)
class PromptFile:
    name: str
    title: str
    description: str
    body: str
    arguments: tuple[PromptArg, ...] = field(default=())

    def render(self, values: dict[str, str]) -> str:
        missing = [a.name for a in self.arguments if a.required and not values.get(a.name)]
        if missing:
            raise InvalidInput(f"prompt {self.name} needs the argument(s) {', '.join(missing)}", field=missing[0])
        known = {a.name: values.get(a.name) or "" for a in self.arguments}
        # `{name}` placeholders of declared arguments only; any other brace is left as written.
        return re.sub(r"\{(\w+)\}", lambda m: known.get(m.group(1), m.group(0)), self.body)


def load_prompts(folder: Path) -> list[PromptFile]:
    prompts = []
    for path in sorted(folder.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        if not text.startswith("---"):
            raise ValueError(f"{path.name}: a prompt file starts with YAML front matter between '---' lines")
        _, front, body = text.split("---", 2)
        meta = yaml.safe_load(front) or {}
        for key in ("name", "description"):
            if not meta.get(key):
                raise ValueError(f"{path.name}: front matter needs '{key}'")
        args = tuple(
            PromptArg(str(a["name"]), str(a.get("description", "")), bool(a.get("required", False)))
            for a in meta.get("arguments", []) or []
        )
        prompts.append(
            PromptFile(meta["name"], meta.get("title", meta["name"]), meta["description"], body.strip(), args)
        )
    return prompts
