"""Adapters for identity: signing keys, access tokens, confirmation-token codec (PyJWT)."""
