#!/usr/bin/env python3
"""Differential check of the xiangqi cycle verdicts against Fairy-Stockfish (pyffish).

For each of the 500 CCPD master games in tests/data/xiangqi/ccpd/manifest.json (Yu-Han Tseng
(2026), Chinese Chess Practical Dataset, CC BY 4.0), replays the game with `referee replay
--json` and takes the first cycle ruling (repetition, perpetual_check, perpetual_chase); asks
pyffish for the first ply at which `is_optional_game_end` holds and its value; and prints how
often the two agree on the ply and the verdict, and every disagreement.

Usage (from the repository root, after `cargo build`):
    python3 -m venv /tmp/ffish && /tmp/ffish/bin/pip install pyffish
    /tmp/ffish/bin/python tests/tools/fsf_cycles.py [path/to/referee]

Fairy-Stockfish implements perpetual check and most chases but not the mate threat (杀) of
xiangqi 28.2, so it rules a one-check-one-mate-threat cycle a draw where the 棋例 forbid it;
Nor does it look for a piece won after a check or an exchange (28.3 "including from the next
move by a series of checks or exchanges"), so it rules such a cycle on its direct attacks only.
Disagreements are for a person to read, not a pass/fail count. 2026-12-04: 144 of 176 cycle
games agree on ply and verdict (148 before chases after a check or exchange were named; the
five games that changed, e.g. man_vs_machine_00000036 where Ca9+ forces ...Cb9 and Nxb9, are
chases by the letter of 28.3).
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

import pyffish

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REFEREE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "debug", "referee")
CYCLES = ("repetition", "perpetual_check", "perpetual_chase")


def fsf_move(iccs):
    """ICCS a0-i9 to Fairy-Stockfish's xiangqi coordinates (ranks 1-10)."""
    return f"{iccs[0]}{int(iccs[1]) + 1}{iccs[2]}{int(iccs[3]) + 1}"


def ours(game, tmp):
    moves = game["moves_iccs"].split()
    lines = [json.dumps({"type": "game", "variant": "xiangqi", "id": "fsf"})]
    for i, mv in enumerate(moves):
        side = "red" if i % 2 == 0 else "black"
        lines.append(json.dumps({"type": "move", "side": side, "from": mv[:2], "to": mv[2:]}))
    path = os.path.join(tmp, "game.jsonl")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    out = subprocess.run([REFEREE, "replay", "--json", path], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        r = json.loads(line)
        if r["kind"] in CYCLES:
            verdict = "draw" if r["effect"] == "draw" else f"{r['side']} loses"
            return r["at"], verdict
    return None, None


def theirs(game):
    start = pyffish.start_fen("xiangqi")
    moves = [fsf_move(m) for m in game["moves_iccs"].split()]
    for ply in range(1, len(moves) + 1):
        end, value = pyffish.is_optional_game_end("xiangqi", start, moves[:ply])
        if end:
            to_move = "red" if ply % 2 == 0 else "black"
            other = "black" if to_move == "red" else "red"
            if value == 0:
                return ply, "draw"
            return ply, f"{to_move} loses" if value < 0 else f"{other} loses"
    return None, None


def main():
    with open(os.path.join(ROOT, "tests/data/xiangqi/ccpd/manifest.json")) as f:
        games = json.load(f)
    tally = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for game in games:
            (at, verdict), (ply, fsf) = ours(game, tmp), theirs(game)
            if at is None and ply is None:
                continue
            key = ("same ply" if at == ply else "other ply",
                   "same verdict" if verdict == fsf else "other verdict")
            tally[key] += 1
            if key != ("same ply", "same verdict"):
                print(f"{game['id']}: referee {verdict} at {at}; Fairy-Stockfish {fsf} at {ply}; "
                      f"recorded {game['result']} ({game['endclass']})")
    for key, n in sorted(tally.items()):
        print(f"{n:4} {key[0]}, {key[1]}")


if __name__ == "__main__":
    main()
