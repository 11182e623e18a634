"""Dates and times in the admin as on the console and the receipts ("2026-12-01 09:35:44",
local time; casino.shared.templatetags.casino_time), not "Dec. 1, 2026, 9:35 a.m." Django reads
these through FORMAT_MODULE_PATH for the English locale the site runs in."""

DATE_FORMAT = "Y-m-d"
TIME_FORMAT = "H:i:s"
DATETIME_FORMAT = "Y-m-d H:i:s"
SHORT_DATE_FORMAT = "Y-m-d"
SHORT_DATETIME_FORMAT = "Y-m-d H:i"
