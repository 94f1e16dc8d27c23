/* The game's board on a solid, and its replay's (the cube, the geodesic sphere:
   app/play/graph_board.py writes data-turn on the svg and each cell's 3-D corners in
   data-p3) drawn as the solid
   itself, turned by dragging, by the .solid-turn buttons, or by the arrow keys moving the
   cursor (the solid turns to face the cell the cursor reaches). The player chooses "Unfolded"
   (the net, as the server draws it) or "Solid" with the [data-graph-view] buttons; the choice
   is kept (localStorage), the turn too while the page lives (sessionStorage, one per game),
   so a move's swapped board comes back as it was and the replay is seen as the game was; a
   replay's step turns its move's cell into sight.

   Playing needs nothing new: the cells stay the same <g> elements (graph-game.js opens,
   flags, chords and moves the cursor). Faces turned away get .back (not drawn, not clickable,
   but still in the accessibility tree: a screen reader reads every cell, and a cell that
   takes the focus is turned to face the viewer);
   graph-game.js's arrows use each cell's projected centre (data-bx, data-by), and before it
   focuses a cell it sends "graph:reach", on which the solid turns to face that cell.
   A drag is not a click: the click that ends a drag is swallowed. The maths is
   static/graph-solid.js's (the analysis board's solid), shared as window.MineDevilSolid. */
