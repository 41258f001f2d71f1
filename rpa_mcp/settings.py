"""Configuration: the only module that reads the environment (prefix `RPA_`).

`Settings()` is built once by the composition root and injected everywhere else.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

RiskLevel = Literal["read", "draft", "write", "act", "dangerous"]
ApprovalMode = Literal["token", "human"]
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
PACKAGE_DIR = Path(__file__).resolve().parent


def _parse_approval(raw: str) -> dict[str, ApprovalMode]:
    modes: dict[str, ApprovalMode] = {"write": "token", "act": "human", "dangerous": "human"}
    raw = raw.strip()
    if raw in ("token", "human"):
        return {level: raw for level in modes}  # type: ignore[misc]  # raw narrowed above
    for part in filter(None, (p.strip() for p in raw.split(","))):
        level, _, mode = part.partition("=")
        level, mode = level.strip(), mode.strip()
        if level not in modes or mode not in ("token", "human"):
            raise ValueError(
                f"RPA_APPROVAL: {part!r} is not LEVEL=MODE with LEVEL in write|act|dangerous "
                "and MODE in token|human (example: write=token,act=human,dangerous=human)"
            )
        modes[level] = mode  # type: ignore[assignment]  # validated just above
    return modes


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="RPA_", extra="ignore", frozen=True)

    data_dir: Path = Field(Path("./data"), description="Where the store, keys and competences live.")
    host: str = Field("127.0.0.1", description="Bind address.")
    port: int = Field(8765, ge=0, le=65535, description="Bind port (0 = any free port).")
    public_url: str | None = Field(None, description="Externally visible base URL (behind a proxy).")
    allowed_hosts: list[str] = Field(default_factory=list, description="Extra Host values accepted (DNS rebinding).")
    allowed_origins: list[str] = Field(default_factory=list, description="Extra Origin values accepted.")
    jwt_secret: SecretStr | None = Field(None, description="Signing key(s), comma-separated: first signs, all verify.")
    jwt_issuer: str = Field("rpa-mcp", description="`iss` of access and confirmation tokens.")
    jwt_audience: str = Field("rpa-mcp", description="`aud` of access tokens.")
    api_token: SecretStr | None = Field(None, description="Static bearer token accepted for desktop agents.")
    auth_disabled: bool = Field(False, description="Local development only: refused on a non-loopback bind.")
    mcp_confirmation_ttl: int = Field(300, ge=10, le=86400, description="Lifetime of propose/apply tokens (s).")
    approval: str = Field("write=token,act=human,dangerous=human", description="token|human per risk level.")
    watchdog_enabled: bool = True
    watchdog_orphan_timeout_s: float = Field(30.0, gt=0)
    watchdog_scan_interval_s: float = Field(10.0, gt=0)
    watchdog_max_resends: int = Field(2, ge=0, le=10)
    validator_v2_enabled: bool = True
    dialog_resolver_enabled: bool = True
    store_url: str = Field("", description="Empty = SQLite under data_dir; postgresql://... not yet supported.")
    catalog_dir: Path | None = Field(None, description="Override the shipped catalog/ folder.")
    prompts_dir: Path | None = Field(None, description="Override the shipped prompts/ folder.")
    max_body_bytes: int = Field(16 * 1024 * 1024, ge=1024, description="Largest accepted request body.")
    max_image_pixels: int = Field(40_000_000, ge=1, description="Largest accepted image (width x height).")
    rate_limit_per_minute: int = Field(600, ge=1, description="Tool calls per identity and operation per minute.")
    auth_lockout_failures: int = Field(20, ge=1, description="Bad tokens from one client before a lockout.")
    auth_lockout_s: float = Field(60.0, gt=0)
    llm_judge_url: str | None = Field(None, description="OpenAI-compatible endpoint for the optional judge checker.")
    llm_judge_model: str | None = None
    llm_judge_api_key: SecretStr | None = None
    log_level: str = "INFO"

    @field_validator("approval")
    @classmethod
    def _check_approval(cls, value: str) -> str:
        _parse_approval(value)
        return value

    @property
    def approval_modes(self) -> dict[str, ApprovalMode]:
        return _parse_approval(self.approval)

    @property
    def is_loopback(self) -> bool:
        return self.host in LOOPBACK_HOSTS or self.host.startswith("127.")

    @property
    def catalog_path(self) -> Path:
        return self.catalog_dir or shipped_dir("catalog")

    @property
    def prompts_path(self) -> Path:
        return self.prompts_dir or shipped_dir("prompts")


def shipped_dir(name: str) -> Path:
    """`catalog/` or `prompts/`: inside the wheel, or at the top of a source checkout."""
    inside = PACKAGE_DIR / name
    return inside if inside.is_dir() else PACKAGE_DIR.parent / name
