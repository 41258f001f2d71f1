"""The person's corrections to a session's understanding (`shadow_feedback`): each changes only the
session's draft, so no confirmation is needed; a rejected one changes nothing and says why."""

from __future__ import annotations

from typing import Any, Literal

import anyio.to_thread
from pydantic import Field

from rpa_mcp.ops.registry import OpContext, StrictModel
from rpa_mcp.ops.shadow_understanding import SESSION_DESC, StepOut
from rpa_mcp.shadow.feedback import FeedbackAction
from rpa_mcp.validation.model import OutcomeKind


class FeedbackInput(StrictModel):
    session_id: str = Field(max_length=128, description=SESSION_DESC)
    action: FeedbackAction = Field(
        description=(
            "validate (one step, or all when step_index is omitted), correct (needs step_index and new_intent), "
            "undo (drop step_index), cancel (drop everything), merge_next (step_index with the next one), "
            "split (step_index at at_event_index), parameterize (step_index and name: the value the step typed, "
            "or the row it chose by its label, becomes the workflow parameter {{name}}), set_outcome (step_index "
            "and outcome_text: what the application shows once the step is done; a replay counts the step done "
            "only when it is seen), clear_outcome (step_index: the step shows nothing checkable), set_class "
            "(step_index and step_class and/or uncheckable), retarget (step_index and target_label and/or "
            "target_point: the step acts on another element of its screenshot), set_value (step_index and value: "
            "the text a typing step types or the option a drop-down step chooses; or checked: the state a check box "
            "step leaves)."
        )
    )
    step_index: int | None = Field(None, description="The step, counted from 1 as shown.")
    new_intent: str | None = Field(None, max_length=1000, description="For correct: what the step really does.")
    at_event_index: int | None = Field(None, description="For split: the event that starts the new step.")
    name: str | None = Field(
        None,
        max_length=100,
        description="For parameterize: the parameter's name (lowercase letters, digits, _; e.g. 'patient'). "
        "A step's parameterize suggestion gives one.",
    )
    description: str | None = Field(
        None, max_length=300, description="For parameterize: what the value is, in the person's words."
    )
    step_class: Literal["navigation", "input", "irreversible"] | None = Field(
        None,
        description="For set_class: irreversible (it saves, validates, signs, sends, deletes or dispenses: never "
        "clicked at its recorded position alone, named when a run stops after it), input or navigation.",
    )
    uncheckable: bool | None = Field(
        None,
        description="For set_class: true when the step's outcome cannot be checked on screen (shown at approval; "
        "a run then ends completed_unverified at best).",
    )
    outcome_text: str | None = Field(
        None,
        max_length=500,
        description="For set_outcome: the text that shows the step worked (a banner, a heading, a dialog's title, a "
        "window title, a field's value, a row); a parameter may appear as {{name}}.",
    )
    outcome_kind: OutcomeKind | None = Field(
        None, description="For set_outcome: message (default), heading, dialog, window_title, field_value or row."
    )
    target_label: str | None = Field(
        None,
        max_length=200,
        description="For retarget: the visible text of the element the step must act on, as on the step's screenshot.",
    )
    target_point: tuple[int, int] | None = Field(
        None,
        description="For retarget: [x, y] in the pixels of the step's screenshot, on (or beside) the element's text.",
    )
    value: str | None = Field(
        None, max_length=1000, description="For set_value: the text to type, or the option to choose."
    )
    checked: bool | None = Field(None, description="For set_value: the state a check box step leaves (true: ticked).")


class FeedbackOut(StrictModel):
    status: Literal["feedback_applied", "feedback_rejected"] = Field(
        description="feedback_rejected changed nothing: relay the reason."
    )
    session_id: str = Field(description=SESSION_DESC)
    steps: list[StepOut] = Field(description="The steps after the feedback (unchanged when rejected).")
    message: str | None = Field(None, description="What changed.")
    reason: str | None = Field(None, description="Why the feedback was rejected.")


async def shadow_feedback(ctx: OpContext, args: FeedbackInput) -> FeedbackOut:
    shadow = ctx.services.shadow

    def run() -> dict[str, Any]:
        return shadow.feedback(
            args.session_id,
            args.action,
            step_index=args.step_index,
            new_intent=args.new_intent,
            at_event_index=args.at_event_index,
            name=args.name,
            description=args.description,
            step_class=args.step_class,
            uncheckable=args.uncheckable,
            outcome_text=args.outcome_text,
            outcome_kind=args.outcome_kind,
            target_label=args.target_label,
            target_point=args.target_point,
            value=args.value,
            checked=args.checked,
        )

    return FeedbackOut.model_validate(await anyio.to_thread.run_sync(run))
