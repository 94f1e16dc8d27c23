/* The minimap: what the team knows around the view at chunk resolution (64x64 cells a
   square; strong where this colour's board has numbers, faint where only other colours or
   flags do), the view's rectangle, and teammates as dots. A click goes there. Fed by the
   map API through world.js ("atlas"); redrawn when the view or the teammates move. */
(function () {
  "use strict";
  var wb = window.worldBoard;
  var box = document.getElementById("minimap");
  var canvas = document.getElementById("minimap-canvas");
  if (!wb || !box || !canvas || !wb.state().team) return;
  var ctx = canvas.getContext("2d");
  var CHUNK = 64;
  var data = null, queued = false;

  var css = getComputedStyle(document.documentElement);
  function v(name, fallback) { return (css.getPropertyValue(name) || "").trim() || fallback; }

  var frame = { cx0: 0, cy0: 0, side: 1 };   // the chunks shown: what is known, the view, teammates

  /* Frame what matters: the known chunks, the view and teammates (in chunks), padded, at
     least MIN_SIDE chunks and at most the map's side, square. */
  var MIN_SIDE = 8;
  function reframe() {
    var m = data.map, r = wb.viewRect();
    var xs = [r.x0 / CHUNK, (r.x0 + r.width) / CHUNK], ys = [r.y0 / CHUNK, (r.y0 + r.height) / CHUNK];
    m.known.forEach(function (c) { xs.push(c[0], c[0] + 1); ys.push(c[1], c[1] + 1); });
    (window.worldMates ? window.worldMates() : []).forEach(function (d) {
      xs.push(d.x0 / CHUNK, (d.x0 + d.w) / CHUNK); ys.push(d.y0 / CHUNK, (d.y0 + d.h) / CHUNK);
    });
    var x0 = Math.max(m.cx0, Math.min.apply(null, xs) - 1), x1 = Math.min(m.cx0 + m.side, Math.max.apply(null, xs) + 1);
    var y0 = Math.max(m.cy0, Math.min.apply(null, ys) - 1), y1 = Math.min(m.cy0 + m.side, Math.max.apply(null, ys) + 1);
    var side = Math.min(m.side, Math.max(MIN_SIDE, x1 - x0, y1 - y0));
    frame = { cx0: (x0 + x1) / 2 - side / 2, cy0: (y0 + y1) / 2 - side / 2, side: side };
  }
  function scale() { return canvas.clientWidth / frame.side; }

  function draw() {
    queued = false;
    if (!data) return;
    var side = canvas.clientWidth, dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(side * dpr)) { canvas.width = canvas.height = Math.round(side * dpr); }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    reframe();
    var m = frame, k = scale(), colour = wb.state().colour;
    ctx.clearRect(0, 0, side, side);
    ctx.fillStyle = v("--panel", "#fff"); ctx.globalAlpha = 0.85; ctx.fillRect(0, 0, side, side); ctx.globalAlpha = 1;
    var mine = v("--c" + colour, "#e0473e"), other = v("--muted", "#5b6475");
    // a chunk grid, faint: the map's squares are 64x64 cells
    if (k >= 6) {
      ctx.strokeStyle = v("--line", "#d5dae3"); ctx.lineWidth = 1;
      ctx.beginPath();
      for (var gx = Math.ceil(m.cx0); gx < m.cx0 + m.side; gx++) { var px0 = Math.round((gx - m.cx0) * k) + 0.5; ctx.moveTo(px0, 0); ctx.lineTo(px0, side); }
      for (var gy = Math.ceil(m.cy0); gy < m.cy0 + m.side; gy++) { var py0 = Math.round((gy - m.cy0) * k) + 0.5; ctx.moveTo(0, py0); ctx.lineTo(side, py0); }
      ctx.stroke();
    }
    data.map.known.forEach(function (c) {
      var own = c[2] & (1 << colour);
      ctx.fillStyle = own ? mine : other;
      ctx.globalAlpha = own ? 0.9 : 0.35;
      ctx.fillRect((c[0] - m.cx0) * k, (c[1] - m.cy0) * k, Math.max(1.5, k), Math.max(1.5, k));
    });
    ctx.globalAlpha = 1;
    // teammates
    (window.worldMates ? window.worldMates() : []).forEach(function (d) {
      var px = ((d.x0 + d.w / 2) / CHUNK - m.cx0) * k, py = ((d.y0 + d.h / 2) / CHUNK - m.cy0) * k;
      if (px < 0 || py < 0 || px > side || py > side) return;
      ctx.fillStyle = v("--c" + d.c, "#333");
      ctx.strokeStyle = v("--ink", "#000"); ctx.lineWidth = 1;
      ctx.beginPath(); ctx.arc(px, py, 3.5, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
    });
    // the view
    var r = wb.viewRect();
    var vx = (r.x0 / CHUNK - m.cx0) * k, vy = (r.y0 / CHUNK - m.cy0) * k;
    var vwid = Math.max(3, r.width / CHUNK * k), vhei = Math.max(3, r.height / CHUNK * k);
    ctx.strokeStyle = v("--focus", "#ffb400"); ctx.lineWidth = 2;
    ctx.strokeRect(vx, vy, vwid, vhei);
  }
  function soon() { if (!queued) { queued = true; requestAnimationFrame(draw); } }

  wb.on("atlas", function (d) { data = d; box.hidden = false; soon(); });
  wb.on("view", soon);
  wb.on("switched", soon);
  window.addEventListener("world-mates", soon);

  canvas.addEventListener("pointerdown", function (e) { e.stopPropagation(); });
  canvas.addEventListener("click", function (e) {
    if (!data) return;
    var r = canvas.getBoundingClientRect(), k = scale();
    var x = Math.floor((frame.cx0 + (e.clientX - r.left) / k) * CHUNK);
    var y = Math.floor((frame.cy0 + (e.clientY - r.top) / k) * CHUNK);
    wb.goTo(x, y);
    wb.say("Went to (" + x + ", " + y + ") from the map.");
  });
  var d0 = wb.atlas();
  if (d0) { data = d0; box.hidden = false; soon(); }
})();
