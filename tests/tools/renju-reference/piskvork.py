"""Black's forbidden points as the PyPI package `renju` 0.1.0 sees them (its check_forbid.py,
a port of the Piskvork judge's ForbiddenPointFinder-style recursive checker).

Reads lines `ROWS ...` (rank 15 first, `.xo`) and writes `ROWS POINT:KIND ...` (`-` for none),
KIND 3 double-three, 4 double-four, 6 overline: the format of tests/renju/*.txt.
"""
import sys

from renju.check_forbid import get_foul_type

CODE = {1: '3', 2: '4', 3: '6'}
FILES = 'abcdefghijklmno'


def grid(rows):
    """The package's board[x][y]: x the file, y the rank from 0 (rank 1); 1 black, 2 white."""
    board = [[0] * 15 for _ in range(15)]
    for r, row in enumerate(rows.split('/')):
        for c, ch in enumerate(row):
            board[c][14 - r] = {'x': 1, 'o': 2}.get(ch, 0)
    return board


def answer(board):
    found = []
    for y in range(15):
        for x in range(15):
            if board[x][y] == 0:
                foul = get_foul_type(board, x, y)
                if foul:
                    found.append(f"{FILES[x]}{y + 1}:{CODE[foul]}")
    return ' '.join(found) or '-'


for line in sys.stdin:
    if line.startswith('#') or not line.strip():
        continue
    rows = line.split()[0]
    print(rows, answer(grid(rows)))
