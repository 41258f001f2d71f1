"""HTML of the demo application's pages (server-side, every value escaped)."""

from __future__ import annotations

from html import escape
from typing import Any

from rpa_mcp.demo_app.patients import Patient
from rpa_mcp.demo_app.texts import TABS

_UNREADABLE = ' class="unreadable"'


def _q(lang: str) -> str:
    return "?lang=en" if lang == "en" else ""


def page(title: str, body: str, *, lang: str, view: str, data: dict[str, Any] | None = None) -> str:
    attrs = " ".join(f'data-{escape(k)}="{escape(str(v))}"' for k, v in (data or {}).items())
    return f"""<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{escape(title)}</title>
<link rel="stylesheet" href="/static/app.css"></head>
<body data-view="{view}" data-lang="{lang}" {attrs}>
<header class="bar"><a class="brand" href="/{_q(lang)}">Easily</a>
<span class="where">{escape(title.split(" — ", 1)[-1])}</span></header>
<main>{body}</main>
<div id="toast" class="toast" role="status" aria-live="polite" hidden></div>
<script src="/static/app.js"></script>
</body></html>"""


def search_page(
    t: dict[str, str], lang: str, query: str, results: list[Patient] | None, unreadable: frozenset[str] = frozenset()
) -> str:
    """The search form and its results; the rows of the `unreadable` patient ids drawn too small and faint to read."""
    rows = ""
    if results is not None:
        if results:
            cells = "".join(
                f'<tr{_UNREADABLE if p.id in unreadable else ""}><td class="name">{escape(p.name)}</td>'
                f"<td>{escape(p.birth)}</td><td>{escape(p.ipp)}</td>"
                f'<td><a class="button" href="/patient/{p.id}/synthese{_q(lang)}">{escape(t["open"])}</a></td></tr>'
                for p in results
            )
            rows = (
                f'<h2>{escape(t["results"])}</h2><table class="results"><thead><tr><th>{escape(t["col_name"])}</th>'
                f"<th>{escape(t['col_birth'])}</th><th>{escape(t['col_ipp'])}</th><th></th></tr></thead>"
                f"<tbody>{cells}</tbody></table>"
            )
        else:
            rows = f'<p class="empty">{escape(t["no_result"])}</p>'
    lang_field = '<input type="hidden" name="lang" value="en">' if lang == "en" else ""
    body = f"""<form class="search" method="get" action="/search">
<label for="q">{escape(t["search_label"])}</label>
<input id="q" name="q" autocomplete="off" value="{escape(query)}">{lang_field}
<button type="submit">{escape(t["search_button"])}</button></form>{rows}"""
    return page(f"Easily — {t['search_title']}", body, lang=lang, view="search")


def record_page(t: dict[str, str], lang: str, patient: Patient, tab: str, notes: list[dict[str, Any]]) -> str:
    tabs = "".join(
        f'<button class="tab{" active" if name == tab else ""}" role="tab" data-tab="{name}" '
        f'aria-selected="{"true" if name == tab else "false"}">{escape(t[name])}</button>'
        for name in TABS
    )
    history = (
        "".join(
            f'<li data-note="{escape(str(n["id"]))}"><span>{escape(n["text"])}</span>'
            f'<button class="delete" data-note="{escape(str(n["id"]))}">{escape(t["delete"])}</button></li>'
            for n in notes
        )
        or f'<li class="empty">{escape(t["empty"])}</li>'
    )
    panels = "".join(
        f'<section class="panel" data-panel="{name}"{"" if name == tab else " hidden"}>'
        f"<h2>{escape(t[name])}</h2><p>{escape(t[name + '_body'])}</p></section>"
        for name in TABS
        if name != "observations"
    )
    observations = f"""<section class="panel" data-panel="observations"{"" if tab == "observations" else " hidden"}>
<h2>{escape(t["observations"])}</h2>
<label for="note">{escape(t["note_label"])}</label>
<textarea id="note" rows="5"></textarea>
<div><button id="save" class="primary">{escape(t["save"])}</button></div>
<div id="banner" class="banner" role="alert" hidden></div>
<h3>{escape(t["history"])}</h3><ul id="history">{history}</ul></section>"""
    admin = "".join(f"<li>{escape(line)}</li>" for line in t["admin_lines"].split("|"))
    body = f"""<div class="patient"><span class="pname">{escape(patient.name)}</span>
<span>{escape(t["born"])} {escape(patient.birth)} · {escape(patient.ipp)}</span>
<a class="back" href="/{_q(lang)}">{escape(t["back"])}</a>
<button id="tele">{escape(t["teleconsultation"])}</button><span id="camera"></span></div>
<nav class="tabs" role="tablist">{tabs}</nav>{panels}{observations}
<section class="admin"><h3>{escape(t["admin"])}</h3><ul>{admin}</ul></section>"""
    data = {
        "patient": patient.id,
        "pname": patient.name,
        "tab": tab,
        "tabs": "|".join(f"{name}={t[name]}" for name in TABS),
        "saved": t["saved"],
        "confirm-yes": t["confirm_yes"],
        "confirm-no": t["confirm_no"],
        "confirm": t["delete_confirm"],
        "camera-on": t["camera_on"],
        "camera-refused": t["camera_refused"],
    }
    return page(f"Easily — {patient.name} — {t[tab]}", body, lang=lang, view="record", data=data)


def pacs_page(t: dict[str, str], lang: str) -> str:
    body = f"""<div class="pacs"><nav><button>{escape(t["imagerie"])}</button>
<button>{escape(t["pacs_series"])}</button></nav><div class="viewer"></div></div>"""
    return page(f"{t['pacs_title']} — {t['pacs_title']}", body, lang=lang, view="pacs")


def login_page(t: dict[str, str], lang: str) -> str:
    lang_field = '<input type="hidden" name="lang" value="en">' if lang == "en" else ""
    body = f"""<form class="login" method="post" action="/login">{lang_field}
<label for="user">{escape(t["user"])}</label><input id="user" name="user" autocomplete="off">
<label for="password">{escape(t["password"])}</label><input id="password" name="password" type="password">
<div><button type="submit" class="primary">{escape(t["login"])}</button></div></form>"""
    return page(f"Easily — {t['login_title']}", body, lang=lang, view="login")
