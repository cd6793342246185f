"""Constructed renju positions dense with black's shapes, for the known-answer files
tests/renju/tricky-*.txt (issue 19 item 4: "from constructed tricky shapes").

Random games seldom build the shapes where detectors part ways, so these positions are built
around empty *focal points*: along two to four lines through each focal point black gets a
fragment one stone short of a three, a four, a five or an overline (`xx_`, `x_x`, `xx_x`,
`xxx_xx`, ...), sometimes closed by a white stone. Focal points are often placed on each
other's lines one to three points apart, so that a three's straight-four point is itself a
double-three, double-four or overline point (the recursive case), or makes five (RIF 9.2).
Stone counts are then balanced with scattered stones on the first and last rows (never four
in a row there), and positions holding a five already are dropped.

    python3 tricky.py COUNT SEED      prints COUNT lines of ROWS (rank 15 first, `.xo`)
"""
import random
import sys

SIZE = 15
DIRECTIONS = [(1, 0), (0, 1), (1, 1), (1, -1)]
# Black stones around the focal point `_` along one line; `o` a white stone closing it.
FRAGMENTS = [
    "xx_", "_xx", "x_x", "x_x.x", "xx._", "_.xx", "xxx_", "_xxx", "xx_x", "x_xx",
    "x.x_", "_x.x", "xx_.x", "xxx_xx", "xx_xx", "x_xxx", "oxx_", "_xxo", "oxx_.", "ox_x.",
    "xxx_o", "o_xxx", "x.x_x", "xx_.xx",
]


def build(rng):
    grid = [['.'] * SIZE for _ in range(SIZE)]   # grid[rank][file], rank 0 = row 1
    focal = []
    first = (rng.randint(4, 10), rng.randint(4, 10))
    focal.append(first)
    for _ in range(rng.randint(0, 2)):
        base = rng.choice(focal)
        df, dr = rng.choice(DIRECTIONS)
        k = rng.choice([1, 2, 3, -1, -2, -3])
        point = (base[0] + df * k, base[1] + dr * k)
        if 2 <= point[0] <= 12 and 2 <= point[1] <= 12 and point not in focal:
            focal.append(point)
    for (f, r) in focal:
        for (df, dr) in rng.sample(DIRECTIONS, rng.randint(2, 4)):
            put(grid, focal, f, r, df, dr, rng.choice(FRAGMENTS))
    balance(grid, rng)
    return grid


def put(grid, focal, f, r, df, dr, fragment):
    """Lays `fragment` along (df, dr) with its `_` on (f, r); keeps focal points empty and
    leaves a point already holding the other colour as it is."""
    at = fragment.index('_')
    for i, ch in enumerate(fragment):
        if ch in '_.':
            continue
        x, y = f + (i - at) * df, r + (i - at) * dr
        if not (0 <= x < SIZE and 0 <= y < SIZE) or (x, y) in focal:
            continue
        if grid[y][x] == '.':
            grid[y][x] = ch


def count(grid, ch):
    return sum(row.count(ch) for row in grid)


def balance(grid, rng):
    """Adds stones on rows 1 and 15, two points apart, until black has as many stones as
    white or one more (Board::from_rows takes the side to move from the counts)."""
    spots = [(x, y) for y in (0, SIZE - 1) for x in range(0, SIZE, 2) if grid[y][x] == '.']
    rng.shuffle(spots)
    while True:
        black, white = count(grid, 'x'), count(grid, 'o')
        if black - white in (0, 1):
            return
        if not spots:
            raise ValueError("no room to balance")
        x, y = spots.pop()
        grid[y][x] = 'o' if black > white else 'x'


def has_five(grid):
    for y in range(SIZE):
        for x in range(SIZE):
            ch = grid[y][x]
            if ch == '.':
                continue
            for df, dr in DIRECTIONS:
                px, py = x - df, y - dr
                if 0 <= px < SIZE and 0 <= py < SIZE and grid[py][px] == ch:
                    continue
                n, cx, cy = 0, x, y
                while 0 <= cx < SIZE and 0 <= cy < SIZE and grid[cy][cx] == ch:
                    n, cx, cy = n + 1, cx + df, cy + dr
                if (ch == 'x' and n == 5) or (ch == 'o' and n >= 5):
                    return True
    return False


def rows(grid):
    return '/'.join(''.join(grid[r]) for r in range(SIZE - 1, -1, -1))


def main():
    total, seed = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    made = 0
    while made < total:
        try:
            grid = build(rng)
        except ValueError:
            continue
        if has_five(grid):
            continue
        print(rows(grid))
        made += 1


if __name__ == '__main__':
    main()
