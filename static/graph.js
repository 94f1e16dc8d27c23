// The graph analysis board: choosing a cell (click, Enter or Space) asks the page why,
// by submitting the board's own form with that cell's id.
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
  document.addEventListener("keydown", function (event) {
    var cell = event.target.closest && event.target.closest(".graph-board [data-cell]");
    if (cell && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      choose(cell);
    }
  });
})();
