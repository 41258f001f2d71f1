"""Argument models shared by several operations."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

import anyio.to_thread
import numpy as np
from pydantic import Field, model_validator

from rpa_mcp.errors import InvalidInput
from rpa_mcp.ops.registry import StrictModel
from rpa_mcp.vision.budget import Lane
from rpa_mcp.vision.images import decode_base64, decode_image, resized

if TYPE_CHECKING:
    from rpa_mcp.bootstrap import Services
    from rpa_mcp.ops.registry import OpContext

SCREENSHOT_URI_PREFIX = "rpa://screenshots/"
T = TypeVar("T")


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


class Crop(StrictModel):
    """A client-sized crop of the region that matters. Over MCP the image travels once, as the answer's
    image content (in the order of the crops), and `data_base64` is null here."""

    label: str = Field(description="What the crop shows.")
    mime_type: str = Field("image/png", description="image/png, or image/jpeg when a quality was asked.")
    data_base64: str | None = Field(
        None, description="The bytes, base64 (<= 1 MB, <= 2000 px a side); null over MCP (sent as image content)."
    )
    bbox: list[int] | None = Field(None, description="Where the crop was taken in the frame: [x, y, w, h].")
    widened: bool = Field(
        False, description="True when the region alone showed nothing legible: the crop shows it with its surroundings."
    )


class CropOptions(StrictModel):
    """What the returned crops may cost: a smaller side, JPEG instead of PNG."""

    max_side: int | None = Field(
        None, ge=32, le=2000, description="Longest side of returned crops in pixels (scaled down, never up)."
    )
    quality: int | None = Field(
        None, ge=10, le=95, description="JPEG quality of returned crops (10-95); default: lossless PNG."
    )


def sized(crop: Crop, options: CropOptions) -> Crop:
    """`crop` within the caller's `max_side` and `quality` (unchanged when neither is given)."""
    if crop.data_base64 is None or (options.max_side is None and options.quality is None):
        return crop
    data, mime_type = resized(base64.b64decode(crop.data_base64), max_side=options.max_side, quality=options.quality)
    return crop.model_copy(update={"data_base64": base64.b64encode(data).decode("ascii"), "mime_type": mime_type})


def _screenshot_id(services: Services, arg: ImageArg, field: str) -> str:
    assert arg.ref is not None
    screenshot_id = arg.ref.removeprefix(SCREENSHOT_URI_PREFIX)
    if not screenshot_id or "/" in screenshot_id:
        raise InvalidInput(f"{field}.ref: {arg.ref!r} is not a screenshot reference", field=f"{field}.ref")
    return screenshot_id


def decode_arg(services: Services, arg: ImageArg, field: str) -> np.ndarray:
    """An image argument decoded with the configured limits (blocking: call it inside `with_images`).

    A stored screenshot, or the same image sent again, is decoded once and kept in the shared frame
    cache (RPA_FRAME_CACHE_BYTES).
    """
    settings = services.settings
    if arg.png_base64 is not None:
        data = decode_base64(arg.png_base64, field=f"{field}.png_base64", max_bytes=settings.max_body_bytes)
        return decode_image(data, max_pixels=settings.max_image_pixels, field=field, cache=services.frames)
    screenshot_id = _screenshot_id(services, arg, field)
    cached = services.frames.get(screenshot_id)
    if cached is not None:
        return cached
    image = decode_image(
        services.traces.get_screenshot(screenshot_id), max_pixels=settings.max_image_pixels, field=field
    )
    services.frames.put(screenshot_id, image)
    return image


async def with_images(ctx: OpContext, fn: Callable[..., T], *images: tuple[ImageArg | None, str]) -> T:
    """Decode `images` and run `fn(*arrays)` as ONE unit of image work, off the event loop.

    At most RPA_IMAGE_WORK_SLOTS units run at once (the others wait without holding a frame), so
    concurrent requests with near-limit images cannot add up to gigabytes of decoded pixels; each
    caller within its share (`run_image_work`).
    """
    services = ctx.services

    def unit() -> T:
        decoded: dict[tuple[str | None, str | None], np.ndarray] = {}  # the same image twice is decoded once
        arrays: list[Any] = []
        for arg, field in images:
            if arg is None:
                arrays.append(None)
                continue
            key = (arg.png_base64, arg.ref)
            if key not in decoded:
                decoded[key] = decode_arg(services, arg, field)
            arrays.append(decoded[key])
        return fn(*arrays)

    await ctx.report_progress(0, 1, "analysing the image")
    result = await run_image_work(ctx, unit)
    await ctx.report_progress(1, 1, "image analysed")
    return result


async def run_image_work(ctx: OpContext, fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` as one unit of image work in the caller's share (`ImageWork`).

    An agent's work (validation, target resolution, observation) may use the slots reserved for
    agents; anyone else's shares the others. One identity over its share is refused at once
    (429 image-work-busy, retryable). The static agent token (`RPA_API_TOKEN`) is one credential
    for many workstations, not one identity's: its work is bounded by the slots only.
    """
    caller = ctx.caller
    lane: Lane = "agents" if "agent" in caller.roles else "people"
    identity = None if caller.auth == "api-token" else caller.subject
    return await ctx.services.image_work.run(fn, *args, identity=identity, lane=lane)


async def session_machines(ctx: OpContext, session_ids: Iterable[Any]) -> set[str]:
    """The machines that recorded these sessions (unknown sessions have none yet)."""
    traces = ctx.services.traces
    wanted = {sid for sid in session_ids if isinstance(sid, str) and sid}
    if not wanted:
        return set()

    def lookup() -> set[str]:
        return {str(row["machine_id"]) for sid in wanted if (row := traces.get_session(sid)) is not None}

    return await anyio.to_thread.run_sync(lookup)


async def replay_machines(ctx: OpContext, replay_id: str | None) -> set[str]:
    """The machine a replay runs on (none for an unknown replay)."""
    replay = ctx.services.replay
    if not replay_id:
        return set()
    row = await anyio.to_thread.run_sync(replay.store.get_replay, replay_id)
    return {str(row["machine_id"])} if row and row.get("machine_id") else set()


async def load_image(ctx: OpContext, arg: ImageArg, field: str) -> np.ndarray:
    """Decode one image argument (a unit of image work of its own; prefer `with_images` to analyse it)."""
    image: np.ndarray = await with_images(ctx, lambda decoded: decoded, (arg, field))
    return image
