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
from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.store.audit import AuditLog
from rpa_mcp.store.confirmations import SqliteProposalRepository
from rpa_mcp.store.db import Database
from rpa_mcp.store.replay import ReplayRepository
from rpa_mcp.store.traces import TraceStore
from rpa_mcp.validation_adapters import build_validator
from rpa_mcp.vision.budget import FrameCache, ImageWork
from rpa_mcp.vision.ocr import OcrEngine, RapidOcrEngine


@dataclass
class Services:
    settings: Settings
    db: Database
    clock: Clock
    ocr: OcrEngine
    notifier: Notifier = field(default_factory=Notifier)
    frames: FrameCache = field(default_factory=lambda: FrameCache(256 * 1024 * 1024))  # shared byte budget
    image_work: ImageWork = field(default_factory=lambda: ImageWork(2))  # concurrent decode + analysis
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


def build_services(
    settings: Settings,
    *,
    clock: Clock | None = None,
    ocr: OcrEngine | None = None,
    db: Database | None = None,
) -> Services:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    services = Services(
        settings=settings,
        db=db or Database(settings.data_dir / "rpa.sqlite3"),
        clock=clock or SystemClock(),
        ocr=ocr or RapidOcrEngine(),
        frames=FrameCache(settings.frame_cache_bytes),
        image_work=ImageWork(settings.image_work_slots),
    )
    keys = load_signing_keys(settings)
    services.access_tokens = AccessTokens(
        keys,
        issuer=settings.jwt_issuer,
        audience=settings.jwt_audience,
        api_token=settings.api_token.get_secret_value() if settings.api_token else None,
        clock=services.clock,
    )
    services.audit = AuditLog(services.db, services.clock)
    services.rate_limiter = RateLimiter(services.clock, per_minute=settings.rate_limit_per_minute)
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
        frames=services.frames,
        max_request_pixels=settings.max_request_pixels,
    )
    services.dialogs = DialogService.from_catalog_dir(
        settings.catalog_path, services.ocr, resolver_enabled=settings.dialog_resolver_enabled
    )
    services.validator = build_validator(settings, services.ocr, services.dialogs)
    services.replay = ReplayService(ReplayRepository(services.db), services)
    return services


def public_base_url(settings: Settings) -> str:
    if settings.public_url:
        return settings.public_url.rstrip("/")
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    return f"http://{'127.0.0.1' if host == '0.0.0.0' else host}:{settings.port}"
