"""Draughts perft with pydraughts, an independent implementation, for side-by-side speed and
count checks against `referee perft --variant draughts` / `cargo bench --bench perft`.

    python3 -m venv .venv && .venv/bin/pip install pydraughts   # 0.6.7
    .venv/bin/python tests/tools/pydraughts_perft.py DEPTH [FEN]

Counts as the referee does: pydraughts lists a capture once per route, so moves with the same
start, end and captured set are counted (and followed) once. Leaves are counted in bulk at
the last ply, as the referee's perft does. Prints nodes, seconds and nodes per second.
"""
import sys
import time

import draughts


def key(move):
    steps = move.steps_move
    return steps[0], steps[-1], frozenset(move.captures or ())


def distinct(board):
    seen = {}
    for move in board.legal_moves():
        seen.setdefault(key(move), move)
    return list(seen.values())


def perft(board, depth):
    moves = distinct(board)
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


def main():
    depth = int(sys.argv[1])
    fen = sys.argv[2] if len(sys.argv) > 2 else None
    board = draughts.Board(variant="standard", fen=fen) if fen else draughts.Board(variant="standard")
    start = time.perf_counter()
    nodes = perft(board, depth)
    secs = time.perf_counter() - start
    print(f"pydraughts {draughts.__version__ if hasattr(draughts, '__version__') else '0.6.7'} "
          f"depth {depth} from {fen or 'start'}: {nodes} nodes in {secs:.2f} s = {nodes / secs:,.0f} nodes/s")


if __name__ == "__main__":
    main()
