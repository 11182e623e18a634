// The card picker of a physical deal (rounds/templates/rounds/screens/_deal_picker.html).
// Every click is saved on the server; clicks are queued and sent in order, one after the
// other, so a click made while an earlier one is on its way is never lost. The page shows
// each queued pick at once (its card greyed out, the position's count, the next position
// when one is full) and how many are still being saved; when the queue is empty the
// server's picker replaces the page's copy. The content-security policy allows no inline
// script, hence this file; it may arrive again with a swapped screen, hence the guard.
(function () {
  if (window.dealPickerQueue) return;
  var queue = [];
  var sending = false;
  var refusals = [];
  window.dealPickerQueue = queue;

  function picker() { return document.getElementById("picker"); }

  function showPending() {
    var form = picker();
    if (!form) return;
    var n = queue.length + (sending ? 1 : 0);
    var note = form.querySelector("[data-testid=picker-pending]");
    if (note) note.textContent = n ? "Saving " + n + " pick" + (n === 1 ? "" : "s") + "…" : "";
    var deal = form.querySelector("[data-deal]");
    if (deal && n) deal.disabled = true;
  }

  function setActive(form, position) {
    form.dataset.active = position;
    form.querySelectorAll(".picker-hand").forEach(function (row) {
      var on = row.dataset.position === position;
      row.classList.toggle("active", on);
      var choose = row.querySelector("[data-choose]");
      if (choose) choose.setAttribute("aria-pressed", on ? "true" : "false");
      var named = form.querySelector("[data-testid=picker-active]");
      if (on && named && choose) named.textContent = choose.dataset.label;
    });
  }

  function nextFree(form) {
    var rows = form.querySelectorAll(".picker-hand");
    for (var i = 0; i < rows.length; i++) {
      if (Number(rows[i].dataset.count) < 7) return rows[i].dataset.position;
    }
    return "";
  }

  function send() {
    if (sending || !queue.length) return;
    var form = picker();
    if (!form) { queue.length = 0; return; }
    var item = queue.shift();
    sending = true;
    showPending();
    var body = new FormData();
    body.append("csrfmiddlewaretoken", form.querySelector("[name=csrfmiddlewaretoken]").value);
    Object.keys(item.fields).forEach(function (k) { body.append(k, item.fields[k]); });
    body.append("active", form.dataset.active || "");
    fetch(item.url, {method: "POST", body: body, credentials: "same-origin",
                     headers: {"HX-Request": "true"}})
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.text();
      })
      .then(function (html) {
        sending = false;
        var holder = document.createElement("div");
        holder.innerHTML = html;
        var refusal = holder.querySelector("[data-testid=picker-refusal]");
        if (refusal) refusals.push(refusal.textContent);
        if (!queue.length) swap(holder.querySelector("#picker"));
        showPending();
        send();
      })
      .catch(function () {
        // Not saved (the network, the server): try the same pick again, in its place.
        sending = false;
        queue.unshift(item);
        var note = picker() && picker().querySelector("[data-testid=picker-pending]");
        if (note) note.textContent = "Connection lost: retrying " + queue.length + " pick(s)…";
        setTimeout(send, 1000);
      });
  }

  function swap(fresh) {
    var form = picker();
    if (!form || !fresh) return;
    if (refusals.length) {
      var old = fresh.querySelector("[data-testid=picker-refusal]");
      if (old) old.remove();
      var p = document.createElement("p");
      p.className = "msg msg-error";
      p.setAttribute("role", "alert");
      p.dataset.testid = "picker-refusal";
      p.textContent = refusals.join(" ");
      fresh.insertBefore(p, fresh.querySelector(".picker-hands"));
      refusals = [];
    }
    // The server answered with the position sent with the last pick; a position chosen on
    // the page since (a click on its name while that pick was on its way) is the dealer's
    // latest choice, so it stays if the server's picker still has room in it.
    var chosen = form.dataset.active;
    form.replaceWith(fresh);
    var row = chosen && fresh.querySelector(".picker-hand[data-position='" + chosen + "']");
    if (row && Number(row.dataset.count) < 7 && fresh.dataset.active !== chosen) setActive(fresh, chosen);
    if (window.htmx) window.htmx.process(fresh);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("#picker button") : null;
    if (!button || button.disabled) return;
    var form = picker();
    if (button.dataset.choose !== undefined) {
      event.preventDefault();
      setActive(form, button.dataset.choose);
      return;
    }
    if (button.dataset.pick !== undefined) {
      event.preventDefault();
      var position = form.dataset.active;
      var row = form.querySelector(".picker-hand[data-position='" + position + "']");
      if (!row) return;
      // The page's copy, at once: the card is used, the position has one more.
      button.disabled = true;
      button.classList.add("pending");
      var count = Number(row.dataset.count) + 1;
      row.dataset.count = String(count);
      var shown = row.querySelector("[data-testid=count]");
      if (shown) shown.textContent = String(count);
      if (count >= 7) {
        var next = nextFree(form);
        setActive(form, next);
        if (!next) form.querySelectorAll("[data-pick]").forEach(function (b) { b.disabled = true; });
      }
      queue.push({url: form.action, fields: {pick: button.dataset.pick, position: position}});
    } else if (button.dataset.queue !== undefined) {
      event.preventDefault();
      var fields = {};
      if (button.name) fields[button.name] = button.value;
      button.disabled = true;
      queue.push({url: button.getAttribute("formaction"), fields: fields});
    } else {
      return;
    }
    showPending();
    send();
  });
})();
