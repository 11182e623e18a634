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
  // Print buttons (receipts, statements).
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-print]") : null;
    if (button) { event.preventDefault(); window.print(); }
  });
})();
