"""One wire contract: the workstation agent ships the server's JSON Schemas, byte for byte."""

from __future__ import annotations

import json

from rpa_agent import wire

from rpa_mcp import docs_gen


def test_the_agents_schemas_are_the_servers_byte_for_byte():
    published = sorted(p.name for p in (docs_gen.DEFAULT_OUT / "schemas").glob("*.schema.json"))
    assert sorted(wire.file_names()) == published
    for name in published:
        shipped = (docs_gen.AGENT_WIRE / name).read_text(encoding="utf-8")
        assert shipped == (docs_gen.DEFAULT_OUT / "schemas" / name).read_text(encoding="utf-8"), name


def test_the_agents_schemas_are_what_the_server_generates():
    rendered = docs_gen.render_all()
    for name in wire.file_names():
        assert wire.schema(name.removesuffix(".schema.json")) == json.loads(rendered[f"schemas/{name}"])


def test_a_drifted_agent_copy_is_reported_by_the_check(monkeypatch, tmp_path):
    copy = tmp_path / "agent" / "rpa_agent" / "wire"
    copy.mkdir(parents=True)
    monkeypatch.setattr(docs_gen, "AGENT_WIRE", copy)
    for name in wire.file_names():
        (copy / name).write_text((docs_gen.DEFAULT_OUT / "schemas" / name).read_text(encoding="utf-8"))
    (copy / "replay-result.schema.json").write_text("{}\n", encoding="utf-8")
    monkeypatch.setattr(docs_gen, "REPO_ROOT", tmp_path)
    assert [d for d in docs_gen.stale() if d.startswith("agent/")] == ["agent/rpa_agent/wire/replay-result.schema.json"]


def test_the_recorder_masks_secrets_with_the_servers_mask():
    from rpa_agent.core.recorder import MASK

    from rpa_mcp.shadow.masking import MASK as SERVER_MASK

    assert MASK == SERVER_MASK
