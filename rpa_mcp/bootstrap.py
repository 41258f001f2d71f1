"""Composition root: settings -> adapters -> services. The only place that picks implementations.

`build_services` builds every collaborator once and hands each service exactly the ones it
needs; `Services` is what the surfaces (MCP, REST, function calling, the approval pages)
and the operations' handlers see. A collaborator that cannot be built is a start-up error.

Tests, the demo and the benchmarks replace an adapter by passing it (a fake clock, OCR
engine, notifier, validator, dialog resolver, grounding model or language model runner).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from rpa_mcp import approval_alerts
from rpa_mcp.auth.console_credentials import ConsoleCredentials
from rpa_mcp.auth.keys import load_signing_keys
from rpa_mcp.auth.provider import ProviderAccessTokens, ProviderKeys
from rpa_mcp.auth.throttle import FailedSignIns, SignInThrottle
from rpa_mcp.auth.tokens import AccessTokens, ConfirmationCodec
from rpa_mcp.clock import Clock, SystemClock
from rpa_mcp.competences import CompetenceStore
from rpa_mcp.competences.ports import Competences
from rpa_mcp.confirmation.service import ConfirmationService
from rpa_mcp.dialogs.service import DialogService
from rpa_mcp.llm import build_action_runner, build_target_locator
from rpa_mcp.metrics_prometheus import PrometheusMetrics
from rpa_mcp.notify import Notifier
from rpa_mcp.ops.ratelimit import RateLimiter
from rpa_mcp.readback_http import HttpRecordReader, ThreadBackground
from rpa_mcp.replay.model import ReplayConfig
from rpa_mcp.replay.ports import DialogResolverPort, ServerActionRunner, ValidatorPort, VlmLocator
from rpa_mcp.replay.service import ReplayService
from rpa_mcp.replay.thresholds import load_thresholds
from rpa_mcp.replay.unconfigured import NoServerActionRunner, NoVlmLocator
from rpa_mcp.settings import Settings
from rpa_mcp.shadow.calibration import Calibration
from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.store.audit import CHECKPOINT_FILE, KEY_FILE, AuditLog, AuditRunLedger, load_audit_key
from rpa_mcp.store.competences import DbCompetenceStore
from rpa_mcp.store.confirmations import SqliteProposalRepository
from rpa_mcp.store.coordination import Coordination, Leadership, SharedRateLimiter
from rpa_mcp.store.db import Database, open_database
from rpa_mcp.store.migrations import require_current
from rpa_mcp.store.notify import LocalWakeBus, PgBus, PgChangeRelay, PgWakeBus, wake_bus
from rpa_mcp.store.replay import ReplayRepository
from rpa_mcp.store.revocations import TokenRevocations
from rpa_mcp.store.sign_in_failures import SharedSignInThrottle
from rpa_mcp.store.traces import TraceStore
from rpa_mcp.validation import Validator
from rpa_mcp.validation_adapters import build_validator
from rpa_mcp.vision.budget import FrameCache, ImageWork
from rpa_mcp.vision.cpu import fast_int8_dot
from rpa_mcp.vision.int8 import int8_recognizer, wheel_model
from rpa_mcp.vision.latin_head import latin_recognizer
from rpa_mcp.vision.ocr import READ_CACHE_ENTRIES, OcrEngine, RapidOcrEngine, default_workers

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Services:
    """Every service and adapter of one server, built once by `build_services`."""

    settings: Settings
    db: Database
    clock: Clock
    ocr: OcrEngine
    notifier: Notifier
    access_tokens: AccessTokens
    console_credentials: ConsoleCredentials  # what people paste to sign in to the console (development)
    audit: AuditLog
    rate_limiter: RateLimiter | SharedRateLimiter
    sign_in_throttle: FailedSignIns  # failed sign-ins per address (bearer tokens and the console)
    frames: FrameCache  # decoded screenshots, one byte budget for every session
    image_work: ImageWork  # how many image decodes/analyses run at once
    confirmations: ConfirmationService
    competences: Competences
    traces: TraceStore
    shadow: ShadowService
    dialogs: DialogService
    validator: Validator
    vlm: VlmLocator
    server_actions: ServerActionRunner
    replay: ReplayService
    coordination: Coordination
    leadership: Leadership
    wakeups: LocalWakeBus | PgWakeBus  # its start() also starts the change relay's listener (PostgreSQL)
    provider_tokens: ProviderAccessTokens | None  # the identity provider's access tokens, if configured
    metrics: PrometheusMetrics  # counted by the replay engine and the image work, read at GET /metrics


def build_services(
    settings: Settings,
    *,
    clock: Clock | None = None,
    ocr: OcrEngine | None = None,
    dialog_ocr: OcrEngine | None = None,
    db: Database | None = None,
    notifier: Notifier | None = None,
    replay_validator: ValidatorPort | None = None,
    replay_dialogs: DialogResolverPort | None = None,
    vlm: VlmLocator | None = None,
    server_actions: ServerActionRunner | None = None,
) -> Services:
    """Build the server's services from `settings`.

    `replay_validator` and `replay_dialogs` replace what the replay engine asks to verify an
    action and to answer a dialog (by default the validator and the dialog service below);
    `vlm` and `server_actions` default to the models RPA_VLM_URL / RPA_LLM_URL configure, else to
    implementations that refuse with what to configure.
    """
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = db or open_database(settings)
    require_current(db)  # refuses an older schema, naming `rpa-mcp db upgrade`
    clock = clock or SystemClock()
    injected = ocr is not None
    ocr = ocr or build_ocr(settings)
    # an injected engine (a test's) reads for the dialogs too; else they get the int8 one
    dialog_ocr = dialog_ocr or (ocr if injected else build_dialog_ocr(settings, ocr))
    shared_db = db.dialect == "postgres"
    # Replicas tell each other at once over one listening connection: wake-ups and changes.
    bus = PgBus(db) if shared_db else None
    wakeups = wake_bus(db, bus)
    notifier = notifier or Notifier(relay=PgChangeRelay(bus) if bus is not None else None)
    coordination = Coordination(db, clock)
    # Replicas must agree on every key: from settings, else (PostgreSQL) created once in the database.
    keys = (
        [coordination.shared_key("signing")]
        if shared_db and settings.jwt_secret is None
        else load_signing_keys(settings)
    )
    audit = AuditLog(
        db,
        clock,
        key=audit_key(settings, shared_db=shared_db),
        checkpoint=settings.audit_checkpoint or settings.data_dir / CHECKPOINT_FILE,
    )
    local_limits = RateLimiter(clock, per_minute=settings.rate_limit_per_minute)
    rate_limiter = (
        SharedRateLimiter(coordination, local_limits, per_minute=settings.rate_limit_per_minute)
        if shared_db
        else local_limits
    )
    traces = TraceStore(db)
    dialogs = DialogService.from_catalog_dir(
        settings.catalog_path, dialog_ocr, resolver_enabled=settings.dialog_resolver_enabled
    )
    validator = build_validator(settings, ocr, dialogs, fast_ocr=dialog_ocr)
    replays = ReplayRepository(db)
    image_work = ImageWork(
        settings.image_work_slots,
        reserved=min(settings.image_work_reserved_slots, settings.image_work_slots - 1),
        per_identity=settings.image_work_per_identity,
        queue_per_identity=settings.image_work_queue_per_identity,
    )
    metrics = PrometheusMetrics(queue=replays.open_action_counts, running=lambda: image_work.running)
    image_work.metrics = metrics
    frames = FrameCache(settings.frame_cache_bytes)
    competences: Competences
    if shared_db:
        competences = DbCompetenceStore(  # shared by the replicas
            db, clock, root=settings.data_dir / "competences", readback_urls=settings.readback_urls
        )
    else:
        files = CompetenceStore(settings.data_dir / "competences", clock, readback_urls=settings.readback_urls)
        files.create_folders()  # where people find, and may drop, the competences' YAML files
        competences = files
    vlm = vlm or build_target_locator(settings) or NoVlmLocator()
    server_actions = server_actions or build_action_runner(settings) or NoServerActionRunner()
    revocations = TokenRevocations(db, clock)
    return Services(
        settings=settings,
        db=db,
        clock=clock,
        ocr=ocr,
        notifier=notifier,
        access_tokens=AccessTokens(
            keys,
            issuer=settings.jwt_issuer,
            audience=settings.jwt_audience,
            api_token=settings.api_token.get_secret_value() if settings.api_token else None,
            clock=clock,
            max_ttl_s=settings.access_token_max_ttl_s,
            revoked_at=revocations.revoked_at,
        ),
        console_credentials=ConsoleCredentials(
            keys,
            issuer=settings.jwt_issuer,
            audience=settings.jwt_audience,
            clock=clock,
            max_ttl_s=settings.access_token_max_ttl_s,
            revoked_at=revocations.revoked_at,  # `rpa-mcp revoke NAME` ends a person's credentials too
        ),
        audit=audit,
        rate_limiter=rate_limiter,
        sign_in_throttle=sign_in_throttle(settings, db, clock),
        frames=frames,
        image_work=image_work,
        confirmations=ConfirmationService(
            repo=SqliteProposalRepository(db),
            codec=ConfirmationCodec(keys, issuer=settings.jwt_issuer, audience=settings.jwt_audience, clock=clock),
            clock=clock,
            ttl_s=settings.mcp_confirmation_ttl,
            approval_modes=dict(settings.approval_modes),
            approval_base_url=public_base_url(settings),
            audit=audit,
            changed=notifier.resource_updated,
            links=settings.linked_identities,
            alerts=approval_alerts.from_settings(settings, clock),
        ),
        competences=competences,
        traces=traces,
        shadow=ShadowService(
            traces,
            ocr,
            clock,
            notify=notifier.resource_updated,
            max_pixels=settings.max_image_pixels,
            max_image_bytes=settings.max_body_bytes,
            frames=frames,
            max_request_pixels=settings.max_request_pixels,
            calibration=Calibration.from_catalog(settings.catalog_path),
        ),
        dialogs=dialogs,
        validator=validator,
        vlm=vlm,
        server_actions=server_actions,
        replay=ReplayService(
            replays,
            clock=clock,
            config=ReplayConfig.from_settings(settings),
            thresholds=load_thresholds(settings.catalog_path / "thresholds.yaml"),
            validator=replay_validator or validator,
            dialogs=replay_dialogs or dialogs,
            notifier=notifier,
            ocr=ocr,
            vlm=vlm,
            server_actions=server_actions,
            ledger=AuditRunLedger(audit),
            wakeups=wakeups if shared_db else None,  # one process: its own events suffice
            image_work=image_work,
            metrics=metrics,
            records=HttpRecordReader(settings.readback_token),
            background=ThreadBackground(),
            frames=frames,  # a reported screen decoded once, for its resolution and its report
        ),
        coordination=coordination,
        leadership=Leadership(db),
        wakeups=wakeups,
        provider_tokens=build_provider_tokens(settings, clock),
        metrics=metrics,
    )


REC_MODEL = "PP-OCRv6_rec_small.onnx"  # rapidocr 3.x's recognizer (its wheel's default)


def build_ocr(settings: Settings, *, cache_entries: int = READ_CACHE_ENTRIES) -> RapidOcrEngine:
    """The checkers' engine: the float recognizer, with its Latin head (vision.latin_head, made under
    data_dir/models at the first read) unless RPA_OCR_LATIN_HEAD=false. `cache_entries`: crops whose
    reading is remembered (0 for a benchmark that measures every read)."""
    threads, workers = settings.ocr_threads, ocr_workers(settings)
    if not settings.ocr_latin_head:
        return RapidOcrEngine(threads=threads, workers=workers, cache_entries=cache_entries, lines_alone=True)
    models = settings.data_dir / "models"
    return RapidOcrEngine(
        recognizer=lambda: latin_recognizer(wheel_model(REC_MODEL), models),
        threads=threads,
        workers=workers,
        cache_entries=cache_entries,
        lines_alone=True,
    )


def ocr_workers(settings: Settings) -> int:
    """RPA_OCR_WORKERS, or for 0 the CPUs this process may use, at most four (vision.ocr)."""
    return settings.ocr_workers or default_workers()


def prepare_ocr(services: Services) -> threading.Thread:
    """The OCR engines' models loaded in the background as the server starts: the dialog engine's int8
    recognizer and the Latin heads are made under data_dir/models at their first use (2–4 s of CPU on a
    new data folder, then a load), which was otherwise paid inside the first replay's validation. An engine
    without `prepare` (a test's) is left as it is; a failure is logged, the first read tries again."""
    engines = [services.ocr]
    if services.validator.fast_ocr is not None:
        engines.append(services.validator.fast_ocr)

    def run() -> None:
        for engine in engines:
            prepare = getattr(engine, "prepare", None)
            if prepare is None:
                continue
            try:
                prepare()
            except Exception as exc:  # the engine loads at its first read instead, as before
                log.warning("OCR models not prepared at start (%s): they load at the first read", exc)

    thread = threading.Thread(target=run, name="prepare-ocr", daemon=True)
    thread.start()
    return thread


def use_int8(settings: Settings) -> bool:
    """RPA_DIALOG_OCR_INT8 as given, or for `auto` whether this CPU runs int8 fast (vision.cpu)."""
    if settings.dialog_ocr_int8 != "auto":
        return bool(settings.dialog_ocr_int8)
    fast = fast_int8_dot()
    log.info(
        "dialog OCR: %s (RPA_DIALOG_OCR_INT8=auto)",
        "int8 recognizer" if fast else "float recognizer, this CPU has no int8 dot-product instructions",
    )
    return fast


def build_dialog_ocr(settings: Settings, ocr: OcrEngine, *, cache_entries: int = READ_CACHE_ENTRIES) -> OcrEngine:
    """The dialog classifier's engine: its own, recognising with the int8 recognizer made under
    data_dir/models at its first read (vision.int8), cut to its Latin head like the checkers' one
    unless RPA_OCR_LATIN_HEAD=false, reading crops narrowed to RPA_DIALOG_OCR_WIDTH of their width;
    `ocr` itself (full width) when RPA_DIALOG_OCR_INT8=false (or `auto` on a CPU without int8
    dot-product instructions).
    The checkers' reads (a target's label, a tab's) stay on the float model: they compare a read
    label exactly, the classifier fuzzily with the catalog (docs/decisions/ocr-engine.md)."""
    if not use_int8(settings):
        return ocr
    models = settings.data_dir / "models"

    def recognizer() -> Path | None:
        model = int8_recognizer(models)
        return latin_recognizer(model, models) if settings.ocr_latin_head else model

    return RapidOcrEngine(
        recognizer=recognizer,
        threads=settings.ocr_threads,
        workers=ocr_workers(settings),
        width=settings.dialog_ocr_width,
        cache_entries=cache_entries,
    )


def audit_key(settings: Settings, *, shared_db: bool) -> bytes:
    """The audit chain's key, never stored in the database. Replicas must share it: with
    PostgreSQL it must be configured (or its file put in place), not created per replica."""
    secret = settings.audit_key.get_secret_value() if settings.audit_key else None
    if shared_db and secret is None and not (settings.data_dir / KEY_FILE).exists():
        from rpa_mcp.errors import ConfigurationError

        raise ConfigurationError(
            "with RPA_STORE_URL=postgresql://... set RPA_AUDIT_KEY (at least 32 bytes, the same on every "
            f"replica) or put the same {KEY_FILE} in every replica's RPA_DATA_DIR"
        )
    return load_audit_key(secret, settings.data_dir)


def sign_in_throttle(settings: Settings, db: Database, clock: Clock) -> FailedSignIns:
    """One budget of failed sign-ins per address: shared by the replicas on PostgreSQL; in this
    process's memory on SQLite (one process, and a failure costs no write lock)."""
    failures, window_s = settings.auth_lockout_failures, settings.auth_lockout_s
    if db.dialect == "postgres":
        return SharedSignInThrottle(db, clock, failures=failures, window_s=window_s)
    return SignInThrottle(clock, failures=failures, window_s=window_s)


def build_provider_tokens(settings: Settings, clock: Clock) -> ProviderAccessTokens | None:
    if not settings.oidc_issuer:
        return None
    keys = ProviderKeys(settings.oidc_issuer, clock=clock, ttl_s=settings.oidc_keys_cache_s)
    audience = settings.oidc_audience or f"{public_base_url(settings)}/mcp"
    return ProviderAccessTokens(
        keys, audiences=[audience], roles_claim=settings.oidc_roles_claim, algorithms=settings.oidc_algorithms
    )


def public_base_url(settings: Settings) -> str:
    if settings.public_url:
        return settings.public_url.rstrip("/")
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    return f"http://{'127.0.0.1' if host == '0.0.0.0' else host}:{settings.port}"
