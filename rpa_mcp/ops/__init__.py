"""The registry of every operation, assembled from the area modules."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterable

from rpa_mcp.ops.gate import expand
from rpa_mcp.ops.registry import Operation, Registry, Resource

logger = logging.getLogger(__name__)

# Area modules, each ending with OPERATIONS (and optionally RESOURCES).
AREAS = ("catalog", "shadow", "competences", "dialogs", "validation", "replay", "replay_agent")


def build_registry(areas: Iterable[str] = AREAS) -> Registry:
    registry = Registry()
    for area in areas:
        try:
            module = importlib.import_module(f"rpa_mcp.ops.{area}")
        except ModuleNotFoundError as exc:
            if exc.name != f"rpa_mcp.ops.{area}":
                raise
            logger.warning("area %s is not installed; its operations are absent", area)
            continue
        for op in getattr(module, "OPERATIONS", ()):
            add(registry, op)
        registry.resources.extend(Resource.of(r) for r in getattr(module, "RESOURCES", ()))
    return registry


def add(registry: Registry, op: Operation) -> None:
    if op.needs_confirmation:
        registry.confirmed[op.name] = op
    for exposed in expand(op):
        if exposed.name in registry.operations:
            raise ValueError(f"operation {exposed.name} is registered twice")
        registry.operations[exposed.name] = exposed


__all__ = ["AREAS", "Operation", "Registry", "build_registry"]
