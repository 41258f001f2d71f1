"""CompetenceStore: versioned YAML files under <data_dir>/competences/{candidate,validated}/.

Layout and rules (docs/concepts/shadow.md, persist):
- `<slug>.yaml` is the current version; saving an existing name first keeps the current
  one as `<slug>.v<N>.yaml`, then replaces `<slug>.yaml` atomically. Nothing that holds a
  version is ever overwritten.
- Version numbers are per slug and shared by both folders and the trash (next = highest
  seen + 1), so "version 4" names one workflow whether candidate, validated or deleted.
- Files placed by hand are picked up when valid; anything else in the folders is reported
  in `list().problems`, never skipped silently.
- Nothing is hard-deleted: `delete` moves the files to `competences/.trash/<stamp>-...`
  with a `deleted.yaml` manifest. Workflows may name patients' records and screens, so
  their removal must stay reviewable and reversible by an administrator.

One process owns the folder (mutations are serialised by a lock); readers never see a
half-written file.
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rpa_mcp.clock import Clock
from rpa_mcp.competences import files, yamlio
from rpa_mcp.competences.model import Competence
from rpa_mcp.competences.records import (
    STATUSES,
    CompetenceListing,
    CompetenceSummary,
    DeletedCompetence,
    DeletePreview,
    LoadedCompetence,
    Problem,
    PromotePreview,
    SavedCompetence,
    SavePreview,
    Status,
)
from rpa_mcp.competences.slug import slugify
from rpa_mcp.errors import Conflict, InvalidInput, NotFound, PreconditionFailed
from rpa_mcp.replay.readback import check_template

TRASH = ".trash"


@dataclass
class _Entry:
    files: files.SlugFiles
    current: Competence | None = None
    data: bytes = b""
    error: str | None = None

    @property
    def highest(self) -> int:
        return max(0, *self.files.archives, self.current.version if self.current else 0)

    def all_versions(self) -> tuple[int, ...]:
        return tuple(sorted({*self.files.archives, *([self.current.version] if self.current else [])}))


def _iso(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).isoformat(timespec="seconds")


def _parse_ir(document: Any, *, field_prefix: str) -> Competence:
    if not isinstance(document, dict):
        raise InvalidInput("a competence is a mapping (name, version, steps, ...)", field=field_prefix)
    try:
        return Competence.model_validate(document)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        loc = ".".join(str(p) for p in err["loc"])
        field = f"{field_prefix}.{loc}" if loc else field_prefix
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise InvalidInput(f"{field}: {err['msg']}{more}", field=field) from exc


parse_ir = _parse_ir  # also the database store's


def check_readback(competence: Competence, allowed: Sequence[str]) -> Competence:
    """A declared read-back must name a URL under RPA_READBACK_URLS (`ReadbackNotAllowed` otherwise)."""
    if competence.readback is not None:
        check_template(competence.readback.url, allowed, field="ir.readback.url")
    return competence


def steps_diff(old: Competence | None, new: Competence, *, label: str) -> str | None:
    """Unified diff of the steps (YAML text), None when there is nothing to compare with."""
    if old is None:
        return None
    before = yamlio.dump([s.model_dump(mode="json") for s in old.steps]).splitlines()
    after = yamlio.dump([s.model_dump(mode="json") for s in new.steps]).splitlines()
    lines = difflib.unified_diff(
        before, after, fromfile=f"{label} v{old.version}", tofile=f"{label} v{new.version}", lineterm=""
    )
    return "\n".join(lines) or "(steps unchanged)"


class CompetenceStore:
    def __init__(self, root: Path, clock: Clock, *, readback_urls: Sequence[str] = ()) -> None:
        self.root = root
        self.clock = clock
        self.readback_urls = tuple(readback_urls)  # a saved read-back must name one of them
        self._lock = threading.RLock()

    def create_folders(self) -> None:
        """Create competences/candidate/ and competences/validated/ (where people may drop YAML files)."""
        for status in STATUSES:
            self.folder(status).mkdir(parents=True, exist_ok=True)

    # --- reading ----------------------------------------------------------------------
    def folder(self, status: Status) -> Path:
        return self.root / status

    def _load(self, path: Path, status: Status, slug: str) -> tuple[Competence, bytes]:
        """Read and validate one stored file; raise ValueError with the reason."""
        if not files.inside(path, self.folder(status)):
            raise ValueError("points outside the competences folder (symlink?)")
        data = files.read_capped(path, yamlio.MAX_BYTES)
        try:
            competence = Competence.model_validate(yamlio.load(data))
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            loc = ".".join(str(p) for p in err["loc"]) or "(document)"
            raise ValueError(f"{loc}: {err['msg']}") from exc
        if slugify(competence.name) != slug:
            raise ValueError(f"its name {competence.name!r} does not match the file name (expected {slug}.yaml)")
        return competence, data

    def _check_slug(self, name: str) -> str:
        return slugify(name, field="name")

    def _versions(self, slug: str, *, strict: bool = True) -> dict[Status, _Entry]:
        """Per folder holding this slug: its files and parsed current version.

        strict: an invalid current file raises PreconditionFailed; otherwise it is returned
        with `error` set (deletion must still be able to move it to the trash).
        """
        out: dict[Status, _Entry] = {}
        for status in STATUSES:
            slug_files = files.scan(self.folder(status)).slugs.get(slug)
            if slug_files is None:
                continue
            entry = _Entry(slug_files)
            if slug_files.current is not None:
                try:
                    entry.current, entry.data = self._load(slug_files.current, status, slug)
                except (ValueError, OSError) as exc:
                    if strict:
                        raise PreconditionFailed(
                            f"the stored file {status}/{slug}.yaml is invalid ({exc}); fix it or delete it first",
                            path=f"{status}/{slug}.yaml",
                        ) from exc
                    entry.error = str(exc)
            out[status] = entry
        return out

    def _highest(self, slug: str) -> int:
        return max([self._highest_trashed(slug), *(e.highest for e in self._versions(slug).values())])

    def _highest_trashed(self, slug: str) -> int:
        """Highest version of `slug` in the trash: a number once used is never given to other content."""
        top = 0
        trash = self.root / TRASH
        if not trash.is_dir():
            return 0
        for manifest in trash.glob(f"*{slug}*/deleted.yaml"):
            try:
                data = yamlio.load(files.read_capped(manifest, 64 * 1024))
            except (yamlio.YamlRejected, OSError):
                continue
            if isinstance(data, dict) and data.get("slug") == slug:
                top = max([top, *(v for v in data.get("versions") or [] if isinstance(v, int))])
        return top

    def list(self, status: Status | None = None) -> CompetenceListing:
        competences: list[CompetenceSummary] = []
        problems: list[Problem] = []
        for st in STATUSES if status is None else (status,):
            scan = files.scan(self.folder(st))
            problems.extend(Problem(path, st, reason) for path, reason in scan.strays)
            for slug, slug_files in sorted(scan.slugs.items()):
                if slug_files.current is None:
                    for path in slug_files.archives.values():
                        problems.append(Problem(path, st, f"an old version whose current file {slug}.yaml is missing"))
                    continue
                try:
                    competence, _ = self._load(slug_files.current, st, slug)
                except (ValueError, OSError) as exc:
                    problems.append(Problem(slug_files.current, st, f"invalid competence: {exc}"))
                    continue
                competences.append(
                    CompetenceSummary(
                        name=competence.name,
                        slug=slug,
                        status=st,
                        version=competence.version,
                        steps=len(competence.steps),
                        machine_id=competence.source.machine_id,
                        updated_at=_iso(slug_files.current.stat().st_mtime),
                        path=slug_files.current,
                        versions=tuple(sorted({*slug_files.archives, competence.version})),
                        parameters=tuple(p.model_dump(mode="json") for p in competence.parameters),
                    )
                )
        return CompetenceListing(competences, problems)

    def get(self, name: str, version: int | None = None, status: Status | None = None) -> LoadedCompetence:
        """The current version (the highest across folders when `status` is None), or the version named."""
        slug = self._check_slug(name)
        found = self._versions(slug)
        options: list[tuple[int, int, Status, Path, bool]] = []  # (version, validated first, status, path, current)
        for st, entry in found.items():
            if status is not None and st != status:
                continue
            rank = 1 if st == "validated" else 0
            if entry.current is not None and entry.files.current is not None:
                options.append((entry.current.version, rank, st, entry.files.current, True))
            options.extend((n, rank, st, path, False) for n, path in entry.files.archives.items())
        options = [o for o in options if (o[0] == version if version is not None else o[4])]
        if not options:
            where = f" ({status})" if status else ""
            which = f"version {version} of " if version is not None else ""
            raise NotFound(f"no {which}competence {name!r}{where}", name=name, version=version)
        number, _, st, path, is_current = max(options)
        shown = f"{st}/{path.name}"
        try:
            competence, data = self._load(path, st, slug)
        except (ValueError, OSError) as exc:
            raise PreconditionFailed(f"the stored file {shown} is invalid ({exc})", path=shown) from exc
        if competence.version != number:
            raise PreconditionFailed(
                f"{shown} says version {competence.version}; its file name says {number}", path=shown
            )
        return LoadedCompetence(
            workflow=competence.document(),
            name=competence.name,
            slug=slug,
            status=st,
            version=number,
            current=is_current,
            path=path,
            versions=found[st].all_versions(),
            machine_id=competence.source.machine_id,
            updated_at=_iso(path.stat().st_mtime),
            sha256=hashlib.sha256(data).hexdigest(),
        )

    # --- saving ----------------------------------------------------------------------
    def _prepare(
        self, name: str, ir: dict[str, Any], status: Status, machine_id: str | None
    ) -> tuple[str, Competence, _Entry | None]:
        slug = self._check_slug(name)
        if status not in STATUSES:
            raise InvalidInput(f"status must be one of {list(STATUSES)}", field="status")
        if not isinstance(ir, dict):
            raise InvalidInput("the workflow is a mapping (name, version, steps, ...)", field="ir")
        found = self._versions(slug)
        new_version = max([self._highest_trashed(slug), *(e.highest for e in found.values())]) + 1
        document = {**ir, "name": name, "version": new_version}
        if machine_id is not None:
            raw_source = ir.get("source")
            source: dict[str, Any] = raw_source if isinstance(raw_source, dict) else {}
            document["source"] = {**source, "machine_id": machine_id}
        competence = check_readback(_parse_ir(document, field_prefix="ir"), self.readback_urls)
        return slug, competence, found.get(status)

    def preview_save(self, name: str, ir: dict[str, Any], status: Status = "candidate") -> SavePreview:
        """What `save` would do (validated the same way); changes nothing."""
        slug, competence, entry = self._prepare(name, ir, status, None)
        current = entry.current if entry else None
        return SavePreview(
            name=competence.name,
            slug=slug,
            status=status,
            path=self.folder(status) / f"{slug}.yaml",
            new_version=competence.version,
            replaces_version=current.version if current else None,
            steps=len(competence.steps),
            diff=steps_diff(current, competence, label=slug),
        )

    def save(
        self, name: str, ir: dict[str, Any], status: Status = "candidate", machine_id: str | None = None
    ) -> SavedCompetence:
        with self._lock:
            slug, competence, entry = self._prepare(name, ir, status, machine_id)
            target = self.folder(status) / f"{slug}.yaml"
            replaced = self._keep_current(status, slug, entry)
            files.write_atomic(target, yamlio.dump(competence.document()).encode("utf-8"))
            return SavedCompetence(target, competence.name, competence.version, slug, status, replaced)

    def _keep_current(self, status: Status, slug: str, entry: _Entry | None) -> int | None:
        """Keep the current file as `<slug>.v<N>.yaml` before it is replaced."""
        if entry is None or entry.current is None or entry.files.current is None:
            return None
        archive = self.folder(status) / f"{slug}.v{entry.current.version}.yaml"
        try:
            files.keep_copy(entry.files.current, archive)
        except FileExistsError as exc:
            raise Conflict(
                f"{status}/{archive.name} already exists with other content; an administrator must sort out "
                f"version {entry.current.version} of {slug!r} before it can change",
                path=f"{status}/{archive.name}",
            ) from exc
        return entry.current.version

    # --- promotion ------------------------------------------------------------------
    def preview_promote(self, name: str) -> PromotePreview:
        slug = self._check_slug(name)
        found = self._versions(slug)
        cand = found.get("candidate")
        if cand is None or cand.current is None or cand.files.current is None:
            raise NotFound(f"no candidate competence {name!r} to promote", name=name)
        val = found.get("validated") or _Entry(files.SlugFiles())
        for n, path in cand.files.archives.items():
            clash = val.files.archives.get(n)
            if clash is not None and clash.read_bytes() != path.read_bytes():
                raise Conflict(
                    f"candidate and validated both hold a different version {n} of {slug!r}; an administrator "
                    "must sort them out first",
                    path=f"validated/{clash.name}",
                )
        new_version = cand.current.version if cand.current.version > val.highest else max(cand.highest, val.highest) + 1
        promoted = cand.current.model_copy(update={"version": new_version})
        return PromotePreview(
            name=cand.current.name,
            slug=slug,
            version=cand.current.version,
            new_version=new_version,
            replaces_version=val.current.version if val.current else None,
            steps=len(cand.current.steps),
            source=cand.files.current,
            target=self.folder("validated") / f"{slug}.yaml",
            diff=steps_diff(val.current, promoted, label=slug),
            binding={
                "slug": slug,
                "candidate_sha256": hashlib.sha256(cand.data).hexdigest(),
                "validated_sha256": hashlib.sha256(val.data).hexdigest() if val.current else None,
            },
        )

    def promote(self, name: str) -> SavedCompetence:
        """Move a candidate (current and older versions) to validated/.

        A validated current version is first kept as an archive; the candidate keeps its
        number unless validated/ already went past it (then it takes the next one).
        """
        with self._lock:
            preview = self.preview_promote(name)
            found = self._versions(preview.slug)
            cand = found["candidate"]
            assert cand.current is not None and cand.files.current is not None
            self._keep_current("validated", preview.slug, found.get("validated"))
            if preview.new_version == cand.current.version:
                data = cand.data
            else:
                data = yamlio.dump(cand.current.model_copy(update={"version": preview.new_version}).document()).encode()
            files.write_atomic(preview.target, data)
            validated = self.folder("validated")
            for path in cand.files.archives.values():
                if (validated / path.name).exists():  # same bytes (checked in the preview): one copy is enough
                    path.unlink()
                else:
                    files.move_new(path, validated / path.name)
            cand.files.current.unlink()
            files.fsync_dir(cand.files.current.parent)
            return SavedCompetence(
                preview.target,
                cand.current.name,
                preview.new_version,
                preview.slug,
                "validated",
                preview.replaces_version,
            )

    # --- deletion (to the trash) --------------------------------------------------------
    def preview_delete(self, name: str, version: int | None = None, status: Status | None = None) -> DeletePreview:
        slug = self._check_slug(name)
        found = self._versions(slug, strict=False)
        if status is not None and status not in found:
            raise NotFound(f"no {status} competence {name!r}", name=name, status=status)
        if status is None and not found:
            raise NotFound(f"no competence {name!r}", name=name)
        if status is None and len(found) > 1:
            raise InvalidInput(f"{name!r} exists as candidate and as validated; say which", field="status")
        st: Status = status if status is not None else next(iter(found))
        entry = found[st]
        current, current_path = entry.current, entry.files.current
        current_version = current.version if current else None
        restores: int | None = None
        if version is None:
            paths = [entry.files.archives[n] for n in sorted(entry.files.archives)]
            paths += [current_path] if current_path is not None else []
            versions = entry.all_versions()
            steps = len(current.steps) if current else 0
        elif current is not None and current_path is not None and version == current.version:
            paths, versions, steps = [current_path], (version,), len(current.steps)
            restores = max(entry.files.archives) if entry.files.archives else None
        elif version in entry.files.archives:
            paths, versions = [entry.files.archives[version]], (version,)
            try:
                steps = len(self._load(paths[0], st, slug)[0].steps)
            except (ValueError, OSError):
                steps = 0
        else:
            raise NotFound(f"no version {version} of {st} competence {name!r}", name=name, version=version)
        return DeletePreview(
            name=current.name if current else name,
            slug=slug,
            status=st,
            versions=versions,
            files=tuple(paths),
            steps=steps,
            restores_version=restores,
            current_after=None if version is None else (restores if current_path == paths[0] else current_version),
            binding={
                "slug": slug,
                "status": st,
                "files": {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths},
            },
        )

    def delete(self, name: str, version: int | None = None, status: Status | None = None) -> DeletedCompetence:
        """Move the competence (or one version of it) to competences/.trash/; never hard-deletes."""
        with self._lock:
            preview = self.preview_delete(name, version, status)
            now = self.clock.now()
            stamp = dt.datetime.fromtimestamp(now, dt.UTC).strftime("%Y%m%dT%H%M%SZ")
            label = f"{stamp}-{preview.status}-{preview.slug}" + (f"-v{version}" if version is not None else "")
            trash, n = self.root / TRASH / label, 1
            while trash.exists():
                n += 1
                trash = self.root / TRASH / f"{label}-{n}"
            trash.mkdir(parents=True)
            manifest = {
                "name": preview.name,
                "slug": preview.slug,
                "status": preview.status,
                "versions": list(preview.versions),
                "deleted_at": _iso(now),
                "files": [f"{preview.status}/{p.name}" for p in preview.files],
                "restored_as_current": preview.restores_version,
            }
            files.write_atomic(trash / "deleted.yaml", yamlio.dump(manifest).encode("utf-8"))
            for path in preview.files:
                files.move_new(path, trash / path.name)
            if preview.restores_version is not None:
                folder = self.folder(preview.status)
                files.move_new(
                    folder / f"{preview.slug}.v{preview.restores_version}.yaml", folder / f"{preview.slug}.yaml"
                )
            return DeletedCompetence(trash, preview.files, preview.versions)
