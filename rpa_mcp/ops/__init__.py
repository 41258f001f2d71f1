"""The registry of every operation, assembled from the area modules."""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType

from rpa_mcp.ops import catalog, competences, dialogs, replay, replay_agent, run_competence, shadow, validation
from rpa_mcp.ops.gate import expand
from rpa_mcp.ops.registry import Operation, Registry, Resource
from rpa_mcp.ops.resources import READ_RESOURCE

# Area modules by name, each ending with OPERATIONS (and optionally RESOURCES and TEMPLATES).
MODULES: dict[str, ModuleType] = {
    "catalog": catalog,
    "shadow": shadow,
    "competences": competences,
    "dialogs": dialogs,
    "validation": validation,
    "replay": replay,
    "replay_agent": replay_agent,
    "run_competence": run_competence,
}
AREAS = tuple(MODULES)


def build_registry(areas: Iterable[str] = AREAS) -> Registry:
    """The operations of these areas (all by default; tests build a registry of one area).

    `read_resource` is always there: it is how every surface reads the areas' resources.
    """
    registry = Registry()
    add(registry, READ_RESOURCE)
    for area in areas:
        module = MODULES[area]
        for op in getattr(module, "OPERATIONS", ()):
            add(registry, op)
        registry.resources.extend(Resource.of(r) for r in getattr(module, "RESOURCES", ()))
        registry.templates.extend(getattr(module, "TEMPLATES", ()))
    return registry


def add(registry: Registry, op: Operation) -> None:
    if op.needs_confirmation:
        registry.confirmed[op.name] = op
    for exposed in expand(op):
        if exposed.name in registry.operations:
            raise ValueError(f"operation {exposed.name} is registered twice")
        registry.operations[exposed.name] = exposed


__all__ = ["AREAS", "Operation", "Registry", "build_registry"]
