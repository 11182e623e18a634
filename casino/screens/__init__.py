"""The console's screens that belong to the floor itself: the cage (players, deposits,
withdrawals, receipts, statements). Views parse a form, call one service or selector,
render; the figures come from casino.selectors and ledger.selectors."""
