"""MCP prompts stored as Markdown files with YAML front matter under prompts/.

The body names its arguments as `{name}`. A part that only makes sense when an optional
argument is given is written `[[ ... {name} ... ]]`: it is kept when every argument it names
has a value and dropped otherwise; `[[ ... {name} ... || other words ]]` says `other words`
instead. So a prompt reads well whichever optional arguments the client leaves out.
"""

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
        known = {a.name: (values.get(a.name) or "").strip() for a in self.arguments}

        def fill(text: str) -> str:
            # `{name}` placeholders of declared arguments only; any other brace is left as written.
            return re.sub(r"\{(\w+)\}", lambda m: known.get(m.group(1), m.group(0)), text)

        def optional(match: re.Match[str]) -> str:
            when, _, otherwise = match.group(1).partition("||")
            named = [n for n in re.findall(r"\{(\w+)\}", when) if n in known]
            return fill(when) if all(known[n] for n in named) else fill(otherwise)

        return fill(re.sub(r"\[\[(.*?)\]\]", optional, self.body, flags=re.S))


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
