"""What a replay checks after a step that sets a control (`select_option`, `set_checked`).

A `select_option` step is checked like typed text: the option's text (`params.option`, the run's
value once parameters are filled in) must be what the drop-down shows, read where the agent clicked;
where the accessibility tree names the option the drop-down shows (`output.option`, read by the agent
after the choice), that name being the wanted option is enough (small text on a highlight misreads).
A `set_checked` step is checked on the state the agent read after the action (`output.checked`,
read from the accessibility tree or asked of the server): it must be the wanted one
(`params.checked`), through the validator's schema check, beside the box's pixels.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rpa_mcp.validation.model import Expected

CHOICE_ACTIONS = frozenset({"select_option", "set_checked"})


def wanted_state(params: dict[str, Any]) -> bool | None:
    """The state a set_checked step wants (a parameter filled in as 'true'/'false' included)."""
    value = params.get("checked")
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0", "yes", "no", "oui", "non"):
        return value.strip().lower() in ("true", "1", "yes", "oui")
    return None


def option_expected(action_type: str, params: dict[str, Any]) -> str | None:
    """The text a select_option step must leave shown in its drop-down."""
    option = params.get("option")
    return option if action_type == "select_option" and isinstance(option, str) and option else None


def state_expected(action_type: str, params: dict[str, Any], expected: Expected, output: Any) -> Expected:
    """A set_checked step's expectation: the state read after is the wanted one; a select_option step's, when
    the agent read the option its drop-down shows from the accessibility tree (`output.option`): that it is
    the wanted one, beside the option read on the screen (unchanged for other steps)."""
    option = option_expected(action_type, params)
    if option is not None:
        if not (isinstance(output, dict) and isinstance(output.get("option"), str)):
            return expected
        shown = {"type": "object", "required": ["option"], "properties": {"option": {"const": option}}}
        return dataclasses.replace(expected, json_schema=shown, output=output, has_output=True)
    wanted = wanted_state(params)
    if action_type != "set_checked" or wanted is None:
        return expected
    schema = {"type": "object", "required": ["checked"], "properties": {"checked": {"const": wanted}}}
    read = isinstance(output, dict) and isinstance(output.get("checked"), bool)
    return dataclasses.replace(expected, json_schema=schema, output=output if read else None, has_output=read)
