#!/bin/sh
# Draughts perft from the start, the referee and pydraughts in one run (BENCHMARKS.md).
# pydraughts manages about a thousand nodes a second, so it is compared at depth 5 (27,117
# nodes); the referee also runs depth 8 (6,483,961 nodes). Usage, from the repository:
#   python3 -m venv .venv && .venv/bin/pip install pydraughts
#   VENV=.venv sh tests/tools/draughts-perft-side-by-side.sh [PYDEPTH]
set -e
: "${VENV:?set VENV to a venv with pydraughts (python3 -m venv .venv && .venv/bin/pip install pydraughts)}"
PYDEPTH=${1:-5}
cargo bench --bench perft -- draughts "$PYDEPTH"
cargo bench --bench perft -- draughts 8
"$VENV/bin/python" tests/tools/pydraughts_perft.py "$PYDEPTH"
