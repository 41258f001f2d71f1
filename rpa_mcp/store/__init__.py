"""Persistence adapters. SQLite (WAL, synchronous=FULL) is the embedded default."""

from rpa_mcp.store.db import Database

__all__ = ["Database"]
