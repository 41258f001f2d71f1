/* rpa-mcp operator console: applies the server's live patches (server-sent events).
   The server renders every fragment with its autoescaped templates; this script only
   places them: {"op": "replace" | "append", "id": ..., "parent": ..., "html": ...}. */
(function () {
  "use strict";

  function fragment(html) {
    var template = document.createElement("template");
    template.innerHTML = html;
    return template.content;
  }

  // Times arrive in UTC (<time datetime=... data-local>); show them in the browser's own time zone,
  // keeping the UTC text as the tooltip.
  function localize(root) {
    var lang = document.documentElement.getAttribute("lang") || "en";
    var browser = navigator.language || "";
    var locale = browser.slice(0, 2) === lang ? browser : lang; // en-GB dates for a British browser
    root.querySelectorAll("time[data-local]").forEach(function (el) {
      var moment = new Date(el.getAttribute("datetime"));
      if (isNaN(moment.getTime())) {
        return;
      }
      el.setAttribute("title", el.textContent);
      el.textContent = moment.toLocaleString(locale, { dateStyle: "short", timeStyle: "medium" });
      el.removeAttribute("data-local");
    });
  }

  function apply(patch) {
    patch.forEach(function (op) {
      var existing = document.getElementById(op.id);
      if (existing) {
        existing.replaceWith(fragment(op.html));
      } else if (op.parent) {
        var parent = document.getElementById(op.parent);
        if (parent) {
          parent.appendChild(fragment(op.html));
        }
      }
    });
    localize(document);
    var count = Number(document.body.getAttribute("data-patches") || "0") + 1;
    document.body.setAttribute("data-patches", String(count));
  }

  // A new approval's notice (#alerts) also shows as a desktop notification, if the person allowed
  // them, and the tab's title carries the number of approvals waiting.
  var baseTitle = document.title;

  function told(patch, notify) {
    patch.forEach(function (op) {
      var notice = op.parent === "alerts" ? document.getElementById(op.id) : null;
      if (notify && notice && "Notification" in window && Notification.permission === "granted") {
        var link = notice.querySelector("a");
        var shown = new Notification(notice.querySelector("b").textContent, { body: notice.textContent, tag: op.id });
        shown.onclick = function () {
          window.focus();
          if (link) {
            window.location.assign(link.getAttribute("href"));
          }
        };
      }
    });
    var waiting = document.getElementById("count-approvals");
    var n = waiting && !waiting.hidden ? waiting.textContent : "";
    document.title = n ? "(" + n + ") " + baseTitle : baseTitle;
  }

  function offerDesktopAlerts() {
    var button = document.getElementById("desktop-alerts");
    if (!button || !("Notification" in window) || Notification.permission !== "default") {
      return;
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      Notification.requestPermission().then(function () {
        button.hidden = true;
      });
    });
  }

  function listen(root, onPatch) {
    var source = new EventSource(root.getAttribute("data-live"));
    var ready = root.getAttribute("data-ready") || "data-live-ready";
    source.addEventListener("open", function () {
      document.body.classList.remove("offline");
      document.body.setAttribute(ready, "1");
    });
    source.addEventListener("patch", function (event) {
      var patch = JSON.parse(event.data);
      apply(patch);
      (onPatch || function () {})(patch);
    });
    source.addEventListener("ended", function () {
      source.close();
    });
    source.addEventListener("error", function () {
      document.body.classList.add("offline");
    });
    return source;
  }

  // The alerts stream is opened by one tab of the browser at a time (a Web Lock): a browser keeps
  // about six connections to a server, and each open stream holds one. That tab tells the others
  // (a BroadcastChannel) and alone shows the desktop notification; when it closes, another takes over.
  function listenForAlerts(root) {
    var channel = "BroadcastChannel" in window ? new BroadcastChannel("rpa-console-alerts") : null;
    if (channel) {
      channel.onmessage = function (event) {
        apply(event.data);
        told(event.data, false);
      };
    }
    function lead() {
      return new Promise(function (released) {
        var source = listen(root, function (patch) {
          if (channel) {
            channel.postMessage(patch);
          }
          told(patch, true);
        });
        source.addEventListener("ended", released);
      });
    }
    if (navigator.locks && channel) {
      navigator.locks.request("rpa-console-alerts", lead);
    } else {
      lead();
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    localize(document);
    offerDesktopAlerts();
    told([], false);
    document.querySelectorAll("[data-live]").forEach(function (root) {
      if (root.id === "alerts") {
        listenForAlerts(root);
      } else {
        listen(root);
      }
    });
  });
})();
