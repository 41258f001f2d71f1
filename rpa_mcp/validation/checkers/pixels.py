"""Cheap pixel checkers: where did the screen change, and did a region's perceptual hash move."""

from __future__ import annotations

import cv2
import imagehash
import numpy as np
from PIL import Image

from rpa_mcp.validation.checkers.base import BaseChecker, Params
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.model import CheckResult, CropRef
from rpa_mcp.validation.regions import around, content_below
from rpa_mcp.vision.images import BBox, clamp_bbox

PHASH_SIDE = 256  # regions are shrunk to this width before hashing (the hash is 8x8 anyway)


class PixelDiffChecker(BaseChecker):
    """Did anything that matters change? The taskbar clock and isolated specks do not count.

    `region: full` (default) scores the whole frame minus the ignored zones;
    `region: target` scores the share of changed pixels around the target only.
    """

    name = "PixelDiffChecker"

    def run(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        change = ctx.change()
        ignored = "; ".join(change.ignored)
        if params.get("region", "full") == "target":
            if ctx.target.bbox is None:
                return self.not_applicable(signal, "no target bbox")
            region = around(ctx.target.bbox, ctx.after.shape, int(params.get("margin", 24)))
            fraction = change.fraction_in(region)
            full = float(params.get("full_fraction", 0.05))
            return self.result(
                signal,
                min(1.0, fraction / full),
                f"{fraction:.1%} of the pixels around the target changed",
                crop=CropRef("around the target (after)", "after", region),
                fraction=round(fraction, 4),
            )
        minimum = ctx.diff_settings.min_changed_pixels
        pixels = change.changed_pixels
        union = change.union_bbox
        if pixels < minimum:
            detail = f"no visual change ({pixels} px changed, below {minimum})"
        else:
            detail = f"{pixels} px changed in {len(change.blobs)} region(s), union {list(union) if union else None}"
        if ignored:
            detail += f"; {ignored}"
        crop = CropRef("changed region (after)", "after", union) if union and pixels >= minimum else None
        return self.result(
            signal,
            min(1.0, pixels / float(minimum)),
            detail,
            crop=crop,
            changed_pixels=pixels,
            regions=[list(b.bbox) for b in change.blobs[:8]],
        )


def region_for(ctx: CheckContext, name: str) -> BBox | None:
    shape = ctx.after.shape
    if name == "full":
        return clamp_bbox((0, 0, shape[1], shape[0]), shape)
    if ctx.target.bbox is None:
        return None
    if name == "content_below_target":
        return content_below(ctx.target.bbox, shape)
    if name == "target":
        return around(ctx.target.bbox, shape, 8)
    return None


def phash(region: np.ndarray) -> imagehash.ImageHash:
    height, width = region.shape[:2]
    if width > PHASH_SIDE:
        scale = PHASH_SIDE / width
        region = cv2.resize(region, (PHASH_SIDE, max(8, int(height * scale))), interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(region, cv2.COLOR_BGR2GRAY)
    return imagehash.phash(Image.fromarray(gray))


class PhashChecker(BaseChecker):
    """Perceptual-hash distance of ONE region between the frames (never the whole frame for a tab)."""

    name = "PhashChecker"

    def run(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        name = str(params.get("region", "content_below_target"))
        region = region_for(ctx, name)
        if region is None or region[2] < 8 or region[3] < 8:
            return self.not_applicable(signal, f"no usable region {name!r}")
        x, y, w, h = region
        before = phash(ctx.before[y : y + h, x : x + w])
        after = phash(ctx.after[y : y + h, x : x + w])
        distance = int(before - after)
        full = float(params.get("full_change_bits", 10))
        return self.result(
            signal,
            min(1.0, distance / full),
            f"pHash of region {name} {list(region)} moved by {distance}/64 bits",
            crop=CropRef(f"{name} (after)", "after", region),
            distance=distance,
        )
