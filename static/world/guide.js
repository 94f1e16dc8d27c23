/* The first visit's guide: three steps (only proofs open cells, each colour is its own board,
   flags help the other colours), one at a time, dismissed for good (localStorage) by "Got
   it" (or Skip, or Esc); "Show the three steps again" in the help brings it back. */
(function () {
  "use strict";
  var guide = document.getElementById("guide");
  if (!guide) return;
  var KEY = "mine-devil.world.guide";
  var steps = guide.querySelectorAll(".guide-steps li");
  var next = document.getElementById("guide-next");
  var close = document.getElementById("guide-close");
  var again = document.getElementById("guide-again");
  var step = 0;

  function seen() { try { return localStorage.getItem(KEY) === "seen"; } catch (e) { return false; } }
  function remember() { try { localStorage.setItem(KEY, "seen"); } catch (e) { /* private mode */ } }

  function show(i) {
    step = i;
    for (var j = 0; j < steps.length; j++) steps[j].hidden = j !== i;
    next.hidden = i >= steps.length - 1;
    close.textContent = i >= steps.length - 1 ? "Got it, let me play" : "Skip";
    guide.dataset.step = String(i + 1);
  }
  function open() { show(0); guide.hidden = false; next.focus(); }
  function dismiss() {
    guide.hidden = true; remember();
    var board = document.getElementById("world-board");
    if (board) board.focus();
  }

  guide.addEventListener("pointerdown", function (e) { e.stopPropagation(); });
  next.addEventListener("click", function () { show(step + 1); });
  close.addEventListener("click", dismiss);
  guide.addEventListener("keydown", function (e) { if (e.key === "Escape") { e.stopPropagation(); dismiss(); } });
  if (again) again.addEventListener("click", open);
  // automated browsers (bots, tests: navigator.webdriver) are not shown it unasked; while the
  // join form is open (an empty world opens with it) the guide waits for it to close
  var join = document.getElementById("join");
  if (!seen() && !navigator.webdriver) {
    if (join && join.open) {
      join.addEventListener("toggle", function later() {
        if (join.open || seen()) return;
        join.removeEventListener("toggle", later);
        open();
      });
    } else {
      open();
    }
  }
})();
