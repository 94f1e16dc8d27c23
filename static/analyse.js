/* Mine Devil teaching: mark cells on a board from the server's [data-highlight] lists.
 *
 * The hint ladder, the loss lesson, the analysis board and the puzzles each render a panel with
 * `data-highlight='{"hl-number": ["c-3-4", ...], ...}'`: class name -> ids of board cells. This
 * script adds those classes (plus `teach-hl`) to the cells, and clears the old ones first, after
 * every page load and every htmx swap. It also copies the share link on click.
 * Nothing here is secret: the lists only name cells the page itself explains.
 */
(function () {
  "use strict";

  var CLASSES = ["teach-hl", "hl-number", "hl-known", "hl-target", "hl-region", "hl-safe",
    "hl-new-safe", "hl-new-mine", "hl-is-safe", "hl-is-mine", "hl-is-either"];

  function clear() {
    var marked = document.querySelectorAll(".teach-hl");
    for (var i = 0; i < marked.length; i++) {
      for (var j = 0; j < CLASSES.length; j++) marked[i].classList.remove(CLASSES[j]);
    }
  }

  function apply() {
    clear();
    var panels = document.querySelectorAll("[data-highlight]");
    for (var i = 0; i < panels.length; i++) {
      var spec;
      try {
        spec = JSON.parse(panels[i].getAttribute("data-highlight") || "{}");
      } catch (e) {
        continue;
      }
      Object.keys(spec).forEach(function (cls) {
        var ids = spec[cls] || [];
        for (var k = 0; k < ids.length; k++) {
          var cell = document.getElementById(ids[k]);
          if (cell) cell.classList.add("teach-hl", cls);
        }
      });
    }
  }

  function selectShare(event) {
    var input = event.target;
    if (input && input.classList && input.classList.contains("share-url")) input.select();
  }

  /* A paste longer than the board takes is stopped here, with the text still in the box
     (the server would have to refuse it without reading it). */
  function checkPaste(event) {
    var form = event.target;
    if (!form || form.id !== "paste-form") return;
    var box = form.querySelector("textarea[data-max]");
    if (!box) return;
    var max = parseInt(box.getAttribute("data-max"), 10);
    if (box.value.length <= max) return;
    event.preventDefault();
    var note = document.getElementById("paste-error");
    if (!note) {
      note = document.createElement("p");
      note.className = "form-error";
      note.id = "paste-error";
      note.setAttribute("role", "alert");
      box.parentNode.insertBefore(note, box);
    }
    note.textContent = "The text is " + box.value.length.toLocaleString("en") +
      " characters long: the analysis board reads at most " + max.toLocaleString("en") +
      " (10,000 cells). Cut it down and analyse again.";
    box.setAttribute("aria-invalid", "true");
    box.setAttribute("aria-describedby", "paste-error");
    box.focus();
  }

  /* The hint ladder swaps itself whole after each question: keep keyboard focus on the ladder
     (the next question, or the newest answer when the ladder is done) instead of losing it. */
  var hintAsked = false;
  function noteHintAsked(event) {
    var form = event.target;
    if (form && form.classList && form.classList.contains("hint-form")) hintAsked = true;
  }
  function focusLadder() {
    if (!hintAsked) return;
    hintAsked = false;
    var next = document.getElementById("hint-button");
    if (next) {
      next.focus();
      return;
    }
    var answers = document.querySelectorAll("#hints .hint-answer");
    var last = answers[answers.length - 1];
    if (last) {
      last.setAttribute("tabindex", "-1");
      last.focus();
    }
  }

  document.addEventListener("submit", noteHintAsked, true);
  document.addEventListener("htmx:afterSettle", focusLadder);
  document.addEventListener("submit", checkPaste);
  document.addEventListener("DOMContentLoaded", apply);
  document.addEventListener("htmx:afterSettle", apply);
  document.addEventListener("htmx:oobAfterSwap", apply);
  document.addEventListener("focusin", selectShare);
  if (document.readyState !== "loading") apply();
})();
