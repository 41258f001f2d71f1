"""Catalog operations: the data files under catalog/ (validated at load), read-only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field

from rpa_mcp.errors import InternalError, NotFound
from rpa_mcp.ops.registry import OpContext, Operation, Resource, StrictModel

CATALOG_NAMES = ("dialogs", "validator_matrix", "thresholds")
CatalogName = Literal["dialogs", "validator_matrix", "thresholds"]


_CACHE: dict[Path, tuple[float, dict[str, Any]]] = {}


def read_catalog(catalog_dir: Path, name: str) -> dict[str, Any]:
    """The parsed catalog file, cached until the file changes."""
    if name not in CATALOG_NAMES:
        raise NotFound(f"no catalog {name!r}; catalogs are {', '.join(CATALOG_NAMES)}", name=name)
    path = catalog_dir / f"{name}.yaml"
    if not path.is_file():
        raise NotFound(f"catalog {name} is not installed ({path.name} missing)", name=name)
    mtime = path.stat().st_mtime
    cached = _CACHE.get(path)
    if cached and cached[0] == mtime:
        return cached[1]
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise InternalError(f"catalog {name} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise InternalError(f"catalog {name} must be a mapping at the top level")
    _CACHE[path] = (mtime, data)
    return data


class GetCatalogInput(StrictModel):
    name: CatalogName = Field(description="Which catalog: dialogs, validator_matrix or thresholds.")


class CatalogOutput(StrictModel):
    name: str = Field(description="The catalog's name.")
    catalog: dict[str, Any] = Field(description="The catalog's content as loaded and validated.")


async def get_catalog(ctx: OpContext, args: GetCatalogInput) -> CatalogOutput:
    return CatalogOutput(name=args.name, catalog=read_catalog(ctx.services.settings.catalog_path, args.name))


async def _catalog_resource(services: Any, name: str) -> str:
    return json.dumps(read_catalog(services.settings.catalog_path, name), ensure_ascii=False, indent=1)


async def _dialog_entry_resource(services: Any, dialog_id: str) -> str:
    data = read_catalog(services.settings.catalog_path, "dialogs")
    for entry in data.get("dialogs", []):
        if isinstance(entry, dict) and entry.get("id") == dialog_id:
            return json.dumps(entry, ensure_ascii=False, indent=1)
    raise NotFound(f"no dialog {dialog_id!r} in the catalog", dialog_id=dialog_id)


OPERATIONS = (
    Operation(
        name="get_catalog",
        title="Read a catalog",
        description="Return a catalog: the known dialogs and their policies, the validator matrix, or the "
        "target-resolution thresholds.",
        input=GetCatalogInput,
        output=CatalogOutput,
        risk="read",
        handler=get_catalog,
        idempotent=True,
    ),
)

RESOURCES = (
    Resource(
        "rpa://catalog/{name}",
        "catalog",
        "A catalog (dialogs, validator_matrix, thresholds) as JSON.",
        "application/json",
        _catalog_resource,
    ),
    Resource(
        "rpa://catalog/dialogs/{dialog_id}",
        "dialog",
        "One dialog entry of the catalog.",
        "application/json",
        _dialog_entry_resource,
    ),
)
