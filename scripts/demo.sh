#!/usr/bin/env bash
# The demo: replay a real trace (KTH-SP2, 28,476 jobs on 100 processors) under EASY backfilling
# and print the summary. Uses ../shared/traces when present, else the excerpt shipped in resources/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
trace=../shared/traces/KTH-SP2-1996-2.1-cln.swf
[ -f "$trace" ] || trace=resources/workloads/kth-sp2-first-2000.swf.gz
.venv/bin/batchlab replay "$trace" --scheduler easy --out out/demo "$@"
