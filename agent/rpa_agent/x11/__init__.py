"""The reference desktop agent for a real X11 desktop (optional extra: `pip install rpa-mcp[x11]`).

- `windows`: the foreground window, its title and process (EWMH);
- `screen`: screenshots (mss);
- `inject`: real input through XTEST; `watch`: every input event through RECORD;
- `atspi`: element names and roles from AT-SPI accessibility;
- `harness`: a virtual desktop (Xvfb, openbox, D-Bus, Chromium) for tests, benchmarks, demos.
"""
