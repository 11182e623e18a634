// The player's electronic Pai Gow table (/play/, rounds/templates/rounds/play/game.html),
// with the controls the German seed's "Spielkontrollen" name: chips, the bet circle, Deal,
// Clear, Re-Bet, House Way, Done and New Game. Every step is the player's own API
// (/api/v1/me/...), sent with the session and the page's CSRF token; the screen shows what
// it answers, a refusal in the API's own words. Chips on the circle are the screen's until
// Deal sends their sum as the wager. The content-security policy allows no inline script.
(function () {
  "use strict";
  var root = document.getElementById("game");
  if (!root) return;

  var API = "/api/v1/me";
  var SUITS = {S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663"};
  var SUIT_NAMES = {S: "spades", H: "hearts", D: "diamonds", C: "clubs"};
  var RANK_NAMES = {A: "ace", K: "king", Q: "queen", J: "jack", T: "ten", "9": "nine",
                    "8": "eight", "7": "seven", "6": "six", "5": "five", "4": "four",
                    "3": "three", "2": "two"};

  var S = {
    tables: [], table: null, game: null,
    currency: root.dataset.currency,
    available: parseInt(root.dataset.available, 10) || 0,  // from the last answer, minor units
    picked: null,          // the chip the pointer carries (minor units)
    circle: [],            // chips on the bet circle before Deal, in the order placed
    lastChips: null,       // the last hand's chips, for Re-Bet
    high: [], low: [],     // the player's cards while setting the hand
    busy: false
  };

  function $(id) { return document.getElementById(id); }
  var el = {
    felt: $("felt"), rack: $("rack"), circle: $("bet-circle"), stack: $("chip-stack"),
    amount: $("bet-amount"), message: $("message"), balance: $("balance"),
    onCircle: $("on-circle"), deal: $("deal"), clear: $("clear"), rebet: $("rebet"),
    set: $("set"), newGame: $("new-game"), dealerCards: $("dealer-cards"),
    dealerHand: $("dealer-hand"), highZone: $("high-zone"), lowZone: $("low-zone"),
    cardsHint: $("cards-hint"), tableName: $("table-name"), tablePick: $("table-pick"),
    limits: $("limits"), commitment: $("commitment"), clientSeed: $("client-seed"),
    revealed: $("revealed"), serverSeed: $("server-seed"), usedSeed: $("used-client-seed"),
    roundId: $("round-id"), check: $("check"), checkResult: $("check-result"),
    cursor: $("chip-cursor")
  };

  // --- Money: integer minor units inside, "10.00" at the API, "10.00 EUR" on the screen ---
  function toMinor(text) {
    var m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(String(text));
    if (!m) return 0;
    var minor = parseInt(m[2], 10) * 100 + parseInt(((m[3] || "") + "00").slice(0, 2), 10);
    return m[1] ? -minor : minor;
  }
  function decimal(minor) {
    var sign = minor < 0 ? "-" : "";
    minor = Math.abs(minor);
    return sign + Math.floor(minor / 100) + "." + String(minor % 100).padStart(2, "0");
  }
  // As the console writes money (settings.CASINO_LOCALE, the page's data-*-sep).
  var DECIMAL_SEP = root.dataset.decimalSep || ".";
  var GROUP_SEP = root.dataset.groupSep === undefined ? "," : root.dataset.groupSep;
  function money(minor, currency) {
    var parts = decimal(minor).split(".");
    parts[0] = parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, GROUP_SEP);
    return parts.join(DECIMAL_SEP) + " " + (currency || S.currency);
  }
  function chipLabel(minor) { return minor % 100 ? decimal(minor).replace(".", DECIMAL_SEP) : String(minor / 100); }
  function sum(list) { return list.reduce(function (a, b) { return a + b; }, 0); }

  // --- The API -------------------------------------------------------------------------
  function call(method, path, body) {
    var options = {method: method, credentials: "same-origin",
                   headers: {"Accept": "application/json"}};
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.headers["X-CSRFToken"] = root.dataset.csrf;
      options.body = JSON.stringify(body);
    }
    return fetch(API + path, options).then(function (response) {
      return response.text().then(function (text) {
        var data = null;
        try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
        if (response.ok) return data;
        var error = (data && data.error) || {};
        var failure = new Error(error.message ||
          "The table did not answer as it should (" + response.status + "). Please try again.");
        failure.code = error.code || "http_" + response.status;
        failure.detail = error.detail || {};
        failure.status = response.status;
        throw failure;
      });
    }, function () {
      var failure = new Error("The table cannot be reached. Check your connection and try again.");
      failure.code = "network";
      throw failure;
    });
  }

  function say(text, kind) {
    el.message.textContent = text || "";
    el.message.className = "message" + (kind ? " " + kind : "");
    el.message.setAttribute("role", kind === "refused" ? "alert" : "status");
  }
  // A refusal in the API's words; a card it names ("QH") is shown as the table shows cards
  // (Q♥, hearts and diamonds red).
  function refused(error) {
    var text = error.message || "";
    say("", "refused");
    text = text.charAt(0).toUpperCase() + text.slice(1);
    var at = 0;
    text.replace(/\b(?:[2-9TJQKA][SHDC]|JK)\b/g, function (code, index) {
      el.message.appendChild(document.createTextNode(text.slice(at, index)));
      var suit = code.slice(-1);
      var span = document.createElement("span");
      span.className = "card-" + (suit === "H" || suit === "D" ? "red" : "black");
      span.textContent = cardText(code);
      el.message.appendChild(span);
      at = index + code.length;
      return code;
    });
    el.message.appendChild(document.createTextNode(text.slice(at)));
  }

  // --- Cards: "AS" -> A♠ (hearts and diamonds red), as the console's |cards filter ------
  function cardText(code) { return code === "JK" ? "JK\u2605" : code.slice(0, -1) + SUITS[code.slice(-1)]; }
  function cardWords(code) {
    if (code === "JK") return "joker";
    return RANK_NAMES[code.slice(0, -1)] + " of " + SUIT_NAMES[code.slice(-1)];
  }
  function cardFace(code, tag) {
    var card = document.createElement(tag || "span");
    var suit = code.slice(-1);
    card.className = "pcard card-" + (suit === "H" || suit === "D" ? "red" : "black");
    card.dataset.card = code;
    var rank = document.createElement("span");
    rank.className = "rank";
    rank.textContent = code === "JK" ? "JK" : code.slice(0, -1);
    var pip = document.createElement("span");
    pip.className = "pip";
    pip.textContent = code === "JK" ? "\u2605" : SUITS[suit];
    card.appendChild(rank);
    card.appendChild(pip);
    card.title = cardText(code);
    return card;
  }
  // The seven cards laid out as a player sorts them: the joker, then aces down to twos.
  var RANK_ORDER = "JKAKQJT98765432";
  function byRank(codes) {
    function rank(code) { return code === "JK" ? 0 : RANK_ORDER.indexOf(code.slice(0, -1), 2); }
    return codes.slice().sort(function (a, b) { return rank(a) - rank(b) || (a < b ? -1 : 1); });
  }
  function cardBack() {
    var card = document.createElement("span");
    card.className = "pcard back";
    card.setAttribute("aria-hidden", "true");
    return card;
  }
  function fill(container, nodes) {
    container.textContent = "";
    nodes.forEach(function (n) { container.appendChild(n); });
  }

  // --- Drawing the table from the state --------------------------------------------------
  function state() { return S.game ? S.game.state : "none"; }
  function limits() {
    var t = S.table;
    return t ? {min: toMinor(t.min_bet), max: toMinor(t.max_bet)} : {min: 0, max: 0};
  }

  function drawRack() {
    var chips = S.table ? S.table.chips.map(toMinor) : [];
    if (S.picked === null || chips.indexOf(S.picked) < 0) S.picked = chips.length ? chips[0] : null;
    fill(el.rack, chips.map(function (value) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "chip chip-" + chipLabel(value).replace(".", "_");
      b.dataset.chip = String(value);
      b.setAttribute("data-testid", "chip-" + chipLabel(value));
      b.setAttribute("aria-label", "Chip of " + money(value) + (value === S.picked ? ", picked" : ""));
      b.setAttribute("aria-pressed", value === S.picked ? "true" : "false");
      var face = document.createElement("span");
      face.className = "chip-face";
      face.textContent = chipLabel(value);
      b.appendChild(face);
      return b;
    }));
    drawCursor();
  }

  function chipNode(value, at) {
    var c = document.createElement("span");
    c.className = "chip mini chip-" + chipLabel(value).replace(".", "_");
    c.dataset.index = String(at);
    var face = document.createElement("span");
    face.className = "chip-face";
    face.textContent = chipLabel(value);
    c.appendChild(face);
    return c;
  }

  function drawCircle() {
    var st = state();
    var onCircle = st === "betting" ? sum(S.circle) : (S.game && S.game.amount ? toMinor(S.game.amount) : 0);
    var chips = st === "betting" ? S.circle : (S.game && S.game.amount ? S.circleShown || [] : []);
    // Only the top few chips are drawn, stacked; the amount says the whole.
    var shown = chips.slice(-8);
    fill(el.stack, shown.map(function (v, i) { return chipNode(v, i); }));
    el.amount.textContent = onCircle ? money(onCircle) : "";
    el.circle.setAttribute("aria-label", onCircle ? "Bet circle: " + money(onCircle)
      : "Bet circle: empty");
    el.circle.classList.toggle("filled", onCircle > 0);
    var betting = st === "betting";
    el.circle.setAttribute("aria-disabled", betting ? "false" : "true");
    el.circle.classList.toggle("locked", !betting);
  }

  function drawAccount() {
    var onCircle = state() === "betting" ? sum(S.circle) : 0;
    el.balance.textContent = money(S.available - onCircle);
    // The frame's own figure of the account (play/base.html's header), kept with this one.
    document.querySelectorAll("[data-figure=play-available]").forEach(function (figure) {
      figure.textContent = money(S.available - onCircle);
    });
    var wager = S.game && S.game.amount && state() === "dealt" ? toMinor(S.game.amount) : 0;
    el.onCircle.textContent = onCircle ? "+ " + money(onCircle) + " on the circle"
      : wager ? "+ " + money(wager) + " in play" : "";
  }

  function cardButton(code, zone) {
    var b = cardFace(code, "button");
    b.type = "button";
    b.setAttribute("aria-label", cardText(code) + ", " + cardWords(code) + ": " +
      (zone === "low" ? "in 2nd Highest; press to move back to Highest"
                      : "in Highest; press to move to 2nd Highest"));
    b.dataset.zone = zone;
    return b;
  }

  function drawHands() {
    var st = state();
    var g = S.game;
    var highRow = el.highZone.querySelector("[data-cards]");
    var lowRow = el.lowZone.querySelector("[data-cards]");
    var result = g && g.result;
    el.highZone.classList.remove("win", "loss", "push");
    el.lowZone.classList.remove("win", "loss", "push");
    // Each hand's own result beside its name once settled: Win, Loss or Push.
    [["high", el.highZone], ["low", el.lowZone]].forEach(function (pair) {
      var r = st === "settled" && result ? result[pair[0]] : "";
      pair[1].querySelector("[data-result]").textContent = r ? r.charAt(0).toUpperCase() + r.slice(1) : "";
    });
    if (st === "dealt") {
      fill(highRow, S.high.map(function (c) { return cardButton(c, "high"); }));
      var low = S.low.map(function (c) { return cardButton(c, "low"); });
      for (var i = S.low.length; i < 2; i++) {
        var slot = document.createElement("span");
        slot.className = "pcard slot";
        slot.setAttribute("aria-hidden", "true");
        low.push(slot);
      }
      fill(lowRow, low);
      fill(el.dealerCards, [0, 1, 2, 3, 4, 5, 6].map(cardBack));
      el.dealerCards.hidden = false;
      el.dealerHand.hidden = true;
      el.cardsHint.hidden = false;
    } else if ((st === "settled") && g.hand) {
      fill(highRow, g.hand.high.map(function (c) { return cardFace(c); }));
      fill(lowRow, g.hand.low.map(function (c) { return cardFace(c); }));
      if (g.dealer) {
        fill(el.dealerHand.querySelector("[data-dealer=high]"), g.dealer.high.map(function (c) { return cardFace(c); }));
        fill(el.dealerHand.querySelector("[data-dealer=low]"), g.dealer.low.map(function (c) { return cardFace(c); }));
        el.dealerHand.hidden = false;
        el.dealerCards.hidden = true;
      }
      if (result) {
        if (result.high) el.highZone.classList.add(result.high);
        if (result.low) el.lowZone.classList.add(result.low);
      }
      el.cardsHint.hidden = true;
    } else {
      fill(highRow, []);
      fill(lowRow, []);
      fill(el.dealerCards, []);
      el.dealerHand.hidden = true;
      el.dealerCards.hidden = false;
      el.cardsHint.hidden = true;
    }
  }

  function drawControls() {
    var st = state();
    var betting = st === "betting";
    var lim = limits();
    var onCircle = sum(S.circle);
    el.rack.querySelectorAll("button").forEach(function (b) { b.disabled = !betting || S.busy; });
    el.clear.hidden = !betting;
    el.clear.disabled = S.busy || !S.circle.length;
    el.rebet.hidden = !betting;
    el.rebet.disabled = S.busy || !S.lastChips || !S.lastChips.length;
    el.deal.hidden = !betting;
    el.deal.disabled = S.busy || onCircle < lim.min || onCircle > lim.max || onCircle === 0;
    el.set.hidden = st !== "dealt";
    el.set.disabled = S.busy;
    // House Way turns into Done once two cards are in 2nd Highest (and back).
    var done = S.low.length === 2;
    el.set.textContent = done ? "Done" : "House Way";
    el.set.dataset.action = done ? "done" : "house_way";
    el.newGame.hidden = !(st === "settled" || st === "voided");
    el.newGame.disabled = S.busy;
    el.clientSeed.disabled = !betting || S.busy;
    root.dataset.state = st;
    root.setAttribute("aria-busy", S.busy ? "true" : "false");
  }

  function drawFairness() {
    var g = S.game;
    var f = g && g.fairness;
    el.commitment.textContent = f ? f.commitment : "…";
    // The seed the deal took, also after a reload; a new game's field is the player's again.
    if (f && state() !== "betting") el.clientSeed.value = f.client_seed || "";
    var shown = !!(f && f.server_seed);
    el.revealed.hidden = !shown;
    if (shown) {
      el.serverSeed.textContent = f.server_seed;
      el.usedSeed.textContent = f.client_seed === "" ? "(none)" : f.client_seed;
      el.roundId.textContent = String(f.round_id);
    } else {
      el.checkResult.textContent = "";
      el.checkResult.className = "check-result";
    }
  }

  function drawTable() {
    var t = S.table;
    el.tableName.textContent = t ? t.name : "No table is open";
    el.limits.textContent = t ? "Bets " + money(toMinor(t.min_bet), t.currency) + " to " +
      money(toMinor(t.max_bet), t.currency) : "";
    el.tablePick.hidden = S.tables.length < 2;
  }

  function draw() {
    drawTable();
    drawCircle();
    drawAccount();
    drawHands();
    drawControls();
    drawFairness();
  }

  // --- A game's answer --------------------------------------------------------------------
  function take(game) {
    var before = S.game;
    S.game = game;
    if (game.balance) {
      S.available = toMinor(game.balance.available);
      if (game.balance.currency) S.currency = game.balance.currency;
    }
    if (game.currency) S.currency = game.currency;
    if (game.table && (!S.table || S.table.id !== game.table.id)) {
      var known = S.tables.filter(function (t) { return t.id === game.table.id; })[0];
      if (known) { S.table = known; el.tablePick.value = String(known.id); drawRack(); }
    }
    if (game.state === "dealt" && (!before || before.id !== game.id || before.state !== "dealt")) {
      S.high = byRank(game.cards || []);
      S.low = [];
    }
    if (game.state !== "dealt") { S.high = []; S.low = []; }
    if (game.state !== "betting" && game.amount && (!S.circleShown || !before || before.id !== game.id)) {
      S.circleShown = S.circle.length && sum(S.circle) === toMinor(game.amount) ? S.circle.slice()
        : chipsFor(toMinor(game.amount));
    }
    draw();
  }

  // The chips a wager is made of when the screen did not place them itself (a game resumed
  // after a reload): the largest chips first.
  function chipsFor(amount) {
    var chips = (S.table ? S.table.chips.map(toMinor) : []).sort(function (a, b) { return b - a; });
    var out = [];
    chips.forEach(function (c) { while (amount >= c) { out.push(c); amount -= c; } });
    return out;
  }

  function outcomeWords(game) {
    var r = game.result || {};
    var amount = game.amount ? toMinor(game.amount) : 0;
    if (game.state === "voided") return "This game was voided: your wager is back on your game account.";
    if (game.outcome === "win") {
      var net = r.net !== undefined && r.net !== null ? toMinor(r.net) : amount;
      var commission = r.commission ? toMinor(r.commission) : 0;
      return "You win " + money(net) + " (commission " + money(commission) + ").";
    }
    if (game.outcome === "push") return "Push: your " + money(amount) + " back.";
    if (game.outcome === "loss") return "The dealer wins " + money(amount) + ".";
    return "";
  }

  // --- Steps ----------------------------------------------------------------------------
  function busy(promise) {
    S.busy = true;
    drawControls();
    return promise.then(function (v) { S.busy = false; drawControls(); return v; },
      function (e) { S.busy = false; drawControls(); throw e; });
  }

  function openGame() {
    if (!S.table) { draw(); return Promise.resolve(); }
    return busy(call("POST", "/games", {table: S.table.id})).then(function (game) {
      S.circleShown = null;
      take(game);
      if (game.state === "dealt") say("Your game was dealt already: set your hand.");
      else say("Place your bet: pick a chip, then click the circle.");
    }, function (error) {
      if (error.code === "game_unfinished" && error.detail && error.detail.game) {
        var id = typeof error.detail.game === "object" ? error.detail.game.id : error.detail.game;
        return call("GET", "/games/" + id).then(function (game) {
          take(game);
          say(error.message + (game.state === "dealt" ? " It is shown here: set your hand to finish it."
                                                     : " It is shown here."), "refused");
        }, refused);
      }
      refused(error);
    });
  }

  function place(value) {
    if (state() !== "betting" || S.busy) return;
    var lim = limits();
    var total = sum(S.circle) + value;
    if (total > lim.max) {
      say("The table's maximum bet is " + money(lim.max) + ": another " + money(value) +
          " would make " + money(total) + ".", "refused");
      return;
    }
    if (total > S.available) {
      say("Your game account has " + money(S.available - sum(S.circle)) + " left beside the circle: " +
          "not enough for a " + money(value) + " chip.", "refused");
      return;
    }
    S.circle.push(value);
    say(total < lim.min ? "The table's minimum bet is " + money(lim.min) + "." : "");
    draw();
  }

  function takeBack() {
    if (state() !== "betting" || S.busy || !S.circle.length) return;
    S.circle.pop();
    say("");
    draw();
  }

  function pick(value) {
    S.picked = value;
    el.rack.querySelectorAll("button[data-chip]").forEach(function (b) {
      var on = Number(b.dataset.chip) === value;
      b.setAttribute("aria-pressed", on ? "true" : "false");
      b.setAttribute("aria-label", "Chip of " + money(Number(b.dataset.chip)) + (on ? ", picked" : ""));
    });
    drawCursor();
  }

  function deal() {
    var amount = sum(S.circle);
    var chips = S.circle.slice();
    busy(call("POST", "/games/" + S.game.id + "/deal",
              {amount: decimal(amount), client_seed: el.clientSeed.value})).then(function (game) {
      S.lastChips = chips;
      S.circleShown = chips;
      S.circle = [];
      take(game);
      say("Drag two cards into 2nd Highest and press Done, or press House Way.");
      var first = el.highZone.querySelector("button.pcard");
      if (first) first.focus({preventScroll: true});
    }, refused);
  }

  function finish(houseWay) {
    var body = houseWay ? {house_way: true} : {high: S.high.slice(), low: S.low.slice()};
    busy(call("POST", "/games/" + S.game.id + "/done", body)).then(function (game) {
      take(game);
      say(outcomeWords(game), game.outcome === "win" ? "won" : game.outcome === "loss" ? "lost" : "");
      el.newGame.focus({preventScroll: true});
    }, function (error) {
      // A foul (the 2nd Highest above the Highest) is refused in the API's words and the
      // hand stays as it is, to fix.
      refused(error);
      if (error.status === 409 || error.status === 404) refresh();
    });
  }

  function refresh() {
    if (!S.game) return;
    call("GET", "/games/" + S.game.id).then(take, function () {});
  }

  function newGame() {
    S.circle = [];
    S.circleShown = null;
    S.high = []; S.low = [];
    el.checkResult.textContent = "";
    openGame();
  }

  function rebet() {
    if (!S.lastChips || state() !== "betting") return;
    var lim = limits();
    var total = sum(S.lastChips);
    if (total > lim.max) { say("Your last bet, " + money(total) + ", is above this table's maximum of " + money(lim.max) + ".", "refused"); return; }
    if (total > S.available) { say("Your game account has " + money(S.available) + ": not enough to bet " + money(total) + " again.", "refused"); return; }
    S.circle = S.lastChips.slice();
    say("");
    draw();
  }

  function clearCircle() {
    if (state() !== "betting") return;
    var back = sum(S.circle);
    S.circle = [];
    say(back ? money(back) + " back on your game account." : "");
    draw();
  }

  // Move a card between Highest and 2nd Highest (a drop, a click, Enter or Space).
  function move(code, to) {
    if (state() !== "dealt" || S.busy) return false;
    var from = S.low.indexOf(code) >= 0 ? "low" : "high";
    if (to === undefined) to = from === "low" ? "high" : "low";
    if (from === to) return false;
    if (to === "low" && S.low.length >= 2) {
      say("2nd Highest holds two cards: move one back first.", "refused");
      return false;
    }
    var src = from === "low" ? S.low : S.high;
    src.splice(src.indexOf(code), 1);
    (to === "low" ? S.low : S.high).push(code);
    say(S.low.length === 2 ? "Press Done when your hands are set." : "");
    drawHands();
    drawControls();
    var moved = document.querySelector("#" + (to === "low" ? "low-zone" : "high-zone") +
                                       " button[data-card='" + code + "']");
    if (moved) moved.focus({preventScroll: true});
    return true;
  }

  // --- Pointer: chips, the circle, dragging cards -----------------------------------------
  el.rack.addEventListener("click", function (event) {
    var b = event.target.closest("button[data-chip]");
    if (b && !b.disabled) pick(Number(b.dataset.chip));
  });
  el.rack.addEventListener("dblclick", function (event) {
    var b = event.target.closest("button[data-chip]");
    if (b && !b.disabled) { pick(Number(b.dataset.chip)); place(Number(b.dataset.chip)); }
  });
  el.circle.addEventListener("click", function () {
    if (S.picked !== null) place(S.picked);
  });
  el.circle.addEventListener("contextmenu", function (event) {
    event.preventDefault();
    takeBack();
  });
  el.circle.addEventListener("keydown", function (event) {
    if (event.key === "Delete" || event.key === "Backspace") { event.preventDefault(); takeBack(); }
  });

  function drawCursor() {
    var on = S.picked !== null && state() === "betting";
    el.cursor.textContent = S.picked !== null ? chipLabel(S.picked) : "";
    el.cursor.className = "chip-cursor chip" + (S.picked !== null ? " chip-" + chipLabel(S.picked).replace(".", "_") : "");
    el.felt.classList.toggle("carrying", on);
    if (!on) el.cursor.hidden = true;
  }
  // The symbol beside the pointer shows the picked chip's value while it is over the felt.
  document.addEventListener("pointermove", function (event) {
    if (event.pointerType !== "mouse") return;
    // Not over another button (a chip, Deal): the symbol would hide its label.
    var button = event.target.closest && event.target.closest("button");
    var over = el.felt.contains(event.target) && S.picked !== null && state() === "betting" &&
      (!button || button === el.circle);
    el.cursor.hidden = !over;
    if (over) el.cursor.style.transform = "translate(" + (event.clientX + 14) + "px," + (event.clientY + 14) + "px)";
  });

  var drag = null;
  var suppressClick = false;
  document.addEventListener("pointerdown", function (event) {
    var card = event.target.closest && event.target.closest("#felt button.pcard");
    if (!card || event.button !== 0 || state() !== "dealt") return;
    drag = {card: card, code: card.dataset.card, x: event.clientX, y: event.clientY, ghost: null,
            id: event.pointerId};
  });
  function zoneAt(x, y) {
    var hit = document.elementFromPoint(x, y);
    var zone = hit && hit.closest && hit.closest(".hand-zone");
    return zone ? zone.dataset.zone : null;
  }
  document.addEventListener("pointermove", function (event) {
    if (!drag || event.pointerId !== drag.id) return;
    var dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (!drag.ghost && Math.abs(dx) + Math.abs(dy) < 6) return;
    if (!drag.ghost) {
      drag.ghost = cardFace(drag.code);
      drag.ghost.classList.add("ghost");
      root.appendChild(drag.ghost);  // inside #game, where the table's styles apply
      drag.card.classList.add("dragging");
      var r = drag.card.getBoundingClientRect();
      drag.ox = drag.x - r.left; drag.oy = drag.y - r.top;
    }
    event.preventDefault();
    drag.ghost.style.transform = "translate(" + (event.clientX - drag.ox) + "px," + (event.clientY - drag.oy) + "px)";
    var zone = zoneAt(event.clientX, event.clientY);
    el.highZone.classList.toggle("drop-target", zone === "high");
    el.lowZone.classList.toggle("drop-target", zone === "low");
  });
  function endDrag(event, cancelled) {
    if (!drag || event.pointerId !== drag.id) return;
    var d = drag;
    drag = null;
    el.highZone.classList.remove("drop-target");
    el.lowZone.classList.remove("drop-target");
    if (!d.ghost) return;  // no movement: a click, handled as one
    d.ghost.remove();
    d.card.classList.remove("dragging");
    suppressClick = true;
    setTimeout(function () { suppressClick = false; }, 0);
    if (cancelled) return;
    var zone = zoneAt(event.clientX, event.clientY);
    if (zone && zone !== d.card.dataset.zone) move(d.code, zone);
  }
  document.addEventListener("pointerup", function (event) { endDrag(event, false); });
  document.addEventListener("pointercancel", function (event) { endDrag(event, true); });
  // A click, Enter or Space on a card moves it to the other hand: the keyboard's way.
  el.felt.addEventListener("click", function (event) {
    var card = event.target.closest("button.pcard");
    if (!card) return;
    if (suppressClick) { suppressClick = false; return; }
    move(card.dataset.card);
  });

  el.deal.addEventListener("click", function () { if (!el.deal.disabled) deal(); });
  el.set.addEventListener("click", function () { finish(el.set.dataset.action !== "done"); });
  el.newGame.addEventListener("click", newGame);
  el.rebet.addEventListener("click", rebet);
  el.clear.addEventListener("click", clearCircle);
  el.tablePick.addEventListener("change", function () {
    var id = Number(el.tablePick.value);
    S.table = S.tables.filter(function (t) { return t.id === id; })[0] || null;
    S.circle = [];
    drawRack();
    openGame();
  });

  // --- Checking the deal (docs/fairness.md, algorithm v1) ---------------------------------
  var DECK = [];
  "23456789TJQKA".split("").forEach(function (r) { "SHDC".split("").forEach(function (s) { DECK.push(r + s); }); });
  DECK.push("JK");
  var POSITIONS = ["dealer", "1", "2", "3", "4", "5", "6"];
  var PLAYER_SEAT = "1";  // a self-service game's player sits at seat 1 (rounds.models.GAME_SEAT)

  function hexBytes(hex) {
    var out = new Uint8Array(hex.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
    return out;
  }
  function bytesHex(buffer) {
    return Array.prototype.map.call(new Uint8Array(buffer), function (b) {
      return b.toString(16).padStart(2, "0");
    }).join("");
  }
  function sha256Hex(hex) {
    return crypto.subtle.digest("SHA-256", hexBytes(hex)).then(bytesHex);
  }
  // The deck and dice of a deal: Fisher-Yates from the last position down with integers read
  // from HMAC-SHA256(server_seed, "{client_seed}:{round_id}:{i}") blocks, 4 bytes big-endian,
  // those at or above the largest multiple of n skipped; then three dice.
  function fairDeal(serverSeedHex, clientSeed, roundId) {
    var enc = new TextEncoder();
    return crypto.subtle.importKey("raw", hexBytes(serverSeedHex), {name: "HMAC", hash: "SHA-256"},
                                   false, ["sign"]).then(function (key) {
      var ints = [];
      var block = 0;
      function more() {
        return crypto.subtle.sign("HMAC", key, enc.encode(clientSeed + ":" + roundId + ":" + block))
          .then(function (sig) {
            block += 1;
            var view = new DataView(sig);
            for (var at = 0; at < 32; at += 4) ints.push(view.getUint32(at, false));
          });
      }
      // 52 swaps and three dice, a few more for the rare skipped integer.
      var pending = [];
      for (var b = 0; b < 9; b++) pending.push(b);
      return pending.reduce(function (p) { return p.then(more); }, Promise.resolve()).then(function () {
        var at = 0;
        function below(n) {
          var limit = 4294967296 - (4294967296 % n);
          while (at < ints.length) { var u = ints[at++]; if (u < limit) return u % n; }
          return null;
        }
        function run() {
          at = 0;
          var deck = DECK.slice();
          for (var i = 52; i >= 1; i--) {
            var j = below(i + 1);
            if (j === null) return null;
            var t = deck[i]; deck[i] = deck[j]; deck[j] = t;
          }
          var dice = [below(6), below(6), below(6)];
          if (dice.indexOf(null) >= 0) return null;
          return {deck: deck, dice: dice.map(function (d) { return d + 1; })};
        }
        function attempt() {
          var out = run();
          return out ? out : more().then(attempt);
        }
        return attempt();
      });
    });
  }
  // Which position receives which stack (docs/rules.md §8): count the dice's total from the
  // banker's position as 1; with "after_counted" the next position gets the first stack.
  function dealOrder(total, firstStack) {
    var counted = (total - 1) % POSITIONS.length;  // the house banks: the dealer is 1
    var start = firstStack === "counted" ? counted : counted + 1;
    return POSITIONS.map(function (_, i) { return POSITIONS[(start + i) % POSITIONS.length]; });
  }
  function sameCards(a, b) { return a.slice().sort().join(" ") === b.slice().sort().join(" "); }

  function checkDeal() {
    var g = S.game;
    var f = g && g.fairness;
    if (!f || !f.server_seed) return;
    el.checkResult.textContent = "Checking…";
    el.checkResult.className = "check-result";
    if (!(window.crypto && crypto.subtle)) {
      el.checkResult.textContent = "This browser cannot compute the check (no Web Crypto on this connection).";
      return;
    }
    sha256Hex(f.server_seed).then(function (digest) {
      return fairDeal(f.server_seed, f.client_seed || "", f.round_id).then(function (deal) {
        var stacks = [0, 1, 2, 3, 4, 5, 6].map(function (s) { return deal.deck.slice(s * 7, s * 7 + 7); });
        var mine = g.cards || (g.hand ? g.hand.high.concat(g.hand.low) : []);
        var dealer = g.dealer ? g.dealer.high.concat(g.dealer.low) : null;
        var total = deal.dice[0] + deal.dice[1] + deal.dice[2];
        // The player plays seat 1 against the dealer; the table's rule says whether the counted
        // position gets the first stack or the last (docs/rules.md §8): the one that deals
        // the player these seven cards is the one used.
        var rule = ["after_counted", "counted"].filter(function (r) {
          var order = dealOrder(total, r);
          return sameCards(stacks[order.indexOf(PLAYER_SEAT)], mine);
        })[0];
        var words = [];
        var ok = digest === f.commitment;
        words.push(ok ? "The seed's sha256 is the commitment shown before your bet."
                      : "The seed's sha256 is NOT the commitment shown before your bet.");
        if (rule) {
          var order = dealOrder(total, rule);
          words.push("Your seven cards match the deal recomputed from the seeds (dice " +
                     deal.dice.join(" + ") + " = " + total + ", stack " +
                     (order.indexOf(PLAYER_SEAT) + 1) + " of 7 to your seat).");
          if (dealer) {
            if (sameCards(stacks[order.indexOf("dealer")], dealer)) words.push("So do the dealer's.");
            else { ok = false; words.push("The dealer's seven cards do NOT match the recomputed deal."); }
          }
        } else {
          ok = false;
          words.push("Your seven cards do NOT match the deal recomputed from the seeds.");
        }
        el.checkResult.textContent = (ok ? "\u2713 " : "\u2717 ") + words.join(" ");
        el.checkResult.className = "check-result " + (ok ? "ok" : "bad");
      });
    }).catch(function (error) {
      el.checkResult.textContent = "The check could not be computed: " + error.message;
      el.checkResult.className = "check-result bad";
    });
  }
  el.check.addEventListener("click", checkDeal);
  window.playFairness = {deal: fairDeal, sha256Hex: sha256Hex, dealOrder: dealOrder};

  // --- Start: the open tables, a game dealt already, the last wager ----------------------
  // (The reminder of time played is the players' pages' frame's: play/base.html.)
  function start() {
    say("Opening the table…");
    Promise.all([call("GET", "/tables"), call("GET", "/games").catch(function () { return null; })])
      .then(function (answers) {
        S.tables = answers[0] || [];
        fill(el.tablePick, S.tables.map(function (t) {
          var o = document.createElement("option");
          o.value = String(t.id);
          o.textContent = t.name + " (" + t.currency + ")";
          return o;
        }));
        var games = (answers[1] && answers[1].results) || [];
        var last = games.filter(function (g) { return g.amount && g.state === "settled"; })[0];
        var wanted = Number(new URLSearchParams(location.search).get("table")) ||
          (games[0] && games[0].table && games[0].table.id);
        S.table = S.tables.filter(function (t) { return t.id === wanted; })[0] || S.tables[0] || null;
        if (S.table) el.tablePick.value = String(S.table.id);
        drawRack();
        if (last) S.lastChips = chipsFor(toMinor(last.amount));
        var dealt = games.filter(function (g) { return g.state === "dealt"; })[0];
        if (dealt) {
          take(dealt);
          say("Your game was dealt already: set your hand.");
          return;
        }
        if (!S.table) { draw(); say("No table is open for you right now.", "refused"); return; }
        return openGame();
      }, function (error) { draw(); refused(error); });
  }
  start();
})();
