"""Argument models shared by several operations."""

from __future__ import annotations

import hashlib
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio.to_thread
import numpy as np
from pydantic import Field, model_validator

from rpa_mcp.errors import InvalidInput
from rpa_mcp.ops.registry import StrictModel
from rpa_mcp.vision.images import decode_base64, decode_image

if TYPE_CHECKING:
    from rpa_mcp.ops.registry import OpContext

SCREENSHOT_URI_PREFIX = "rpa://screenshots/"


class ImageArg(StrictModel):
    """An image: either its bytes (PNG or JPEG, base64) or a screenshot the agent already uploaded."""

    png_base64: str | None = Field(None, description="PNG or JPEG bytes, base64-encoded.")
    ref: str | None = Field(None, description="A stored screenshot: rpa://screenshots/<id>.")

    @model_validator(mode="after")
    def _exactly_one(self) -> ImageArg:
        if (self.png_base64 is None) == (self.ref is None):
            raise ValueError("give exactly one of png_base64 or ref")
        if self.ref is not None and not self.ref.startswith(SCREENSHOT_URI_PREFIX):
            raise ValueError(f"ref must start with {SCREENSHOT_URI_PREFIX}")
        return self


def image_audit_view(arguments: dict[str, Any]) -> Any:
    """What the audit row keeps of arguments holding images: each image's SHA-256 and size, never
    its base64 (megabytes per call: serialised and hashed for every row, and not worth keeping).
    Used as the `audit_args` of the operations that take screenshots."""

    def view(value: Any) -> Any:
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                if key == "png_base64" and isinstance(item, str):
                    out[key] = {
                        "sha256": hashlib.sha256(item.encode("ascii", "replace")).hexdigest(),
                        "chars": len(item),
                    }
                else:
                    out[key] = view(item)
            return out
        if isinstance(value, list):
            return [view(item) for item in value]
        return value

    return view(arguments)


class Crop(StrictModel):
    """A client-sized PNG crop of the region that matters (the MCP surface also sends it as image content)."""

    label: str = Field(description="What the crop shows.")
    mime_type: str = Field("image/png", description="Always image/png.")
    data_base64: str = Field(description="PNG bytes, base64 (<= 1 MB, <= 2000 px a side).")
    bbox: list[int] | None = Field(None, description="Where the crop was taken in the frame: [x, y, w, h].")


async def load_image_bytes(ctx: OpContext, arg: ImageArg, field: str) -> bytes:
    settings = ctx.services.settings
    if arg.png_base64 is not None:
        return decode_base64(arg.png_base64, field=f"{field}.png_base64", max_bytes=settings.max_body_bytes)
    assert arg.ref is not None
    screenshot_id = arg.ref.removeprefix(SCREENSHOT_URI_PREFIX)
    if not screenshot_id or "/" in screenshot_id:
        raise InvalidInput(f"{field}.ref: {arg.ref!r} is not a screenshot reference", field=f"{field}.ref")
    data: bytes = ctx.services.traces.get_screenshot(screenshot_id)
    return data


async def load_image(ctx: OpContext, arg: ImageArg, field: str) -> np.ndarray:
    """Decode an image argument once, with the configured pixel limit, off the event loop (a 1080p
    PNG takes 25-40 ms to decode: on the loop it would hold every other request that long)."""
    data = await load_image_bytes(ctx, arg, field)
    decode = partial(decode_image, data, max_pixels=ctx.services.settings.max_image_pixels, field=field)
    image: np.ndarray = await anyio.to_thread.run_sync(decode)
    return image
