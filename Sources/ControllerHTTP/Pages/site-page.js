"use strict";
const $ = (id) => document.getElementById(id);
function age(s) {
  s = Math.max(0, Math.floor(s));
  return s < 120 ? s + " s ago" : s < 7200 ? Math.floor(s / 60) + " min ago" : s < 172800 ? Math.floor(s / 3600) + " h ago" : Math.floor(s / 86400) + " d ago";
}
function counts(totals) {
  const shown = Object.keys(totals || {}).filter((k) => totals[k] !== 0).sort().map((k) => k + " " + totals[k]);
  return shown.length ? shown.join(", ") : "nothing counted";
}
function cells(c) {
  return [c.node, c.app ?? "?", (c.availability ?? "?") + (c.availabilitySince ? " since " + c.availabilitySince : ""),
    (c.state ?? "?") + (c.phase && c.phase !== "running" ? " (" + c.phase + ")" : ""),
    c.lastEventAgeSeconds == null ? "never" : age(c.lastEventAgeSeconds), c.outbox == null ? "?" : String(c.outbox),
    problemsCell(c), counts(c.totals)];
}
function problemsCell(c) {
  const said = (c.notes || []).concat(c.problems || []);
  return said.length ? said.join("; ") : "none";
}
function row(values) {
  const tr = document.createElement("tr");
  for (const v of values) { const td = document.createElement("td"); td.textContent = v; tr.append(td); }
  return tr;
}
function render(o) {
  const summary = o.controllers.length + (o.controllers.length === 1 ? " controller, " : " controllers, ") + o.online + " online";
  $("summary").textContent = summary;
  document.title = document.title.split(" · ")[0] + " · " + summary;
  $("nodes").tBodies[0].replaceChildren(...o.controllers.map((c) => {
    const tr = row(cells(c));
    tr.dataset.node = c.node;
    tr.dataset.available = c.availability ?? "";
    tr.dataset.problems = (c.problems || []).length ? "yes" : "no";
    return tr;
  }));
  $("empty").textContent = o.controllers.length ? "" : "no controller has published on this broker yet";
  const notes = [];
  if (o.connected === false) notes.push("not subscribed on the broker: " + (o.brokerProblem ?? "no answer yet"));
  if (o.notShown) notes.push(o.notShown + " message(s) of nodes past the page's bound were not shown");
  if (o.notListed) notes.push(o.notListed + " message(s) under node levels too long for a node's topics were not shown");
  $("broker").textContent = notes.join("; ");
  $("sums").replaceChildren(...Object.keys(o.sums).sort().map((app) =>
    row([app + " (" + o.controllers.filter((c) => (c.app ?? "?") === app).length + ")", counts(o.sums[app])])));
}
