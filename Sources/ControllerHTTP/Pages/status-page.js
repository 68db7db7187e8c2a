"use strict";
const $ = (id) => document.getElementById(id);
function uptime(s) {
  s = Math.floor(s);
  const d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60);
  const hms = [h, m, s % 60].map((v) => String(v).padStart(2, "0")).join(":");
  return d > 0 ? d + " d " + hms : hms;
}
function rows(table, pairs) {
  table.replaceChildren(...pairs.map(([k, v]) => {
    const tr = document.createElement("tr"), a = document.createElement("td"), b = document.createElement("td");
    a.textContent = k; b.textContent = v; b.className = "n"; tr.append(a, b); return tr;
  }));
}
function render(s) {
  $("board").textContent = s.board;
  $("chip").textContent = s.chip;
  $("phase").textContent = s.phase + (s.degradedReason ? " — " + s.degradedReason : "");
  $("phase").dataset.phase = s.phase;
  $("state").textContent = s.state;/*{nested*/
  $("around").textContent = (s.superstates || []).map((x) => "in " + x).concat((s.alsoActive || []).length ? ["· also " + s.alsoActive.join(", ")] : []).join(" ");/*}*/
  $("state").dataset.state = s.state;
/*{gauges*/  $("credit").textContent = s.credit;
/*}*/  $("uptime").textContent = uptime(s.uptimeSeconds);
  $("events").textContent = s.events;
  const last = s.lastTransitions[s.lastTransitions.length - 1];
  $("since").textContent = last ? last.event + ": " + last.from + " → " + last.to : "none yet";
  document.title = /*{titlePrefix*/"turnstiled · "/*}*/ + s.state + " · " + s.board;
  for (const g of document.querySelectorAll("#diagram .node")) {
    g.classList.toggle("current", g.dataset.state === s.state/*{nested*/ || (s.alsoActive || []).includes(g.dataset.state)/*}*/);
  }
  rows($("counters"), Object.keys(s.counters).sort().map((k) => [k, s.counters[k]]));
  // Each output's level and meaning, and why the host holds it there when it does.
  rows($("outputs"), (s.outputs || []).map((o) => [o.name, o.level + [o.meaning, o.held].filter((x) => x).map((x) => " (" + x + ")").join("")]));
  rows($("health"), [["queue depth", s.queueDepth], ["dropped commands", s.droppedCommands],
    ["lost edges", s.lostEdges], ["trace losses", s.traceLosses]].concat(s.site ? [
    ["MQTT broker", s.site.broker + (s.site.connected ? " (connected)" : " (away)")],
    ["MQTT outbox", s.site.outboxDepth]] : []));
  const body = $("transitions").tBodies[0];
  body.replaceChildren(...s.lastTransitions.slice(-/*{shownTransitions*/12/*}*/).reverse().map((t) => {
    const tr = document.createElement("tr");
    for (const v of [uptime(t.time), t.from, t.event, t.to]) {
      const td = document.createElement("td"); td.textContent = v; tr.append(td);
    }
    return tr;
  }));
}
