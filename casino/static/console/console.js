// The console's few behaviours, from a file of our own: the Content-Security-Policy allows
// no inline script.
(function () {
  // After htmx swaps a screen, the button pressed may be gone: put the keyboard's focus on
  // the message that says what happened (or the screen), never lose it to the page's top.
  document.addEventListener("htmx:afterSettle", function () {
    if (document.activeElement && document.activeElement !== document.body) return;
    var target = document.querySelector("#messages .messages") || document.getElementById("screen");
    if (target) { target.setAttribute("tabindex", "-1"); target.focus({preventScroll: true}); }
  });
  // Chips add up (issue 22): a chip click adds its value to the wager being built in the
  // seat's amount field, the rack stays, "Undo chip" takes the last one back, "Clear" empties
  // it; Bet sends the sum once. Chips are whole units, so the sum is integer arithmetic.
  function chipForm(el) { return el.closest ? el.closest("form[data-chips]") : null; }
  function chipShow(form, keepTyped) {
    var stack = form._chips || [];
    var sum = stack.reduce(function (a, b) { return a + b; }, 0);
    if (!keepTyped) form.querySelector("input[name=amount]").value = stack.length ? String(sum) : "";
    var out = form.querySelector("[data-chip-sum]");
    if (out) out.textContent = stack.length > 1 ? stack.join(" + ") + " = " + sum : "";
    form.querySelectorAll("[data-chip-undo], [data-chip-clear]").forEach(function (b) {
      b.hidden = false; b.disabled = !stack.length;
    });
  }
  function chipsReady(root) {
    (root || document).querySelectorAll("form[data-chips]").forEach(function (form) {
      if (form._chipsReady) return;
      form._chipsReady = true;
      // htmx runs this when a swapped screen settles (at once in the console, base.html's
      // htmx-config; later if that were changed): chips clicked or an amount typed before
      // it are the dealer's, so they stay.
      form._chips = form._chips || [];
      // With the script a chip only adds up, so Enter in the amount field presses Bet
      // (the form's first submit button), never the first chip.
      form.querySelectorAll("[data-chip]").forEach(function (b) { b.type = "button"; });
      chipShow(form, true);
    });
  }
  document.addEventListener("DOMContentLoaded", function () { chipsReady(); });
  document.addEventListener("htmx:load", function (event) { chipsReady(event.target); });
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-chip], [data-chip-undo], [data-chip-clear]") : null;
    var form = button && chipForm(button);
    if (!form) return;
    event.preventDefault();
    form._chips = form._chips || [];
    if (button.hasAttribute("data-chip")) form._chips.push(parseInt(button.getAttribute("data-chip"), 10));
    else if (button.hasAttribute("data-chip-undo")) form._chips.pop();
    else form._chips = [];
    chipShow(form);
  });
  // Enter in a seat's amount field is its Bet, whatever the form's state: the browser would
  // press the form's first submit button, a chip until this script has set the chips up (a
  // chip outside the table's limits is disabled, and Enter then does nothing at all). A
  // click, as a dealer's: htmx sends the button clicked last, and a disabled Bet does
  // nothing. Not the Enter that ends an input method's composition, nor one with a modifier.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || event.isComposing || event.keyCode === 229) return;
    if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
    var form = event.target.name === "amount" ? chipForm(event.target) : null;
    var bet = form && form.querySelector("[data-bet]");
    if (bet) { event.preventDefault(); bet.click(); }
  });
  // Typing an amount replaces the chips built so far (the typed amount is the wager).
  document.addEventListener("input", function (event) {
    var form = event.target.name === "amount" ? chipForm(event.target) : null;
    if (form) { form._chips = []; var out = form.querySelector("[data-chip-sum]"); if (out) out.textContent = ""; }
  });
  // The dealer's shortcuts (the legend on the table screen): H the House Way of the hand in
  // focus (else the next hand to set), S settle, N New Game. Never while typing, never with
  // a modifier; a key only presses a button the screen shows, which posts as a click does.
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var t = event.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    var key = (event.key || "").toLowerCase();
    if (!/^[hsn]$/.test(key) || !document.getElementById("screen")) return;
    var selector = "#screen [data-key=" + key + "]:not([disabled])";
    var hand = t && t.closest ? t.closest(".hand") : null;
    var button = (hand && hand.querySelector(selector.replace("#screen ", ""))) ||
      document.querySelector(selector + "[autofocus]") || document.querySelector(selector);
    if (button) { event.preventDefault(); button.click(); }
  });
  // Print buttons (receipts, statements).
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-print]") : null;
    if (button) { event.preventDefault(); window.print(); }
  });
})();
