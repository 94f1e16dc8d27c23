/* A game on a graph board (app/play/graph_board.py): the board is one SVG, each cell a
   <g id="c-R-C" data-at="R,C" data-x data-y data-near="ids of its neighbours">.

   - click (or Enter / Space) opens a covered cell or chords a number; right click,
     a long press or F flags; the same two hidden forms as the grid game (templates/_board.html)
     carry the move, so htmx sends it with the CSRF header and swaps the answer.
   - arrows move the cursor to the neighbour nearest the arrow's direction (by centres);
     one tab stop (roving tabindex); after a move swaps the board the cursor stays put.
   - boards up to 300 cells fit the page's width (a 390 px phone); bigger ones scroll in
     their frame; the zoom buttons scale both (on a phone a big board's 100% is a 28 px
     cell, not 46; a fitting board's 100% fits, zoomed in it pans in its frame).
   - on a narrow portrait screen a board much wider than tall (the cube's and the sphere's
     nets) is drawn turned a quarter (its numbers upright), so its cells are bigger to tap:
     the cells sit in one <g class="cells">, which gets the turn; the arrows follow the
     screen. */
(function () {
  "use strict";

  var LONG_PRESS_MS = 450;
  var ZOOM_KEY = "mine-devil-graph-zoom"; // a big board's zoom
  var FIT_ZOOM_KEY = "mine-devil-graph-fit-zoom"; // a board that fits the screen

  function cellOf(el) {
    if (!el || !el.closest) return null;
    var cell = el.closest("g[data-at]");
    return cell && cell.closest("svg.graph-game") ? cell : null;
  }

  function isLive(cell) {
    var svg = cell.closest("svg.graph-game");
    return !!svg && svg.classList.contains("live");
  }

  function send(formId, cell) {
    var form = document.getElementById(formId);
    if (!form) return;
    form.elements.at.value = cell.getAttribute("data-at");
    if (form.requestSubmit) form.requestSubmit();
    else form.submit();
  }

  function open(cell) {
    if (!isLive(cell) || cell.classList.contains("n0")) return;
    send("board-form", cell);
  }

  function flag(cell) {
    if (!isLive(cell) || !cell.classList.contains("covered")) return;
    send("flag-form", cell);
  }

  function makeCurrent(cell) {
    var svg = cell.closest("svg");
    var stops = svg.querySelectorAll('g[tabindex="0"]');
    for (var i = 0; i < stops.length; i++) {
      if (stops[i] !== cell) stops[i].setAttribute("tabindex", "-1");
    }
    cell.setAttribute("tabindex", "0");
    lastFocus = cell.id;
  }

  /* the neighbour nearest this cell that way (dx, dy; screen y grows down): the least
     distance along the arrow plus twice the distance across it, among neighbours within 70
     degrees of it. Ranking by the angle first left cells no arrow ever reached, so a
     keyboard player could not open them (a rhomb at a Penrose board's edge, a triangle of
     the solid sphere). */
  function frame(cell) {
    // a solid drawn turnable (graph-ball.js): the centres as projected now
    return cell.closest("svg.ball") ? ["bx", "by"] : ["x", "y"];
  }
  function scoreOf(cell, n, dx, dy) {
    var k = frame(cell);
    var vx = parseFloat(n.dataset[k[0]]) - parseFloat(cell.dataset[k[0]]);
    var vy = parseFloat(n.dataset[k[1]]) - parseFloat(cell.dataset[k[1]]);
    var along = vx * dx + vy * dy, across = Math.abs(vx * dy - vy * dx);
    if (along < 0.35 * (Math.hypot(vx, vy) || 1)) return Infinity; // not that way at all
    return along + 2 * across;
  }
  /* an arrow (dx, dy) on the screen, in the drawing's frame: a turned board is drawn a
     quarter turn round */
  function inFrame(cell, dx, dy) {
    return cell.closest("svg.turned") ? [dy, -dx] : [dx, dy];
  }
  function nearest(cell, dx, dy) {
    var f = inFrame(cell, dx, dy);
    dx = f[0]; dy = f[1];
    var best = null, bestScore = Infinity;
    (cell.dataset.near || "").split(" ").forEach(function (id) {
      var n = id && document.getElementById(id);
      var score = n ? scoreOf(cell, n, dx, dy) : Infinity;
      if (score < bestScore) { bestScore = score; best = n; }
    });
    return best;
  }

  /* Still no arrow reaches the small squares of octagons and squares: each sits at 45
     degrees from its four octagons, behind the octagon straight on. On a flat board (or a
     net) such a cell claims one neighbour's arrow, the one whose own pick it comes nearest,
     so pressing that arrow there goes to it (the cursor zig-zags through the squares). */
  var ARROWS = [[0, -1], [0, 1], [-1, 0], [1, 0]];
  function claimsOf(svg) {
    if (svg._claims) return svg._claims;
    var claims = svg._claims = {}, reached = {};
    var cells = svg.querySelectorAll("g[data-cell]");
    var i, k;
    for (i = 0; i < cells.length; i++) {
      for (k = 0; k < 4; k++) {
        var to = nearest(cells[i], ARROWS[k][0], ARROWS[k][1]);
        if (to) reached[to.id] = true;
      }
    }
    for (i = 0; i < cells.length; i++) {
      var x = cells[i];
      if (reached[x.id]) continue;
      var best = null, bestRatio = Infinity;
      (x.dataset.near || "").split(" ").forEach(function (id) {
        var n = id && document.getElementById(id);
        if (!n) return;
        for (var a = 0; a < 4; a++) {
          var d = ARROWS[a], f = inFrame(n, d[0], d[1]);
          if (claims[n.id + ":" + a]) continue;
          var s = scoreOf(n, x, f[0], f[1]), own = nearest(n, d[0], d[1]);
          var ratio = own ? s / scoreOf(n, own, f[0], f[1]) : 0;
          if (ratio < bestRatio) { bestRatio = ratio; best = n.id + ":" + a; }
        }
      });
      if (best) claims[best] = x.id;
    }
    return claims;
  }

  function step(cell, dx, dy) {
    var svg = cell.closest("svg");
    if (!svg.classList.contains("ball")) {
      for (var a = 0; a < 4; a++) {
        if (ARROWS[a][0] !== dx || ARROWS[a][1] !== dy) continue;
        var claimed = claimsOf(svg)[cell.id + ":" + a];
        if (claimed) return document.getElementById(claimed);
      }
    }
    return nearest(cell, dx, dy);
  }

  var lastFocus = null;
  var touching = false; // the last pointer was a finger (its taps also send mouseover)

  /* A finger is about 10 mm across: on a phone a Penrose board's thin rhombs are 17-20 px
     wide (their narrowest width), under TAP_MIN_PX (WCAG 2.2's minimum target, 2.5.8), and
     they come in pairs along a long side, so no drawing that fits a phone gives each one 24 px.
     So a finger's tap on a flat board goes to the cell whose centre is nearest the finger (the
     one the player most likely aimed at: a thin rhomb's hit area reaches past its long sides
     into its wider neighbours, and its thin tips go to the cells around them), among the cell
     under the finger and its neighbours, when that cell or the cell under the finger is
     narrow (between wide cells the drawing decides, as before). It opens at once, unless the finger landed near the
     line between a narrow cell and another (their centres within DOUBT_PX of the same
     distance): then it only picks the nearer, ringed, with "tap again to open" under the
     board; a second tap on it opens it, a tap elsewhere picks or opens that cell instead.
     The first tap (always safe) never asks. A mouse, a pen and the keyboard use the drawing
     as it is. On a solid (graph-ball.js) a narrow cell is a sliver at the rim: a tap picks it
     and the solid turns it into sight.
     A board of 300 cells fits a phone (as a 16x16 grid does, its cells 20 px), so most of its
     cells may be under 24 px: "narrow" is then a cell narrower than NARROW_SHARE of the
     board's typical cell (a thin rhomb, 4.8.8's small square); between typical cells the
     drawing decides, as on a grid. */
  var TAP_MIN_PX = 24;
  var NARROW_SHARE = 0.8;
  var DOUBT_PX = 4;
  var picked = null;

  function seenScale() { return window.visualViewport ? window.visualViewport.scale : 1; } // pinch zoom

  function narrowest(cell) {
    var shape = cell.querySelector("polygon");
    var m = shape && shape.getScreenCTM();
    if (!m) return Infinity;
    var zoomed = seenScale();
    var pts = Array.prototype.map.call(shape.points, function (p) {
      return [zoomed * (m.a * p.x + m.c * p.y), zoomed * (m.b * p.x + m.d * p.y)];
    });
    var best = Infinity;
    for (var i = 0; i < pts.length; i++) {
      var a = pts[i], b = pts[(i + 1) % pts.length];
      var len = Math.hypot(b[0] - a[0], b[1] - a[1]);
      if (!len) continue;
      var nx = (a[1] - b[1]) / len, ny = (b[0] - a[0]) / len, lo = Infinity, hi = -Infinity;
      pts.forEach(function (p) { var d = p[0] * nx + p[1] * ny; lo = Math.min(lo, d); hi = Math.max(hi, d); });
      best = Math.min(best, hi - lo);
    }
    return best;
  }

  /* under this a cell of the board is narrow (seen px): TAP_MIN_PX, or less on a board
     whose typical cell is smaller (kept per board and drawn size) */
  function narrowBelow(svg) {
    var key = Math.round(svg.getBoundingClientRect().width * seenScale());
    if (svg._narrow && svg._narrow[0] === key) return svg._narrow[1];
    var typical = quarter.typical(svg.querySelectorAll("g[data-cell]"), narrowest, Infinity);
    svg._narrow = [key, Math.min(TAP_MIN_PX, NARROW_SHARE * typical)];
    return svg._narrow[1];
  }
  function isNarrow(cell) {
    var svg = cell.closest("svg.graph-game");
    return narrowest(cell) < (svg ? narrowBelow(svg) : TAP_MIN_PX);
  }

  /* how far (seen px) the finger at (x, y) (client px) is from the cell's centre */
  function reach(cell, x, y) {
    var shape = cell.querySelector("polygon, circle");
    var m = shape && shape.getScreenCTM();
    if (!m) return Infinity;
    var cx = parseFloat(cell.dataset.x), cy = parseFloat(cell.dataset.y);
    return seenScale() * Math.hypot(m.a * cx + m.c * cy + m.e - x, m.b * cx + m.d * cy + m.f - y);
  }

  /* the cell a finger at (x, y) meant, on the cell under it: {cell, doubt} */
  function fingerHit(under, x, y) {
    if (under.closest("svg.ball")) return { cell: under, doubt: isNarrow(under) };
    var best = under, first = reach(under, x, y), second = null, secondAt = Infinity;
    (under.dataset.near || "").split(" ").forEach(function (id) {
      var n = id && document.getElementById(id);
      var d = n ? reach(n, x, y) : Infinity;
      if (d < first) { second = best; secondAt = first; best = n; first = d; }
      else if (d < secondAt) { second = n; secondAt = d; }
    });
    // between wide cells the drawing decides, as before (a tiling of wide cells, or a
    // Penrose board's fat rhombs among themselves)
    if (best !== under && !isNarrow(best) && !isNarrow(under)) {
      return { cell: under, doubt: false };
    }
    var doubt = !!second && secondAt - first < DOUBT_PX &&
      (isNarrow(best) || isNarrow(second));
    return { cell: best, doubt: doubt };
  }

  function pick(cell) {
    if (picked && picked !== cell) picked.classList.remove("picked");
    picked = cell;
    if (cell) {
      cell.classList.add("picked");
      cell.parentNode.appendChild(cell); // in front: its ring is not hidden under neighbours
      // a solid's cell near the rim (a sliver a finger cannot hit twice) turns to face the
      // player first (graph-ball.js), ringed, as wide as the others
      cell.dispatchEvent(new CustomEvent("graph:reach", { bubbles: true }));
      cell.focus({ preventScroll: true });
    }
    var note = document.getElementById("tap-note");
    if (note) {
      note.textContent = !cell ? "" : cell.closest("svg.ball")
        ? nameOf(cell).replace(/^c/, "C") + " is narrow: tap it again to open it (or zoom in with two fingers)."
        : "Your tap fell between two cells: " + nameOf(cell) + " is ringed. Tap it again to open it, or tap the cell you meant (Zoom + above the board makes cells bigger).";
    }
  }

  document.addEventListener("click", function (e) {
    var cell = cellOf(e.target);
    if (!cell || e.button !== 0) return;
    if (Date.now() < suppressClickUntil) { suppressClickUntil = 0; return; }
    var hit = touching && isLive(cell) ? fingerHit(cell, e.clientX, e.clientY) : { cell: cell, doubt: false };
    cell = hit.cell;
    makeCurrent(cell);
    var ask = hit.doubt && cell.classList.contains("covered") && !cell.classList.contains("flag") &&
      !document.getElementById("first-click"); // the first click is always safe
    if (ask && picked !== cell) { pick(cell); return; }
    pick(null);
    open(cell);
  });

  document.addEventListener("contextmenu", function (e) {
    var cell = cellOf(e.target);
    if (!cell || !isLive(cell)) return;
    e.preventDefault();
    if (Date.now() < suppressClickUntil) return; // the long press already flagged it
    flag(cell);
  });

  var press = null;
  var suppressClickUntil = 0;
  document.addEventListener("pointerdown", function (e) {
    if (e.pointerType !== "touch") return;
    var cell = cellOf(e.target);
    if (!cell || !isLive(cell)) return;
    cell = fingerHit(cell, e.clientX, e.clientY).cell; // a long press flags the cell a tap would pick
    var p = { x: e.clientX, y: e.clientY };
    p.timer = setTimeout(function () {
      press = null;
      suppressClickUntil = Date.now() + 800;
      flag(cell);
      if (navigator.vibrate) navigator.vibrate(25);
    }, LONG_PRESS_MS);
    press = p;
  });
  function cancel() { if (press) clearTimeout(press.timer); press = null; }
  document.addEventListener("pointermove", function (e) {
    if (press && Math.hypot(e.clientX - press.x, e.clientY - press.y) > 10) cancel();
  });
  document.addEventListener("pointerup", cancel);
  document.addEventListener("pointercancel", cancel);

  var DIRS = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };

  document.addEventListener("keydown", function (e) {
    var cell = cellOf(e.target);
    if (!cell || e.altKey || e.metaKey || e.ctrlKey) return;
    var dir = DIRS[e.key];
    if (dir) {
      var next = step(cell, dir[0], dir[1]);
      if (next) {
        // a solid turns to face the cell first (graph-ball.js): a face turned away cannot
        // take the focus
        next.dispatchEvent(new CustomEvent("graph:reach", { bubbles: true }));
        makeCurrent(next);
        next.focus();
      }
    } else if (e.key === "Enter" || e.key === " ") {
      open(cell);
    } else if (e.key === "f" || e.key === "F") {
      flag(cell);
    } else {
      return;
    }
    e.preventDefault();
  });

  document.addEventListener("focusin", function (e) {
    var cell = cellOf(e.target);
    if (cell) makeCurrent(cell);
  });

  /* The keyboard cursor's ring: a copy of the cell's outline drawn over the whole board, a
     black band under an amber one (WCAG's two-colour technique C40: the two are 11:1 apart,
     so one of them is 3:1 from any fill under it: covered, opened, flagged, the witness's,
     the tints; tests/app/test_palettes.py). The cell's own outline lay under the neighbours
     drawn after it, half hidden, and amber alone was 2:1 on a light covered cell. A solid
     redraws its cells as it turns: the ring follows the cell's outline. */
  var SVG_NS = "http://www.w3.org/2000/svg";
  var ring = null, ringOf = null;
  var ringWatch = window.MutationObserver ? new MutationObserver(function () { drawRing(); }) : null;

  function drawRing() {
    var shape = ringOf && ringOf.querySelector("polygon, circle");
    var host = shape && ringOf.parentNode;
    if (!shape || !host || ringOf.classList.contains("back")) {
      if (ring && ring.parentNode) ring.parentNode.removeChild(ring);
      return;
    }
    if (!ring) {
      ring = document.createElementNS(SVG_NS, "g");
      ring.setAttribute("class", "focus-ring");
      ring.setAttribute("aria-hidden", "true");
    }
    while (ring.firstChild) ring.removeChild(ring.firstChild);
    ["edge", "core"].forEach(function (band) {
      var copy = shape.cloneNode(false);
      copy.setAttribute("class", band);
      ring.appendChild(copy);
    });
    host.appendChild(ring); // last: over every cell
  }

  function showRing(cell) {
    if (ringWatch) ringWatch.disconnect();
    ringOf = cell;
    drawRing();
    if (!cell || !ringWatch) return;
    ringWatch.observe(cell, { attributes: true, attributeFilter: ["class"] });
    var shape = cell.querySelector("polygon, circle");
    if (shape) ringWatch.observe(shape, { attributes: true });
  }

  document.addEventListener("focusin", function (e) {
    var cell = cellOf(e.target);
    showRing(cell && cell.matches(":focus-visible") ? cell : null);
  });
  document.addEventListener("focusout", function (e) {
    if (cellOf(e.target) === ringOf) showRing(null);
  });
  window.MineDevilFocusRing = function () { return ring && ring.parentNode ? ring : null; }; // tests

  /* pointing at a cell (or the cursor on it) marks its neighbours: on a cube's or a sphere's
     net they show which edges of the net meet. The line under the board (#near-note) says
     whose neighbours they are. On a touch screen only a tapped number marks them (a tap on
     a covered cell opens it: an outline left on it afterwards was a puzzle); the next tap
     anywhere clears them. */
  var quiet = false; // the cursor put back after a swap: no marks for a finger
  document.addEventListener("pointerdown", function (e) { touching = e.pointerType === "touch"; }, true);
  document.addEventListener("keydown", function () { touching = false; }, true);

  function isNumber(cell) { return cell.classList.contains("open") && !cell.classList.contains("n0"); }
  function wantsMarks(cell) { return !touching || (!quiet && isNumber(cell)); }

  function nameOf(cell) { return (cell.getAttribute("aria-label") || "").split(",")[0]; }

  function noteNear(cell, on, count) {
    var note = document.getElementById("near-note");
    if (!note) return;
    if (!on) { note.textContent = ""; return; }
    var text = cell.querySelector("text");
    note.textContent = isNumber(cell)
      ? "The " + text.textContent + " on " + nameOf(cell) + " counts the mines among its " + count + " outlined neighbours."
      : nameOf(cell).replace(/^c/, "C") + " touches the " + count + " outlined cells.";
  }

  var marked = null;
  function markNear(cell, on) {
    if (on && marked && marked !== cell) markNear(marked, false);
    var count = 0;
    cell.classList.toggle("near-of", on);
    (cell.dataset.near || "").split(" ").forEach(function (id) {
      var n = id && document.getElementById(id);
      if (n) { n.classList.toggle("near", on); count++; }
    });
    noteNear(cell, on, count);
    marked = on ? cell : marked === cell ? null : marked;
  }
  document.addEventListener("mouseover", function (e) { var c = cellOf(e.target); if (c && wantsMarks(c)) markNear(c, true); });
  document.addEventListener("mouseout", function (e) { var c = cellOf(e.target); if (c && !touching) markNear(c, false); });
  document.addEventListener("focusin", function (e) { var c = cellOf(e.target); if (c && wantsMarks(c)) markNear(c, true); });
  document.addEventListener("focusout", function (e) { var c = cellOf(e.target); if (c) markNear(c, false); });
  document.addEventListener("pointerdown", function (e) {
    if (marked && e.pointerType === "touch" && cellOf(e.target) !== marked) markNear(marked, false);
  });

  /* "cell k24" in a panel's text becomes a link that shows the cell on the board (game.js
     handles the links' hover and click: .cell-ref with data-cell = the element's id) */
  var CELL_WORD = /\b[Cc]ell ([A-Za-z0-9_.:\-]+)/g;

  function linkCells() {
    var svg = document.querySelector("svg.graph-game");
    if (!svg) return;
    var boxes = document.querySelectorAll("[data-cells]:not([data-graph-linked])");
    for (var i = 0; i < boxes.length; i++) {
      var box = boxes[i];
      box.setAttribute("data-graph-linked", "1");
      var walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
      var nodes = [];
      while (walker.nextNode()) nodes.push(walker.currentNode);
      nodes.forEach(function (node) {
        var parent = node.parentNode;
        if (!parent || parent.closest("a, button, textarea, script, svg")) return;
        var text = node.nodeValue, last = 0, m, frag = null;
        CELL_WORD.lastIndex = 0;
        while ((m = CELL_WORD.exec(text))) {
          var id = m[1].replace(/[.:]+$/, "");
          var cell = svg.querySelector('g[data-cell="' + (window.CSS && CSS.escape ? CSS.escape(id) : id) + '"]');
          if (!cell) continue;
          frag = frag || document.createDocumentFragment();
          frag.appendChild(document.createTextNode(text.slice(last, m.index)));
          var link = document.createElement("a");
          link.className = "cell-ref";
          link.href = "#" + cell.id;
          link.dataset.cell = cell.id;
          link.title = "Show this cell on the board";
          link.textContent = m[0].slice(0, 5) + id;
          frag.appendChild(link);
          last = m.index + 5 + id.length;
        }
        if (!frag) return;
        frag.appendChild(document.createTextNode(text.slice(last)));
        parent.replaceChild(frag, node);
      });
    }
  }

  /* cells a teaching panel marks (static/analyse.js) and a replay's move come to the front,
     so their outline is not hidden under their neighbours' */
  function raiseMarked() {
    var marked = document.querySelectorAll("svg.graph-game g.teach-hl, svg.graph-game g.moved");
    for (var i = 0; i < marked.length; i++) marked[i].parentNode.appendChild(marked[i]);
    if (ring && ring.parentNode) ring.parentNode.appendChild(ring); // the cursor's ring stays on top
  }

  // -- a quarter turn for wide boards on narrow portrait screens ----------------------------

  var quarter = window.MineDevilQuarterTurn; // static/quarter-turn.js
  var TURN_BELOW_PX = quarter.BELOW_PX;
  var TURN_RATIO = 1.15;

  function turnBoards() {
    var portrait = quarter.portrait();
    var boards = document.querySelectorAll("svg.graph-game");
    for (var i = 0; i < boards.length; i++) {
      var svg = boards[i], cells = svg.querySelector(":scope > g.cells");
      if (!cells) continue;
      var b = quarter.drawnView(svg); // x y w h
      var want = portrait && b[2] > TURN_RATIO * b[3] && !svg.classList.contains("ball");
      if (want === svg.classList.contains("turned")) continue;
      var w = svg.getAttribute("width"), h = svg.getAttribute("height");
      svg.setAttribute("width", h);
      svg.setAttribute("height", w);
      quarter.turn(svg, cells, want);
      svg._claims = null; // the arrows follow the screen: claimed again
    }
    applyZoom(); // a big board's width is its (turned) width times the zoom
  }
  /* A swapped-in board is drawn before it is painted (htmx's own events come after a settle
     delay, long enough to flash the board as the server drew it). The page's one observer:
     first the hooks other scripts register (graph-ball.js draws a solid, which is never
     turned), then the quarter turn of a net or a flat board. */
  var swapHooks = [];
  window.MineDevilOnBoardSwap = function (hook) { swapHooks.push(hook); };
  function boardSwapped() {
    for (var i = 0; i < swapHooks.length; i++) swapHooks[i]();
    turnBoards();
    keepBoardView();
  }
  if (window.MutationObserver) {
    new MutationObserver(function (records) {
      for (var i = 0; i < records.length; i++) {
        var added = records[i].addedNodes;
        for (var j = 0; j < added.length; j++) {
          var node = added[j];
          if (node.nodeType === 1 && (node.matches("svg.graph-game") || node.querySelector("svg.graph-game"))) {
            boardSwapped();
            return;
          }
        }
      }
    }).observe(document.documentElement, { childList: true, subtree: true });
  }
  window.addEventListener("resize", turnBoards); // cheap: a board is redrawn only on a flip
  window.MineDevilTurnBoards = turnBoards; // graph-ball.js: a solid is never turned
  window.MineDevilNarrowest = narrowest; // the browser tests measure tap targets with it
  window.MineDevilIsNarrow = isNarrow; // and find the cells a finger's tap is helped to
  window.MineDevilStep = step; // and walk the arrows with it
  window.MineDevilFingerHit = fingerHit; // bench/bench_taps.py simulates taps with it

  /* after htmx swapped the game: the cursor stays on the same cell */
  document.addEventListener("htmx:afterSettle", function () {
    if (marked && !document.contains(marked)) { marked = null; noteNear(null, false, 0); }
    if (picked && !document.contains(picked)) pick(null);
    turnBoards();
    applyZoom();
    keepBoardView(); // htmx may settle before the observer's boardSwapped
    startFrames();
    linkCells();
    setTimeout(raiseMarked, 0);
    if (!lastFocus) return;
    var cell = document.getElementById(lastFocus);
    if (!cell || !cellOf(cell)) return;
    makeCurrent(cell);
    var active = document.activeElement;
    if (!active || active === document.body || !document.contains(active)) {
      quiet = true;
      cell.focus({ preventScroll: true });
      quiet = false;
    }
  });

  // -- zoom: big boards and boards that fit -----------------------------------------------

  /* One zoom bar above the game's board (templates/_board.html): out, the level, in, and
     reset. A big board's 100% is a readable cell (CELL_PX, PHONE_CELL_PX on a phone), from 30%
     to 300%; a board that fits (up to 300 cells) is 100% fitted to the screen and grows up to
     300%, panned in its frame by a finger, the scroll bars or the arrow keys (the cursor's
     cell scrolls into sight). On a phone a 250-cell Penrose board's cells are about 20 px:
     zoomed in, fewer taps land near the line between two cells ("tap again to open",
     bench/bench_taps.py). Each kind remembers its own level. */
  var ZOOM_STEP = 1.25;
  var ZOOMS = { big: [ZOOM_KEY, 0.3, 3], fit: [FIT_ZOOM_KEY, 1, 3] }; // key, least, most

  function zoom(kind) {
    var k = ZOOMS[kind || "big"];
    var z = NaN;
    try { z = parseFloat(localStorage.getItem(k[0]) || "1"); } catch (err) { /* private mode */ }
    return z >= k[1] && z <= k[2] ? z : 1;
  }
  function setZoom(kind, z) {
    var k = ZOOMS[kind];
    try { localStorage.setItem(k[0], String(Math.max(k[1], Math.min(k[2], z)))); } catch (err) { /* private mode */ }
  }

  /* a big board's cells are CELL_PX wide at 100% (app/play/graph_board.py); on a phone
     PHONE_CELL_PX, as a wide grid's (24 px) and a little more for odd shapes: at 46 px an
     expert cube's net was 1,665 px wide */
  var CELL_PX = 46;
  var PHONE_CELL_PX = 28;

  function zoomBig() {
    var phone = window.innerWidth < TURN_BELOW_PX;
    var scale = zoom("big") * (phone ? PHONE_CELL_PX / CELL_PX : 1);
    var room = window.innerWidth - 24; // a phone's frame (graph-game.css): 4 + 3 + 2 + 3 px a side
    var boards = document.querySelectorAll("svg.graph-game.big");
    for (var i = 0; i < boards.length; i++) {
      var width = parseFloat(boards[i].getAttribute("width")) * scale;
      // at 100% a board a few pixels wider than a phone fits it (a turned expert sphere)
      if (phone && Math.abs(zoom("big") - 1) < 0.01 && width > room && width < 1.1 * room) width = room;
      boards[i].style.width = width.toFixed(0) + "px";
    }
  }

  /* the game's board that fits, ``zoomed`` (no max-width: graph-game.css) to its fitted
     width times the zoom; a solid drawn turnable (graph-ball.js) is never zoomed: it turns */
  function zoomFit() {
    var svg = document.querySelector("#board svg.graph-game.fit");
    if (!svg) return;
    var z = svg.classList.contains("ball") ? 1 : zoom("fit");
    var frame = svg.closest(".scroller");
    var left = frame ? frame.scrollLeft : 0, top = frame ? frame.scrollTop : 0;
    svg.classList.remove("zoomed");
    svg.style.width = "";
    if (z < 1.001) return;
    var fitted = svg.getBoundingClientRect().width; // unzoomed for a moment: the frame scrolled back
    svg.classList.add("zoomed");
    svg.style.width = (fitted * z).toFixed(0) + "px";
    if (frame) { frame.scrollLeft = left; frame.scrollTop = top; }
  }

  function kindOf(bar) { return bar.dataset.graphZoomFor === "fit" ? "fit" : "big"; }

  function applyZoom() {
    zoomBig();
    zoomFit();
    // "swipe it, or zoom out" only when it does not fit (a turned sphere fits a phone)
    var bars = document.querySelectorAll(".graph-zoom");
    var board = document.getElementById("board");
    var frame = board && board.closest(".scroller");
    for (var k = 0; k < bars.length; k++) {
      var kind = kindOf(bars[k]), z = zoom(kind), least = ZOOMS[kind][1], most = ZOOMS[kind][2];
      var level = bars[k].querySelector("[data-graph-zoom-level]");
      if (level) level.textContent = Math.round(z * 100) + "%";
      // a button that would do nothing says so (aria-disabled: it keeps the focus)
      var can = { out: z > least + 0.001, "in": z < most - 0.001, reset: Math.abs(z - 1) > 0.001 };
      var buttons = bars[k].querySelectorAll("[data-graph-zoom]");
      for (var b = 0; b < buttons.length; b++) {
        buttons[b].setAttribute("aria-disabled", can[buttons[b].dataset.graphZoom] ? "false" : "true");
      }
      bars[k].classList.toggle("overflowing", !!frame &&
        (frame.scrollWidth > frame.clientWidth + 1 || frame.scrollHeight > frame.clientHeight + 1));
    }
  }

  /* the point of the board in the middle of its frame, as shares of the board's width and
     height; ``keepMiddle`` puts that point back in the middle after a zoom */
  function middleOf(frame) {
    return [(frame.scrollLeft + frame.clientWidth / 2) / (frame.scrollWidth || 1),
      (frame.scrollTop + frame.clientHeight / 2) / (frame.scrollHeight || 1)];
  }
  function keepMiddle(frame, at) {
    frame.scrollLeft = Math.max(0, at[0] * frame.scrollWidth - frame.clientWidth / 2);
    frame.scrollTop = Math.max(0, at[1] * frame.scrollHeight - frame.clientHeight / 2);
  }

  document.addEventListener("click", function (e) {
    var button = e.target && e.target.closest ? e.target.closest("[data-graph-zoom]") : null;
    if (!button) return;
    var kind = kindOf(button.closest(".graph-zoom") || button);
    var how = button.dataset.graphZoom;
    var board = document.getElementById("board");
    var frame = board && board.closest(".scroller");
    var middle = frame ? middleOf(frame) : null;
    if (how === "reset") setZoom(kind, 1);
    else setZoom(kind, zoom(kind) * (how === "in" ? ZOOM_STEP : 1 / ZOOM_STEP));
    applyZoom();
    if (frame) keepMiddle(frame, middle);
  });

  /* A move swaps the whole game, its board's frame too, which a browser starts at its top
     left corner: a board zoomed and panned to a corner jumped away after every tap. The new
     frame starts where the player left the old one (the board is the same size), before it
     is painted (boardSwapped). */
  var boardView = null; // [left, top, scroll width, scroll height] of the game board's frame
  function noteBoardView() {
    var board = document.getElementById("board");
    var frame = board && board.closest(".scroller");
    if (frame) boardView = [frame.scrollLeft, frame.scrollTop, frame.scrollWidth, frame.scrollHeight];
  }
  // before a move's request (or a watcher's poll), and as the player pans (a live game's
  // moves may come unasked)
  document.addEventListener("htmx:beforeRequest", noteBoardView);
  document.addEventListener("scroll", function (e) {
    if (e.target && e.target.classList && e.target.classList.contains("scroller")) noteBoardView();
  }, true);
  function keepBoardView() {
    var board = document.getElementById("board");
    var frame = board && board.closest(".scroller");
    if (!frame || frame.dataset.started || !boardView) return;
    if (Math.abs(frame.scrollWidth - boardView[2]) > 2 || Math.abs(frame.scrollHeight - boardView[3]) > 2) return;
    frame.scrollLeft = boardView[0];
    frame.scrollTop = boardView[1];
    frame.dataset.started = "1";
  }

  /* a board bigger than its frame starts on the cell last touched (a frame swapped in whose
     view keepBoardView could not keep), a replay's on the cell its move acted on, else on
     the opened cells, else on its middle: a browser starts it at its top left corner, often
     empty (a cube's net) */
  function startFrames() {
    var frames = document.querySelectorAll(".scroller");
    for (var i = 0; i < frames.length; i++) {
      var frame = frames[i];
      if (frame.dataset.started || !frame.querySelector("svg.graph-game")) continue;
      var last = lastFocus && document.getElementById(lastFocus);
      var target = last && frame.contains(last) ? [last] : frame.querySelectorAll("g.moved");
      if (!target.length) target = frame.querySelectorAll("g.gcell.open");
      quarter.startOn(frame, quarter.around(target));
    }
  }

  function ready() { turnBoards(); applyZoom(); startFrames(); linkCells(); setTimeout(raiseMarked, 0); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
