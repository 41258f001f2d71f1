"""The YAML files stay the exchange format of competences kept in the database.

`export_to` writes every live version the way the file store lays it out (`<status>/<slug>.yaml`
for the current one, `<slug>.v<N>.yaml` for the others); `import_from` reads such folders (a
file store's, or an export) and adds each version the database does not hold yet, with its
number; a version that exists with other content is reported, never overwritten.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from rpa_mcp.competences import files, yamlio
from rpa_mcp.competences.model import Competence
from rpa_mcp.store.competences import _LIVE, DbCompetenceStore


def export_to(store: DbCompetenceStore, root: Path) -> int:
    """Write every live version as the file store lays it out under `root`; returns the files written."""
    count = 0
    for r in store.db.query(f"SELECT * FROM competence_versions WHERE {_LIVE} ORDER BY slug, version"):
        name = f"{r['slug']}.yaml" if r["is_current"] else f"{r['slug']}.v{r['version']}.yaml"
        files.write_atomic(root / r["status"] / name, str(r["document"]).encode("utf-8"))
        count += 1
    return count


def import_from(store: DbCompetenceStore, root: Path) -> tuple[int, list[str]]:
    """Read a file store's folders (candidate/, validated/): each version not in the database
    yet is added with its number. Returns (versions added, problems)."""
    from rpa_mcp.competences import CompetenceStore

    source = CompetenceStore(root, store.clock)
    listing = source.list()
    problems = [f"{p.status}/{p.path.name}: {p.reason}" for p in listing.problems]
    added = 0
    for summary in listing:
        for number in summary.versions:
            loaded = source.get(summary.name, version=number, status=summary.status)
            data = files.read_capped(loaded.path, yamlio.MAX_BYTES).decode("utf-8")
            competence = Competence.model_validate(yamlio.load(data.encode("utf-8")))
            with store.db.transaction() as conn:
                store.db.lock(conn, f"competence:{summary.slug}")
                exists = conn.execute(
                    "SELECT sha256 FROM competence_versions WHERE slug = ? AND status = ? AND version = ?",
                    (summary.slug, summary.status, number),
                ).fetchone()
                if exists is not None:
                    if exists["sha256"] != hashlib.sha256(data.encode("utf-8")).hexdigest():
                        problems.append(f"{summary.status}/{loaded.path.name}: differs from version {number} stored")
                    continue
                if loaded.current:
                    conn.execute(
                        f"UPDATE competence_versions SET is_current = 0 WHERE slug = ? AND status = ? AND {_LIVE}",
                        (summary.slug, summary.status),
                    )
                store._insert(conn, summary.status, competence, data=data)
                if not loaded.current:
                    conn.execute(
                        "UPDATE competence_versions SET is_current = 0 WHERE slug = ? AND status = ? AND version = ?",
                        (summary.slug, summary.status, number),
                    )
                added += 1
    return added, problems
