/* Teammates on the board: where each is looking, live (the feed's "presence" events), drawn
   as a named outline of their view and a dot on the minimap; and this player's own view,
   reported to the team (POST /api/worlds/<w>/presence) when it changes (by MOVED cells or more),
   at most one report per REPORT_MS with the latest view, once every HEARTBEAT_MS while nothing changes, and
   {"gone": true} when the page goes away. A teammate not heard of for FORGET_MS is dropped.
   A report holds the view's rectangle and the cursor's cell: never a cell's content. */
(function () {
  "use strict";
  var wb = window.worldBoard;
  var board = document.getElementById("world-board");
  if (!wb || !board) return;
  var csrf = document.querySelector('meta[name="csrf-token"]').content;
  var me = board.dataset.player;
  var url = board.dataset.presence;
  var REPORT_MS = 1000, HEARTBEAT_MS = 15000, FORGET_MS = 45000, MAX_MATES = 64;

  var mates = new Map();   // player id -> {data, at, el}

  // -- drawing teammates ------------------------------------------------------------------

  function draw(m) {
    var d = m.data, cs = wb.state().cs;
    if (!m.el) {
      m.el = document.createElement("div");
      m.el.className = "wmate";
      m.label = document.createElement("span");
      m.label.className = "wmate-name";
      m.el.appendChild(m.label);
      wb.layer.appendChild(m.el);
    }
    m.el.dataset.x0 = d.x0; m.el.dataset.y0 = d.y0;
    m.el.dataset.player = d.p;
    m.el.className = "wmate c" + d.c;
    m.label.textContent = d.n;
    m.el.title = d.n + " is looking here";
    m.el.style.width = d.w * cs + "px";
    m.el.style.height = d.h * cs + "px";
    wb.place(m.el, d.x0, d.y0);
  }

  function forget(id) {
    var m = mates.get(id);
    if (m && m.el) m.el.remove();
    mates.delete(id);
    changed();
  }

  function changed() {
    window.dispatchEvent(new CustomEvent("world-mates"));
  }

  wb.on("presence", function (d) {
    if (!d || d.p === me) return;
    if (d.gone) { forget(d.p); return; }
    var m = mates.get(d.p) || {};
    m.data = d; m.at = Date.now();
    mates.delete(d.p);
    mates.set(d.p, m);
    while (mates.size > MAX_MATES) forget(mates.keys().next().value);
    draw(m);
    changed();
  });

  var lastZoom = null;
  wb.on("view", function () {
    var z = wb.state().cs;
    if (z !== lastZoom) { lastZoom = z; mates.forEach(draw); }   // sizes follow the zoom
  });

  setInterval(function () {
    var now = Date.now();
    mates.forEach(function (m, id) { if (now - m.at > FORGET_MS) forget(id); });
  }, 2000);

  // the way back to the team: the teammate heard of most recently
  wb.setMateSpot(function () {
    var last = null;
    mates.forEach(function (m) { if (!last || m.at > last.at) last = m; });
    if (!last) return null;
    var d = last.data;
    return d.x !== undefined ? { x: d.x, y: d.y } : { x: d.x0 + Math.floor(d.w / 2), y: d.y0 + Math.floor(d.h / 2) };
  });

  window.worldMates = function () {
    var out = [];
    mates.forEach(function (m) { out.push(m.data); });
    return out;
  };

  // -- reporting this player's view --------------------------------------------------------

  if (!me || !url) return;
  var sent = "", pending = null, lastSent = 0, timer = 0;

  function report() {
    var r = wb.viewRect(), s = wb.state();
    var body = { x0: r.x0, y0: r.y0, width: Math.min(512, r.width), height: Math.min(512, r.height) };
    if (s.cursor) { body.x = s.cursor.x; body.y = s.cursor.y; }
    return body;
  }

  // a view that moved less than MOVED cells (same size, same cursor) is not news to teammates
  var MOVED = 4, last = null;
  function news(b) {
    if (!last) return true;
    return Math.abs(b.x0 - last.x0) >= MOVED || Math.abs(b.y0 - last.y0) >= MOVED ||
      b.width !== last.width || b.height !== last.height || b.x !== last.x || b.y !== last.y;
  }

  function send(force) {
    timer = 0;
    var body = report(), text = JSON.stringify(body);
    if (!force && (text === sent || !news(body))) return;
    var wait = REPORT_MS - (Date.now() - lastSent);
    if (wait > 0) { timer = setTimeout(send, wait); return; }   // coalesced: the latest view goes
    sent = text; last = body; lastSent = Date.now();
    fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: text,
    }).then(function (r) {
      if (r.status === 429) { lastSent = Date.now() + 1000; sent = ""; }   // back off a little
    }).catch(function () { sent = ""; });
  }

  function soon() { if (!timer) timer = setTimeout(send, 60); }
  wb.on("view", soon);
  setInterval(function () { if (!document.hidden) send(true); }, HEARTBEAT_MS);
  window.addEventListener("pagehide", function () {
    fetch(url, {
      method: "POST", credentials: "same-origin", keepalive: true,
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify({ gone: true }),
    }).catch(function () {});
  });
})();
