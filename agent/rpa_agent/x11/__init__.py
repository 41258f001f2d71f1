"""The X11 backend of the workstation agent (extra: `pip install 'rpa-mcp-agent[x11]'`).

- `desktop`: the port (`rpa_agent.port.Desktop`) over the modules below;
- `windows`: the foreground window, its title and process (EWMH);
- `screen`: screenshots (mss) as port frames, PNG through Pillow;
- `inject`: real input through XTEST; `watch`: every input event through RECORD;
- `keys`: key events read with the keyboard map in force at that key;
- `atspi`: element names and roles from AT-SPI accessibility;
- `clock`: X server time on this machine's clock; `recorder`: `rpa-agent record` on X11.
"""
