"""The in-app loop example of docs/clients.md runs as written (with a scripted model)."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

from rpa_mcp.agent_loop import Confirmation, ConfirmationRequest, LlmTurn, ToolCall
from tests.conftest import SECRET
from tests.functions.scripted import ScriptedLlm, calls

pytestmark = pytest.mark.anyio
DOC = Path(__file__).resolve().parents[2] / "docs" / "clients.md"


def _example(tmp_path: Path) -> dict[str, object]:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## An in-app agent loop") :]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None, "docs/clients.md lost its in-app loop example"
    path = tmp_path / "loop.py"
    path.write_text(code.group(1), encoding="utf-8")
    return runpy.run_path(str(path), run_name="doc_example")  # not __main__: main() is called below


async def test_the_in_app_loop_example_runs_as_written(tmp_path, monkeypatch, capsys, shared_ocr):
    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("RPA_JWT_SECRET", SECRET)
    monkeypatch.setattr("rpa_mcp.bootstrap.build_ocr", lambda settings: shared_ocr)
    example = _example(tmp_path)
    llm = ScriptedLlm(calls(("list_machines", {})), LlmTurn(final_text="Je regarde."))
    await example["main"](llm)  # type: ignore[operator]
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(" tools") and int(out[0].split()[0]) > 10
    assert out[-1] == "final Je regarde."
    assert llm.tools, "the model was offered the tools"


async def test_the_example_asks_the_person_and_reads_the_answer(tmp_path, monkeypatch):
    example = _example(tmp_path)
    monkeypatch.setattr("builtins.input", lambda prompt: "y")
    request = ConfirmationRequest(
        call=ToolCall("c1", "apply_persist_competence"),
        operation="persist_competence",
        summary="Save the competence",
        approval_mode="token",
        approval_url=None,
        token="t",
        deferred=(),
        result={},
    )
    answer = await example["ask_the_person"](request)  # type: ignore[operator]
    assert answer == Confirmation(approved=True)


def _python_client(tmp_path: Path, url: str) -> dict[str, object]:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## Python (the MCP SDK)") :]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None, "docs/clients.md lost its Python SDK client"
    path = tmp_path / "client.py"
    path.write_text(code.group(1).replace("http://127.0.0.1:8765/mcp", url), encoding="utf-8")
    return runpy.run_path(str(path), run_name="doc_client")


async def test_the_python_sdk_client_runs_against_a_real_server(tmp_path, monkeypatch, capsys, serve):
    from rpa_mcp.entrypoints.app import create_app
    from tests.security.conftest import make_services, operator

    services = make_services(tmp_path)
    base = await serve(create_app(services=services))
    monkeypatch.setenv("MCP_TOKEN", operator(services))
    await _python_client(tmp_path, f"{base}/mcp")["main"]()  # type: ignore[operator]
    out = capsys.readouterr().out
    assert "tools: " in out and "list_machines: {" in out
