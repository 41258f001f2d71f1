"""Composition root: settings -> adapters -> services. The only place that picks implementations.

Each area adds its service as one field of `Services` and one line in `build_services`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rpa_mcp.auth.keys import load_signing_keys
from rpa_mcp.auth.tokens import AccessTokens, ConfirmationCodec
from rpa_mcp.clock import Clock, SystemClock
from rpa_mcp.competences import CompetenceStore
from rpa_mcp.confirmation.service import ConfirmationService
from rpa_mcp.dialogs.service import DialogService
from rpa_mcp.ops.ratelimit import RateLimiter
from rpa_mcp.ops.registry import Notifier
from rpa_mcp.replay.service import ReplayService
from rpa_mcp.settings import Settings
from rpa_mcp.shadow.calibration import Calibration
from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.store.audit import CHECKPOINT_FILE, KEY_FILE, AuditLog, load_audit_key
from rpa_mcp.store.confirmations import SqliteProposalRepository
from rpa_mcp.store.coordination import Coordination, Leadership, SharedRateLimiter
from rpa_mcp.store.db import Database, open_database
from rpa_mcp.store.migrations import require_current
from rpa_mcp.store.replay import ReplayRepository
from rpa_mcp.store.traces import TraceStore
from rpa_mcp.validation_adapters import build_validator
from rpa_mcp.vision.ocr import OcrEngine, RapidOcrEngine


@dataclass
class Services:
    settings: Settings
    db: Database
    clock: Clock
    ocr: OcrEngine
    notifier: Notifier = field(default_factory=Notifier)
    # Area services, filled by build_services (typed loosely to keep areas independent).
    access_tokens: Any = None
    audit: Any = None
    rate_limiter: Any = None
    confirmations: Any = None
    competences: Any = None
    catalogs: Any = None
    traces: Any = None
    shadow: Any = None
    dialogs: Any = None
    validator: Any = None
    replay: Any = None
    coordination: Any = None
    leadership: Any = None


def build_services(
    settings: Settings,
    *,
    clock: Clock | None = None,
    ocr: OcrEngine | None = None,
    db: Database | None = None,
) -> Services:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = db or open_database(settings)
    require_current(db)  # refuses an older schema, naming `rpa-mcp db upgrade`
    services = Services(
        settings=settings,
        db=db,
        clock=clock or SystemClock(),
        ocr=ocr or RapidOcrEngine(),
    )
    services.coordination = Coordination(db, services.clock)
    services.leadership = Leadership(db)
    shared_db = db.dialect == "postgres"
    # Replicas must agree on every key: from settings, else (PostgreSQL) created once in the database.
    keys = (
        [services.coordination.shared_key("signing")]
        if shared_db and settings.jwt_secret is None
        else load_signing_keys(settings)
    )
    services.access_tokens = AccessTokens(
        keys,
        issuer=settings.jwt_issuer,
        audience=settings.jwt_audience,
        api_token=settings.api_token.get_secret_value() if settings.api_token else None,
        clock=services.clock,
    )
    services.audit = AuditLog(
        services.db,
        services.clock,
        key=audit_key(settings, shared_db=shared_db),
        checkpoint=settings.audit_checkpoint or settings.data_dir / CHECKPOINT_FILE,
    )
    local_limits = RateLimiter(services.clock, per_minute=settings.rate_limit_per_minute)
    services.rate_limiter = (
        SharedRateLimiter(services.coordination, local_limits, per_minute=settings.rate_limit_per_minute)
        if shared_db
        else local_limits
    )
    services.confirmations = ConfirmationService(
        repo=SqliteProposalRepository(services.db),
        codec=ConfirmationCodec(keys, issuer=settings.jwt_issuer, audience=settings.jwt_audience, clock=services.clock),
        clock=services.clock,
        ttl_s=settings.mcp_confirmation_ttl,
        approval_modes=dict(settings.approval_modes),
        approval_base_url=public_base_url(settings),
        audit=services.audit,
    )
    # --- areas (one line each) ---
    services.competences = CompetenceStore(settings.data_dir / "competences", services.clock)
    services.traces = TraceStore(services.db)
    services.shadow = ShadowService(
        services.traces,
        services.ocr,
        services.clock,
        notify=lambda uri: services.notifier.resource_updated(uri),
        max_pixels=settings.max_image_pixels,
        max_image_bytes=settings.max_body_bytes,
        calibration=Calibration.from_catalog(settings.catalog_path),
    )
    services.dialogs = DialogService.from_catalog_dir(
        settings.catalog_path, services.ocr, resolver_enabled=settings.dialog_resolver_enabled
    )
    services.validator = build_validator(settings, services.ocr, services.dialogs)
    services.replay = ReplayService(ReplayRepository(services.db), services)
    return services


def audit_key(settings: Settings, *, shared_db: bool) -> bytes:
    """The audit chain's key, never stored in the database. Replicas must share it: with
    PostgreSQL it must be configured (or its file put in place), not created per replica."""
    secret = settings.audit_key.get_secret_value() if settings.audit_key else None
    if shared_db and secret is None and not (settings.data_dir / KEY_FILE).exists():
        from rpa_mcp.auth.keys import ConfigurationError

        raise ConfigurationError(
            "with RPA_STORE_URL=postgresql://... set RPA_AUDIT_KEY (at least 32 bytes, the same on every "
            f"replica) or put the same {KEY_FILE} in every replica's RPA_DATA_DIR"
        )
    return load_audit_key(secret, settings.data_dir)


def public_base_url(settings: Settings) -> str:
    if settings.public_url:
        return settings.public_url.rstrip("/")
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    return f"http://{'127.0.0.1' if host == '0.0.0.0' else host}:{settings.port}"
