"""YAML read/write with the safe loader, hardened (notes §6.4).

`yaml.SafeLoader` alone still accepts alias bombs and silently keeps the last of two
duplicate keys. The loader here is a `SafeLoader` subclass that refuses anchors/aliases,
duplicate keys and nesting deeper than `MAX_DEPTH`; input is capped at `MAX_BYTES`.
Writing uses a `SafeDumper` subclass that never emits aliases.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_BYTES = 2 * 1024 * 1024
MAX_DEPTH = 32


class YamlRejected(ValueError):
    """The text is not YAML this store accepts (reason in the message)."""


class _StrictLoader(yaml.SafeLoader):
    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            raise YamlRejected("anchors and aliases (&, *) are not accepted")
        event = self.peek_event()  # type: ignore[no-untyped-call]  # types-PyYAML leaves Parser.peek_event unannotated
        if getattr(event, "anchor", None) is not None:
            raise YamlRejected("anchors and aliases (&, *) are not accepted")
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise YamlRejected(f"nested deeper than {MAX_DEPTH} levels")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
            except TypeError:  # unhashable key: the base class reports it
                continue
            if duplicate:
                raise YamlRejected(f"duplicate key {key!r} (line {key_node.start_mark.line + 1})")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


class _NoAliasDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def load(text: bytes | str) -> Any:
    """Parse one YAML document; raise YamlRejected with a readable reason."""
    if len(text) > MAX_BYTES:
        raise YamlRejected(f"larger than {MAX_BYTES} bytes")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise YamlRejected(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    loader = _StrictLoader(text)
    try:
        return loader.get_single_data()
    except YamlRejected:
        raise
    except yaml.YAMLError as exc:
        raise YamlRejected(f"not valid YAML: {exc}") from exc
    finally:
        loader.dispose()


def dump(document: Any) -> str:
    text: str = yaml.dump(
        document, Dumper=_NoAliasDumper, sort_keys=False, allow_unicode=True, default_flow_style=False
    )
    return text
