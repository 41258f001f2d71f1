"""A small hospital-record web application in the style of "Easily", for the real desktop.

Served on 127.0.0.1 by the desktop test harness, the desktop benchmark and
`rpa-mcp demo --desktop`. Every effect it undergoes (clicks, typed text, saves, deletions,
dialog answers, camera requests) is appended to an `EffectsLog` that tests read to count
effects on the application side, independently of what the RPA server believes.

Patients are fictitious. French by default, English with `?lang=en`.
"""

from rpa_mcp.demo_app.app import create_demo_app
from rpa_mcp.demo_app.effects import Effect, EffectsLog
from rpa_mcp.demo_app.patients import PATIENTS, Patient, patient_by_id, search_patients

__all__ = ["PATIENTS", "Effect", "EffectsLog", "Patient", "create_demo_app", "patient_by_id", "search_patients"]
