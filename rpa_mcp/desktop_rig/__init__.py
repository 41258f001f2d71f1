"""The real-desktop rig: server-side test and demo tooling, not an agent.

- `harness`: a virtual desktop (Xvfb, openbox, D-Bus, AT-SPI, Chromium) and the workstation agent
  started as `python -m rpa_agent` in it; `person`: a scripted person (real XTEST input) who clicks
  what is drawn;
- `rig`: the server, the demo application and the agent wired together (benchmarks, the demo);
- `scenario`: the demo's nurse and her observation; `film`, `movie`: the replay filmed;
- `admission`: a native GTK3 application nobody tuned the platform to (`native/gtk_admission.py`, run
  by the system's Python) and its scripted clerk, for `rpa-mcp bench apps`;
- `dispensation`: a Tk application with no accessibility tree (`native/tk_dispensation.py`), the
  vision-only path, and its scripted clerk, for `rpa-mcp bench apps --app tk`;
- `lab_orders`: a single-page web application with custom-drawn controls (`lab_app`) in Chromium and
  its scripted clerk, for `rpa-mcp bench apps --app web`;
- `imaging`: a native Qt 5 application held out from tuning (`native/qt_imaging.py`, run by the
  system's Python with PyQt5) and its scripted clerk, for `rpa-mcp bench apps --app qt`.
- `transfusion`: a Java Swing application held out from tuning (`native/SwingTransfusion.java`, one source file
  run by `java`, no accessibility tree: vision only) and its scripted clerk, for `rpa-mcp bench apps --app swing`.
- `beds`: a Java AWT application held out from tuning (`native/AwtBeds.java`, heavyweight `java.awt` widgets,
  one source file run by `java`, vision only) and its scripted bed manager, for `rpa-mcp bench apps --app awt`.
- `appointments`: a wxPython application held out from tuning (`native/wx_appointments.py`, run by the system's
  Python, a wx-drawn grid and drop-down, vision only) and its scripted receptionist, for `rpa-mcp bench apps --app wx`.

It drives the workstation agent (`rpa_agent`, distribution `rpa-mcp-agent[x11]`), which must be
installed beside the server for the real-desktop tests, `rpa-mcp bench desktop` and `rpa-mcp demo --desktop`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from rpa_agent.port import Frame


def frame_array(frame: Frame) -> np.ndarray[Any, Any]:
    """A port frame (BGRA bytes) as a BGR uint8 array (height, width, 3)."""
    pixels = np.frombuffer(frame.pixels, dtype=np.uint8).reshape(frame.height, frame.width, 4)
    return np.ascontiguousarray(pixels[:, :, :3])
