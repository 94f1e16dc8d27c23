// A solid graph board (svg.graph-board.solid, drawn by app/graphs/drawing.py): turn it by
// dragging, by the arrow keys while the board has the focus, or by the .solid-turn buttons.
// Each cell carries its 3-D corners (data-p3); the view is an orthographic projection of
// them after the turn (data-turn, a 3x3 matrix row by row), faces turned away are hidden.
// A drag is not a click: a cell chosen by the pointer is only one it did not drag.
// The turn is remembered for the page (sessionStorage), so choosing a cell keeps the view;
// but when the cells a deduction step or a choice marks are turned away (or at the rim), the
// board first turns the least it must to face them (a stranger stepping through a cube's
// proof otherwise saw no marks at all).
(function () {
  "use strict";
  var STEP = Math.PI / 12;  // one key press or button: 15 degrees
  var FACING = 0.02;  // a face is drawn above this cosine (app/graphs/projection.py)
  var LABEL_TILT = 0.3;  // its number above this one (app/graphs/drawing.py)

  function multiply(a, b) {
    var out = [];
    for (var r = 0; r < 3; r++) {
      for (var c = 0; c < 3; c++) {
        out.push(a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c]);
      }
    }
    return out;
  }
  function turn(aboutX, aboutY) {  // Rx(aboutX) @ Ry(aboutY), as app/graphs/projection.py
    var cx = Math.cos(aboutX), sx = Math.sin(aboutX), cy = Math.cos(aboutY), sy = Math.sin(aboutY);
    return [cy, 0, sy, sx * sy, cx, -sx * cy, -cx * sy, sx, cx * cy];
  }
  function apply(m, p) {
    return [m[0] * p[0] + m[1] * p[1] + m[2] * p[2],
            m[3] * p[0] + m[4] * p[1] + m[5] * p[2],
            m[6] * p[0] + m[7] * p[1] + m[8] * p[2]];
  }
  function normal(corners) {  // outward: away from the solid's centre (the origin)
    var a = corners[0], b = corners[1], c = corners[2];
    var u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]], v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    var n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    var mid = [0, 0, 0];
    corners.forEach(function (p) { mid[0] += p[0]; mid[1] += p[1]; mid[2] += p[2]; });
    var len = Math.hypot(n[0], n[1], n[2]) || 1;
    var sign = n[0] * mid[0] + n[1] * mid[1] + n[2] * mid[2] >= 0 ? 1 : -1;
    return [sign * n[0] / len, sign * n[1] / len, sign * n[2] / len];
  }

  /* the least turn after ``m`` that makes the direction ``n`` (model space) face the viewer
     (Rodrigues: about (m n) x z by the angle between them); ``m`` when n is about zero */
  function toward(m, n) {
    var v = apply(m, n), len = Math.hypot(v[0], v[1], v[2]);
    if (len < 1e-6) { return m; } // marks all round the solid: no one best side
    v = [v[0] / len, v[1] / len, v[2] / len];
    var axis = [v[1], -v[0], 0], s = Math.hypot(axis[0], axis[1]), c = v[2];
    if (s < 1e-9) {
      if (c > 0) { return m; }
      axis = [1, 0, 0]; s = 0; c = -1;
    } else {
      axis = [axis[0] / s, axis[1] / s, 0];
    }
    var x = axis[0], y = axis[1], z = axis[2], t = 1 - c;
    var r = [t * x * x + c, t * x * y - s * z, t * x * z + s * y,
             t * x * y + s * z, t * y * y + c, t * y * z - s * x,
             t * x * z - s * y, t * y * z + s * x, t * z * z + c];
    return multiply(r, m);
  }

  // the game page's turnable board (static/graph-ball.js) uses the same numbers
  window.MineDevilSolid = { multiply: multiply, turn: turn, apply: apply, normal: normal,
                            toward: toward, STEP: STEP, FACING: FACING, LABEL_TILT: LABEL_TILT };

  function setUp(svg) {
    var key = "graph-turn:" + location.pathname + ":" + svg.querySelectorAll("[data-p3]").length;
    var matrix = svg.getAttribute("data-turn").split(",").map(Number);
    var first = true;  // the server's view, not a turn the player left
    try {
      var kept = JSON.parse(sessionStorage.getItem(key) || "null");
      if (kept && kept.length === 9) { matrix = kept; first = false; }
    } catch (e) { /* no storage: start from the server's view */ }
    var labels = {};
    svg.querySelectorAll("text[data-of]").forEach(function (t) {
      labels[t.getAttribute("data-of")] = t;
    });
    var cells = Array.prototype.map.call(svg.querySelectorAll("[data-p3]"), function (el) {
      var corners = el.getAttribute("data-p3").split(" ").map(function (p) {
        return p.split(",").map(Number);
      });
      return { el: el, corners: corners, normal: normal(corners),
               label: labels[el.getAttribute("data-cell")] };
    });

    /* the least turn taking the marked cells' mean normal to face the viewer, when one of
       them is hidden or near the rim */
    function faceMarked() {
      var marked = cells.filter(function (c) {
        return /\b(hl-[a-z-]+|selected|used)\b/.test(c.el.getAttribute("class") || "");
      });
      if (!marked.length) { return; }
      var hidden = marked.some(function (c) { return apply(matrix, c.normal)[2] < LABEL_TILT; });
      if (!hidden) { return; }
      var n = [0, 0, 0];
      marked.forEach(function (c) { n[0] += c.normal[0]; n[1] += c.normal[1]; n[2] += c.normal[2]; });
      matrix = toward(matrix, n);
    }

    /* the first view of a position turns its covered cells (what the board is about) towards
       the viewer when most of them are turned away or at the rim (a pasted cube showed its
       opened face and the covered cells as slivers), then slants a little so the faces
       around them show too */
    function faceCovered() {
      var covered = cells.filter(function (c) { return c.el.classList.contains("covered"); });
      var seen = covered.filter(function (c) { return apply(matrix, c.normal)[2] >= LABEL_TILT; });
      if (!covered.length || seen.length * 2 >= covered.length) { return; }
      var n = [0, 0, 0];
      covered.forEach(function (c) { n[0] += c.normal[0]; n[1] += c.normal[1]; n[2] += c.normal[2]; });
      if (Math.hypot(n[0], n[1], n[2]) < 0.5) { return; }  // all round the solid
      matrix = multiply(turn(-0.35, 0.4), toward(matrix, n));
    }

    /* the board's one tab stop among its cells stays on a face turned to the viewer */
    function keepTabStop() {
      var stop = svg.querySelector('[data-p3][tabindex="0"]');
      if (stop && !stop.classList.contains("back")) { return; }
      var front = svg.querySelector("[data-p3]:not(.back)");
      if (!front) { return; }
      if (stop) { stop.setAttribute("tabindex", "-1"); }
      front.setAttribute("tabindex", "0");
    }

    function draw() {
      cells.forEach(function (cell) {
        var tilt = apply(matrix, cell.normal)[2];
        var front = tilt > FACING;
        cell.el.classList.toggle("back", !front);
        if (cell.label) {
          cell.label.classList.toggle("back", tilt < LABEL_TILT);
          cell.label.setAttribute("font-size", (0.5 * Math.max(tilt, 0)).toFixed(3));
        }
        if (!front) { return; }
        var sx = 0, sy = 0;
        var points = cell.corners.map(function (p) {
          var q = apply(matrix, p);
          sx += q[0]; sy -= q[1];
          return q[0].toFixed(3) + "," + (-q[1]).toFixed(3);
        });
        cell.el.setAttribute("points", points.join(" "));
        if (cell.label) {
          cell.label.setAttribute("x", (sx / points.length).toFixed(3));
          cell.label.setAttribute("y", (sy / points.length).toFixed(3));
        }
      });
      keepTabStop();
      try { sessionStorage.setItem(key, JSON.stringify(matrix)); } catch (e) { /* ignore */ }
    }
    function by(aboutX, aboutY) {
      matrix = multiply(turn(aboutX, aboutY), matrix);
      draw();
    }

    var drag = null;
    var dragged = false;
    svg.addEventListener("pointerdown", function (event) {
      drag = { x: event.clientX, y: event.clientY, id: event.pointerId };
      dragged = false;
    });
    svg.addEventListener("pointermove", function (event) {
      if (!drag || event.pointerId !== drag.id) { return; }
      var dx = event.clientX - drag.x, dy = event.clientY - drag.y;
      if (!dragged && Math.hypot(dx, dy) < 6) { return; }
      if (!dragged) { svg.setPointerCapture(event.pointerId); }
      dragged = true;
      var scale = Math.PI / Math.max(svg.getBoundingClientRect().width, 1);
      by(dy * scale, dx * scale);
      drag.x = event.clientX;
      drag.y = event.clientY;
    });
    function end() { drag = null; }
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
    svg.addEventListener("click", function (event) {
      if (dragged) {  // the end of a drag, not a choice
        event.stopPropagation();
        event.preventDefault();
        dragged = false;
      }
    }, true);
    var keys = { ArrowLeft: [0, -STEP], ArrowRight: [0, STEP], ArrowUp: [-STEP, 0],
                 ArrowDown: [STEP, 0] };
    svg.addEventListener("keydown", function (event) {
      if (event.target !== svg) { return; }  // on a cell the arrows move (static/graph.js)
      var k = keys[event.key];
      if (!k) { return; }
      event.preventDefault();
      by(k[0], k[1]);
    });
    /* a cell on a face turned away stays in the accessibility tree (graph.css): when a screen
       reader's cursor (or anything) focuses it, the solid turns to face it */
    svg.addEventListener("focusin", function (event) {
      var cell = cells.filter(function (c) { return c.el === event.target; })[0];
      if (!cell || apply(matrix, cell.normal)[2] >= LABEL_TILT) { return; }
      matrix = toward(matrix, cell.normal);
      draw();
    });
    var frame = svg.closest(".graph-frame") || svg.parentNode;
    var controls = frame.parentNode.querySelector(".solid-controls");
    if (controls) {
      controls.addEventListener("click", function (event) {
        var button = event.target.closest("[data-turn]");
        if (!button) { return; }
        var k = keys["Arrow" + button.getAttribute("data-turn").replace(/^./, function (c) {
          return c.toUpperCase();
        })];
        if (k) { by(k[0], k[1]); }
      });
    }
    if (first) { faceCovered(); }
    faceMarked();
    draw();
  }

  function start() {
    document.querySelectorAll("svg.graph-board.solid[data-turn]").forEach(setUp);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
