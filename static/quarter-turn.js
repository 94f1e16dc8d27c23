// A wide board (a cube's or sphere's net, a long flat board) on a narrow portrait screen is
// drawn turned a quarter, its numbers kept upright, so it is taller than wide and its cells
// bigger to tap. One turn for the game page (graph-game.js) and the analysis board
// (graph.js); each chooses which boards to turn and how big to draw them.
(function () {
  "use strict";
  var BELOW_PX = 600;

  /* a phone held upright: narrower than BELOW_PX and taller than wide */
  function portrait() {
    return window.innerWidth < BELOW_PX && window.innerHeight > window.innerWidth;
  }

  /* the board's viewBox as the server drew it, [x, y, w, h] (kept in data-view) */
  function drawnView(svg) {
    var view = svg.dataset.view || svg.getAttribute("viewBox");
    svg.dataset.view = view;
    return view.split(" ").map(Number);
  }

  /* turn ``svg`` a quarter (``want``) or back: ``inner`` is the group holding its drawing */
  function turn(svg, inner, want) {
    var b = drawnView(svg); // rotate(90) takes (x, y) to (-y, x)
    svg.setAttribute("viewBox", want ? [-(b[1] + b[3]), b[0], b[3], b[2]].join(" ") : svg.dataset.view);
    if (want) inner.setAttribute("transform", "rotate(90)");
    else inner.removeAttribute("transform");
    var texts = inner.querySelectorAll("text");
    for (var i = 0; i < texts.length; i++) {
      var t = texts[i];
      if (want) t.setAttribute("transform", "rotate(-90 " + t.getAttribute("x") + " " + t.getAttribute("y") + ")");
      else t.removeAttribute("transform");
    }
    svg.classList.toggle("turned", want);
  }

  window.MineDevilQuarterTurn = { BELOW_PX: BELOW_PX, portrait: portrait, drawnView: drawnView, turn: turn };
})();
