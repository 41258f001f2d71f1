"""rpa_agent: the workstation agent of rpa_mcp (replay and recording), for X11 and Windows."""

__version__ = "0.1.0"
