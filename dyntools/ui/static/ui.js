// dyntools ui: the page's only script (served from this origin; the CSP allows no other).
// HTML that reaches innerHTML here was rendered and escaped by the server's templates.
"use strict";

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}

// Login: the printed link carries the token in the fragment (never sent to the server
// in a URL); put it in the form, forget it from the address bar, and submit.
function initLogin() {
  const form = document.getElementById("login-form");
  if (!form || !location.hash.startsWith("#token=")) return;
  const token = decodeURIComponent(location.hash.slice("#token=".length));
  history.replaceState(null, "", location.pathname);
  if (document.getElementById("login-error")) return;  // a wrong token: do not loop
  document.getElementById("token").value = token;
  form.submit();
}

// Bench: the gate's findings as you type (debounced), nothing kept.
function initBench() {
  const input = document.getElementById("bench-input");
  if (!input) return;
  const output = document.getElementById("bench-output");
  const verdict = document.getElementById("bench-verdict");
  const max = Number(input.dataset.max);
  let timer = null;
  let sent = 0;

  async function check() {
    const ticket = ++sent;
    const body = new TextEncoder().encode(input.value);
    if (body.length === 0) {
      verdict.textContent = "waiting for input";
      verdict.className = "badge";
      output.innerHTML = "";
      return;
    }
    verdict.textContent = "checking...";
    try {
      const response = await fetch("/bench/check", {
        method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "text/plain; charset=utf-8", "X-CSRF-Token": csrfToken()},
        body: body.length > max ? body.slice(0, max + 1) : body,
      });
      if (ticket !== sent) return;  // a newer check is on its way
      if (!response.ok) {
        verdict.textContent = "the server refused the check (" + response.status + ")";
        verdict.className = "badge bad";
        return;
      }
      const result = await response.json();
      verdict.textContent = result.accepted ? "accepted: no findings"
        : "rejected: " + result.count + " finding(s)";
      verdict.className = "badge " + (result.accepted ? "ok" : "bad");
      output.innerHTML = result.html;
    } catch (error) {
      if (ticket === sent) {
        verdict.textContent = "the server cannot be reached";
        verdict.className = "badge bad";
      }
    }
  }

  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(check, 250);
  });
  input.addEventListener("dragover", (event) => event.preventDefault());
  input.addEventListener("drop", async (event) => {
    event.preventDefault();
    const file = event.dataTransfer.files[0];
    if (!file) return;
    input.value = await file.slice(0, max + 1).text();
    check();
  });
}

// Runs: the timeline follows the audit log over server-sent events.
function initRuns() {
  const list = document.getElementById("runs");
  if (!list || !window.EventSource) return;
  const live = document.getElementById("live");
  const params = new URLSearchParams({since: list.dataset.since});
  if (list.dataset.show) params.set("show", list.dataset.show);
  if (list.dataset.tool) params.set("tool", list.dataset.tool);
  const source = new EventSource("/runs/stream?" + params.toString());
  source.onopen = () => { live.textContent = "live"; live.className = "badge ok"; };
  source.onerror = () => { live.textContent = "reconnecting"; live.className = "badge warn"; };
  source.addEventListener("run", (event) => {
    const message = JSON.parse(event.data);
    const template = document.createElement("template");
    template.innerHTML = message.html;
    const fresh = template.content.firstElementChild;
    if (!fresh) return;
    const old = document.getElementById(message.id);
    if (old) old.replaceWith(fresh); else list.prepend(fresh);
    const empty = document.getElementById("no-runs");
    if (empty) empty.remove();
  });
}

// Decisions that cannot be taken back ask first.
function initConfirm() {
  for (const id of ["retire-form", "reject-form"]) {
    const form = document.getElementById(id);
    if (form) form.addEventListener("submit", (event) => {
      if (!window.confirm(form.querySelector("button").textContent + "?")) event.preventDefault();
    });
  }
}

document.addEventListener("DOMContentLoaded", () => {
  initLogin();
  initBench();
  initRuns();
  initConfirm();
});
