"""Competences in the database (area "competences"), for replicas that share PostgreSQL.

The same contract as the file store (`rpa_mcp.competences.CompetenceStore`), the same rules:
versions per slug shared by candidate, validated and the trash; a save keeps the current
version as an archive; promotion moves a candidate and its archives to validated; nothing is
hard-deleted (a deletion marks the versions `deleted_at`, with the trash label). Each version
is kept as the YAML text the file store would write, so `export_to` writes the same files
(`<status>/<slug>.yaml`, `<slug>.v<N>.yaml`) and `import_from` reads them back. Paths in the
answers name where the export puts each file, relative to the data folder.

Every change of a slug holds that slug's lock (advisory lock on PostgreSQL): two replicas
saving the same competence get consecutive versions, never the same one.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rpa_mcp.clock import Clock
from rpa_mcp.competences import yamlio
from rpa_mcp.competences.model import Competence
from rpa_mcp.competences.records import (
    STATUSES,
    CompetenceListing,
    CompetenceSummary,
    DeletedCompetence,
    DeletePreview,
    LoadedCompetence,
    PromotePreview,
    SavedCompetence,
    SavePreview,
    Status,
)
from rpa_mcp.competences.slug import slugify
from rpa_mcp.competences.store import check_readback, parse_ir, steps_diff
from rpa_mcp.errors import Conflict, InvalidInput, NotFound, PreconditionFailed
from rpa_mcp.store.db import Connection, Database, Migrations, Row, postgres_ddl

_V1 = """
    CREATE TABLE competence_versions (
        slug TEXT NOT NULL,
        status TEXT NOT NULL,
        version INTEGER NOT NULL,
        name TEXT NOT NULL,
        document TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        machine_id TEXT,
        steps INTEGER NOT NULL,
        is_current INTEGER NOT NULL DEFAULT 0,
        updated_at REAL NOT NULL,
        deleted_at REAL,
        trash TEXT,
        PRIMARY KEY (slug, status, version)
    );
    CREATE INDEX competence_versions_current ON competence_versions(status, is_current, slug)
    """
MIGRATIONS = Migrations(sqlite=(_V1,), postgres=(postgres_ddl(_V1),))
_LIVE = "deleted_at IS NULL"
_Rows = list[Row]
_Problems = list[str]
_Params = list[Any]  # (the class's `list` method would shadow the builtin in its annotations)


def _iso(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).isoformat(timespec="seconds")


class DbCompetenceStore:
    def __init__(self, db: Database, clock: Clock, *, root: Path, readback_urls: Sequence[str] = ()) -> None:
        self.db, self.clock, self.root = db, clock, root  # root: where an export puts the files
        self.readback_urls = tuple(readback_urls)  # a saved read-back must name one of them
        db.migrate("competences", MIGRATIONS)

    # --- where the files of an export go ----------------------------------------------------
    def folder(self, status: Status) -> Path:
        return self.root / status

    def _path(self, status: str, slug: str, version: int, current: bool) -> Path:
        return self.root / status / (f"{slug}.yaml" if current else f"{slug}.v{version}.yaml")

    # --- reading ------------------------------------------------------------------------------
    def _rows(self, slug: str, status: str | None = None, *, conn: Connection | None = None) -> _Rows:
        sql = f"SELECT * FROM competence_versions WHERE slug = ? AND {_LIVE}"
        params: _Params = [slug]
        if status is not None:
            sql, params = sql + " AND status = ?", [*params, status]
        if conn is not None:
            rows: _Rows = conn.execute(sql + " ORDER BY version", params).fetchall()
            return rows
        return self.db.query(sql + " ORDER BY version", params)

    def _highest(self, conn: Connection, slug: str) -> int:
        row = conn.execute("SELECT MAX(version) AS v FROM competence_versions WHERE slug = ?", (slug,)).fetchone()
        return int(row["v"]) if row and row["v"] is not None else 0

    @staticmethod
    def _competence(row: Row) -> Competence:
        try:
            return Competence.model_validate(yamlio.load(str(row["document"]).encode("utf-8")))
        except Exception as exc:  # a row edited by hand: report it, never replay it
            raise PreconditionFailed(
                f"the stored competence {row['status']}/{row['slug']} v{row['version']} is invalid ({exc})",
                path=f"{row['status']}/{row['slug']}.yaml",
            ) from exc

    def list(self, status: Status | None = None) -> CompetenceListing:
        sql = f"SELECT * FROM competence_versions WHERE {_LIVE}"
        params: _Params = []
        if status is not None:
            sql, params = sql + " AND status = ?", [status]
        rows = self.db.query(sql + " ORDER BY status, slug, version", params)
        versions: dict[tuple[str, str], list[int]] = {}
        for r in rows:
            versions.setdefault((r["status"], r["slug"]), []).append(int(r["version"]))
        out = [
            CompetenceSummary(
                name=r["name"],
                slug=r["slug"],
                status=r["status"],
                version=int(r["version"]),
                steps=int(r["steps"]),
                machine_id=r["machine_id"],
                updated_at=_iso(float(r["updated_at"])),
                path=self._path(r["status"], r["slug"], int(r["version"]), True),
                versions=tuple(versions[(r["status"], r["slug"])]),
            )
            for r in rows
            if r["is_current"]
        ]
        order = {s: i for i, s in enumerate(STATUSES)}
        return CompetenceListing(sorted(out, key=lambda c: (order[c.status], c.slug)), [])

    def get(self, name: str, version: int | None = None, status: Status | None = None) -> LoadedCompetence:
        slug = slugify(name, field="name")
        rows = self._rows(slug, status)
        options = [r for r in rows if (int(r["version"]) == version if version is not None else r["is_current"])]
        if not options:
            where = f" ({status})" if status else ""
            which = f"version {version} of " if version is not None else ""
            raise NotFound(f"no {which}competence {name!r}{where}", name=name, version=version)
        row = max(options, key=lambda r: (int(r["version"]), r["status"] == "validated"))
        competence = self._competence(row)
        return LoadedCompetence(
            workflow=competence.document(),
            name=competence.name,
            slug=slug,
            status=row["status"],
            version=int(row["version"]),
            current=bool(row["is_current"]),
            path=self._path(row["status"], slug, int(row["version"]), bool(row["is_current"])),
            versions=tuple(int(r["version"]) for r in rows if r["status"] == row["status"]),
            machine_id=competence.source.machine_id,
            updated_at=_iso(float(row["updated_at"])),
            sha256=str(row["sha256"]),
        )

    # --- saving ---------------------------------------------------------------------------------
    def _prepare(
        self, conn: Connection, name: str, ir: dict[str, Any], status: Status, machine_id: str | None
    ) -> tuple[str, Competence, Competence | None]:
        slug = slugify(name, field="name")
        if status not in STATUSES:
            raise InvalidInput(f"status must be one of {list(STATUSES)}", field="status")
        if not isinstance(ir, dict):
            raise InvalidInput("the workflow is a mapping (name, version, steps, ...)", field="ir")
        document = {**ir, "name": name, "version": self._highest(conn, slug) + 1}
        if machine_id is not None:
            raw = ir.get("source")
            document["source"] = {**(raw if isinstance(raw, dict) else {}), "machine_id": machine_id}
        current = next((r for r in self._rows(slug, status, conn=conn) if r["is_current"]), None)
        competence = check_readback(parse_ir(document, field_prefix="ir"), self.readback_urls)
        return slug, competence, self._competence(current) if current else None

    def preview_save(self, name: str, ir: dict[str, Any], status: Status = "candidate") -> SavePreview:
        with self.db.transaction() as conn:
            slug, competence, current = self._prepare(conn, name, ir, status, None)
        return SavePreview(
            name=competence.name,
            slug=slug,
            status=status,
            path=self._path(status, slug, competence.version, True),
            new_version=competence.version,
            replaces_version=current.version if current else None,
            steps=len(competence.steps),
            diff=steps_diff(current, competence, label=slug),
        )

    def _insert(self, conn: Connection, status: str, competence: Competence, *, data: str | None = None) -> None:
        text = data if data is not None else yamlio.dump(competence.document())
        conn.execute(
            "INSERT INTO competence_versions (slug, status, version, name, document, sha256, machine_id, steps, "
            "is_current, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?)",
            (
                slugify(competence.name),
                status,
                competence.version,
                competence.name,
                text,
                hashlib.sha256(text.encode("utf-8")).hexdigest(),
                competence.source.machine_id,
                len(competence.steps),
                self.clock.now(),
            ),
        )

    def save(
        self, name: str, ir: dict[str, Any], status: Status = "candidate", machine_id: str | None = None
    ) -> SavedCompetence:
        slug = slugify(name, field="name")
        with self.db.transaction() as conn:
            self.db.lock(conn, f"competence:{slug}")
            slug, competence, current = self._prepare(conn, name, ir, status, machine_id)
            conn.execute(
                f"UPDATE competence_versions SET is_current = 0 WHERE slug = ? AND status = ? AND {_LIVE}",
                (slug, status),
            )
            self._insert(conn, status, competence)
        path = self._path(status, slug, competence.version, True)
        return SavedCompetence(
            path, competence.name, competence.version, slug, status, current.version if current else None
        )

    # --- promotion ------------------------------------------------------------------------------
    def _promotion(self, conn: Connection | None, name: str) -> tuple[PromotePreview, Row, _Rows, _Rows]:
        slug = slugify(name, field="name")
        cand = self._rows(slug, "candidate", conn=conn)
        val = self._rows(slug, "validated", conn=conn)
        cur = next((r for r in cand if r["is_current"]), None)
        if cur is None:
            raise NotFound(f"no candidate competence {name!r} to promote", name=name)
        val_by_version = {int(r["version"]): r for r in val}
        for r in cand:
            clash = val_by_version.get(int(r["version"]))
            if clash is not None and clash["sha256"] != r["sha256"]:
                raise Conflict(
                    f"candidate and validated both hold a different version {r['version']} of {slug!r}; an "
                    "administrator must sort them out first",
                    path=f"validated/{slug}.v{r['version']}.yaml",
                )
        val_highest = max((int(r["version"]) for r in val), default=0)
        cand_highest = max(int(r["version"]) for r in cand)
        version = int(cur["version"])
        new_version = version if version > val_highest else max(cand_highest, val_highest) + 1
        candidate = self._competence(cur)
        val_cur = next((r for r in val if r["is_current"]), None)
        validated = self._competence(val_cur) if val_cur else None
        preview = PromotePreview(
            name=candidate.name,
            slug=slug,
            version=version,
            new_version=new_version,
            replaces_version=int(val_cur["version"]) if val_cur else None,
            steps=len(candidate.steps),
            source=self._path("candidate", slug, version, True),
            target=self._path("validated", slug, new_version, True),
            diff=steps_diff(validated, candidate.model_copy(update={"version": new_version}), label=slug),
            binding={
                "slug": slug,
                "candidate_sha256": cur["sha256"],
                "validated_sha256": val_cur["sha256"] if val_cur else None,
            },
        )
        return preview, cur, cand, val

    def preview_promote(self, name: str) -> PromotePreview:
        return self._promotion(None, name)[0]

    def promote(self, name: str) -> SavedCompetence:
        slug = slugify(name, field="name")
        with self.db.transaction() as conn:
            self.db.lock(conn, f"competence:{slug}")
            preview, cur, cand, val = self._promotion(conn, name)
            present = {int(r["version"]) for r in val}
            conn.execute(
                f"UPDATE competence_versions SET is_current = 0 WHERE slug = ? AND status = 'validated' AND {_LIVE}",
                (slug,),
            )
            for r in cand:
                if r is cur:
                    continue
                if int(r["version"]) in present:  # the same bytes are there already (checked above)
                    conn.execute(
                        "DELETE FROM competence_versions WHERE slug = ? AND status = 'candidate' AND version = ?",
                        (slug, r["version"]),
                    )
                else:
                    conn.execute(
                        "UPDATE competence_versions SET status = 'validated', is_current = 0 "
                        "WHERE slug = ? AND status = 'candidate' AND version = ?",
                        (slug, r["version"]),
                    )
            conn.execute(
                "DELETE FROM competence_versions WHERE slug = ? AND status = 'candidate' AND version = ?",
                (slug, cur["version"]),
            )
            competence = self._competence(cur)
            promoted = competence.model_copy(update={"version": preview.new_version})
            same = preview.new_version == competence.version
            self._insert(conn, "validated", promoted, data=str(cur["document"]) if same else None)
        return SavedCompetence(
            preview.target, competence.name, preview.new_version, slug, "validated", preview.replaces_version
        )

    # --- deletion (to the trash: rows marked deleted) -----------------------------------------------
    def preview_delete(self, name: str, version: int | None = None, status: Status | None = None) -> DeletePreview:
        return self._deletion(None, name, version, status)[0]

    def _deletion(
        self, conn: Connection | None, name: str, version: int | None, status: Status | None
    ) -> tuple[DeletePreview, _Rows]:
        slug = slugify(name, field="name")
        rows = self._rows(slug, conn=conn)
        present = sorted({r["status"] for r in rows})
        if status is not None and status not in present:
            raise NotFound(f"no {status} competence {name!r}", name=name, status=status)
        if status is None and not present:
            raise NotFound(f"no competence {name!r}", name=name)
        if status is None and len(present) > 1:
            raise InvalidInput(f"{name!r} exists as candidate and as validated; say which", field="status")
        st: Status = status if status is not None else present[0]
        mine = [r for r in rows if r["status"] == st]
        cur = next((r for r in mine if r["is_current"]), None)
        archives = [r for r in mine if not r["is_current"]]
        restores: int | None = None
        if version is None:
            chosen = mine
        elif cur is not None and version == int(cur["version"]):
            chosen = [cur]
            restores = max((int(r["version"]) for r in archives), default=None)
        else:
            chosen = [r for r in archives if int(r["version"]) == version]
            if not chosen:
                raise NotFound(f"no version {version} of {st} competence {name!r}", name=name, version=version)
        paths = tuple(self._path(st, slug, int(r["version"]), bool(r["is_current"])) for r in chosen)
        current_after = (
            None if version is None else (restores if chosen[0] is cur else (int(cur["version"]) if cur else None))
        )
        preview = DeletePreview(
            name=cur["name"] if cur else name,
            slug=slug,
            status=st,
            versions=tuple(int(r["version"]) for r in chosen),
            files=paths,
            steps=int(chosen[-1]["steps"]) if version is not None or cur is None else int(cur["steps"]),
            restores_version=restores,
            current_after=current_after,
            binding={
                "slug": slug,
                "status": st,
                "files": {p.name: r["sha256"] for p, r in zip(paths, chosen, strict=True)},
            },
        )
        return preview, chosen

    def delete(self, name: str, version: int | None = None, status: Status | None = None) -> DeletedCompetence:
        slug = slugify(name, field="name")
        now = self.clock.now()
        with self.db.transaction() as conn:
            self.db.lock(conn, f"competence:{slug}")
            preview, chosen = self._deletion(conn, name, version, status)
            stamp = dt.datetime.fromtimestamp(now, dt.UTC).strftime("%Y%m%dT%H%M%SZ")
            label = f"{stamp}-{preview.status}-{slug}" + (f"-v{version}" if version is not None else "")
            for r in chosen:
                conn.execute(
                    "UPDATE competence_versions SET deleted_at = ?, trash = ?, is_current = 0 "
                    "WHERE slug = ? AND status = ? AND version = ?",
                    (now, label, slug, preview.status, r["version"]),
                )
            if preview.restores_version is not None:
                conn.execute(
                    "UPDATE competence_versions SET is_current = 1 WHERE slug = ? AND status = ? AND version = ?",
                    (slug, preview.status, preview.restores_version),
                )
        return DeletedCompetence(self.root / ".trash" / label, preview.files, preview.versions)

    def export_to(self, root: Path) -> int:
        from rpa_mcp.store.competence_files import export_to

        return export_to(self, root)

    def import_from(self, root: Path) -> tuple[int, _Problems]:
        from rpa_mcp.store.competence_files import import_from

        return import_from(self, root)
