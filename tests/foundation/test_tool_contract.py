"""The tool names are a contract: clients and prompts depend on them."""

from __future__ import annotations

from rpa_mcp.ops import build_registry

CONTRACT = {
    "list_machines", "list_sessions", "shadow_start", "shadow_stop", "get_understanding", "shadow_feedback",
    "shadow_build", "propose_persist_competence", "apply_persist_competence", "list_competences", "get_competence",
    "propose_delete_competence", "apply_delete_competence", "propose_start_replay", "apply_start_replay",
    "get_replay_status", "pause_replay", "cancel_replay", "propose_resume_replay", "apply_resume_replay",
    "propose_answer_pause", "apply_answer_pause", "validate_action", "classify_dialog", "resolve_dialog",
    "resolve_target", "get_catalog",
}  # fmt: skip


def test_every_contract_tool_is_served_over_mcp():
    served = {op.name for op in build_registry().for_surface("mcp")}
    assert CONTRACT - served == set()


def test_gated_operations_exist_only_as_propose_and_apply():
    registry = build_registry()
    for name, op in registry.confirmed.items():
        assert name not in registry.operations
        assert {f"propose_{name}", f"apply_{name}"} <= set(registry.operations), op.risk


def test_every_tool_has_a_description_and_described_fields():
    for op in build_registry().operations.values():
        assert op.description, op.name
        for field_name, field in op.input.model_fields.items():
            assert field.description, f"{op.name}.{field_name} has no description"
