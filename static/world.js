/* Devil World: the endless board. What htmx cannot do: dragging, keys, a tiled view that
   fetches only the visible chunks of the team's knowledge (the JSON view API), keeps only the
   tiles near the view (bounded DOM), swaps in the cells a move or a teammate changed (the
   move's answer, the SSE feed), and draws a devil error's witness over the board.

   Coordinates: world cells (x, y), y down. The layer is positioned relative to an anchor cell
   (ax, ay), whole numbers, so CSS pixels stay small wherever the view is; the view's top-left
   is (ax + rx, ay + ry) cells, the offset (rx, ry) small and fractional while dragging. Cells
   are always the anchor plus a whole offset, so they stay exact where fractions of a cell
   no longer fit in a JS number (|x| >= 2^52); the page goes to |x|, |y| <= LIMIT, far enough
   inside 2^53 that a drop's cascade (10,000 cells at most) stays exact too. */
(function () {
  "use strict";

  var board = document.getElementById("world-board");
  if (!board) return;
  var layer = document.getElementById("world-layer");
  var cursorEl = document.getElementById("world-cursor");
  var coordsOut = document.getElementById("coords");
  var cursorOut = document.getElementById("cursor-cell");
  var liveOut = document.getElementById("live");
  var msgOut = document.getElementById("wmsg");
  var errorOut = document.getElementById("error-count");
  layer.appendChild(cursorEl);  // the cursor moves with the layer
  var csrf = document.querySelector('meta[name="csrf-token"]').content;

  var T = 16;                         // cells per tile side
  var ZOOMS = [10, 14, 20, 26, 34];   // cell sizes in CSS pixels
  var MAX_VIEW = 256;                 // the view API's and the feed's largest side
  var KEEP_MARGIN = 2;                // tiles kept beyond the visible ones
  var LIMIT = Math.pow(2, 53) - Math.pow(2, 20);

  var world = board.dataset.world;
  var team = board.dataset.team;
  var colour = +board.dataset.colour;
  var joined = !!board.dataset.joined;
  var apiBase = board.dataset.api;
  var zoom = 3;                       // 26 px: a finger's target (WCAG 2.5.8: 24), phones too
  var cs = ZOOMS[zoom];
  var ax = 0, ay = 0;                 // anchor cell of the layer (whole numbers)
  var rx = 0, ry = 0;                 // top-left of the view, in cells from the anchor
  var vw = 0, vh = 0;                 // view size in CSS pixels
  var tiles = new Map();              // "tx,ty" -> {tx, ty, el, cells: array|null, pending}
  var generation = 0;                 // bumps when the colour changes: stale answers are dropped
  var cursor = null;                  // {x, y} keyboard cursor
  var errors = +board.dataset.errors || 0;   // devil errors made here so far (the server's count)
  var seen = 0;                       // known cells received so far (the view history)
  var firstBoard = null;              // ms from navigation to the first board painted
  var NEAR = 3;                       // a click with nothing known this near is a drop request
  var teamSpot = board.dataset.startX !== undefined && board.dataset.startX !== "" ?
    { x: +board.dataset.startX, y: +board.dataset.startY } : null;   // where the team was busy

  // what the other scripts of the page (static/world/*.js) follow: "view", "presence",
  // "colour", "cells", "atlas"
  var hooks = {};
  function on(name, fn) { (hooks[name] = hooks[name] || []).push(fn); }
  function emit(name, data) { (hooks[name] || []).forEach(function (fn) { fn(data); }); }

  // -- symbols ---------------------------------------------------------------------------

  var CLASS = { ".": "", "F": "sF", "*": "sX" };
  var TEXT = { ".": "", "0": "", "F": "⚑", "*": "✱" };
  for (var d = 0; d <= 8; d++) { CLASS[String(d)] = "s" + d; if (d) TEXT[String(d)] = String(d); }

  function cellHtml(sym) {
    var cls = CLASS[sym];
    return cls ? '<i class="' + cls + '">' + TEXT[sym] + "</i>" : "<i></i>";
  }

  // -- geometry --------------------------------------------------------------------------

  function floorDiv(a, b) { return Math.floor(a / b); }
  function key(tx, ty) { return tx + "," + ty; }

  function place(el, x, y) {
    el.style.transform = "translate(" + ((x - ax) * cs) + "px," + ((y - ay) * cs) + "px)";
  }

  function applyTransform() {
    layer.style.transform = "translate(" + (-rx * cs) + "px," + (-ry * cs) + "px)";
    if (cursor) place(cursorEl, cursor.x, cursor.y);
    viewChanged();
  }

  var viewQueued = false;
  function viewChanged() {
    if (viewQueued) return;
    viewQueued = true;
    requestAnimationFrame(function () { viewQueued = false; emit("view", viewRect()); });
  }

  function viewRect() {
    // the cells in view: whole numbers (the corner cell and how many cells show)
    return { x0: ax + Math.floor(rx), y0: ay + Math.floor(ry),
             width: Math.ceil(vw / cs) + 1, height: Math.ceil(vh / cs) + 1 };
  }

  function cellAtPixel(px, py) {
    return { x: ax + Math.floor(rx + px / cs), y: ay + Math.floor(ry + py / cs) };
  }

  function boardPoint(e) {
    var r = board.getBoundingClientRect();
    return { px: e.clientX - r.left, py: e.clientY - r.top };
  }

  function centre() {
    return { x: ax + Math.floor(rx + vw / cs / 2), y: ay + Math.floor(ry + vh / cs / 2) };
  }

  function clamp(v) { return Math.max(-LIMIT, Math.min(LIMIT, v)); }

  function clampView() {
    // the view's corner within the page's limits (whole-number arithmetic: exact)
    if (ax + rx > LIMIT) rx = LIMIT - ax; else if (ax + rx < -LIMIT) rx = -LIMIT - ax;
    if (ay + ry > LIMIT) ry = LIMIT - ay; else if (ay + ry < -LIMIT) ry = -LIMIT - ay;
  }

  function reanchor() {
    // keep pixel offsets small: move the anchor near the view and re-place every tile
    var fx = Math.floor(rx), fy = Math.floor(ry);
    ax += fx; ay += fy; rx -= fx; ry -= fy;
    tiles.forEach(function (t) { place(t.el, t.tx * T, t.ty * T); });
    var placed = layer.querySelectorAll("[data-x0]");   // the witness, teammates' views
    for (var i = 0; i < placed.length; i++) place(placed[i], +placed[i].dataset.x0, +placed[i].dataset.y0);
  }

  function shiftView(dx, dy) {
    // move the view by (dx, dy) cells
    rx += dx; ry += dy;
    clampView();
    if (Math.abs(rx) > 20000 || Math.abs(ry) > 20000) reanchor();
    applyTransform();
    scheduleRefresh();
  }

  function panBy(dpx, dpy) { shiftView(dpx / cs, dpy / cs); }

  function goTo(x, y) {
    ax = clamp(x); ay = clamp(y);
    rx = -vw / cs / 2; ry = -vh / cs / 2;
    clampView();
    reanchor();
    applyTransform();
    scheduleRefresh();
  }

  function setZoom(z, px, py) {
    z = Math.max(0, Math.min(ZOOMS.length - 1, z));
    if (z === zoom) return;
    if (px === undefined) { px = vw / 2; py = vh / 2; }
    var fx = rx + px / cs, fy = ry + py / cs;
    zoom = z; cs = ZOOMS[z];
    board.style.setProperty("--cs", cs + "px");
    rx = fx - px / cs; ry = fy - py / cs;
    clampView();
    reanchor();
    applyTransform();
    scheduleRefresh();
  }

  // -- tiles -----------------------------------------------------------------------------

  var refreshQueued = false;
  function scheduleRefresh() {
    if (refreshQueued) return;
    refreshQueued = true;
    requestAnimationFrame(function () { refreshQueued = false; refresh(); });
  }

  function visibleTiles() {
    return {
      tx0: floorDiv(ax + Math.floor(rx), T), ty0: floorDiv(ay + Math.floor(ry), T),
      tx1: floorDiv(ax + Math.floor(rx + vw / cs), T), ty1: floorDiv(ay + Math.floor(ry + vh / cs), T),
    };
  }

  function renderTile(t) {
    var html = "";
    for (var i = 0; i < T * T; i++) html += cellHtml(t.cells ? t.cells[i] : ".");
    t.el.innerHTML = html;
    t.el.classList.toggle("loading", !t.cells);
    countFreeSoon();
  }

  // -- free cells (✱) in view: other colours' flags, safe on this board --------------------

  var freeOut = document.getElementById("free-count"), freeQueued = false;
  function countFreeSoon() {
    if (freeQueued || !freeOut) return;
    freeQueued = true;
    setTimeout(function () { freeQueued = false; countFree(); }, 150);
  }
  function countFree() {
    var r = viewRect(), n = 0, nearest = null, best = Infinity, c = centre();
    tiles.forEach(function (t) {
      if (!t.cells) return;
      for (var i = 0; i < T * T; i++) {
        if (t.cells[i] !== "*") continue;
        var x = t.tx * T + (i % T), y = t.ty * T + Math.floor(i / T);
        if (x < r.x0 || y < r.y0 || x >= r.x0 + r.width || y >= r.y0 + r.height) continue;
        n++;
        var d = (x - c.x) * (x - c.x) + (y - c.y) * (y - c.y);
        if (d < best) { best = d; nearest = { x: x, y: y }; }
      }
    });
    freeOut.textContent = n ? "✱ " + n + " free cell" + (n === 1 ? "" : "s") + " in view" : "";
    freeOut.dataset.count = n;
    freeView = nearest;
  }
  var freeView = null;

  function refresh() {
    var v = visibleTiles();
    // drop tiles far from the view (bounded DOM and memory)
    tiles.forEach(function (t, k) {
      if (t.tx < v.tx0 - KEEP_MARGIN || t.tx > v.tx1 + KEEP_MARGIN ||
          t.ty < v.ty0 - KEEP_MARGIN || t.ty > v.ty1 + KEEP_MARGIN) {
        t.el.remove();
        tiles.delete(k);
        early.delete(k);
      }
    });
    var missing = [];
    for (var ty = v.ty0; ty <= v.ty1; ty++) {
      for (var tx = v.tx0; tx <= v.tx1; tx++) {
        var k = key(tx, ty);
        var t = tiles.get(k);
        if (!t) {
          var el = document.createElement("div");
          el.className = "wtile";
          el.dataset.tx = tx; el.dataset.ty = ty;
          t = { tx: tx, ty: ty, el: el, cells: null, pending: false };
          place(el, tx * T, ty * T);
          renderTile(t);
          layer.appendChild(el);
          tiles.set(k, t);
        }
        if (!t.cells && !t.pending) missing.push(t);
      }
    }
    if (missing.length) fetchTiles(missing);
    updateFeed(v);
  }

  function fetchTiles(list) {
    if (!team) {
      list.forEach(function (t) { t.cells = new Array(T * T).fill("."); renderTile(t); });
      return;
    }
    // one request per block of at most 16x16 tiles (256x256 cells)
    var side = MAX_VIEW / T, blocks = new Map();
    list.forEach(function (t) {
      var bk = key(floorDiv(t.tx, side), floorDiv(t.ty, side));
      if (!blocks.has(bk)) blocks.set(bk, []);
      blocks.get(bk).push(t);
    });
    blocks.forEach(function (group) {
      var tx0 = Infinity, ty0 = Infinity, tx1 = -Infinity, ty1 = -Infinity;
      group.forEach(function (t) {
        t.pending = true;
        tx0 = Math.min(tx0, t.tx); ty0 = Math.min(ty0, t.ty);
        tx1 = Math.max(tx1, t.tx); ty1 = Math.max(ty1, t.ty);
      });
      var gen = generation;
      var x0 = tx0 * T, y0 = ty0 * T, w = (tx1 - tx0 + 1) * T, h = (ty1 - ty0 + 1) * T;
      var url = apiBase + "/teams/" + encodeURIComponent(team) + "/view?colour=" + colour +
        "&x0=" + x0 + "&y0=" + y0 + "&width=" + w + "&height=" + h;
      fetch(url, { credentials: "same-origin" }).then(function (r) {
        if (!r.ok) throw new Error("view " + r.status);
        return r.json();
      }).then(function (data) {
        if (gen !== generation) return;
        noteFetchSeq(data.seq);
        for (var ty = ty0; ty <= ty1; ty++) {
          for (var tx = tx0; tx <= tx1; tx++) {
            var t = tiles.get(key(tx, ty));
            if (!t || t.cells) continue;
            var cells = new Array(T * T);
            for (var r = 0; r < T; r++) {
              var row = data.rows[(ty - ty0) * T + r];
              var off = (tx - tx0) * T;
              for (var c = 0; c < T; c++) {
                var ch = row.charAt(off + c);
                cells[r * T + c] = ch;
                if (ch !== ".") seen++;
              }
            }
            t.cells = cells; t.pending = false;
            applyPendingTo(t);
            renderTile(t);
            if (cursor && floorDiv(cursor.x, T) === tx && floorDiv(cursor.y, T) === ty) sayCursor();
            if (firstBoard === null) {   // the first known tile is on screen at the next frame
              firstBoard = -1;
              requestAnimationFrame(function () { firstBoard = performance.now(); });
              setTimeout(function () { emit("first-board"); }, 0);   // then the map (atlas.js)
            }
          }
        }
      }).catch(function () {
        group.forEach(function (t) { t.pending = false; });
        say("Could not load part of the board; it will retry as you move.");
      });
    });
  }

  // changes that arrived (feed, answers) while a tile was loading: applied once it lands
  var early = new Map();
  function applyPendingTo(t) {
    var list = early.get(key(t.tx, t.ty));
    if (!list) return;
    early.delete(key(t.tx, t.ty));
    list.forEach(function (c) { t.cells[c[0]] = c[1]; });
  }

  function symbolAt(x, y) {
    var t = tiles.get(key(floorDiv(x, T), floorDiv(y, T)));
    if (!t || !t.cells) return null;
    return t.cells[(y - t.ty * T) * T + (x - t.tx * T)];
  }

  function cellEl(x, y) {
    var t = tiles.get(key(floorDiv(x, T), floorDiv(y, T)));
    if (!t) return null;
    return t.el.children[(y - t.ty * T) * T + (x - t.tx * T)] || null;
  }

  /* Swap in changed cells: [[x, y, sym], ...]; `mark` is a class for a short highlight. */
  function applyCells(cells, mark, seq) {
    var touched = [];
    for (var i = 0; i < cells.length; i++) {
      var x = cells[i][0], y = cells[i][1], sym = cells[i][2];
      var tx = floorDiv(x, T), ty = floorDiv(y, T);
      var t = tiles.get(key(tx, ty));
      if (!t) continue;  // not in view: a later fetch reads it from the store
      var idx = (y - ty * T) * T + (x - tx * T);
      if (!t.cells) {
        var k = key(tx, ty);
        if (!early.has(k)) early.set(k, []);
        early.get(k).push([idx, sym]);
        continue;
      }
      if (t.cells[idx] === sym) continue;
      t.cells[idx] = sym;
      if (cursor && cursor.x === x && cursor.y === y) sayCursor();
      var el = t.el.children[idx];
      if (!el) continue;
      el.className = CLASS[sym];
      el.textContent = TEXT[sym];
      if (mark) {
        el.classList.add(mark);
        if (seq) el.dataset.seq = seq;
        touched.push(el);
      }
    }
    if (touched.length) {
      setTimeout(function () {
        touched.forEach(function (el) { el.classList.remove("hl", "hl-own"); });
      }, 2500);
    }
    countFreeSoon();
    return touched;
  }

  // -- live feed (SSE) ---------------------------------------------------------------------

  var source = null, sub = null, lastSeq = null, minFetchSeq = null, feedTimer = 0;
  var applied = [];  // recent {seq, at} (for measuring: a teammate's move to its cell on screen)

  function noteFetchSeq(seq) {
    if (lastSeq === null) lastSeq = seq;
    minFetchSeq = minFetchSeq === null ? seq : Math.min(minFetchSeq, seq);
  }

  function updateFeed(v) {
    if (!team) return;
    if (sub && v.tx0 >= sub.tx0 && v.tx1 <= sub.tx1 && v.ty0 >= sub.ty0 && v.ty1 <= sub.ty1) return;
    clearTimeout(feedTimer);
    feedTimer = setTimeout(function () { connectFeed(visibleTiles()); }, sub ? 250 : 0);
  }

  function connectFeed(v) {
    if (lastSeq === null && minFetchSeq === null) {
      feedTimer = setTimeout(function () { connectFeed(visibleTiles()); }, 100);
      return;  // wait for the first view: it names the seq to follow from
    }
    var side = MAX_VIEW / T;
    var w = v.tx1 - v.tx0 + 1, h = v.ty1 - v.ty0 + 1;
    var mx = Math.max(0, Math.floor((side - w) / 2)), my = Math.max(0, Math.floor((side - h) / 2));
    var s = { tx0: v.tx0 - mx, ty0: v.ty0 - my };
    s.tx1 = Math.min(v.tx1 + mx, s.tx0 + side - 1); s.ty1 = Math.min(v.ty1 + my, s.ty0 + side - 1);
    var after = Math.min(lastSeq === null ? Infinity : lastSeq, minFetchSeq === null ? Infinity : minFetchSeq);
    minFetchSeq = null;
    if (source) source.close();
    sub = s;
    var url = apiBase + "/teams/" + encodeURIComponent(team) + "/events?colour=" + colour +
      "&x0=" + s.tx0 * T + "&y0=" + s.ty0 * T + "&width=" + (s.tx1 - s.tx0 + 1) * T +
      "&height=" + (s.ty1 - s.ty0 + 1) * T + "&after=" + after;
    var gen = generation;
    source = new EventSource(url);
    source.onopen = function () { liveOut.textContent = "● live"; liveOut.classList.add("on"); };
    source.onerror = function () {
      liveOut.textContent = "○ reconnecting…"; liveOut.classList.remove("on");
      // a refused stream (a 429 or 503 of the stream caps) is not retried by EventSource: retry
      if (source && source.readyState === 2 && gen === generation) {
        var failed = source;
        setTimeout(function () {
          if (source === failed) { sub = null; connectFeed(visibleTiles()); }
        }, 3000);
      }
    };
    source.addEventListener("cells", function (e) {
      if (gen !== generation) return;
      var data = JSON.parse(e.data);
      lastSeq = Math.max(lastSeq || 0, data.seq);
      var own = pendingOwn.has(data.seq) || isInflight(data.cells);
      var touched = applyCells(data.cells, own ? "hl-own" : "hl", data.seq);
      var at = Date.now();
      requestAnimationFrame(function () {
        applied.push({ seq: data.seq, at: Date.now(), received: at });
        if (applied.length > 200) applied.shift();
      });
      if (touched.length && !own) askWho(data.seq, touched);
      if (data.cells.length) teamSpot = { x: data.cells[0][0], y: data.cells[0][1] };
      document.body.dispatchEvent(new CustomEvent("world-moved"));
      emit("cells", data);
    });
    source.addEventListener("presence", function (e) {
      if (gen === generation) emit("presence", JSON.parse(e.data));
    });
  }

  var whoQueue = new Map(), whoTimer = 0;
  function askWho(seq, els) {
    whoQueue.set(seq, els);
    clearTimeout(whoTimer);
    whoTimer = setTimeout(function () {
      var batch = whoQueue; whoQueue = new Map();
      var seqs = Array.from(batch.keys()).slice(-64);
      fetch(board.dataset.who + "?seqs=" + seqs.join(","), { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : {}; })
        .then(function (names) {
          batch.forEach(function (els, s) {
            var text = names[String(s)];
            if (text) els.forEach(function (el) { if (el.dataset.seq == s) el.title = text; });
          });
        }).catch(function () {});
    }, 120);
  }

  // -- moves -----------------------------------------------------------------------------

  var pendingOwn = new Set();   // seqs of this player's answered moves
  var inflight = new Map();     // "x,y" (or "drop") -> count of moves not answered yet

  function isInflight(cells) {
    if (inflight.has("drop")) return true;
    for (var i = 0; i < cells.length; i++) if (inflight.has(cells[i][0] + "," + cells[i][1])) return true;
    return false;
  }
  function track(k, d) {
    var n = (inflight.get(k) || 0) + d;
    if (n > 0) inflight.set(k, n); else inflight.delete(k);
  }

  /* A message at the bottom of the board. It clears itself after a while (longer with
     more to read), unless `sticky` (the witness's: it goes when the witness goes); `actions`
     are buttons [{label, run}] next to it. */
  function say(text, opts) {
    opts = opts || {};
    msgOut.textContent = text;
    msgOut.classList.toggle("sticky", !!opts.sticky);
    (opts.actions || []).forEach(function (a) {
      var b = document.createElement("button");
      b.type = "button"; b.className = "msg-action"; b.textContent = a.label;
      b.addEventListener("click", function (e) { e.stopPropagation(); clearMessage(); a.run(); });
      msgOut.appendChild(document.createTextNode(" "));
      msgOut.appendChild(b);
    });
    clearTimeout(say.timer);
    say.timer = 0;
    if (!opts.sticky) {
      var wait = Math.max(6000, Math.min(15000, text.length * 70)) + (opts.actions ? 6000 : 0);
      say.timer = setTimeout(clearMessage, wait);
    }
  }
  function clearMessage() {
    clearTimeout(say.timer);
    msgOut.textContent = "";
    msgOut.classList.remove("sticky");
  }

  function post(url, payload) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify(payload),
    });
  }

  /* true: the team knows a cell within NEAR cells of (x, y) on this board; false: nothing
     known there; null: that part of the board is still loading */
  function knownNear(x, y) {
    for (var dy = -NEAR; dy <= NEAR; dy++) {
      for (var dx = -NEAR; dx <= NEAR; dx++) {
        var sym = symbolAt(x + dx, y + dy);
        if (sym === null) return null;
        if (sym !== ".") return true;
      }
    }
    return false;
  }

  /* A click (or Enter) on a cell: a reveal next to what the team knows, a drop request on
     ground it knows nothing about (a reveal there could never be proved). */
  function play(x, y) {
    if (!joined) { move("reveal", x, y); return; }
    var near = knownNear(x, y);
    if (near === null) { clearWitness(); say("This part of the board is still loading: click again in a moment."); return; }
    if (near) { move("reveal", x, y); return; }
    clearWitness();
    var left = Math.ceil((cooldownUntil - Date.now()) / 1000);
    if (left > 0) {
      say("Your team knows nothing near (" + x + ", " + y + "): a click here asks for a drop, " +
          "and your next drop is possible in " + left + " s. Meanwhile, click next to open cells.",
          { actions: backAction() });
      return;
    }
    say("Your team knows nothing near (" + x + ", " + y + "): dropping in there (a drop opens safe ground)…");
    move("drop", x, y);
  }

  function backAction() {
    return [{ label: "Back to my team", run: backToTeam }];
  }

  function move(kind, x, y) {
    if (!joined) { say("Join the world to play (watching needs no joining)."); openJoin(); return Promise.resolve(null); }
    clearWitness();
    var k = kind === "drop" ? "drop" : x + "," + y;
    track(k, 1);
    return post(board.dataset.moves, { moves: [{ kind: kind, x: x, y: y }] }).then(function (r) {
      return r.json().then(function (body) { return { r: r, body: body }; });
    }).then(function (res) {
      track(k, -1);
      if (!res.r.ok) {
        if (res.r.status === 429 && kind === "drop") {
          var wait = +(res.r.headers.get("Retry-After") || 30);
          startCooldown(wait);
          say("No drop yet: your next drop is possible in " + wait + " s. Meanwhile, click next to open cells.",
              { actions: backAction() });
        } else {
          say(res.body.error || ("refused (" + res.r.status + ")"));
        }
        return null;
      }
      var a = res.body.results[0];
      if (a.seq !== null) {  // an undecided move logged nothing
        pendingOwn.add(a.seq);
        if (pendingOwn.size > 100) pendingOwn.delete(pendingOwn.values().next().value);
        lastSeq = Math.max(lastSeq || 0, a.seq - 1);
      }
      applyCells(a.cells, "hl-own", a.seq);
      if (a.outcome === "devil") {
        errors++;
        errorOut.textContent = errors;
        errorOut.parentNode.classList.remove("tick"); void errorOut.offsetWidth;
        errorOut.parentNode.classList.add("tick");
        if (a.witness) showWitness(a.witness, x, y);
        say("Devil error at (" + x + ", " + y + "): not provable from what your team knows." +
          (a.witness ? " The devil's layout is shown: Esc, × or your next click closes it." : ""),
          { sticky: !!a.witness });
      } else if (a.outcome === "undecided") {
        say(a.reason || "Not decided within the server's limits: nothing happened.");
      } else if (a.outcome === "dropped") {
        if (a.at) { goTo(a.at[0], a.at[1]); teamSpot = { x: a.at[0], y: a.at[1] }; }
        say("Dropped in at (" + (a.at ? a.at.join(", ") : x + ", " + y) + "), " + a.cells.length +
            " cells opened. Click covered cells the numbers prove safe.");
      } else if (a.outcome === "none" && kind === "drop") {
        say(a.reason || "No open ground near here: try elsewhere.");
      } else if (a.truncated) {
        say(a.note || "The cascade stopped: click its edge to go on.");
      }
      if (kind === "drop" && (a.outcome === "dropped" || a.outcome === "none")) startCooldown(+board.dataset.dropSeconds);
      if (a.outcome === "revealed" || a.outcome === "flagged") teamSpot = { x: x, y: y };
      document.body.dispatchEvent(new CustomEvent("world-moved"));
      emit("moved", a);
      return a;
    }).catch(function () { track(k, -1); say("The move did not reach the server."); return null; });
  }

  // -- the devil's witness -----------------------------------------------------------------

  function clearWitness() {
    var w = layer.querySelector(".wwitness");
    if (w) w.remove();
    if (msgOut.classList.contains("sticky")) clearMessage();
  }

  function showWitness(w, x, y) {
    clearWitness();
    var el = document.createElement("div");
    el.className = "wwitness";
    el.dataset.x0 = w.x0; el.dataset.y0 = w.y0;
    var width = w.rows.length ? w.rows[0].length : 0;
    el.style.setProperty("--wcols", width);
    var html = "";
    for (var r = 0; r < w.rows.length; r++) {
      for (var c = 0; c < width; c++) {
        var mine = w.rows[r].charAt(c) === "*";
        var clicked = (w.x0 + c === x && w.y0 + r === y);
        html += '<i class="' + (mine ? "wm" : "ws") + (clicked ? " clicked" : "") + '">' + (mine ? "✹" : "") + "</i>";
      }
    }
    el.innerHTML = html;
    el.title = "The devil's layout: it fits everything your team knows, with a mine where you clicked";
    var close = document.createElement("button");
    close.type = "button"; close.className = "wclose"; close.textContent = "×";
    close.setAttribute("aria-label", "Close the devil's layout");
    close.addEventListener("pointerdown", function (e) { e.stopPropagation(); });
    close.addEventListener("click", function (e) { e.stopPropagation(); clearWitness(); board.focus(); });
    el.appendChild(close);
    place(el, w.x0, w.y0);
    layer.appendChild(el);
    var cols = vw / cs, rows = vh / cs;
    var dx = x - ax - rx, dy = y - ay - ry;
    if (dx < 0 || dx >= cols || dy < 0 || dy >= rows) goTo(x, y);  // keep it in sight
    // the witness lets clicks through (CSS): the next click closes it AND plays
  }

  // -- drop cooldown ---------------------------------------------------------------------

  var dropBtn = document.getElementById("drop"), cooldownUntil = 0, cooldownTimer = 0;
  function startCooldown(seconds) {
    if (!dropBtn || !(seconds > 0)) return;
    cooldownUntil = Date.now() + seconds * 1000;
    tickCooldown();
  }
  function tickCooldown() {
    clearTimeout(cooldownTimer);
    var left = Math.ceil((cooldownUntil - Date.now()) / 1000);
    if (left > 0) {
      dropBtn.disabled = true;
      dropBtn.textContent = "Drop in " + left + " s";
      cooldownTimer = setTimeout(tickCooldown, 500);
    } else {
      dropBtn.disabled = false;
      dropBtn.textContent = "Drop here";
    }
  }
  if (dropBtn) {
    dropBtn.addEventListener("click", function () { var c = centre(); move("drop", c.x, c.y); });
    startCooldown(+board.dataset.dropWait);
  }

  // -- pointer: drag to pan, click reveals, right click / long press flags ---------------------

  var drag = null, longTimer = 0, suppressClick = false;

  board.addEventListener("pointerdown", function (e) {
    if (e.button !== 0 && e.pointerType === "mouse") return;
    var p = boardPoint(e);
    drag = { id: e.pointerId, sx: e.clientX, sy: e.clientY, lx: e.clientX, ly: e.clientY, moved: false, p: p, long: false };
    try { board.setPointerCapture(e.pointerId); } catch (err) { /* not an active pointer */ }
    if (e.pointerType !== "mouse") {
      clearTimeout(longTimer);
      longTimer = setTimeout(function () {
        if (drag && !drag.moved) {
          drag.long = true;
          var c = cellAtPixel(p.px, p.py);
          setCursor(c.x, c.y);
          move("flag", c.x, c.y);
          if (navigator.vibrate) navigator.vibrate(20);
        }
      }, 450);
    }
  });

  board.addEventListener("pointermove", function (e) {
    var p = boardPoint(e);
    var c = cellAtPixel(p.px, p.py);
    coordsOut.textContent = "x " + c.x + ", y " + c.y;
    if (!drag || drag.id !== e.pointerId) return;
    if (!drag.moved && Math.abs(e.clientX - drag.sx) + Math.abs(e.clientY - drag.sy) > 6) {
      drag.moved = true;
      clearTimeout(longTimer);
      board.classList.add("dragging");
    }
    if (drag.moved) {
      panBy(drag.lx - e.clientX, drag.ly - e.clientY);
      drag.lx = e.clientX; drag.ly = e.clientY;
    }
  });

  function endDrag(e, cancelled) {
    if (!drag || drag.id !== e.pointerId) return;
    clearTimeout(longTimer);
    board.classList.remove("dragging");
    var d = drag;
    drag = null;
    if (cancelled || d.moved || d.long) return;
    var c = cellAtPixel(d.p.px, d.p.py);
    setCursor(c.x, c.y);
    play(c.x, c.y);
  }
  board.addEventListener("pointerup", function (e) { endDrag(e, false); });
  board.addEventListener("pointercancel", function (e) { endDrag(e, true); });

  board.addEventListener("contextmenu", function (e) {
    e.preventDefault();
    if (e.pointerType && e.pointerType !== "mouse") return;  // a long press flagged already
    var p = boardPoint(e);
    var c = cellAtPixel(p.px, p.py);
    setCursor(c.x, c.y);
    move("flag", c.x, c.y);
  });

  board.addEventListener("wheel", function (e) {
    e.preventDefault();
    if (e.ctrlKey) {
      var p = boardPoint(e);
      setZoom(zoom + (e.deltaY < 0 ? 1 : -1), p.px, p.py);
    } else {
      panBy(e.deltaX, e.deltaY);
    }
  }, { passive: false });

  // -- keyboard: arrows move the cursor (the view follows), WASD pans, Enter reveals, F flags ---

  function setCursor(x, y) {
    cursor = { x: x, y: y };
    cursorEl.hidden = false;
    applyTransform();
    coordsOut.textContent = "x " + x + ", y " + y;
    sayCursor();
  }

  /* what a screen reader hears as the cursor moves: the cell, not only where it is (the
     coordinates alone said nothing of the board); again when a move changes that cell */
  function cellWords(sym) {
    if (sym === null || sym === undefined) return "not loaded yet";
    if (sym === ".") return "covered";
    if (sym === "F") return "flagged";
    if (sym === "*") return "free: another colour's flag, safe for you";
    if (sym === "0") return "open, no mines around";
    return "open, " + sym + (sym === "1" ? " mine" : " mines") + " around";
  }
  function sayCursor() {
    if (!cursor || !cursorOut) return;
    cursorOut.textContent = "x " + cursor.x + ", y " + cursor.y + ": " + cellWords(symbolAt(cursor.x, cursor.y));
  }

  function keepCursorInView() {
    var cols = vw / cs, rows = vh / cs;
    var dx = cursor.x - ax - rx, dy = cursor.y - ay - ry;  // the cursor in the view, in cells
    var sx = 0, sy = 0;
    if (dx < 1) sx = dx - 1; else if (dx > cols - 2) sx = dx - cols + 2;
    if (dy < 1) sy = dy - 1; else if (dy > rows - 2) sy = dy - rows + 2;
    if (sx || sy) shiftView(sx, sy);
  }

  board.addEventListener("keydown", function (e) {
    if (e.altKey || e.metaKey || e.ctrlKey) return;
    var step = e.shiftKey ? 8 : 1;
    var quarter = Math.max(1, Math.floor(Math.min(vw, vh) / cs / 4));
    if (!cursor) { var c0 = centre(); cursor = { x: c0.x, y: c0.y }; }
    switch (e.key) {
      case "ArrowUp": setCursor(cursor.x, cursor.y - step); keepCursorInView(); break;
      case "ArrowDown": setCursor(cursor.x, cursor.y + step); keepCursorInView(); break;
      case "ArrowLeft": setCursor(cursor.x - step, cursor.y); keepCursorInView(); break;
      case "ArrowRight": setCursor(cursor.x + step, cursor.y); keepCursorInView(); break;
      case "w": case "W": shiftView(0, -quarter); setCursor(cursor.x, cursor.y - quarter); break;
      case "s": case "S": shiftView(0, quarter); setCursor(cursor.x, cursor.y + quarter); break;
      case "a": case "A": shiftView(-quarter, 0); setCursor(cursor.x - quarter, cursor.y); break;
      case "d": case "D": shiftView(quarter, 0); setCursor(cursor.x + quarter, cursor.y); break;
      case "Enter": case " ": setCursor(cursor.x, cursor.y); play(cursor.x, cursor.y); break;
      case "f": case "F": setCursor(cursor.x, cursor.y); move("flag", cursor.x, cursor.y); break;
      case "+": case "=": setZoom(zoom + 1); break;
      case "-": case "_": setZoom(zoom - 1); break;
      case "Escape": clearWitness(); break;
      default: return;
    }
    e.preventDefault();
  });

  // -- the activity feed's times: the server writes UTC, the reader sees their own clock ------

  function localTimes(root) {
    var times = root.querySelectorAll("time[datetime]");
    for (var i = 0; i < times.length; i++) {
      var at = new Date(times[i].getAttribute("datetime"));
      if (!isNaN(at.getTime())) times[i].textContent = at.toLocaleTimeString([], { hour12: false });
    }
  }
  document.body.addEventListener("htmx:afterSwap", function (e) { localTimes(e.target); });

  // -- controls: zoom, go to, colour, panel ------------------------------------------------

  document.getElementById("zoom-in").addEventListener("click", function () { setZoom(zoom + 1); });
  document.getElementById("zoom-out").addEventListener("click", function () { setZoom(zoom - 1); });

  function wholeNumber(text) {
    // ASCII digits with an optional minus sign, nothing else ("12abc", "1e5", "0x10": null)
    var t = text.trim();
    if (!/^-?[0-9]{1,16}$/.test(t)) return null;
    var v = Number(t);
    return v === 0 ? 0 : v;  // no -0
  }

  document.getElementById("goto-form").addEventListener("submit", function (e) {
    e.preventDefault();
    var x = wholeNumber(document.getElementById("goto-x").value);
    var y = wholeNumber(document.getElementById("goto-y").value);
    if (x === null || y === null || Math.abs(x) > LIMIT || Math.abs(y) > LIMIT) {
      say("Go to: two whole numbers x and y, each between -" + LIMIT + " and " + LIMIT +
          " in the browser (the API reaches 2^62).");
      return;
    }
    goTo(x, y);
    setCursor(x, y);
    board.focus();
  });

  function switchBoard(c) {
    colour = c;
    board.dataset.colour = c;
    board.className = board.className.replace(/\bc\d\b/, "c" + c);
    generation++;
    tiles.forEach(function (t) { t.el.remove(); });
    tiles.clear();
    early.clear();
    clearWitness();
    if (source) source.close();
    source = null; sub = null; lastSeq = null; minFetchSeq = null;
    refresh();
  }

  var colourSelect = document.getElementById("colour-select");
  if (colourSelect) {
    colourSelect.addEventListener("change", function () {
      var c = +colourSelect.value;
      if (!joined) {
        switchBoard(c);
        var u = new URL(location.href); u.searchParams.set("colour", c);
        history.replaceState(null, "", u);
        return;
      }
      post(board.dataset.colourUrl, { colour: c }).then(function (r) {
        if (!r.ok) { colourSelect.value = colour; say("Could not switch colour."); return; }
        switchBoard(c);
        say("You now play " + (colourSelect.options[c].dataset.name || c) + ": each colour is its own board…");
        emit("switched", c);   // static/world/atlas.js says what this board holds
      });
    });
  }

  // -- back to the team: a teammate's view (static/world/presence.js) or the team's last move --

  var mateSpot = null;
  function backToTeam() {
    var spot = (mateSpot && mateSpot()) || teamSpot;
    if (!spot) { say("Your team has no open ground yet: click anywhere to drop in."); return; }
    goTo(spot.x, spot.y);
    board.focus();
  }
  var backBtn = document.getElementById("back-to-team");
  if (backBtn) backBtn.addEventListener("click", backToTeam);

  var panelBtn = document.getElementById("panel-toggle");
  panelBtn.addEventListener("click", function () {
    var open = document.body.classList.toggle("panel-open");
    panelBtn.setAttribute("aria-expanded", open ? "true" : "false");
  });

  function openJoin() { var j = document.getElementById("join"); if (j) j.open = true; }

  // joining keeps the place: the form carries the view's centre, the page comes back there
  var joinForm = document.querySelector(".join-form");
  if (joinForm) joinForm.addEventListener("submit", function () {
    var c = centre();
    joinForm.elements.x.value = c.x; joinForm.elements.y.value = c.y;
  });

  // -- size --------------------------------------------------------------------------------

  function measure() {
    var r = board.getBoundingClientRect();
    vw = r.width; vh = r.height;
    scheduleRefresh();
  }
  window.addEventListener("resize", measure);
  board.style.setProperty("--cs", cs + "px");
  var r0 = board.getBoundingClientRect();
  vw = r0.width; vh = r0.height;
  var start = new URLSearchParams(location.search);
  var fallback = teamSpot || { x: 0, y: 0 };   // no place in the link: where the team was busy
  var startX = wholeNumber(start.get("x") || String(fallback.x));
  var startY = wholeNumber(start.get("y") || String(fallback.y));
  if (startX === null || startY === null || Math.abs(startX) > LIMIT || Math.abs(startY) > LIMIT) {
    say("The link's x and y are not two whole numbers within " + LIMIT + ": showing 0, 0.");
    startX = 0; startY = 0;
  }
  goTo(startX, startY);
  coordsOut.textContent = "x " + startX + ", y " + startY;
  if (!team) { liveOut.textContent = "no team is playing yet"; liveOut.classList.add("idle"); }
  if (msgOut.textContent && !say.timer) say(msgOut.textContent);  // the server's notice fades too
  if (start.get("welcome") === "drop" && joined) {
    say("Welcome! Your team starts here: a drop opened this ground. Click covered cells the numbers prove safe; a guess is a devil error.");
    var u0 = new URL(location.href); u0.searchParams.delete("welcome");
    history.replaceState(null, "", u0);
  }

  // for tests and measurements
  window.worldBoard = {
    symbol: symbolAt,
    cellEl: cellEl,
    goTo: goTo,
    panBy: function (dx, dy) { panBy(dx, dy); refresh(); },
    cellAtPixel: cellAtPixel,
    move: move,
    play: play,
    on: on,
    say: say,
    centre: centre,
    viewRect: viewRect,
    place: place,
    layer: layer,
    emit: emit,
    backAction: backAction,
    backToTeam: backToTeam,
    setMateSpot: function (fn) { mateSpot = fn; },
    setCursor: setCursor,
    startCooldown: function (seconds) { startCooldown(seconds); },
    freeInView: function () { return { count: freeOut ? +(freeOut.dataset.count || 0) : 0, nearest: freeView }; },
    state: function () {
      return { ox: ax + rx, oy: ay + ry, ax: ax, ay: ay, rx: rx, ry: ry,
               cs: cs, zoom: zoom, tiles: tiles.size, colour: colour, lastSeq: lastSeq, team: team,
               vw: vw, vh: vh, cursor: cursor, errors: errors, seen: seen, firstBoard: firstBoard,
               live: !!(source && source.readyState === 1) };
    },
    applied: function () { return applied.slice(); },
  };
})();
