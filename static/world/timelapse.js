/* A region's time-lapse (/world/<w>/timelapse): the team's log for the region, read from the
   API in pages (each page at most 128 events), replayed on a canvas with a slider and a play
   button. The slider grows as pages arrive; playing takes about 12 s whatever the length.
   Symbols as on the board: digits, F (a flag of this colour), * (another colour's flag: a
   free cell; a number wins over it). */
(function () {
  "use strict";
  var box = document.getElementById("lapse");
  if (!box) return;
  var canvas = document.getElementById("lapse-canvas");
  var stage = document.getElementById("lapse-stage");
  var ctx = canvas.getContext("2d");
  var playBtn = document.getElementById("lapse-play");
  var slider = document.getElementById("lapse-slider");
  var where = document.getElementById("lapse-where");
  var share = document.getElementById("lapse-share");

  var x0 = +box.dataset.x0, y0 = +box.dataset.y0, W = +box.dataset.width, H = +box.dataset.height;
  var colour = +box.dataset.colour;
  var frames = [], loaded = false, shown = 0, grid = new Array(W * H).fill(".");
  var timer = 0, cell = 4;
  var MAX_PAGES = 4000;   // 512,000 log events: beyond that the replay stops reading

  var css = getComputedStyle(document.documentElement);
  function v(name, fallback) { return (css.getPropertyValue(name) || "").trim() || fallback; }
  var COLOURS = {
    covered: v("--covered", "#8a919e"), open: v("--open", "#ffffff"), line: v("--covered-line", "#7a8190"),
    me: v("--c" + colour, "#e0473e"), muted: v("--muted", "#5b6475"), ink: v("--ink", "#1d2330"),
  };
  var DIGITS = ["", v("--n1", "#1f4fd6"), v("--n2", "#137a1f"), v("--n3", "#d11f1f"), v("--n4", "#1b2a8a"),
                v("--n5", "#8a1b1b"), v("--n6", "#0c7a7a"), v("--n7", "#222"), v("--n8", "#666")];

  function size() {
    var r = stage.getBoundingClientRect();
    cell = Math.max(2, Math.floor(Math.min(r.width / W, r.height / H)));
    var dpr = window.devicePixelRatio || 1;
    canvas.width = W * cell * dpr; canvas.height = H * cell * dpr;
    canvas.style.width = W * cell + "px"; canvas.style.height = H * cell + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawAll();
  }

  function drawCell(i) {
    var sym = grid[i], px = (i % W) * cell, py = Math.floor(i / W) * cell;
    ctx.fillStyle = sym === "." || sym === "F" ? COLOURS.covered : COLOURS.open;
    ctx.fillRect(px, py, cell, cell);
    if (cell >= 6) { ctx.strokeStyle = COLOURS.line; ctx.lineWidth = 0.5; ctx.strokeRect(px + 0.25, py + 0.25, cell - 0.5, cell - 0.5); }
    var glyph = cell >= 9;
    ctx.font = "bold " + Math.floor(cell * 0.7) + "px system-ui, sans-serif";
    ctx.textAlign = "center"; ctx.textBaseline = "middle";
    if (sym === "F") {  // as on the board (world.css): the flag in ink, the team's colour a bar
      ctx.fillStyle = COLOURS.ink;
      if (glyph) ctx.fillText("⚑", px + cell / 2, py + cell / 2 + 1);
      else ctx.fillRect(px + cell * 0.25, py + cell * 0.25, cell * 0.5, cell * 0.5);
      ctx.fillStyle = COLOURS.me;
      if (glyph) ctx.fillRect(px + 1, py + cell - 3, cell - 2, 2);
    } else if (sym === "*") {
      ctx.fillStyle = COLOURS.muted;
      if (glyph) ctx.fillText("✱", px + cell / 2, py + cell / 2 + 1);
      else ctx.fillRect(px + cell * 0.4, py + cell * 0.4, cell * 0.2, cell * 0.2);
    }
    else if (sym > "0" && sym <= "8" && cell >= 9) {
      ctx.fillStyle = DIGITS[+sym];
      ctx.fillText(sym, px + cell / 2, py + cell / 2 + 1);
    } else if (sym > "0" && sym <= "8") {
      ctx.fillStyle = DIGITS[+sym];
      ctx.fillRect(px + cell * 0.3, py + cell * 0.3, cell * 0.4, cell * 0.4);
    }
  }
  function drawAll() { for (var i = 0; i < W * H; i++) drawCell(i); }

  function apply(frame) {
    frame.cells.forEach(function (c) {
      var i = (c[1] - y0) * W + (c[0] - x0);
      if (c[2] === "*" && grid[i] !== "." && grid[i] !== "*") return;  // a number wins
      grid[i] = c[2];
      drawCell(i);
    });
  }

  function show(k) {
    k = Math.max(0, Math.min(frames.length, k));
    if (k < shown) { grid.fill("."); shown = 0; for (var j = 0; j < k; j++) { frames[j].cells.forEach(function (c) { var i = (c[1] - y0) * W + (c[0] - x0); if (!(c[2] === "*" && grid[i] !== "." && grid[i] !== "*")) grid[i] = c[2]; }); } shown = k; drawAll(); }
    while (shown < k) apply(frames[shown++]);
    slider.value = shown;
    var f = frames[shown - 1];
    where.textContent = (shown ? "move " + shown + " of " + frames.length + (loaded ? "" : "+") +
      " · " + new Date(f.at).toLocaleString([], { hour12: false }) : "the start: nothing known yet") +
      (loaded ? "" : " · loading…");
  }

  function pause() { clearInterval(timer); timer = 0; playBtn.textContent = "▶ Play"; }
  function play() {
    if (timer) { pause(); return; }
    if (shown >= frames.length) show(0);
    playBtn.textContent = "❚❚ Pause";
    var step = Math.max(1, Math.ceil(frames.length / 240));   // about 12 s at 20 steps a second
    timer = setInterval(function () {
      if (shown >= frames.length) { if (loaded) pause(); return; }
      show(shown + step);
    }, 50);
  }

  function load(after, pages) {
    var url = box.dataset.api + "?colour=" + colour + "&x0=" + x0 + "&y0=" + y0 + "&width=" + W +
      "&height=" + H + "&after=" + after;
    return fetch(url).then(function (r) {
      if (!r.ok) throw new Error("timelapse " + r.status);
      return r.json();
    }).then(function (page) {
      frames = frames.concat(page.frames);
      slider.max = frames.length;
      slider.disabled = playBtn.disabled = frames.length === 0;
      if (page.next === null || pages + 1 >= MAX_PAGES) {
        loaded = true;
        if (!frames.length) { where.textContent = "Nothing happened here yet."; return; }
        show(shown);
        return;
      }
      show(shown);
      return load(page.next, pages + 1);
    }).catch(function () {
      where.textContent = "The log could not be read: reload to try again.";
    });
  }

  playBtn.addEventListener("click", play);
  slider.addEventListener("input", function () { pause(); show(+slider.value); });
  share.addEventListener("click", function () {
    var done = function () { share.textContent = "Link copied"; setTimeout(function () { share.textContent = "Copy link"; }, 2000); };
    if (navigator.clipboard) navigator.clipboard.writeText(location.href).then(done, function () { prompt("The link:", location.href); });
    else prompt("The link:", location.href);
  });
  window.addEventListener("resize", size);
  size();
  load(0, 0).then(function () { if (frames.length && new URLSearchParams(location.search).get("play") !== "0") play(); });

  window.timelapse = {
    state: function () { return { frames: frames.length, shown: shown, loaded: loaded }; },
    rows: function () {
      var rows = [];
      for (var r = 0; r < H; r++) rows.push(grid.slice(r * W, (r + 1) * W).join(""));
      return rows;
    },
    show: show,
  };
})();
