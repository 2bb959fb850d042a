#!/usr/bin/env bash
# The demo. When a window can open here (DISPLAY or WAYLAND_DISPLAY set, and Qt starts on it), the
# GUI's teaching scenario: `batchlab gui --demo`. Otherwise one line saying why, then the headless
# demo: a replay of a real trace (KTH-SP2, 28,476 jobs on 100 processors) under EASY backfilling,
# with its summary. Uses ../shared/traces when present, else the excerpt shipped in resources/.
# `bash scripts/demo.sh --headless` always replays.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
trace=../shared/traces/KTH-SP2-1996-2.1-cln.swf
[ -f "$trace" ] || trace=resources/workloads/kth-sp2-first-2000.swf.gz
exec .venv/bin/batchlab demo --trace "$trace" --out out/demo "$@"
