"""Read-back: the record a run changed, read again through a second channel (HTTP GET, JSON).

A competence may declare ``readback: {url, fields}``: an HTTP GET whose JSON answer's fields are
compared with the run's parameters (FHIR or plain REST). ``url`` is an absolute URL under one of
the allowed bases (``RPA_READBACK_URLS``); ``{{name}}`` placeholders take the run's parameters,
percent-encoded (a value cannot change the host or leave the base's path). ``fields`` maps a
dotted path into the answer (``entry.0.resource.identifier.0.value``; a number indexes a list) to
the expected text (``{{patient_id}}``); values are compared as trimmed text.

It runs only after a run ended ``completed``. All fields equal: ``verified``. A failure, a
mismatch or a timeout leave the run ``completed`` with the read-back's error. Nothing outside the
allow-list is ever requested: checked when a competence is saved, when a replay starts, and again
just before the request.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from rpa_mcp.errors import InvalidInput, ReadbackNotAllowed
from rpa_mcp.replay.ports import RecordReader, RecordUnreadable

SETTING = "RPA_READBACK_URLS"
PLACEHOLDER = re.compile(r"\{\{\s*([^{}\s]+)\s*\}\}")

VERIFIED = "verified"  # every field equal
MISMATCH = "mismatch"  # read, and a field differs (or is missing)
FAILED = "failed"  # not read: HTTP error, not JSON, unreachable
TIMEOUT = "timeout"  # not read within RPA_READBACK_TIMEOUT_S
REFUSED = "refused"  # the URL is outside the allow-list: nothing was requested


def _bases(allowed: Sequence[str]) -> list[tuple[str, str, str]]:
    out = []
    for base in allowed:
        parts = urlsplit(base.strip())
        out.append((parts.scheme.lower(), parts.netloc.lower(), parts.path.rstrip("/")))
    return out


def within(url: str, allowed: Sequence[str]) -> bool:
    """`url` is under one of the `allowed` bases: same scheme and host, path inside the base's path."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or "@" in parts.netloc or parts.fragment:
        return False
    segments = [unquote(s) for s in parts.path.split("/")]
    if any(s in (".", "..") for s in segments):
        return False  # no walking out of the base's path
    return any(
        parts.scheme.lower() == scheme
        and parts.netloc.lower() == netloc
        and (parts.path == path or parts.path.startswith(path + "/"))
        for scheme, netloc, path in _bases(allowed)
    )


def check_template(url: str, allowed: Sequence[str], *, field: str = "readback.url") -> None:
    """A declared URL (placeholders unfilled) is under an allowed base; else `ReadbackNotAllowed`."""
    static = url.split("{{", 1)[0]
    parts = urlsplit(static)
    fixed_path = "?" in static or "{{" not in url or static.endswith("/")  # the base's path is written out
    if not allowed:
        raise ReadbackNotAllowed(
            f"{field} {url!r}: no read-back URL is allowed; an administrator lists the allowed bases in {SETTING}",
            field=field,
            setting=SETTING,
        )
    probe = static if fixed_path else static.rsplit("/", 1)[0] + "/"
    if not within(probe, allowed) or not parts.netloc:
        raise ReadbackNotAllowed(
            f"{field} {url!r} is not under a base allowed by {SETTING} ({', '.join(allowed)}): "
            f"ask an administrator to add it there, or use an allowed base",
            field=field,
            setting=SETTING,
        )


def render(template: str, values: Mapping[str, Any], *, encode: bool) -> str:
    """`{{name}}` -> the run's value (percent-encoded in a URL); an unknown name is left as written."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith("secret:") or values.get(name) is None:
            return match.group(0)
        text = str(values[name])
        return quote(text, safe="") if encode else text

    return PLACEHOLDER.sub(one, template)


def plan(spec: Mapping[str, Any], params: Mapping[str, Any], allowed: Sequence[str]) -> dict[str, Any]:
    """The request a run will make: its URL and the expected value of each field, from its parameters."""
    url_template = str(spec.get("url") or "")
    check_template(url_template, allowed)
    url = render(url_template, params, encode=True)
    fields = {str(k): render(str(v), params, encode=False) for k, v in dict(spec.get("fields") or {}).items()}
    for where, text in [("readback.url", url), *((f"readback.fields.{k}", v) for k, v in fields.items())]:
        missing = PLACEHOLDER.search(text)
        if missing:
            raise InvalidInput(
                f"{where} uses {{{{{missing.group(1)}}}}}, which this run does not give: give it in params",
                field=where,
            )
    if not within(url, allowed):
        raise ReadbackNotAllowed(f"readback.url {url!r} is not under a base allowed by {SETTING}", setting=SETTING)
    return {"url": url, "fields": fields}


def pick(document: Any, path: str) -> Any:
    """The value at a dotted path (`entry.0.resource.id`); `KeyError` when there is none."""
    here = document
    for part in path.split("."):
        if isinstance(here, list) and part.isdigit() and int(part) < len(here):
            here = here[int(part)]
        elif isinstance(here, dict) and part in here:
            here = here[part]
        else:
            raise KeyError(path)
    return here


def compare(document: Any, fields: Mapping[str, str]) -> list[dict[str, Any]]:
    """Each field's expected and read text; `equal` says whether they match (trimmed text)."""
    out = []
    for path, expected in fields.items():
        try:
            value = pick(document, path)
        except KeyError:
            out.append({"field": path, "expected": expected, "read": None, "equal": False})
            continue
        read = value if isinstance(value, str | int | float) and not isinstance(value, bool) else None
        text = None if read is None else str(read).strip()
        out.append({"field": path, "expected": expected, "read": text, "equal": text == str(expected).strip()})
    return out


def read_back(
    reader: RecordReader, planned: Mapping[str, Any], allowed: Sequence[str], timeout_s: float
) -> dict[str, Any]:
    """Make the planned request (checked against the allow-list again first) and judge the answer."""
    url = str(planned.get("url") or "")
    fields: dict[str, str] = dict(planned.get("fields") or {})
    if not within(url, allowed):
        return {"status": REFUSED, "detail": f"{url!r} is not under a base allowed by {SETTING}", "url": url}
    try:
        document = reader.get_json(url, timeout_s=timeout_s)
    except RecordUnreadable as exc:
        status = TIMEOUT if exc.timed_out else FAILED
        return {"status": status, "detail": exc.detail, "url": url}
    checked = compare(document, fields)
    wrong = [c for c in checked if not c["equal"]]
    if not fields or wrong:
        detail = (
            "no field declared to compare"
            if not fields
            else "; ".join(f"{c['field']}: expected {c['expected']!r}, read {c['read']!r}" for c in wrong)
        )
        return {"status": MISMATCH, "detail": detail, "url": url, "fields": checked}
    return {"status": VERIFIED, "detail": f"{len(checked)} field(s) read back equal", "url": url, "fields": checked}
