/* Mine Devil: the little JavaScript htmx cannot do for us.
 *
 *  - a click on a cell submits the hidden #board-form (kind=open) with the cell in `at`;
 *    right-click and long-press submit #flag-form (kind=flag). htmx sends them (with the
 *    CSRF header) and applies the out-of-band answer. The cells are buttons outside any
 *    form on purpose: Chromium makes replacing form controls inside a form O(n^2);
 *  - keyboard play on any [role=grid]: a roving tabindex, arrow keys / Home / End move,
 *    F flags (Space and Enter are the cell buttons' own clicks);
 *  - the running clock, and keeping the replay slider in step with the replay view.
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
      var cols = parseInt(grids[i].dataset.cols, 10) + (grids[i].dataset.topology === "torus" ? 1 : 0);
      grids[i].style.setProperty("--cols", String(cols));
    }
  }

  function syncReplay() {
    var slider = document.getElementById("replay-n");
    var view = document.getElementById("replay-view");
    var status = document.getElementById("status");
    if (!slider) return;
    var total = status && status.dataset.moves ? status.dataset.moves : view && view.dataset.total;
    if (total) slider.max = total;
    if (view && view.dataset.n && document.activeElement !== slider) slider.value = view.dataset.n;
  }

  function refresh(root) {
    sizeBoards(root);
    fixRoving(root);
    syncReplay();
    tick();
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
    root.dataset[key] = String(parseInt(root.dataset[key] || "0", 10) + 1);
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { refresh(document); });
  } else {
    refresh(document);
  }
  setInterval(tick, 1000);
})();
