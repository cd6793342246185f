"""Draughts perft with dame-rs 0.2.0 (PyPI: a draughts engine written in Rust, driven from
Python), for the side-by-side speed and count check of `cargo bench --bench perft`.

    python3 -m venv DIR && DIR/bin/pip install dame-rs==0.2.0
    DIR/bin/python tests/tools/dame_perft.py DEPTH [FEN] [--repeat N]

dame-rs counts as the referee does: captures with the same start, end and captured pieces
count once, and the last ply is counted in bulk from its move list. The time is that of the
`dame.perft` call alone (the engine runs without the interpreter), best of N runs. Prints one
line for people and one `RESULT nodes seconds` line for the bench.
"""
import sys
import time

try:
    import dame
except ImportError:
    print("dame-rs is not installed here: python3 -m venv DIR && DIR/bin/pip install dame-rs==0.2.0",
          file=sys.stderr)
    sys.exit(2)


def main():
    args = sys.argv[1:]
    repeat = 1
    if "--repeat" in args:
        at = args.index("--repeat")
        repeat = int(args[at + 1])
        del args[at:at + 2]
    if not args:
        print("usage: dame_perft.py DEPTH [FEN] [--repeat N]", file=sys.stderr)
        sys.exit(2)
    depth = int(args[0])
    fen = args[1] if len(args) > 1 else None
    board = dame.Board(fen) if fen else dame.Board()
    best = None
    nodes = 0
    for _ in range(repeat):
        start = time.perf_counter()
        nodes = dame.perft(board, depth)
        secs = time.perf_counter() - start
        best = secs if best is None else min(best, secs)
    print(f"dame-rs {dame.__version__} depth {depth} from {fen or 'start'}: {nodes} nodes "
          f"in {best:.2f} s = {nodes / best / 1e6:.1f} M nodes/s (best of {repeat})")
    print(f"RESULT {nodes} {best:.6f}")


if __name__ == "__main__":
    main()
