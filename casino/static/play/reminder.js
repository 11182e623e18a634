// The reminder of time played (responsible gambling's "reality check"): every
// data-reminder-minutes of a player's sign-in, counted from data-session-started (the
// server's, casino.player_logins.session_started_at), a notice says how long they have
// played. From a file of our own: the Content-Security-Policy allows no inline script.
(function () {
  var body = document.body;
  var started = Date.parse(body.getAttribute("data-session-started") || "");
  var every = parseInt(body.getAttribute("data-reminder-minutes") || "", 10);
  var box = document.getElementById("play-reminder");
  if (isNaN(started) || !every || !box) return;
  var stepMs = every * 60 * 1000;

  function said(minutes) {
    var h = Math.floor(minutes / 60), m = minutes % 60;
    var parts = [];
    if (h) parts.push(h + (h === 1 ? " hour" : " hours"));
    if (m) parts.push(m + (m === 1 ? " minute" : " minutes"));
    return parts.join(" and ");
  }
  function show() {
    var minutes = Math.round((Date.now() - started) / 60000 / every) * every;
    box.querySelector("[data-reminder-text]").textContent =
      "You have been playing for " + said(minutes) + ". Time for a break?";
    box.hidden = false;
    box.querySelector("[data-reminder-close]").focus();
  }
  function next() {
    var played = Date.now() - started;
    var wait = stepMs - (played % stepMs);
    window.setTimeout(function () { show(); next(); }, wait);
  }
  box.querySelector("[data-reminder-close]").addEventListener("click", function () {
    box.hidden = true;
  });
  next();
})();
