"""Demonstrations the reference agent can play as a live session (`rpa-mcp agent-sim --play-demo`).

A demonstration is a person's gestures on a shipped virtual desktop. `play_demo` applies them
as human input, streams the shadow events a real agent would send (a live, auto-observed
session: docs/concepts/shadow.md), then puts the desktop back on its start screen — the person
closed what they opened — so that the replay that follows starts where the demonstration did.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rpa_mcp.agent_sim.agent import ReferenceAgent
from rpa_mcp.agent_sim.shadow import DemoRecorder
from rpa_mcp.errors import InvalidInput, Unavailable

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Demo:
    desktop: str
    description: str
    gestures: tuple[tuple[str, str], ...]  # (click_label | type | key, argument)


DEMOS: dict[str, Demo] = {
    "observation": Demo(
        desktop="incident",
        description="a nurse writes an observation in the patient record and saves it",
        gestures=(
            ("click_label", "Observations"),
            ("click_label", "Texte de l'observation"),
            ("type", "Patient calme, douleur 2/10, pansement propre."),
            ("key", "ctrl+s"),
            ("click_label", "Confirmer"),
        ),
    ),
}


def demo_named(name: str) -> Demo:
    demo = DEMOS.get(name)
    if demo is None:
        raise InvalidInput(f"no demonstration named {name!r}; known: {', '.join(sorted(DEMOS))}", field="play_demo")
    return demo


async def play_demo(agent: ReferenceAgent, demo: Demo, *, session_id: str) -> int:
    """Play `demo` on the agent's desktop and stream it; returns the number of events sent."""
    desktop = agent.desktop
    recorder = DemoRecorder(desktop, session_id=session_id, machine_id=agent.machine_id)
    steps: dict[str, Callable[[str], object]] = {
        "click_label": recorder.click_label,
        "type": recorder.type,
        "key": recorder.key,
    }
    log.info("playing the demonstration (%s) as session %s", demo.description, session_id)
    sent = await _send(agent, recorder.events)  # the window in front: the session begins
    for kind, argument in demo.gestures:
        before = len(recorder.events)
        steps[kind](argument)
        log.info("the person: %s %r", kind.removesuffix("_label"), argument)
        sent += await _send(agent, recorder.events[before:])
    desktop.reset(desktop.spec.start)  # its fields emptied too: the replay types into what a new day shows
    log.info("demonstration streamed: %d events; the desktop is back on its start screen", sent)
    return sent


async def _send(agent: ReferenceAgent, events: list[dict[str, Any]]) -> int:
    for status in await agent.stream_demonstration(events):
        if status >= 400:
            raise Unavailable(f"the server refused a demonstration event (HTTP {status})", status=status)
    return len(events)
