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
