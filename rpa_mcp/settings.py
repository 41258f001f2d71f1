"""Configuration: the only module that reads the environment (prefix `RPA_`).

`Settings()` is built once by the composition root and injected everywhere else.
"""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from rpa_mcp.identity import IdentityLinks

RiskLevel = Literal["read", "draft", "write", "act", "dangerous"]
ApprovalMode = Literal["token", "human"]
PACKAGE_DIR = Path(__file__).resolve().parent
# A list setting: `a,b` or a JSON list `["a","b"]` in the environment.
NameList = Annotated[list[str], NoDecode]


def is_loopback_host(host: str) -> bool:
    """`localhost`, or an address that parses as a loopback IP (`127.attacker.example` is a name, not one)."""
    name = host.strip().lower().removeprefix("[").removesuffix("]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


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
    allowed_hosts: NameList = Field(
        default_factory=list, description="Extra Host values accepted (DNS rebinding), comma-separated."
    )
    allowed_origins: NameList = Field(
        default_factory=list, description="Extra Origin values accepted, comma-separated."
    )
    jwt_secret: SecretStr | None = Field(None, description="Signing key(s), comma-separated: first signs, all verify.")
    jwt_issuer: str = Field("rpa-mcp", description="`iss` of access and confirmation tokens.")
    jwt_audience: str = Field("rpa-mcp", description="`aud` of access tokens.")
    api_token: SecretStr | None = Field(None, description="Static bearer token accepted for desktop agents.")
    auth_disabled: bool = Field(False, description="Local development only: refused on a non-loopback bind.")
    mcp_confirmation_ttl: int = Field(
        300, ge=10, le=86400, description="Lifetime of propose/apply tokens (s); at least 10, no grace after it."
    )
    approval: str = Field("write=token,act=human,dangerous=human", description="token|human per risk level.")
    watchdog_enabled: bool = True
    watchdog_orphan_timeout_s: float = Field(30.0, gt=0)
    watchdog_scan_interval_s: float = Field(10.0, gt=0)
    watchdog_max_resends: int = Field(2, ge=0, le=10)
    replay_preflight: bool = Field(
        True,
        description="Refuse a replay before its first input when the workstation is not connected or does not show "
        "what the first step needs (window, screen size, target), from its last poll and report.",
    )
    replay_presence_s: float = Field(
        90.0, gt=0, description="A workstation that has not polled for replay actions for longer is not connected."
    )
    replay_screen_fresh_s: float = Field(
        120.0, gt=0, description="The workstation's last reported screen is checked when it is at most this old."
    )
    validator_v2_enabled: bool = True
    dialog_resolver_enabled: bool = True
    dialog_ocr_int8: bool | Literal["auto"] = Field(
        False,
        description="The dialog classifier reads with an int8 copy of the text recognizer (made once under "
        "data_dir/models, ~0.6x the CPU time on a CPU with int8 dot-product instructions: AVX-512 VNNI, "
        "AVX-VNNI, Arm dotprod); auto = only on such a CPU (elsewhere it is no faster). Off by default: on "
        "real programs' dialogs it names fewer than the float model (docs/decisions/ocr-engine.md), and the "
        "same screen would read differently on another CPU.",
    )
    dialog_ocr_width: float = Field(
        0.8,
        ge=0.5,
        le=1.0,
        description="The dialog classifier's engine recognises a crop at this share of its own width (text "
        "narrowed: the recognizer's cost is linear in its input's width); 1 reads at full width. Only for the "
        "classifier's own int8 engine (see dialog_ocr_int8); the checkers' reads stay at full width.",
    )
    ocr_latin_head: bool = Field(
        True,
        description="Text recognition uses a copy of the recognizer whose output keeps only the classes of "
        "Latin-script text (made once under data_dir/models; a read in ~0.87x the CPU time, ~0.78x on the int8 "
        "copy); false = the recognizer's full dictionary (Chinese, Japanese, Korean characters included).",
    )
    ocr_threads: int = Field(
        1,
        ge=1,
        le=16,
        description="onnxruntime threads per text recognition. 1 (default) keeps the CPU per read lowest, "
        "for a server validating for several workstations at once; 2 on a 2-core server that serves one "
        "workstation classifies and validates in ~0.65-0.8x the wall time for ~1.25-1.65x the CPU.",
    )
    ocr_workers: int = Field(
        0,
        ge=0,
        le=16,
        description="Crops of one classification or check recognised at once, each on its own thread (one "
        "inference per crop either way: the same readings, the same CPU). 0 (default) = the CPUs this process "
        "may use, at most 4; 1 = one after the other.",
    )
    store_url: SecretStr | None = Field(
        None,
        description="Empty = SQLite under data_dir; postgresql://user@host:port/db to share one database between "
        "replicas (libpq URL: TLS options such as sslmode/sslrootcert pass through).",
    )
    store_password: SecretStr | None = Field(None, description="PostgreSQL password, when not in RPA_STORE_URL.")
    store_pool_size: int = Field(
        10,
        ge=2,
        le=200,
        description="Connections per replica to PostgreSQL, in each of its two pools (transactions and worker-thread "
        "reads; the event loop's small reads), plus one that listens and the watchdog leader's.",
    )
    audit_key: SecretStr | None = Field(
        None,
        description="HMAC key of the audit chain (>= 32 bytes; never stored in the database). Default: "
        "audit.key in data_dir, created once. Every replica needs the same key.",
    )
    audit_checkpoint: Path | None = Field(
        None, description="File keeping the audit chain's head outside the database (default: data_dir/audit.head)."
    )
    catalog_dir: Path | None = Field(None, description="Override the shipped catalog/ folder.")
    prompts_dir: Path | None = Field(None, description="Override the shipped prompts/ folder.")
    max_body_bytes: int = Field(16 * 1024 * 1024, ge=1024, description="Largest accepted request body.")
    max_image_pixels: int = Field(40_000_000, ge=1, description="Largest accepted image (width x height).")
    rate_limit_per_minute: int = Field(600, ge=1, description="Tool calls per identity and operation per minute.")
    auth_lockout_failures: int = Field(
        20,
        ge=1,
        description="Failed sign-ins per address and window; more get 429 (valid tokens always pass).",
    )
    auth_lockout_s: float = Field(60.0, gt=0, description="The window of `auth_lockout_failures` (s).")
    # --- abuse limits (each refusal is a 4xx naming the limit) ---
    max_json_depth: int = Field(64, ge=8, le=512, description="Deepest JSON nesting accepted in a request.")
    max_json_int_digits: int = Field(32, ge=16, le=4000, description="Longest JSON integer accepted (digits).")
    max_schema_bytes: int = Field(65536, ge=1024, description="Largest caller-supplied JSON Schema (bytes of JSON).")
    max_schema_depth: int = Field(32, ge=4, le=256, description="Deepest caller-supplied JSON Schema (nesting).")
    frame_cache_bytes: int = Field(
        256 * 1024 * 1024, ge=0, description="Decoded screenshots kept in memory, all sessions together (bytes, LRU)."
    )
    image_work_slots: int = Field(3, ge=1, le=64, description="Image decodes/analyses running at once; others wait.")
    image_work_reserved_slots: int = Field(
        1,
        ge=0,
        le=63,
        description="Of the image-work slots, this many only for agents (validation, target resolution, "
        "observation, a replay's check of a reported action); at most slots - 1.",
    )
    image_work_per_identity: int = Field(
        1, ge=1, le=64, description="Image operations one identity runs at once (its other calls wait their turn)."
    )
    image_work_queue_per_identity: int = Field(
        4,
        ge=0,
        le=1000,
        description="Image operations one identity may have waiting; one more is refused 429 image-work-busy "
        "with Retry-After.",
    )
    max_request_pixels: int = Field(
        80_000_000, ge=1, description="Pixels of all images of one request together (a batch of screenshots)."
    )
    # --- the HTTP server's connections (docs/decisions/http-server.md); a reverse proxy keeps the same
    http_header_timeout_s: float = Field(
        10.0, gt=0, le=300, description="A request's line and headers must arrive within this (s); else 408, closed."
    )
    http_body_timeout_s: float = Field(
        30.0, gt=0, le=3600, description="A request's whole body must arrive within this after its head (s); else 408."
    )
    http_idle_timeout_s: float = Field(
        5.0,
        gt=0,
        le=300,
        description="A connection that sends nothing this long (new, or after an answer) is closed (s).",
    )
    http_max_connections: int = Field(
        1000, ge=1, le=100_000, description="Open connections, all clients together; one more is answered 503."
    )
    http_max_connections_per_address: int = Field(
        100,
        ge=1,
        le=100_000,
        description="Open connections from one client address; one more is answered 503 (behind a reverse proxy, "
        "every client has the proxy's address: set at least the proxy's upstream connections).",
    )
    mcp_max_sessions: int = Field(1000, ge=1, description="Open legacy (2025-11-25) MCP sessions, all identities.")
    mcp_sessions_per_identity: int = Field(
        16, ge=1, description="Open legacy MCP sessions per identity; a new one closes that identity's oldest."
    )
    mcp_session_idle_s: float = Field(1800.0, gt=0, description="A legacy MCP session idle this long is closed (s).")
    token: SecretStr | None = Field(
        None, description="The access token `rpa-mcp stdio` acts with (its identity, roles and limits)."
    )
    mcp_toolsets: str = Field(
        "all",
        description="Toolsets an MCP connection sees unless its URL says (/mcp?toolsets=a,b): all, or a comma list "
        "of observe, competences, replay, dialogs, validation.",
    )
    mcp_read_only: bool = Field(False, description="MCP connections see read tools only unless their URL says.")
    mcp_run_tools: int = Field(
        0,
        ge=0,
        le=200,
        description="At most this many run_<slug> tools (one per validated competence) in an MCP tool list; "
        "0: none, competences start with propose_start_replay.",
    )
    access_token_max_ttl_s: int = Field(
        30 * 86400, ge=60, description="Longest accepted access-token lifetime (exp - iat, and exp - now) (s)."
    )
    llm_url: str | None = Field(
        None, description="OpenAI-compatible endpoint (its /chat/completions) that runs `t2a_decision` steps."
    )
    llm_model: str | None = Field(None, description="Model name sent to RPA_LLM_URL.")
    llm_api_key: SecretStr | None = Field(None, description="Bearer key of RPA_LLM_URL (never logged).")
    vlm_url: str | None = Field(
        None, description="OpenAI-compatible endpoint of a vision model that locates a target on a screenshot."
    )
    vlm_model: str | None = Field(None, description="Model name sent to RPA_VLM_URL.")
    vlm_api_key: SecretStr | None = Field(None, description="Bearer key of RPA_VLM_URL (never logged).")
    model_timeout_s: float = Field(30.0, gt=0, le=600, description="Longest wait for RPA_LLM_URL / RPA_VLM_URL (s).")
    llm_judge_url: str | None = Field(None, description="OpenAI-compatible endpoint for the optional judge checker.")
    llm_judge_model: str | None = None
    llm_judge_api_key: SecretStr | None = None
    readback_urls: NameList = Field(
        [],
        description="Base URLs a competence's read-back may GET (comma-separated, FHIR or REST); nothing "
        "outside them is ever requested. Empty: no read-back (a competence declaring one is refused).",
    )
    readback_token: SecretStr | None = Field(None, description="Bearer token of the read-back (never logged).")
    readback_timeout_s: float = Field(10.0, gt=0, le=120, description="Longest wait for a read-back's answer (s).")
    approval_webhook_url: str | None = Field(
        None,
        description="POST a signed JSON body here when a request starts waiting for a person's approval "
        "(https, or http on loopback; needs RPA_APPROVAL_WEBHOOK_SECRET).",
    )
    approval_webhook_secret: SecretStr | None = Field(
        None, description="Key of the webhook's X-RPA-Signature (HMAC-SHA256, 32 characters or more; never logged)."
    )
    approval_mail_to: NameList = Field(
        [], description="Addresses told by e-mail when a request starts waiting for approval (needs RPA_SMTP_HOST)."
    )
    smtp_host: str | None = Field(None, description="SMTP server of the approval e-mails.")
    smtp_port: int = Field(587, ge=1, le=65535, description="Port of RPA_SMTP_HOST.")
    smtp_from: str = Field("rpa-mcp@localhost", description="Sender address of the approval e-mails.")
    smtp_user: str | None = Field(None, description="SMTP login, with RPA_SMTP_PASSWORD.")
    smtp_password: SecretStr | None = Field(None, description="SMTP password (never logged).")
    smtp_starttls: bool = Field(True, description="STARTTLS before sending (false only for a relay on loopback).")
    log_level: str = "INFO"
    # --- the hospital's identity provider (OpenID Connect), for the console and as an OAuth resource server
    oidc_issuer: str | None = Field(None, description="Issuer URL of the identity provider (https; enables OIDC).")
    oidc_client_id: str | None = Field(None, description="The console's client id at the identity provider.")
    oidc_client_secret: SecretStr | None = Field(None, description="The console's client secret.")
    oidc_roles_claim: str = Field("roles", description="Claim carrying the roles (dotted path: realm_access.roles).")
    oidc_audience: str | None = Field(None, description="`aud` of provider access tokens (default: <public url>/mcp).")
    oidc_algorithms: NameList = Field(["RS256", "ES256"], description="Signature algorithms accepted (pinned).")
    oidc_scopes: str = Field("openid profile email", description="Scopes asked at console sign-in.")
    console_token_sign_in: bool | None = Field(
        None,
        description="Console sign-in with a pasted console credential (`rpa-mcp token --console`; "
        "default: only when no OIDC is configured). API access tokens are never accepted there.",
    )
    identity_links: str = Field(
        "",
        description="Identities of one person, counted as one for the approver-is-not-the-proposer rule: "
        "`alice@rpa-mcp = 8c1f@https://idp.example; bob@rpa-mcp = 77ab@https://idp.example` "
        "(SUBJECT@ISSUER; `=` within a person, `;` between people).",
    )
    oidc_keys_cache_s: float = Field(300.0, gt=0, description="How long the provider's metadata and keys are cached.")

    @field_validator(
        "allowed_hosts", "allowed_origins", "oidc_algorithms", "readback_urls", "approval_mail_to", mode="before"
    )
    @classmethod
    def _split_list(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        text = value.strip()
        if text.startswith("["):
            return json.loads(text)  # a malformed JSON list is a ValueError naming the setting
        return [part.strip() for part in text.split(",") if part.strip()]

    @field_validator("approval")
    @classmethod
    def _check_approval(cls, value: str) -> str:
        _parse_approval(value)
        return value

    @field_validator("identity_links")
    @classmethod
    def _check_identity_links(cls, value: str) -> str:
        try:
            IdentityLinks.parse(value)
        except ValueError as exc:
            raise ValueError(f"RPA_IDENTITY_LINKS: {exc}") from exc
        return value

    @property
    def approval_modes(self) -> dict[str, ApprovalMode]:
        return _parse_approval(self.approval)

    @property
    def linked_identities(self) -> IdentityLinks:
        return IdentityLinks.parse(self.identity_links)

    @property
    def is_loopback(self) -> bool:
        return is_loopback_host(self.host)

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
