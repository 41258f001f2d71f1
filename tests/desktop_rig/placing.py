"""Where a desk application draws its content, against where X says its window is."""

from __future__ import annotations

from typing import Any


def content_offset(app: Any, windows: Any) -> tuple[int, int] | None:
    """The application's own idea of its content's place (`layout()["window"]`), less the window's place
    X reports: constant once the application knows where its window went. None until both are known."""
    drawn, window = app.layout().get("window"), windows.info(app.wid)
    if not drawn or window is None or window.geometry is None:
        return None
    return drawn[0] - window.geometry[0], drawn[1] - window.geometry[1]
