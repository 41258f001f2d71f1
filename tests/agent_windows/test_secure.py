from __future__ import annotations

import pytest
from rpa_agent.port import SystemDialog
from rpa_agent.windows.secure import system_dialog

from .fake import FakeProcessWindow, FakeWin32


def desktop_with(image: str | None, title: str = "Contrôle de compte d'utilisateur", **kwargs: object) -> FakeWin32:
    win = FakeWin32(**kwargs)  # type: ignore[arg-type]  # test helper: FakeWin32's own fields
    win.windows[10] = FakeProcessWindow(title, 900, 9, image)
    win.foreground = 10
    return win


def test_a_secure_input_desktop_is_a_uac_prompt() -> None:
    dialog = system_dialog(desktop_with(None, desktop="Winlogon"))
    assert dialog is not None and dialog.kind == "uac" and dialog.title is not None and "Winlogon" in dialog.title


def test_access_denied_to_the_input_desktop_is_a_uac_prompt() -> None:
    dialog = system_dialog(desktop_with(None, desktop=PermissionError))
    assert dialog is not None and dialog.kind == "uac"


def test_consent_exe_in_front_is_a_uac_prompt() -> None:
    dialog = system_dialog(desktop_with(r"C:\Windows\System32\consent.exe"))
    assert dialog == SystemDialog(kind="uac", process="consent.exe", title="Contrôle de compte d'utilisateur")


@pytest.mark.parametrize(
    "image", [r"C:\Windows\System32\CredentialUIBroker.exe", r"C:\WINDOWS\SYSTEM32\CREDENTIALUIBROKER.EXE"]
)
def test_the_credential_broker_in_front_is_a_credential_prompt(image: str) -> None:
    dialog = system_dialog(desktop_with(image, title="Sécurité Windows"))
    assert dialog is not None and dialog.kind == "credential"


def test_an_ordinary_application_on_the_default_desktop_is_no_system_dialog() -> None:
    assert system_dialog(desktop_with(r"C:\Windows\notepad.exe", title="Sans titre - Bloc-notes")) is None
    assert system_dialog(FakeWin32()) is None  # nothing in front
