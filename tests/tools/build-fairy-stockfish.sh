#!/bin/sh
# Builds Fairy-Stockfish (https://github.com/fairy-stockfish/Fairy-Stockfish, GPL-3.0) from
# source in DIR, outside this repository, for the xiangqi row of
# `cargo bench --bench perft -- side-by-side` (benches/perft.rs). Its code never enters this
# project; only this script does.
#
#   sh tests/tools/build-fairy-stockfish.sh DIR SOURCE
#   FSF=DIR/src/stockfish cargo bench --bench perft -- side-by-side
#
# SOURCE is a Fairy-Stockfish checkout or git directory already on this machine (a clone, or a
# bare mirror); its HEAD is exported into DIR with `git archive`. The script does not fetch
# it: CI machines here reach package registries only. Where GitHub is reachable:
#   git clone https://github.com/fairy-stockfish/Fairy-Stockfish /tmp/fsf-src
# Without SOURCE, DIR must already hold a checkout (DIR/src/Makefile); it is built in place.
#
# Xiangqi's 9x10 board needs the `largeboards=yes` build (the default build stops at 8x8 and
# knows no xiangqi). ARCH defaults to x86-64-modern (SSE4.1 + popcnt, the Makefile's own
# default); on a CPU with BMI2, ARCH=x86-64-bmi2 uses pext for sliding attacks instead of
# precomputed magics. NNUE stays off (the Makefile's default): perft never evaluates, and the
# net would be a download. Needs g++ and make (Debian: apt-get install g++ make).
set -eu

usage() {
    echo "usage: $0 DIR [SOURCE]   (SOURCE: a Fairy-Stockfish checkout or git directory)" >&2
    exit 2
}

[ $# -ge 1 ] && [ $# -le 2 ] || usage
DIR=$1
SOURCE=${2:-}
ARCH=${ARCH:-x86-64-modern}
JOBS=${JOBS:-2}
HERE=$(cd "$(dirname "$0")/../.." && pwd)

for tool in g++ make git tar; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "$tool is missing: apt-get install g++ make git tar (Debian)" >&2
        exit 1
    fi
done

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
# Keep GPL engine sources and objects out of the project tree (and out of cargo's view).
case "$DIR/" in
"$HERE"/*)
    echo "DIR must be outside the repository ($HERE)" >&2
    exit 1
    ;;
esac

if [ -n "$SOURCE" ]; then
    COMMIT=$(git -C "$SOURCE" rev-parse HEAD)
    git -C "$SOURCE" archive --format=tar HEAD | tar -x -C "$DIR"
    # git archive leaves no .git behind: keep the commit for BENCHMARKS.md.
    echo "$COMMIT" >"$DIR/COMMIT"
fi
[ -f "$DIR/src/Makefile" ] || {
    echo "$DIR/src/Makefile not found: give a Fairy-Stockfish SOURCE" >&2
    exit 1
}

START=$(date +%s)
make -C "$DIR/src" -j"$JOBS" build ARCH="$ARCH" largeboards=yes
echo "built $DIR/src/stockfish (ARCH=$ARCH largeboards=yes, commit $(cat "$DIR/COMMIT" 2>/dev/null || echo unknown)) in $(($(date +%s) - START)) s"
