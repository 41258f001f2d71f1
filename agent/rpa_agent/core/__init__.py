"""The agent core: the replay wire client, the journal, the recorder's event stream.

Standard library only (plus `fastjsonschema`, pure Python): it runs on Windows' embeddable Python.
It speaks to the desktop through `rpa_agent.port` alone.
"""
