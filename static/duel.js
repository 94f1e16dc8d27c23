// The duel page's race panel, pushed by the server (GET /duel/<d>/events, Server-Sent
// Events): each "race" event carries the panel's HTML and the result sentence. The page
// reloads when the race starts (the board appears) and moves to a rematch once it began.
// The result sentence goes into #duel-verdict, a live region that stays in the page, so a
// screen reader announces who won once, however often the panel is redrawn; the other
// player's news (fell, cleared, asked for a rematch) goes to the page's #announce region.
(function () {
  "use strict";
  function copyButton() {
    var button = document.getElementById("copy-invite");
    var link = document.getElementById("duel-link");
    if (!button || !link || !navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(link.value).then(function () {
        button.textContent = "Copied";
      }, function () {
        link.select();
      });
    });
  }
  function start() {
    copyButton();
    var panel = document.getElementById("duel-race");
    var verdict = document.getElementById("duel-verdict");
    if (!panel || !window.EventSource) return;
    var source = new EventSource(panel.dataset.events);
    var notice = null;  // the first event only sets what is already known
    source.addEventListener("race", function (event) {
      var data = JSON.parse(event.data);
      if (data.rematch) {
        source.close();
        window.location.assign(data.rematch);
        return;
      }
      if (data.started && panel.dataset.started !== "true") {
        source.close();
        window.location.reload();
        return;
      }
      panel.innerHTML = data.html;
      if (window.htmx) window.htmx.process(panel);
      if (verdict && verdict.textContent !== data.verdict) verdict.textContent = data.verdict;
      if (data.notice && data.notice !== notice) {  // the other side's news, read out once
        var announce = document.getElementById("announce");
        if (announce && notice !== null) announce.textContent = data.notice;
      }
      notice = data.notice;
    });
    window.addEventListener("pagehide", function () { source.close(); });
    // Accepting or asking for a rematch leaves the page by a form: the stream must not
    // reload it meanwhile (that would cancel the answer that carries the player's cookie).
    document.addEventListener("submit", function (event) {
      if (event.target.matches("form[data-leaves]")) source.close();
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
