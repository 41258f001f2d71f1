// The demo application's page logic. Every effect is reported to the server's effects log.
"use strict";
(function () {
  const body = document.body;
  const view = body.dataset.view;
  function log(kind, detail) {
    const payload = JSON.stringify(Object.assign({ kind: kind, view: view }, detail || {}));
    fetch("/effects", { method: "POST", headers: { "Content-Type": "application/json" }, body: payload, keepalive: true });
  }
  function labelOf(el) {
    if (el.id) {
      const label = document.querySelector('label[for="' + el.id + '"]');
      if (label) return label.textContent.trim();
    }
    return (el.getAttribute("aria-label") || el.textContent || el.value || "").trim().slice(0, 200);
  }
  let forwarded = null; // a click on a <label> is passed on to its field: one effect, logged once
  document.addEventListener("click", function (e) {
    const el = e.target.closest("button, a, label, td, input, textarea, th, h2");
    if (el && el === forwarded) { forwarded = null; return; }
    forwarded = el && el.tagName === "LABEL" ? el.control : null;
    if (forwarded) setTimeout(function () { forwarded = null; }, 0);
    log("click", { label: el ? labelOf(el) : "", x: e.screenX, y: e.screenY, synthetic: e.detail === 0 });
  }, true);
  document.addEventListener("change", function (e) {
    const el = e.target;
    if (el.matches("input, textarea") && el.type !== "hidden") log("typed", { field: labelOf(el), value: el.value });
  }, true);
  function toast(text) {
    const t = document.getElementById("toast");
    t.textContent = text;
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(function () { t.hidden = true; }, 4000);
  }
  if (view !== "record") return;

  // The record opens where the previous one was scrolled to (as the hospital's own software does).
  const scrollKey = "easily-record-scroll";
  const scrolled = Number(sessionStorage.getItem(scrollKey) || 0);
  if (scrolled > 0) window.scrollTo(0, scrolled);
  window.addEventListener("scroll", function () {
    sessionStorage.setItem(scrollKey, String(Math.round(window.scrollY)));
  }, { passive: true });

  const patient = body.dataset.patient;
  const names = {};
  body.dataset.tabs.split("|").forEach(function (pair) { const kv = pair.split("="); names[kv[0]] = kv[1]; });
  const note = document.getElementById("note");
  let dirty = false;
  let leaving = false;
  note.addEventListener("input", function () { dirty = note.value.length > 0; });

  document.querySelectorAll("nav.tabs .tab").forEach(function (button) {
    button.addEventListener("click", function () {
      const tab = button.dataset.tab;
      document.querySelectorAll("nav.tabs .tab").forEach(function (b) {
        const on = b === button;
        b.classList.toggle("active", on);
        b.setAttribute("aria-selected", on ? "true" : "false");
      });
      document.querySelectorAll(".panel").forEach(function (p) { p.hidden = p.dataset.panel !== tab; });
      document.title = "Easily — " + body.dataset.pname + " — " + names[tab];
      const where = document.querySelector("header.bar .where");
      if (where) where.textContent = body.dataset.pname + " — " + names[tab]; // the header follows the tab
      history.replaceState(null, "", "/patient/" + patient + "/" + tab + location.search);
      log("tab", { tab: tab });
    });
  });

  function addNote(item) {
    const list = document.getElementById("history");
    const empty = list.querySelector(".empty");
    if (empty) empty.remove();
    const li = document.createElement("li");
    li.dataset.note = item.id;
    const span = document.createElement("span");
    span.textContent = item.text;
    const del = document.createElement("button");
    del.className = "delete";
    del.dataset.note = item.id;
    del.textContent = document.querySelector("#history .delete") ?
      document.querySelector("#history .delete").textContent : (body.dataset.lang === "en" ? "Delete" : "Supprimer");
    li.append(span, del);
    list.append(li);
  }
  function save(confirmed) {
    const banner = document.getElementById("banner");
    banner.hidden = true;
    fetch("/api/notes", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ patient: patient, text: note.value, lang: body.dataset.lang, confirmed: confirmed }),
    }).then(function (r) {
      return r.json().then(function (answer) { return { status: r.status, answer: answer }; });
    }).then(function (got) {
      if (got.status === 409) { askFirst(got.answer.confirm); return; } // the application asks first
      if (got.status !== 200) { banner.textContent = got.answer.error; banner.hidden = false; return; } // refused
      addNote(got.answer);
      note.value = "";
      dirty = false;
      toast(body.dataset.saved);
    });
  }
  function askFirst(text) { // the application's own box (not the browser's): the note is kept only once confirmed
    const box = document.createElement("div");
    box.className = "box";
    box.setAttribute("role", "dialog");
    const question = document.createElement("p");
    question.textContent = text;
    const yes = document.createElement("button");
    yes.className = "primary";
    yes.textContent = body.dataset.confirmYes;
    const no = document.createElement("button");
    no.textContent = body.dataset.confirmNo;
    box.append(question, yes, no);
    document.body.append(box);
    yes.addEventListener("click", function () { box.remove(); log("dialog", { dialog: "save-confirm", answer: "yes" }); save(true); });
    no.addEventListener("click", function () { box.remove(); log("dialog", { dialog: "save-confirm", answer: "no" }); });
  }
  document.getElementById("save").addEventListener("click", function () { save(false); });
  document.getElementById("history").addEventListener("click", function (e) {
    const del = e.target.closest("button.delete");
    if (!del) return;
    const yes = window.confirm(body.dataset.confirm);
    log("dialog", { dialog: "delete-confirm", answer: yes ? "yes" : "no" });
    if (!yes) return;
    fetch("/api/notes/delete", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ patient: patient, id: del.dataset.note }),
    }).then(function () { del.closest("li").remove(); });
  });
  window.addEventListener("beforeunload", function (e) {
    if (!dirty) return;
    leaving = true;
    log("dialog", { dialog: "leave-site", answer: "asked" });
    e.preventDefault();
    e.returnValue = "";
  });
  window.addEventListener("pagehide", function () {
    if (leaving) navigator.sendBeacon("/effects", JSON.stringify({ kind: "leave", view: view, answer: "leave" }));
  });
  document.getElementById("tele").addEventListener("click", function () {
    log("camera", { result: "asked" });
    const shown = document.getElementById("camera");
    navigator.mediaDevices.getUserMedia({ video: true }).then(function (stream) {
      log("camera", { result: "granted" });
      shown.textContent = body.dataset.cameraOn;
      stream.getTracks().forEach(function (t) { t.stop(); });
    }).catch(function (err) {
      log("camera", { result: "refused", error: err.name });
      shown.textContent = body.dataset.cameraRefused;
    });
  });
})();