(function () {
  "use strict";
  var S = window.MineDevilSolid;
  if (!S) return;
  var VIEW_KEY = "mine-devil-graph-view";
  var PX_PER_UNIT = 60; // a cell facing the viewer, in CSS pixels (the net's are 46)
  var MIN_PX = 420;
  var DRAG_PX = 10; // as graph-game.js's long press: a finger moving further is a drag
  var REACH_TILT = 0.5; // the cursor's cell is turned to face the viewer below this
  var SLANT = S.turn(-0.35, 0.4); // a faced cell, slanted a little (x then y, radians)

  function chosen() {
    try { return localStorage.getItem(VIEW_KEY) === "solid" ? "solid" : "net"; } catch (e) { return "net"; }
  }
  /* one turn per game: its replay (page or panel) is seen as the game was */
  function turnKey(svg) {
    var game = location.pathname.replace(/\/replay(\/.*)?$/, "");
    return "graph-turn:" + game + ":" + svg.querySelectorAll("g[data-p3]").length;
  }
  function keptTurn(svg) {
    try {
      var kept = JSON.parse(sessionStorage.getItem(turnKey(svg)) || "null");
      if (kept && kept.length === 9) return kept;
    } catch (e) { /* no storage */ }
    return svg.getAttribute("data-turn").split(",").map(Number);
  }

  function cellsOf(svg) {
    if (svg._ballCells) return svg._ballCells;
    svg._ballCells = Array.prototype.map.call(svg.querySelectorAll("g[data-p3]"), function (g) {
      var corners = g.getAttribute("data-p3").split(" ").map(function (p) { return p.split(",").map(Number); });
      var shape = g.querySelector("polygon");
      var texts = Array.prototype.slice.call(g.querySelectorAll("text"));
      return {
        el: g, shape: shape, texts: texts, corners: corners, normal: S.normal(corners),
        flat: shape && shape.getAttribute("points"),
        flatText: texts.map(function (t) { return [t.getAttribute("x"), t.getAttribute("y"), t.getAttribute("font-size")]; })
      };
    });
    return svg._ballCells;
  }

  function radius(cells) {
    var r = 0;
    cells.forEach(function (c) { c.corners.forEach(function (p) { r = Math.max(r, Math.hypot(p[0], p[1], p[2])); }); });
    return r;
  }

  function draw(svg) {
    var m = svg._turn, cells = cellsOf(svg);
    cells.forEach(function (cell) {
      var tilt = S.apply(m, cell.normal)[2];
      var front = tilt > S.FACING;
      cell.el.classList.toggle("back", !front);
      var sx = 0, sy = 0;
      var points = cell.corners.map(function (p) {
        var q = S.apply(m, p);
        sx += q[0]; sy -= q[1];
        return q[0].toFixed(3) + "," + (-q[1]).toFixed(3);
      });
      sx /= points.length; sy /= points.length;
      cell.el.dataset.bx = sx.toFixed(3);
      cell.el.dataset.by = sy.toFixed(3);
      cell.el.dataset.tilt = tilt.toFixed(3);
      if (!front) return;
      if (cell.shape) cell.shape.setAttribute("points", points.join(" "));
      cell.texts.forEach(function (t, i) {
        t.setAttribute("x", sx.toFixed(3));
        t.setAttribute("y", sy.toFixed(3));
        var size = parseFloat(cell.flatText[i][2]) || 0.5;
        t.setAttribute("font-size", (size * Math.max(tilt, 0.3)).toFixed(3));
        t.classList.toggle("rim", tilt < S.LABEL_TILT);
      });
    });
    keepTabStop(svg, cells);
    try { sessionStorage.setItem(turnKey(svg), JSON.stringify(m)); } catch (e) { /* ignore */ }
  }

  /* the board's one tab stop stays on a face turned to the viewer (a hidden cell cannot take
     the focus, and Tab would skip the board) */
  function keepTabStop(svg, cells) {
    var stop = svg.querySelector('g[data-p3][tabindex="0"]');
    if (stop && !stop.classList.contains("back")) return;
    var best = null, bestTilt = -2;
    cells.forEach(function (c) {
      var t = parseFloat(c.el.dataset.tilt);
      if (t > bestTilt) { bestTilt = t; best = c.el; }
    });
    if (!best) return;
    if (stop) stop.setAttribute("tabindex", "-1");
    best.setAttribute("tabindex", "0");
  }

  function toSolid(svg) {
    if (svg.classList.contains("ball")) { draw(svg); return; }
    svg.classList.add("ball");
    if (window.MineDevilTurnBoards) window.MineDevilTurnBoards(); // undo a phone's quarter turn
    var cells = cellsOf(svg);
    svg.dataset.netView = svg.getAttribute("viewBox");
    svg.dataset.netSize = svg.getAttribute("width") + " " + svg.getAttribute("height");
    var r = radius(cells) + 0.3;
    var px = Math.max(MIN_PX, 2 * r * PX_PER_UNIT);
    svg.setAttribute("viewBox", [-r, -r, 2 * r, 2 * r].map(function (v) { return v.toFixed(3); }).join(" "));
    svg.setAttribute("width", px.toFixed(0));
    svg.setAttribute("height", px.toFixed(0));
    svg._turn = svg._turn || keptTurn(svg);
    draw(svg);
    // a lost game: the fatal click in sight; a replay: the move's cell
    face(svg.querySelector("g.boom") || svg.querySelector("g.moved"));
  }

  function toNet(svg) {
    if (!svg.classList.contains("ball")) return;
    cellsOf(svg).forEach(function (cell) {
      cell.el.classList.remove("back");
      if (cell.shape) cell.shape.setAttribute("points", cell.flat);
      cell.texts.forEach(function (t, i) {
        t.setAttribute("x", cell.flatText[i][0]);
        t.setAttribute("y", cell.flatText[i][1]);
        if (cell.flatText[i][2]) t.setAttribute("font-size", cell.flatText[i][2]);
        t.classList.remove("rim");
      });
    });
    svg.setAttribute("viewBox", svg.dataset.netView);
    var size = svg.dataset.netSize.split(" ");
    svg.setAttribute("width", size[0]);
    svg.setAttribute("height", size[1]);
    svg.classList.remove("ball");
    if (window.MineDevilTurnBoards) window.MineDevilTurnBoards(); // a phone turns the net again
  }

  // the game's board and a replay's (the replay page, the game page's replay panel)
  function boards() {
    return document.querySelectorAll("#board svg.graph-game[data-turn], #replay-board svg.graph-game[data-turn]");
  }

  /* The cells' 3-D corners come with the page's first board only: a move's answer leaves them
     out when the request says the page kept them (the Mine-Devil-Corners header,
     app/play/graph_board.py), and they are put back on the swapped-in cells, by the cell's
     id in the board file (the same on the game's board and a replay's), before anything
     reads them. */
  var kept = {}; // data-cell -> data-p3 text
  var keptCount = 0;
  function withCorners(svg) {
    var cells = svg.querySelectorAll("g[data-cell]");
    for (var i = 0; i < cells.length; i++) {
      var id = cells[i].getAttribute("data-cell"), p3 = cells[i].getAttribute("data-p3");
      if (p3 && !kept[id]) { kept[id] = p3; keptCount++; }
      else if (!p3 && kept[id]) cells[i].setAttribute("data-p3", kept[id]);
    }
  }
  document.addEventListener("htmx:configRequest", function (e) {
    if (keptCount && boards().length) e.detail.headers["Mine-Devil-Corners"] = "kept";
  });

  function apply() {
    var want = chosen();
    var list = boards();
    for (var i = 0; i < list.length; i++) {
      withCorners(list[i]);
      if (want === "solid") toSolid(list[i]); else toNet(list[i]);
    }
    var buttons = document.querySelectorAll("[data-graph-view]");
    for (var j = 0; j < buttons.length; j++) {
      buttons[j].setAttribute("aria-pressed", String(buttons[j].dataset.graphView === want));
    }
    var turns = document.querySelectorAll(".graph-view-switch .solid-controls");
    for (var k = 0; k < turns.length; k++) turns[k].hidden = want !== "solid";
  }

  function turnBy(svg, aboutX, aboutY) {
    if (!svg || !svg.classList.contains("ball")) return;
    svg._turn = S.multiply(S.turn(aboutX, aboutY), svg._turn);
    draw(svg);
  }

  document.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest("[data-graph-view]");
    if (button) {
      try { localStorage.setItem(VIEW_KEY, button.dataset.graphView); } catch (err) { /* private mode */ }
      apply();
      return;
    }
    var turn = e.target.closest && e.target.closest(".graph-view-switch [data-turn]");
    if (turn) {
      var k = { left: [0, -S.STEP], right: [0, S.STEP], up: [-S.STEP, 0], down: [S.STEP, 0] }[turn.dataset.turn];
      var which = turn.closest(".graph-view-switch").getAttribute("data-board") || "board";
      if (k) turnBy(document.querySelector("#" + which + " svg.graph-game"), k[0], k[1]);
    }
  });

  /* turn the solid to face a cell turned away or near the rim */
  function face(g) {
    var svg = g && g.closest && g.closest("svg.graph-game.ball");
    if (!svg || !g.dataset.p3 || parseFloat(g.dataset.tilt) >= REACH_TILT) return;
    var corners = g.dataset.p3.split(" ").map(function (p) { return p.split(",").map(Number); });
    // then a slant, so the faces around it show too: a cube face seen straight on was a flat
    // grid, and a stranger no longer saw a cube (the cell stays facing: tilt about 0.87)
    svg._turn = S.multiply(SLANT, S.toward(svg._turn, S.normal(corners)));
    draw(svg);
  }

  /* graph-game.js asks before the cursor moves onto a cell: a cell turned away (or near the
     rim) is turned to face the viewer first */
  document.addEventListener("graph:reach", function (e) { face(e.target); });

  /* a cell a panel names ("your click on cell f0-0", a hint's cells: game.js's .cell-ref
     links) is turned into sight when the link is pointed at, focused or tapped */
  function faceRef(e) {
    var link = e.target.closest && e.target.closest(".cell-ref");
    if (link && link.dataset.cell) face(document.getElementById(link.dataset.cell));
  }
  document.addEventListener("mouseover", faceRef);
  document.addEventListener("focusin", faceRef);
  /* a face turned away is still read by a screen reader (only hidden from sight: the CSS):
     a cell it moves the focus to is turned into sight */
  document.addEventListener("focusin", function (e) {
    var g = e.target.closest && e.target.closest("svg.graph-game.ball g.back");
    if (g) face(g);
  });
  document.addEventListener("click", faceRef);

  // -- dragging turns the solid; the click ending a drag opens nothing ---------------------
  var drag = null;
  var dragged = false;
  document.addEventListener("pointerdown", function (e) {
    var svg = e.target.closest && e.target.closest("svg.graph-game.ball");
    dragged = false;
    drag = svg ? { svg: svg, x: e.clientX, y: e.clientY, id: e.pointerId, moving: false } : null;
  });
  document.addEventListener("pointermove", function (e) {
    if (!drag || e.pointerId !== drag.id) return;
    var dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!drag.moving && Math.hypot(dx, dy) < DRAG_PX) return;
    if (!drag.moving) {
      try { drag.svg.setPointerCapture(e.pointerId); } catch (err) { /* released already */ }
    }
    drag.moving = dragged = true;
    var scale = Math.PI / Math.max(drag.svg.getBoundingClientRect().width, 1);
    turnBy(drag.svg, dy * scale, dx * scale);
    drag.x = e.clientX;
    drag.y = e.clientY;
  });
  function end() {
    drag = null;
    // the click a drag ends with comes before any timer; a touch drag sends none, and a
    // later click (Enter on a button) must not be swallowed
    setTimeout(function () { dragged = false; }, 0);
  }
  document.addEventListener("pointerup", end);
  document.addEventListener("pointercancel", end);
  window.addEventListener("click", function (e) {
    if (!dragged) return;
    dragged = false;
    e.stopPropagation();
    e.preventDefault();
  }, true);

  // a move's answer swaps the board: graph-game.js's one observer (loaded first) calls apply
  // before it turns or grows the board, so the new one is drawn as the old one was before
  // it is painted
  if (window.MineDevilOnBoardSwap) window.MineDevilOnBoardSwap(apply);

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", apply);
  else apply();
})();
