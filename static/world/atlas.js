/* The team's map around the view (GET /api/worlds/<w>/teams/<t>/map, "atlas"): loaded after
   the first board, when the view moves 256 cells away, after moves, and every 20 s; it feeds the
   minimap (minimap.js) and the colour picker's counts per board. After a colour switch it says
   what the new board holds and offers the nearest free cell (✱). It also keeps the time-lapse
   link on the region in view. */
(function () {
  "use strict";
  var wb = window.worldBoard;
  var board = document.getElementById("world-board");
  if (!wb || !board) return;
  var team = board.dataset.team;
  var colourSelect = document.getElementById("colour-select");

  function colourName(c) {
    var o = colourSelect && colourSelect.options[c];
    return o ? (o.dataset.name || o.textContent.replace("● ", "")) : "colour " + c;
  }

  /* After a switch: what this board holds, and the free cells other colours left here. */
  function explainColour(data, c) {
    var b = data.boards[c];
    var text = "Each colour is its own board: your team has " + b.open + " cell" +
      (b.open === 1 ? "" : "s") + " open as " + colourName(c) + ", and " + b.free +
      " free cell" + (b.free === 1 ? "" : "s") + " (✱) from other colours' flags near you.";
    var actions = [];
    if (b.nearest_free) {
      var f = { x: b.nearest_free[0], y: b.nearest_free[1] };
      actions.push({ label: "Go to the nearest free cell", run: function () {
        wb.goTo(f.x, f.y); wb.setCursor(f.x, f.y); board.focus();
        wb.say("✱ at (" + f.x + ", " + f.y + ") is safe on this board: click it to open it.");
      } });
    } else if (b.open === 0) {
      text += " Click anywhere to drop in on this board, or go back to your team.";
    }
    wb.say(text, { actions: actions.concat(wb.backAction()) });
  }

  // -- the team's map around the view: minimap (static/world/minimap.js), colour counts --------

  var atlasData = null, atlasAt = 0, atlasTimer = 0, atlasPending = null;
  function loadAtlas(force) {
    if (!team) return Promise.resolve(null);
    var c = wb.centre();
    if (!force && atlasData && Date.now() - atlasAt < 2000) return Promise.resolve(atlasData);
    if (atlasPending && !force) return atlasPending;
    var url = board.dataset.api + "/teams/" + encodeURIComponent(team) + "/map?x=" + c.x + "&y=" + c.y;
    atlasAt = Date.now();
    atlasPending = fetch(url, { credentials: "same-origin" }).then(function (r) {
      return r.ok ? r.json() : null;
    }).then(function (data) {
      atlasPending = null;
      if (!data) return null;
      atlasData = data;
      labelColours(data);
      wb.emit("atlas", data);
      return data;
    }).catch(function () { atlasPending = null; return null; });
    return atlasPending;
  }
  function atlasSoon(ms) {
    clearTimeout(atlasTimer);
    atlasTimer = setTimeout(function () { loadAtlas(false); }, ms);
  }
  function labelColours(data) {
    if (!colourSelect) return;
    data.boards.forEach(function (b) {
      var o = colourSelect.options[b.colour];
      if (!o) return;
      o.textContent = "● " + colourName(b.colour) + " · " + b.open + " open · " + b.flags + " ⚑" +
        (b.free ? " · " + b.free + " ✱" : "");
    });
    colourSelect.title = "Each colour is its own board; counts near the view: open cells, flags, free cells (✱)";
  }
  wb.on("view", function () {
    if (!atlasData) return;
    var c = wb.centre();
    if (Math.abs(c.x - atlasData.x) > 256 || Math.abs(c.y - atlasData.y) > 256) atlasSoon(600);
  });
  wb.on("moved", function () { atlasSoon(2500); });
  wb.on("cells", function () { atlasSoon(5000); });
  wb.on("first-board", function () { loadAtlas(true); });
  wb.on("switched", function (c) {
    loadAtlas(true).then(function (data) { if (data && wb.state().colour === c) explainColour(data, c); });
  });
  setInterval(function () { if (!document.hidden) loadAtlas(false); }, 20000);

  // the time-lapse link replays the region in view (at most 256x256 cells around its centre)
  var lapseLink = document.getElementById("timelapse-link");
  if (lapseLink) wb.on("view", function (r) {
    var w = Math.min(256, r.width), h = Math.min(256, r.height), c = wb.centre();
    var u = new URL(lapseLink.href, location.href);
    u.searchParams.set("colour", wb.state().colour);
    u.searchParams.set("x0", c.x - Math.floor(w / 2)); u.searchParams.set("y0", c.y - Math.floor(h / 2));
    u.searchParams.set("width", w); u.searchParams.set("height", h);
    lapseLink.href = u.pathname + u.search;
  });


  wb.atlas = function () { return atlasData; };
  wb.loadAtlas = loadAtlas;
  if (wb.state().firstBoard !== null) loadAtlas(true);   // the board came first
})();
