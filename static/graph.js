// The graph analysis board: choosing a cell (click, Enter or Space) asks the page why,
// by submitting the board's own form with that cell's id. The board is one tab stop (the
// cell with tabindex 0, app/graphs/drawing.py); the arrow keys move to the cell on screen
// nearest that way (on a solid: among the faces turned to the viewer).
(function () {
  "use strict";
  function choose(cell) {
    var frame = cell.closest("[data-graph-form]");
    var form = frame && document.getElementById(frame.getAttribute("data-graph-form"));
    if (!form) { return; }
    form.querySelector("input[name=cell]").value = cell.getAttribute("data-cell");
    form.submit();
  }
  document.addEventListener("click", function (event) {
    var cell = event.target.closest && event.target.closest(".graph-board [data-cell]");
    if (cell) { choose(cell); }
  });
  var DIRS = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };

  function centre(el) {
    var r = el.getBoundingClientRect();
    return [r.left + r.width / 2, r.top + r.height / 2];
  }

  /* the visible cell whose direction from this one is nearest (dx, dy), near ones first */
  function step(cell, dx, dy) {
    var from = centre(cell), best = null, bestScore = Infinity;
    var cells = cell.closest("svg").querySelectorAll("[data-cell]:not(.back)");
    for (var i = 0; i < cells.length; i++) {
      if (cells[i] === cell) { continue; }
      var to = centre(cells[i]), vx = to[0] - from[0], vy = to[1] - from[1];
      var along = vx * dx + vy * dy, across = Math.abs(vx * dy - vy * dx);
      if (along <= 0 || across > 2 * along) { continue; } // not that way
      var score = along + 2 * across;
      if (score < bestScore) { bestScore = score; best = cells[i]; }
    }
    return best;
  }

  function moveTo(cell, next) {
    var stops = cell.closest("svg").querySelectorAll('[data-cell][tabindex="0"]');
    for (var i = 0; i < stops.length; i++) { stops[i].setAttribute("tabindex", "-1"); }
    next.setAttribute("tabindex", "0");
    next.focus();
  }

  document.addEventListener("keydown", function (event) {
    var cell = event.target.closest && event.target.closest(".graph-board [data-cell]");
    if (!cell || event.altKey || event.ctrlKey || event.metaKey) { return; }
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      choose(cell);
      return;
    }
    var dir = DIRS[event.key];
    if (!dir) { return; }
    event.preventDefault();
    var next = step(cell, dir[0], dir[1]);
    if (next) { moveTo(cell, next); }
  });

  // "cell k31" in the proof and the step text names a cell no stranger could find (the board
  // shows no ids): it becomes a link; pointing at it or focusing it rings the cell on the
  // board, a click (a tap) rings it for a few seconds and scrolls it into view. Without
  // JavaScript the link goes to the board.
  var CELL_WORD = /\bcell ([A-Za-z0-9_.:\-]+)/g;
  function boardCell(id) {
    var svg = document.querySelector(".graph-frame .graph-board");
    var sel = '[data-cell="' + (window.CSS && CSS.escape ? CSS.escape(id) : id) + '"]';
    return svg && svg.querySelector(sel);
  }
  function linkCells() {
    var boxes = document.querySelectorAll("#graph-proof, #step-text");
    for (var i = 0; i < boxes.length; i++) {
      var walker = document.createTreeWalker(boxes[i], NodeFilter.SHOW_TEXT), nodes = [];
      while (walker.nextNode()) { nodes.push(walker.currentNode); }
      nodes.forEach(function (node) {
        var text = node.nodeValue, last = 0, m, frag = null;
        if (node.parentNode.closest("a, h3")) { return; }
        CELL_WORD.lastIndex = 0;
        while ((m = CELL_WORD.exec(text))) {
          var id = m[1].replace(/[.:]+$/, "");
          if (!boardCell(id)) { continue; }
          frag = frag || document.createDocumentFragment();
          frag.appendChild(document.createTextNode(text.slice(last, m.index)));
          var link = document.createElement("a");
          link.className = "graph-ref";
          link.href = "#graph-board-title";
          link.dataset.ref = id;
          link.title = "Show this cell on the board";
          link.textContent = "cell " + id;
          frag.appendChild(link);
          last = m.index + 5 + id.length;
        }
        if (!frag) { return; }
        frag.appendChild(document.createTextNode(text.slice(last)));
        node.parentNode.replaceChild(frag, node);
      });
    }
  }
  // the ring: a copy of the cell's outline drawn over the board (the cell itself sits under
  // its neighbours and its number)
  var ring = null, ringTimer = null;
  function showRing(id) {
    hideRing();
    pinned = false;
    var cell = boardCell(id);
    if (!cell) { return null; }
    ring = cell.cloneNode(false);
    ["data-cell", "tabindex", "role", "aria-label", "id"].forEach(function (a) { ring.removeAttribute(a); });
    ring.setAttribute("class", "ref-ring");
    ring.setAttribute("aria-hidden", "true");
    cell.parentNode.appendChild(ring);
    return cell;
  }
  function hideRing() {
    clearTimeout(ringTimer);
    if (ring && ring.parentNode) { ring.parentNode.removeChild(ring); }
    ring = null;
  }
  function refOf(event) {
    var link = event.target.closest && event.target.closest("a.graph-ref");
    return link && link.dataset.ref;
  }
  ["mouseover", "focusin"].forEach(function (kind) {
    document.addEventListener(kind, function (event) { var id = refOf(event); if (id) { showRing(id); } });
  });
  // a clicked link's ring stays its few seconds (the scroll moves the link from under the
  // pointer)
  var pinned = false;
  ["mouseout", "focusout"].forEach(function (kind) {
    document.addEventListener(kind, function (event) { if (refOf(event) && !pinned) { hideRing(); } });
  });
  document.addEventListener("click", function (event) {
    var id = refOf(event);
    if (!id) { return; }
    event.preventDefault();
    var cell = showRing(id);
    if (cell) { cell.scrollIntoView({ block: "nearest", inline: "center", behavior: "smooth" }); }
    pinned = true;
    ringTimer = setTimeout(function () { pinned = false; hideRing(); }, 3000);
  });
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", linkCells); }
  else { linkCells(); }

  // -- the focused cell's ring, drawn over its neighbours ----------------------------------
  // A cell's own outline is half hidden under the neighbours drawn after it, and amber is
  // hardly seen on the yellow of an "either" cell: on a flat board the focused cell gets a
  // copy of its outline on top, black under amber, one of them 3:1 from any fill in both themes.
  // (A solid redraws its cells as it turns; its focus stays the cell's own outline.)
  var focusRings = [];
  function hideFocusRing() {
    focusRings.forEach(function (r) { if (r.parentNode) { r.parentNode.removeChild(r); } });
    focusRings = [];
  }
  document.addEventListener("focusin", function (event) {
    hideFocusRing();
    var cell = event.target.closest && event.target.closest(".graph-board:not(.solid) [data-cell]");
    if (!cell) { return; }
    ["focus-ring-edge", "focus-ring"].forEach(function (kind) {
      var r = cell.cloneNode(false);
      ["data-cell", "tabindex", "role", "aria-label", "id"].forEach(function (a) { r.removeAttribute(a); });
      r.setAttribute("class", kind);
      r.setAttribute("aria-hidden", "true");
      cell.parentNode.appendChild(r);
      focusRings.push(r);
    });
  });
  document.addEventListener("focusout", hideFocusRing);

  // -- a phone: boards up to FIT_CELLS cells fit its width, bigger ones pan ----------------
  // A wide net (the cube's, the sphere's) on a narrow portrait screen is turned a quarter
  // (its numbers kept upright: static/quarter-turn.js, as the game page's board), so it is
  // taller than wide. Then a board of up to FIT_CELLS cells fits the screen's width, as a
  // game's does (an intermediate cube's net scrolled sideways at 24 px cells); a bigger one
  // keeps its typical cell MIN_CELL_PX wide and pans in its frame (two fingers zoom). The
  // arrow keys follow the screen (step() reads the drawn positions).
  var MIN_CELL_PX = 24, FIT_CELLS = 300;
  var SVG_NS = "http://www.w3.org/2000/svg", quarter = window.MineDevilQuarterTurn;

  /* the typical cell's width in drawing units (the median of up to 60 cells) */
  function cellUnits(svg) {
    if (svg._cellUnits) { return svg._cellUnits; }
    svg._cellUnits = quarter.typical(svg.querySelectorAll("[data-cell]"), function (cell) {
      var box = cell.getBBox();
      return Math.min(box.width, box.height) || 1;
    }, 1);
    return svg._cellUnits;
  }

  function sizeBoards() {
    var portrait = quarter.portrait(), narrow = window.innerWidth < quarter.BELOW_PX;
    var boards = document.querySelectorAll(".graph-frame svg.graph-board:not(.solid)");
    for (var i = 0; i < boards.length; i++) {
      var svg = boards[i];
      if (svg.classList.contains("wide") && portrait !== svg.classList.contains("turned")) {
        var inner = svg.querySelector(":scope > g.quarter");
        if (!inner) {
          inner = document.createElementNS(SVG_NS, "g");
          inner.setAttribute("class", "quarter");
          while (svg.firstChild) { inner.appendChild(svg.firstChild); }
          svg.appendChild(inner);
        }
        quarter.turn(svg, inner, portrait);
      }
      var view = quarter.drawnView(svg), turned = svg.classList.contains("turned");
      var big = narrow && svg.querySelectorAll("[data-cell]").length > FIT_CELLS;
      var want = Math.ceil(MIN_CELL_PX * (turned ? view[3] : view[2]) / cellUnits(svg));
      // a board a few pixels wider than the screen fits it (an expert sphere's net)
      big = big && want > 1.1 * svg.parentNode.clientWidth;
      svg.style.minWidth = big ? want + "px" : turned ? "0" : "";
      svg.style.maxHeight = big ? "none" : ""; // its height follows its width
    }
  }
  sizeBoards();
  window.addEventListener("resize", sizeBoards);

  // a board bigger than the screen starts on the chosen cell (the page reloads on each
  // choice), else on its middle: not on the frame's empty top left corner
  var frames = document.querySelectorAll(".graph-frame");
  for (var f = 0; f < frames.length; f++) {
    quarter.startOn(frames[f], quarter.around(frames[f].querySelectorAll(".selected")));
  }

  // the tiling chosen in the side column: its description under the select (the select
  // itself shows the name alone: the column is too narrow for the descriptions)
  document.addEventListener("change", function (event) {
    var select = event.target;
    if (!select.matches || !select.matches(".graph-side select[name=tiling]")) { return; }
    var about = document.getElementById("tiling-about");
    var option = select.options[select.selectedIndex];
    if (about && option) { about.textContent = option.getAttribute("data-about") || ""; }
  });
})();
