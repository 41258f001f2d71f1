"""A single-page web application with custom-drawn controls, for measuring on software nobody tuned to.

The laboratory order desk of a hospital, in French, in a dense legacy look (grey bevelled panels,
11 px sans-serif, a menu bar that does nothing, a results grid): a patient search (field + a
drawn "Chercher" button), the patients found in a grid (a click on a row opens the patient), and an
order form whose text fields are named by a label in the cell beside them, an exam drop-down drawn
with divs (no `<select>`, no ARIA role), a sampling date, a drawn "fasting" check box (no
`<input type=checkbox>`), and "Enregistrer la demande", which checks the form and answers in a
banner. Everything happens in one page (fetch calls, no navigation).

    server = ServerThread(create_lab_app(effects_path)).start()   # then Chromium on server.url

Every effect is one JSON line in `effects` (`seq`, `at`, `kind`, `detail`): `search` (q, hits),
`open` (patient), `save` (every field's value), `error` (missing fields). The page also reports
where its controls are in the viewport (`<effects>.layout.json`: the scripted person's eyes only,
as a person sees where things are; the platform never reads it).
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

TITLE = "SIL-LAB — Demande d'examens"
EXAMS = ("Bilan hépatique", "NFS plaquettes", "Ionogramme sanguin", "CRP", "Hémocultures", "Gaz du sang")
PATIENTS = (  # IPP, NOM, Prénom, born, unit
    ("700101", "DUPONT", "Jean", "12/03/1951", "Médecine B"),
    ("700102", "DUPONT", "Marie", "30/07/1984", "Maternité"),
    ("700115", "MARTIN", "Hugo", "02/11/1967", "Chirurgie A"),
    ("700116", "MARTINEZ", "Lina", "19/05/1990", "Urgences"),
    ("700123", "LEFEVRE", "Odile", "08/01/1942", "Gériatrie"),
    ("700131", "BONNET", "Yann", "27/09/1975", "Cardiologie"),
    ("700138", "MERCIER", "Chloé", "14/02/1999", "Pneumologie"),
    ("700144", "BLANC", "Théo", "05/06/2003", "Urgences"),
    ("700152", "GUERIN", "Rose", "21/12/1958", "Néphrologie"),
    ("700160", "ROBIN", "Aurélien", "11/10/1970", "Médecine B"),
    ("700161", "ROBINET", "Aude", "03/04/1988", "Chirurgie A"),
)
MAX_BODY = 16 * 1024

PAGE = """<!doctype html>
<html lang="fr"><head><meta charset="utf-8"><title>__TITLE__</title><style>
body{margin:0;background:#d4d0c8;font:11px "DejaVu Sans",Verdana,sans-serif;color:#000}
.bar{background:linear-gradient(#5a6b7d,#34404d);color:#fff;font-weight:bold;padding:3px 6px}
.menu{border-bottom:1px solid #808080;padding:2px 4px}.menu span{margin-right:14px}
fieldset{border:2px groove #f4f2ee;margin:6px;padding:4px 8px;width:760px}legend{font-weight:bold}
input.f{font:inherit;border:2px inset #f4f2ee;background:#fff;height:15px;padding:1px 3px}
.btn{display:inline-block;border:2px outset #f4f2ee;background:#d4d0c8;padding:2px 10px;cursor:default}
.btn:active{border-style:inset}
table.grid{border-collapse:collapse;background:#fff;border:2px inset #f4f2ee;margin-top:4px;width:100%}
.grid th{background:#d4d0c8;border:1px outset #f4f2ee;text-align:left;font-weight:normal;padding:1px 4px}
.grid td{border-right:1px solid #e4e4e4;padding:1px 4px;white-space:nowrap}
.grid tr.odd td{background:#f0f0f0}.grid tr.sel td{background:#0a246a;color:#fff}
td.l{text-align:right;padding-right:4px;white-space:nowrap}
.combo{display:inline-block;position:relative;width:190px;height:17px;border:2px inset #f4f2ee;background:#fff}
.combo .v{padding:1px 3px;line-height:15px}.combo .a{position:absolute;right:0;top:0;width:15px;height:15px;
border:1px outset #f4f2ee;background:#d4d0c8;text-align:center;line-height:15px;font-size:8px}
.list{position:absolute;left:-2px;top:19px;width:192px;background:#fff;border:1px solid #000;z-index:2}
.list div{padding:1px 4px}.list div:hover{background:#0a246a;color:#fff}
.chk{display:inline-block;width:11px;height:11px;border:2px inset #f4f2ee;background:#fff;vertical-align:middle;
text-align:center;line-height:11px;font-size:10px;font-weight:bold}
.ban{margin-top:6px;padding:3px 6px;min-height:14px}.ok{background:#c9e7c0;border:1px solid #5a8f4e}
.ko{background:#f2c6c0;border:1px solid #a34a3e}
</style></head><body>
<div class="bar">SIL-LAB 4.2 — Prescription connectée — Laboratoire de biologie médicale</div>
<div class="menu"><span>Fichier</span><span>Édition</span><span>Demandes</span><span>Résultats</span>
<span>?</span></div>
<fieldset><legend>Identification du patient</legend>
<table><tr><td class="l">Nom patient :</td><td><input class="f" id="q" size="22" autocomplete="off"></td>
<td><span class="btn" id="find">Chercher</span></td><td id="count"></td></tr></table>
<table class="grid"><thead><tr><th>IPP</th><th>Nom</th><th>Prénom</th><th>Né(e) le</th><th>UF</th></tr></thead>
<tbody id="rows"></tbody></table></fieldset>
<fieldset><legend>Demande</legend><div id="who">Aucun patient sélectionné</div>
<table><tr><td class="l">Renseignements cliniques :</td>
<td><input class="f" id="clinical" size="48" autocomplete="off"></td></tr>
<tr><td class="l">Examen demandé :</td><td><div class="combo" id="exam"><div class="v" id="examv">— Sélectionner —</div>
<div class="a">&#9660;</div></div></td></tr>
<tr><td class="l">Date de prélèvement :</td>
<td><input class="f" id="date" size="10" placeholder="jj/mm/aaaa" autocomplete="off"></td></tr>
<tr><td></td><td><span id="fasting"><span class="chk" id="box"></span> Patient à jeun</span></td></tr>
<tr><td></td><td><span class="btn" id="save">Enregistrer la demande</span></td></tr></table>
<div class="ban" id="banner"></div></fieldset>
<script>
const $ = (id) => document.getElementById(id);
let patient = null, exam = "", fasting = false, list = null, rows = {};
async function post(path, body) {
  const headers = {"content-type": "application/json"};
  const r = await fetch(path, {method: "POST", headers, body: JSON.stringify(body)});
  return r.json();
}
async function search() {
  const q = $("q").value.trim(), hits = await post("/api/search", {q});
  $("rows").replaceChildren(); rows = {};
  hits.forEach((p, i) => {
    const tr = document.createElement("tr"); tr.className = i % 2 ? "odd" : "";
    p.forEach((v) => { const td = document.createElement("td"); td.textContent = v; tr.appendChild(td); });
    tr.onclick = () => open(p, tr); $("rows").appendChild(tr); rows[p[2]] = tr;
  });
  $("count").textContent = hits.length + " patient(s) trouvé(s)";
}
async function open(p, tr) {
  if (patient && patient[0] === p[0]) return;
  document.querySelectorAll("tr.sel").forEach((r) => r.classList.remove("sel")); tr.classList.add("sel");
  patient = p; $("who").textContent = "Patient : " + p[1] + " " + p[2] + " — IPP " + p[0] + " — " + p[4];
  $("banner").textContent = ""; $("banner").className = "ban";
  await post("/api/open", {patient: p[0]});
}
function toggleList(event) {
  event.stopPropagation();
  if (list) { list.remove(); list = null; return; }
  list = document.createElement("div"); list.className = "list";
  for (const name of __EXAMS__) {
    const o = document.createElement("div"); o.textContent = name;
    o.onclick = (e) => { e.stopPropagation(); exam = name; $("examv").textContent = name; list.remove(); list = null; };
    list.appendChild(o);
  }
  $("exam").appendChild(list);
}
async function save() {
  const body = {patient: patient && patient[0], renseignements: $("clinical").value, examen: exam,
                date: $("date").value, a_jeun: fasting};
  const answer = await post("/api/save", body);
  $("banner").className = "ban " + (answer.ok ? "ok" : "ko"); $("banner").textContent = answer.message;
  if (answer.ok) { $("clinical").value = ""; $("date").value = ""; exam = ""; fasting = false;
    $("examv").textContent = "— Sélectionner —"; $("box").textContent = ""; }
}
$("find").onclick = search;
$("q").onkeydown = (e) => { if (e.key === "Enter") search(); };
$("exam").onclick = toggleList;
document.onclick = () => { if (list) { list.remove(); list = null; } };
$("fasting").onclick = () => { fasting = !fasting; $("box").textContent = fasting ? "\\u2714" : ""; };
$("save").onclick = save;
const rect = (el) => {
  const b = el.getBoundingClientRect(); return [b.left, b.top, b.width, b.height].map(Math.round);
};
let shown = "";
setInterval(() => {  // where the controls are, for the scripted person's eyes
  const names = ["q", "find", "clinical", "exam", "date", "box", "save"];
  const where = Object.fromEntries(names.map((n) => [n, rect($(n))]));
  where.rows = Object.fromEntries(Object.entries(rows).map(([k, tr]) => [k, rect(tr.children[2])]));
  where.options = list ? Object.fromEntries([...list.children].map((o) => [o.textContent, rect(o)])) : {};
  where.window = [0, 0, innerWidth, innerHeight];
  where.focus = document.activeElement ? document.activeElement.id : "";
  const text = JSON.stringify(where);
  if (text !== shown) { shown = text; post("/api/layout", where); }
}, 150);
</script></body></html>
"""


class Effects:
    """Append-only JSON lines: one per effect the application undergoes."""

    def __init__(self, path: Path) -> None:
        self.path, self._lock = path, threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        self.seq = len(path.read_text("utf-8").splitlines()) if path.exists() else 0

    def add(self, kind: str, **detail: Any) -> None:
        with self._lock:
            self.seq += 1
            line = {"seq": self.seq, "at": time.time(), "kind": kind, "detail": detail}
            with self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(line, ensure_ascii=False) + "\n")


def create_lab_app(effects_path: Path) -> Starlette:
    effects = Effects(effects_path)
    layout = effects_path.with_suffix(".layout.json")
    page = PAGE.replace("__TITLE__", TITLE).replace("__EXAMS__", json.dumps(EXAMS, ensure_ascii=False))

    async def home(request: Request) -> Response:
        return HTMLResponse(page, headers={"cache-control": "no-store"})

    async def search(request: Request) -> Response:
        q = str((await _body(request)).get("q", "")).strip().upper()[:100]
        hits = [p for p in PATIENTS if q and (q in p[1] or q == p[0])]
        effects.add("search", q=q, hits=[p[0] for p in hits])
        return JSONResponse(hits)

    async def open_patient(request: Request) -> Response:
        ipp = str((await _body(request)).get("patient", ""))
        if not any(p[0] == ipp for p in PATIENTS):
            return JSONResponse({"error": "unknown patient"}, 404)
        effects.add("open", patient=ipp)
        return JSONResponse({"ok": True})

    async def save(request: Request) -> Response:
        body = await _body(request)
        values = {k: body.get(k) for k in ("patient", "renseignements", "examen", "date")}
        values["a_jeun"] = body.get("a_jeun") is True
        missing = [k for k in ("patient", "renseignements", "examen", "date") if not values[k]]
        if not missing and (values["examen"] not in EXAMS or not _is_date(str(values["date"]))):
            missing = ["examen"] if values["examen"] not in EXAMS else ["date"]
        if missing:
            effects.add("error", missing=missing)
            return JSONResponse({"ok": False, "message": "ERREUR — champ(s) manquant(s) : " + ", ".join(missing)})
        effects.add("save", **values)
        who = next(f"{p[1]} {p[2]}" for p in PATIENTS if p[0] == values["patient"])
        return JSONResponse({"ok": True, "message": f"Demande enregistrée : {who}, {values['examen']}."})

    async def report_layout(request: Request) -> Response:
        partial = layout.with_suffix(".tmp")
        partial.write_text(json.dumps(await _body(request), ensure_ascii=False), "utf-8")
        os.replace(partial, layout)
        return Response(status_code=204)

    async def favicon(request: Request) -> Response:
        return Response(status_code=204)

    return Starlette(
        routes=[
            Route("/", home),
            Route("/api/search", search, methods=["POST"]),
            Route("/api/open", open_patient, methods=["POST"]),
            Route("/api/save", save, methods=["POST"]),
            Route("/api/layout", report_layout, methods=["POST"]),
            Route("/favicon.ico", favicon),
        ]
    )


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    try:
        body = json.loads(raw) if len(raw) <= MAX_BODY else None
    except (ValueError, UnicodeDecodeError):
        body = None
    return body if isinstance(body, dict) else {}


def _is_date(text: str) -> bool:
    try:
        time.strptime(text, "%d/%m/%Y")
    except ValueError:
        return False
    return True
