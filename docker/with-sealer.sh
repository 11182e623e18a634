#!/bin/sh
# Runs a command (the development or production-like server) with the ledger's sealer
# beside it, as `make run` and `make serve` do: without Celery beat nothing else seals the
# ledger's entries into blocks (with it, two sealers take turns). The sealer stops with it.
python="$1"; shift
"$python" manage.py ledger_seal --every "${LEDGER_SEAL_EVERY_SECONDS:-10}" &
sealer=$!
trap 'kill "$sealer" 2>/dev/null' EXIT INT TERM
"$@"
