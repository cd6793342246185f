#!/usr/bin/env bash
# Regenerates the renju known-answer files tests/renju/{mintaka,piskvork}.txt (positions from
# random games) and tests/renju/tricky-{mintaka,piskvork}.txt (constructed shapes, made by
# renju-reference/tricky.py), each position with black's forbidden points as two independent
# programs judge them. CI does not run this; it only checks our rules against the committed files
# (src/games/renju/known_answers.rs, which also names the two rule readings where these
# programs and the strict rule of issue 19 part ways).
#
#   MINTAKA_DIR=/path/to/mintaka tests/tools/renju-reference.sh [GAMES] [SEED]
#
# MINTAKA_DIR: a checkout of GitHub junghyun397/mintaka; the files were made from commit
# 2a4cae050609fbd483f6849aa01ce3b4ef636891 with GAMES=400 SEED=20261205, and TRICKY=2000
# TRICKY_SEED=20261206 (environment) for the constructed shapes.
# Needs cargo (rusty_renju uses nightly features: built with RUSTC_BOOTSTRAP=1 on stable 1.95)
# and python3 with pip (installs the PyPI package renju==0.1.0 into a throwaway venv).
set -euo pipefail

games=${1:-400}
seed=${2:-20261205}
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "$here/../renju" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

: "${MINTAKA_DIR:?set MINTAKA_DIR to a mintaka checkout}"
commit=$(git -C "$MINTAKA_DIR" rev-parse HEAD)
cp -r "$here/renju-reference" "$work/driver"
cp -r "$MINTAKA_DIR/rusty_renju" "$work/driver/rusty_renju"
# rusty_renju (a member of mintaka's workspace) becomes a member of the driver's.
RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$work/target" \
    cargo build --release --manifest-path "$work/driver/Cargo.toml"

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet renju==0.1.0

header() {
    echo "# Source: $1"
    echo "# Positions: every third position of $games random games (seed $seed) by the mintaka"
    echo "# driver in tests/tools/renju-reference; regenerate with tests/tools/renju-reference.sh."
    echo "# Line: ROWS (rank 15 first, x black, o white) then black's forbidden points POINT:KIND,"
    echo "# KIND 3 double-three, 4 double-four, 6 overline; '-' for none."
}

positions="$work/positions.txt"
"$work/target/release/renju-reference" "$games" "$seed" > "$positions"
{
    header "mintaka's rusty_renju (GitHub junghyun397/mintaka $commit), Board::patterns.forbidden_kind"
    cat "$positions"
} > "$out/mintaka.txt"
{
    header "PyPI renju 0.1.0, renju.check_forbid.get_foul_type (a port of the Piskvork judge)"
    "$work/venv/bin/python" "$here/renju-reference/piskvork.py" < "$positions"
} > "$out/piskvork.txt"
# Constructed shapes (tricky.py): the same positions judged by both programs.
tricky_count=${TRICKY:-2000}
tricky_seed=${TRICKY_SEED:-20261206}
python3 "$here/renju-reference/tricky.py" "$tricky_count" "$tricky_seed" > "$work/tricky.txt"
tricky_header() {
    echo "# Source: $1"
    echo "# Positions: $tricky_count constructed positions (seed $tricky_seed) by tests/tools/renju-reference/tricky.py:"
    echo "# black fragments of threes, fours and overlines laid around empty focal points, often on"
    echo "# each other's lines (the recursive cases); regenerate with tests/tools/renju-reference.sh."
    echo "# Line: ROWS (rank 15 first, x black, o white) then black's forbidden points POINT:KIND,"
    echo "# KIND 3 double-three, 4 double-four, 6 overline; '-' for none."
}
{
    tricky_header "mintaka's rusty_renju (GitHub junghyun397/mintaka $commit), Board::patterns.forbidden_kind, on boards built from scratch (renju-reference rejudge)"
    "$work/target/release/renju-reference" rejudge < "$work/tricky.txt"
} > "$out/tricky-mintaka.txt"
{
    tricky_header "PyPI renju 0.1.0, renju.check_forbid.get_foul_type (a port of the Piskvork judge)"
    "$work/venv/bin/python" "$here/renju-reference/piskvork.py" < "$work/tricky.txt"
} > "$out/tricky-piskvork.txt"
wc -l "$out"/*.txt
