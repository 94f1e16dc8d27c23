// A wide board (a cube's or sphere's net, a long flat board) on a narrow portrait screen is
// drawn turned a quarter, its numbers kept upright, so it is taller than wide and its cells
// bigger to tap. One turn for the game page (graph-game.js) and the analysis board
// (graph.js); each chooses which boards to turn and how big to draw them.
// A board too big for the screen scrolls in its own frame, which a browser starts at its top
// left corner: often empty on a phone (an expert cube's net showed grey first). ``startOn``
// scrolls a frame, once, to a cell (the one last touched, chosen or moved) or else to the
// middle of its drawing.
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

  /* scroll ``frame`` so ``target`` (a rectangle on the screen, or null: the drawing's middle)
     sits in its middle; once per frame (a frame htmx swaps in is a new one), and only when
     the frame overflows. The reader's own scrolling is never undone. */
  function startOn(frame, target) {
    if (!frame || frame.dataset.started) return;
    var wide = frame.scrollWidth > frame.clientWidth + 1, tall = frame.scrollHeight > frame.clientHeight + 1;
    if (!wide && !tall) return;
    frame.dataset.started = "1";
    var box = frame.getBoundingClientRect();
    var x = target ? target.left + target.width / 2 - box.left - frame.clientLeft + frame.scrollLeft : frame.scrollWidth / 2;
    var y = target ? target.top + target.height / 2 - box.top - frame.clientTop + frame.scrollTop : frame.scrollHeight / 2;
    if (wide) frame.scrollLeft = Math.max(0, x - frame.clientWidth / 2);
    if (tall) frame.scrollTop = Math.max(0, y - frame.clientHeight / 2);
  }

  /* the rectangle on the screen around ``els`` (null when there are none) */
  function around(els) {
    var left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
    for (var i = 0; i < els.length; i++) {
      var r = els[i].getBoundingClientRect();
      left = Math.min(left, r.left); top = Math.min(top, r.top);
      right = Math.max(right, r.right); bottom = Math.max(bottom, r.bottom);
    }
    return els.length ? { left: left, top: top, width: right - left, height: bottom - top } : null;
  }

  /* the median of ``measure`` over up to 60 of ``cells``, evenly spaced (``empty`` when there
     are none): a board's typical cell, for the analysis board's cell size (graph.js) and the
     game's help for thin cells (graph-game.js), each measuring a cell its own way */
  function typical(cells, measure, empty) {
    var values = [];
    for (var i = 0; i < cells.length; i += Math.max(1, Math.floor(cells.length / 60))) {
      values.push(measure(cells[i]));
    }
    values.sort(function (a, b) { return a - b; });
    return values.length ? values[Math.floor(values.length / 2)] : empty;
  }

  window.MineDevilQuarterTurn = {
    BELOW_PX: BELOW_PX, portrait: portrait, drawnView: drawnView, turn: turn, startOn: startOn, around: around,
    typical: typical,
  };
})();
