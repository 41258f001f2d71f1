"""Propose/apply confirmation: proposals kept server-side, single-use signed tokens, approvals."""
