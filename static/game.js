/* Mine Devil: the little JavaScript htmx cannot do for us.
 *
 *  - a click on a cell submits the hidden #board-form (kind=open) with the cell in `at`;
 *    right-click and long-press submit #flag-form (kind=flag). htmx sends them (with the
 *    CSRF header) and applies the out-of-band answer. The cells are buttons outside any
 *    form on purpose: Chromium makes replacing form controls inside a form O(n^2);
 *  - keyboard play on any [role=grid]: a roving tabindex, arrow keys / Home / End move,
 *    F flags (Space and Enter are the cell buttons' own clicks);
 *  - the running clock, and keeping the replay slider in step with the replay view;
 *  - row and column numbers on the boards (a remembered toggle), a zoom and a scroll cue for
 *    boards wider than 16 columns, and cell names in texts ("row 3, col 4") made into links
 *    that highlight the cell.
 *
 * Everything else (reveals, chords, replay steps) is plain htmx on server-rendered HTML,
 * and the board also works without this file (left clicks post the form).
 * This file never learns anything the page does not show: there is nothing secret in the DOM.
 */
(function () {
  "use strict";

  var LONG_PRESS_MS = 450;
  var MOVE_TOLERANCE_PX = 10;
  var CELL_ID = /c-(\d+)-(\d+)$/;

  // -- helpers -------------------------------------------------------------------------

  function gridOf(el) {
    return el && el.closest ? el.closest("[role=grid]") : null;
  }

  function cellOf(el) {
    if (!el || !el.closest) return null;
    var cell = el.closest(".cell");
    return cell && !cell.classList.contains("ghost") && gridOf(cell) ? cell : null;
  }

  function isLive(cell) {
    var grid = gridOf(cell);
    return !!grid && grid.classList.contains("live") && cell.tagName === "BUTTON";
  }

  function coords(cell) {
    var m = CELL_ID.exec(cell.id);
    return m ? [parseInt(m[1], 10), parseInt(m[2], 10)] : null;
  }

  function cellAt(grid, row, col) {
    return document.getElementById((grid.dataset.prefix || "") + "c-" + row + "-" + col);
  }

  // -- roving tabindex -----------------------------------------------------------------

  function makeCurrent(cell) {
    var grid = gridOf(cell);
    if (!grid || cell.classList.contains("hole")) return;
    var stops = grid.querySelectorAll('.cell[tabindex="0"]');
    for (var i = 0; i < stops.length; i++) {
      if (stops[i] !== cell) stops[i].setAttribute("tabindex", "-1");
    }
    cell.setAttribute("tabindex", "0");
    grid.dataset.current = cell.id;
  }

  /* After a swap: exactly one tab stop per grid, on the cell the player was on. */
  function fixRoving(root) {
    var grids = (root || document).querySelectorAll("[role=grid]");
    if (root && root.matches && root.matches("[role=grid]")) grids = [root];
    for (var i = 0; i < grids.length; i++) {
      var grid = grids[i];
      var current = grid.dataset.current && document.getElementById(grid.dataset.current);
      if (!current || !grid.contains(current)) {
        current = grid.querySelector('.cell[tabindex="0"]') || grid.querySelector(".cell[tabindex]");
      }
      if (current) makeCurrent(current);
    }
  }

  function move(cell, dr, dc, toEdge) {
    var grid = gridOf(cell);
    var rc = coords(cell);
    if (!grid || !rc) return;
    var rows = parseInt(grid.dataset.rows, 10);
    var cols = parseInt(grid.dataset.cols, 10);
    var wrap = grid.dataset.topology === "torus";
    var r = rc[0], c = rc[1];
    var steps = toEdge ? Math.max(rows, cols) : 1;
    var target = null;
    for (var n = 0, moved = 0; n < rows * cols && moved < steps; n++) {
      r += dr; c += dc;
      if (wrap) {
        r = (r + rows) % rows; c = (c + cols) % cols;
      } else if (r < 0 || c < 0 || r >= rows || c >= cols) {
        break;
      }
      var next = cellAt(grid, r, c);
      if (!next || next === cell) break;
      if (next.classList.contains("hole")) continue;
      target = next;
      moved++;
      if (wrap && toEdge && (c === 0 || c === cols - 1 || r === 0 || r === rows - 1)) break;
    }
    if (target) {
      makeCurrent(target);
      target.focus();
    }
  }

  // -- flagging --------------------------------------------------------------------------

  var touchFlag = { id: null, at: 0 }; // the last flag placed by a long press
  var suppressClickUntil = 0;

  function send(formId, cell) {
    var form = document.getElementById(formId);
    if (!form) return;
    form.elements.at.value = cell.value;
    if (form.requestSubmit) form.requestSubmit();
    else form.submit();
  }

  function flag(cell) {
    if (!isLive(cell) || !cell.classList.contains("covered")) return;
    send("flag-form", cell);
  }

  /* a left click (or Space / Enter, which click a focused button) opens or chords */
  document.addEventListener("click", function (e) {
    var cell = cellOf(e.target);
    if (!cell || !isLive(cell) || e.button !== 0) return;
    e.preventDefault();
    if (cell.classList.contains("n0")) return; // an empty cell: nothing to open or chord
    send("board-form", cell);
  });

  document.addEventListener("contextmenu", function (e) {
    var cell = cellOf(e.target);
    if (!cell || !isLive(cell)) return;
    e.preventDefault();
    // a touch long press also fires contextmenu on some phones: flag once, not twice
    if (touchFlag.id === cell.id && Date.now() - touchFlag.at < 1000) return;
    if (press) {
      cancelPress();
      suppressClickUntil = Date.now() + 800;
      touchFlag = { id: cell.id, at: Date.now() };
    }
    flag(cell);
  });

  var press = null;

  function cancelPress() {
    if (press) clearTimeout(press.timer);
    press = null;
  }

  document.addEventListener("pointerdown", function (e) {
    if (e.pointerType !== "touch") return;
    var cell = cellOf(e.target);
    if (!cell || !isLive(cell)) return;
    cancelPress();
    var p = { x: e.clientX, y: e.clientY, fired: false, timer: 0 };
    p.timer = setTimeout(function () {
      p.fired = true;
      press = null;
      suppressClickUntil = Date.now() + 800;
      touchFlag = { id: cell.id, at: Date.now() };
      flag(cell);
      if (navigator.vibrate) navigator.vibrate(25);
    }, LONG_PRESS_MS);
    press = p;
  });

  document.addEventListener("pointermove", function (e) {
    if (press && Math.hypot(e.clientX - press.x, e.clientY - press.y) > MOVE_TOLERANCE_PX) cancelPress();
  });
  document.addEventListener("pointerup", cancelPress);
  document.addEventListener("pointercancel", cancelPress);

  /* the click that ends a long press must not also open the cell */
  document.addEventListener("click", function (e) {
    if (Date.now() < suppressClickUntil && cellOf(e.target)) {
      e.preventDefault();
      e.stopPropagation();
      suppressClickUntil = 0;
    }
  }, true);

  // -- keyboard --------------------------------------------------------------------------

  document.addEventListener("keydown", function (e) {
    var cell = cellOf(e.target);
    if (!cell || e.altKey || e.metaKey) return;
    var ctrl = e.ctrlKey;
    switch (e.key) {
      case "ArrowUp": move(cell, -1, 0, ctrl); break;
      case "ArrowDown": move(cell, 1, 0, ctrl); break;
      case "ArrowLeft": move(cell, 0, -1, ctrl); break;
      case "ArrowRight": move(cell, 0, 1, ctrl); break;
      case "Home":
        move(cell, 0, -1, true);
        if (ctrl) move(cellOf(document.activeElement) || cell, -1, 0, true);
        break;
      case "End":
        move(cell, 0, 1, true);
        if (ctrl) move(cellOf(document.activeElement) || cell, 1, 0, true);
        break;
      case "f": case "F":
        if (ctrl) return;
        flag(cell);
        break;
      default: return;
    }
    e.preventDefault();
  });

  document.addEventListener("focusin", function (e) {
    var cell = cellOf(e.target);
    if (cell) makeCurrent(cell);
  });

  // -- clock, board size, replay slider -----------------------------------------------------

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function clockText(seconds) {
    var s = Math.max(0, Math.floor(seconds));
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    return h ? h + ":" + pad(m) + ":" + pad(s % 60) : m + ":" + pad(s % 60);
  }

  function tick() {
    var clocks = document.querySelectorAll(".clock[data-start]:not([data-end])");
    for (var i = 0; i < clocks.length; i++) {
      var text = clocks[i].querySelector(".clock-text");
      if (text) text.textContent = clockText(Date.now() / 1000 - parseFloat(clocks[i].dataset.start));
    }
  }

  function sizeBoards(root) {
    var grids = (root || document).querySelectorAll("[role=grid][data-cols]");
    for (var i = 0; i < grids.length; i++) {
      // a torus draws a ghost column each side; a hexagonal board's odd rows are half a cell right
      var topology = grids[i].dataset.topology;
      var cols = parseInt(grids[i].dataset.cols, 10) + (topology === "torus" ? 1 : topology === "hex" ? 0.5 : 0);
      grids[i].style.setProperty("--cols", String(cols));
      labelColumns(grids[i]);
    }
  }

  // -- row and column numbers (a toggle remembered in localStorage) --------------------------

  var COORDS_KEY = "mine-devil-coords";

  function stored(key) {
    try { return window.localStorage.getItem(key); } catch (e) { return null; }
  }

  function store(key, value) {
    try { window.localStorage.setItem(key, value); } catch (e) { /* private mode: not kept */ }
  }

  function applyCoords() {
    var on = stored(COORDS_KEY) === "1";
    document.documentElement.classList.toggle("coords", on);
    var toggles = document.querySelectorAll("[data-coords-toggle]");
    for (var i = 0; i < toggles.length; i++) {
      toggles[i].checked = on;
      var label = toggles[i].closest("label");
      if (label) label.hidden = false;
    }
  }

  document.addEventListener("change", function (e) {
    if (!e.target || !e.target.matches || !e.target.matches("[data-coords-toggle]")) return;
    store(COORDS_KEY, e.target.checked ? "1" : "0");
    applyCoords();
    fitZoomBars();
  });

  /* the column numbers: one aria-hidden row of labels at the top of each grid (row numbers
     are CSS counters on the rows, so swapped rows keep theirs) */
  function labelColumns(grid) {
    if (grid.querySelector(":scope > .coord-cols")) return;
    var cols = parseInt(grid.dataset.cols, 10);
    if (!(cols > 0)) return;
    var header = document.createElement("div");
    header.className = "coord-cols";
    header.setAttribute("aria-hidden", "true");
    var torus = grid.dataset.topology === "torus";
    var html = torus ? '<span class="coord-ghost"></span>' : "";
    for (var c = 0; c < cols; c++) html += "<span>" + c + "</span>";
    header.innerHTML = html + (torus ? '<span class="coord-ghost"></span>' : "");
    grid.insertBefore(header, grid.firstChild);
  }

  // -- zoom and a scroll cue for boards wider than the screen ---------------------------------

  var ZOOM_KEY = "mine-devil-zoom";
  var ZOOMS = [0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.15, 1.3, 1.5];

  function zoomOf() {
    var z = parseFloat(stored(ZOOM_KEY) || "1");
    return z > 0.2 && z < 3 ? z : 1;
  }

  function setZoom(z) {
    store(ZOOM_KEY, String(Math.round(z * 100) / 100));
    fitZoomBars();
  }

  function zoomBar(scroller) {
    var frame = scroller.closest(".board-frame") || scroller;
    var bar = frame.previousElementSibling;
    if (bar && bar.classList.contains("zoom-bar")) return bar;
    bar = document.createElement("div");
    bar.className = "zoom-bar";
    bar.innerHTML =
      '<span class="zoom-label">Zoom</span>' +
      '<button type="button" class="btn zoom-out" data-zoom="out" aria-label="Zoom out">\u2212</button>' +
      '<span class="zoom-level" aria-live="polite"></span>' +
      '<button type="button" class="btn zoom-in" data-zoom="in" aria-label="Zoom in">+</button>' +
      '<button type="button" class="btn zoom-fit" data-zoom="fit">Fit the width</button>' +
      '<span class="scroll-cue">\u21c6 The board is wider than the screen: swipe it sideways, or zoom out</span>';
    frame.parentNode.insertBefore(bar, frame);
    return bar;
  }

  /* zoom applies to boards wider than 16 columns (narrower ones always fit) */
  function fitZoomBars() {
    var z = zoomOf();
    var grids = document.querySelectorAll("[role=grid].board:not(.fit):not(.mini)");
    for (var i = 0; i < grids.length; i++) {
      var grid = grids[i];
      var scroller = grid.closest(".scroller");
      if (!scroller) continue;
      grid.style.setProperty("--zoom", String(z));
      var bar = zoomBar(scroller);
      bar.querySelector(".zoom-level").textContent = Math.round(z * 100) + "%";
      bar.dataset.grid = grid.id || "";
      bar.classList.toggle("overflowing", scroller.scrollWidth > scroller.clientWidth + 1);
      bar.classList.toggle("zoomed", Math.abs(z - 1) > 0.001);
    }
  }

  document.addEventListener("click", function (e) {
    var button = e.target && e.target.closest ? e.target.closest("[data-zoom]") : null;
    if (!button) return;
    var z = zoomOf();
    var kind = button.dataset.zoom;
    if (kind === "in" || kind === "out") {
      var next = kind === "in" ? ZOOMS[ZOOMS.length - 1] : ZOOMS[0];
      for (var i = 0; i < ZOOMS.length; i++) {
        if (kind === "in" && ZOOMS[i] > z + 0.001) { next = ZOOMS[i]; break; }
        if (kind === "out" && ZOOMS[i] < z - 0.001) next = ZOOMS[i];
      }
      setZoom(next);
    } else {
      var frame = button.closest(".zoom-bar").nextElementSibling;
      var scroller = frame && (frame.classList.contains("scroller") ? frame : frame.querySelector(".scroller"));
      var grid = scroller && scroller.querySelector("[role=grid]");
      if (!grid) return;
      // the cells scale with the zoom, the frame's padding and the board's border do not
      var room = scroller.clientWidth - 12 - 6 - 2;
      var cells = grid.offsetWidth - 6;
      setZoom(Math.max(0.25, Math.min(1.5, Math.floor(100 * z * room / cells) / 100)));
    }
  });

  window.addEventListener("resize", function () { fitZoomBars(); });

  /* pinch with two fingers on a wide board: zoom it (the page keeps its own pinch elsewhere) */
  var pinch = { pointers: {}, start: 0, zoom: 1, grid: null };

  function spread() {
    var ids = Object.keys(pinch.pointers);
    if (ids.length < 2) return 0;
    var a = pinch.pointers[ids[0]], b = pinch.pointers[ids[1]];
    return Math.hypot(a.x - b.x, a.y - b.y);
  }

  document.addEventListener("pointerdown", function (e) {
    if (e.pointerType !== "touch") return;
    var grid = e.target && e.target.closest ? e.target.closest(".board:not(.fit):not(.mini)") : null;
    if (!grid) return;
    pinch.pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
    if (Object.keys(pinch.pointers).length === 2) {
      cancelPress(); // two fingers: not a long press
      pinch.start = spread();
      pinch.zoom = zoomOf();
      pinch.grid = grid;
    }
  });

  document.addEventListener("pointermove", function (e) {
    if (!pinch.pointers[e.pointerId]) return;
    pinch.pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
    if (pinch.grid && pinch.start > 0) {
      var z = Math.max(0.25, Math.min(1.5, pinch.zoom * spread() / pinch.start));
      pinch.grid.style.setProperty("--zoom", String(z));
    }
  });

  function endPinch(e) {
    if (!pinch.pointers[e.pointerId]) return;
    delete pinch.pointers[e.pointerId];
    if (pinch.grid && Object.keys(pinch.pointers).length < 2) {
      var z = parseFloat(pinch.grid.style.getPropertyValue("--zoom")) || pinch.zoom;
      pinch.grid = null;
      pinch.start = 0;
      suppressClickUntil = Date.now() + 400; // lifting the fingers opens nothing
      setZoom(z);
    }
  }

  document.addEventListener("pointerup", endPinch);
  document.addEventListener("pointercancel", endPinch);

  // -- cells named in texts: links that show the cell on the board ---------------------------

  var CELL_NAME = /\brow (\d+), col (\d+)\b/g;

  function linkCells(root) {
    var boxes = (root || document).querySelectorAll("[data-cells]");
    for (var i = 0; i < boxes.length; i++) {
      var box = boxes[i];
      if (box.dataset.linked) continue;
      box.dataset.linked = "1";
      var prefix = box.getAttribute("data-cells") || "";
      var walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
      var nodes = [];
      while (walker.nextNode()) nodes.push(walker.currentNode);
      nodes.forEach(function (node) {
        var parent = node.parentNode;
        if (!parent || parent.closest("a, button, textarea, script, [role=grid]")) return;
        var text = node.nodeValue;
        CELL_NAME.lastIndex = 0;
        if (!CELL_NAME.test(text)) return;
        CELL_NAME.lastIndex = 0;
        var frag = document.createDocumentFragment();
        var last = 0, m;
        while ((m = CELL_NAME.exec(text))) {
          frag.appendChild(document.createTextNode(text.slice(last, m.index)));
          var link = document.createElement("a");
          var target = prefix + "c-" + m[1] + "-" + m[2];
          link.className = "cell-ref";
          link.href = "#" + target;
          link.dataset.cell = target;
          link.title = "Show this cell on the board";
          link.textContent = m[0];
          frag.appendChild(link);
          last = m.index + m[0].length;
        }
        frag.appendChild(document.createTextNode(text.slice(last)));
        parent.replaceChild(frag, node);
      });
    }
  }

  function refCell(el) {
    var link = el && el.closest ? el.closest(".cell-ref") : null;
    return link ? document.getElementById(link.dataset.cell) : null;
  }

  function markRef(e, on) {
    var cell = refCell(e.target);
    if (cell) cell.classList.toggle("hl-ref", on);
  }

  document.addEventListener("mouseover", function (e) { markRef(e, true); });
  document.addEventListener("mouseout", function (e) { markRef(e, false); });
  document.addEventListener("focusin", function (e) { markRef(e, true); });
  document.addEventListener("focusout", function (e) { markRef(e, false); });
  document.addEventListener("click", function (e) {
    var cell = refCell(e.target);
    if (!cell) return;
    e.preventDefault();
    var marked = document.querySelectorAll(".cell.hl-flash");
    for (var i = 0; i < marked.length; i++) marked[i].classList.remove("hl-flash", "hl-ref");
    cell.classList.add("hl-ref", "hl-flash");
    cell.scrollIntoView({ block: "nearest", inline: "center", behavior: "smooth" });
    setTimeout(function () { cell.classList.remove("hl-flash", "hl-ref"); }, 3000);
  });

  /* "?" in the status bar: open "How to play" and go there */
  document.addEventListener("click", function (e) {
    var link = e.target && e.target.closest ? e.target.closest('a[href="#help"]') : null;
    var help = document.getElementById("help");
    if (!link || !help) return;
    help.open = true;
  });

  function syncReplay() {
    var slider = document.getElementById("replay-n");
    var view = document.getElementById("replay-view");
    var status = document.getElementById("status");
    if (!slider) return;
    var total = status && status.dataset.moves ? status.dataset.moves : view && view.dataset.total;
    if (total) slider.max = total;
    if (view && view.dataset.n && document.activeElement !== slider) slider.value = view.dataset.n;
  }

  /* The replay board sits in the side column (below the fold on a phone): after the replay is
     opened or stepped, scroll so its controls and board are in view, unless they already are. */
  var replayStepped = false;
  function keepReplayInView() {
    if (!replayStepped) return;
    replayStepped = false;
    var board = document.getElementById("replay-board");
    var panel = document.getElementById("replay");
    if (!board || (panel && panel.tagName === "DETAILS" && !panel.open)) return;
    var box = board.getBoundingClientRect();
    if (box.top >= 0 && box.bottom <= window.innerHeight) return;
    var controls = document.querySelector(".replay-controls") || board;
    controls.scrollIntoView({ block: "start", behavior: "instant" });
    box = board.getBoundingClientRect();
    if (box.bottom > window.innerHeight) board.scrollIntoView({ block: "end", behavior: "instant" });
  }

  function refresh(root) {
    sizeBoards(root);
    applyCoords();
    fitZoomBars();
    linkCells(root);
    fixRoving(root);
    syncReplay();
    tick();
    keepReplayInView();
  }

  /* htmx fires afterSettle once per swapped element, and oobAfterSwap for every earlier swap
     of an answer each time it swaps one more (quadratic). Let one of each through per answer,
     so that listeners (ours, the teaching script's) run once per answer, not thousands of
     times; the rest stop here, in the capture phase, before reaching anyone. */
  ["htmx:oobAfterSwap", "htmx:afterSettle"].forEach(function (name) {
    var passed = false;
    window.addEventListener(name, function (e) {
      if (passed) {
        e.stopImmediatePropagation();
        return;
      }
      passed = true;
      queueMicrotask(function () { passed = false; });
    }, true);
  });

  /* refresh once, after the whole answer is in */
  var refreshQueued = false;
  document.addEventListener("htmx:afterSettle", function () {
    if (refreshQueued) return;
    refreshQueued = true;
    queueMicrotask(function () {
      refreshQueued = false;
      refresh(document);
    });
  });
  /* counts of answered htmx requests (all of them, and moves), so tests can wait for an answer */
  document.addEventListener("htmx:afterRequest", function (e) {
    var root = document.documentElement;
    var config = e.detail && e.detail.requestConfig;
    var key = config && /\/move$/.test(config.path || "") ? "moved" : "answered";
    if (config && /\/replay(\/|\?|$)/.test(config.path || "")) replayStepped = true;
    root.dataset[key] = String(parseInt(root.dataset[key] || "0", 10) + 1);
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { refresh(document); });
  } else {
    refresh(document);
  }
  setInterval(tick, 1000);
})();
