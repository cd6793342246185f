//! Repeated positions (xiangqi 25.1), kept compactly: the moves since the last capture, the
//! current position, and a hash index saying where each position occurred first, last and
//! how often. No earlier position is stored: every move since the last capture is quiet, so
//! any earlier position is rebuilt by taking moves back from the current one. A hash only
//! finds a candidate; the rebuilt full board and side to move confirm it, so a hash collision
//! can never make a false repetition.
//!
//! Cost per move does not grow with the game: one index lookup, and a rebuild only as long
//! as the loop back to the previous occurrence, once per repeated stretch (a position that
//! follows an already confirmed one by the same move is the same without a rebuild).

use std::collections::HashMap;

use crate::games::xiangqi::{Color, Move, Position, PositionKey};

/// One move played since the last capture.
#[derive(Clone, Debug)]
pub struct Ply {
    pub seq: u64,
    pub mover: Color,
    pub mv: Move,
}

/// A repeated stretch of the game: the position at index `start` (0 = the position after the
/// last capture) has come back at the end, `occurrence` times in all.
#[derive(Clone, Debug)]
pub struct Cycle {
    /// Index of the first occurrence of the repeated position.
    pub start: usize,
    /// How many times the position has now occurred (2 = first repetition).
    pub occurrence: u32,
}

/// Where one position has occurred: first, most recently, and how often. Indices are u32 to
/// keep the index small: four billion moves without a capture is no game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seen {
    first: u32,
    latest: u32,
    count: u32,
}

/// The start of a history: position 0, seen once.
const FIRST: Seen = Seen {
    first: 0,
    latest: 0,
    count: 1,
};

/// The moves since the last capture; a capture makes every earlier position impossible to
/// reach again.
#[derive(Clone, Debug)]
pub struct History {
    /// The position after the last ply: the only one kept in full.
    now: Position,
    /// `plies[i]` leads from position `i` to position `i + 1`.
    plies: Vec<Ply>,
    /// By (masked) hash: the latest position with that hash and its occurrences.
    index: HashMap<u64, Seen>,
    /// The current position's occurrences.
    here: Seen,
    /// The occurrence before the current one, if any.
    previous: Option<u32>,
    /// The bits of the hash the index uses: all of them, except in tests that force
    /// collisions.
    hash_mask: u64,
}

impl History {
    /// A history that starts at `start`.
    pub fn new(start: &Position) -> History {
        History::with_hash_mask(start, u64::MAX)
    }

    fn with_hash_mask(start: &Position, hash_mask: u64) -> History {
        let mut h = History {
            now: start.clone(),
            plies: Vec::new(),
            index: HashMap::new(),
            here: FIRST,
            previous: None,
            hash_mask,
        };
        h.restart(start);
        h
    }

    /// Records a move and the position it led to. After a capture the history restarts.
    pub fn record(&mut self, ply: Ply, after: &Position, captured: bool) {
        if captured {
            self.restart(after);
            return;
        }
        self.plies.push(ply);
        self.now.clone_from(after);
        self.index_now();
    }

    /// Starts again at `start`, keeping the buffers (a game captures every few moves).
    fn restart(&mut self, start: &Position) {
        self.now.clone_from(start);
        self.plies.clear();
        self.index.clear();
        self.index.insert(start.zobrist() & self.hash_mask, FIRST);
        self.here = FIRST;
        self.previous = None;
    }

    /// Index of the current position.
    fn now_index(&self) -> u32 {
        u32::try_from(self.plies.len()).expect("fewer than 2^32 moves since a capture")
    }

    /// Finds the current position's earlier occurrences and enters it in the index.
    fn index_now(&mut self) {
        let now = self.now_index();
        let hash = self.now.zobrist() & self.hash_mask;
        let here = match self.index.get(&hash) {
            None => None,
            Some(&seen) if self.is_now(seen.latest) => Some(seen),
            // A collision: another position has this hash. Search them all (rare).
            Some(_) => self.search(hash),
        };
        self.previous = here.map(|s| s.latest);
        self.here = Seen {
            first: here.map_or(now, |s| s.first),
            latest: now,
            count: here.map_or(1, |s| s.count.saturating_add(1)),
        };
        self.index.insert(hash, self.here);
    }

    /// Whether the position at index `at` is the current one, in full. When the previous
    /// position repeated the one before `at` and the same move followed, it is, with no
    /// rebuild; otherwise the moves are taken back to `at` and the boards compared.
    fn is_now(&self, at: u32) -> bool {
        let (Some(last), Some(before)) = (self.plies.last(), at.checked_sub(1)) else {
            return self.rebuilt(at).same_for_repetition(&self.now);
        };
        let followed = self.previous == Some(before) && self.plies[index(before)].mv == last.mv;
        followed || self.rebuilt(at).same_for_repetition(&self.now)
    }

    /// The occurrences of the current position before it, found by taking every move back
    /// and comparing each position with the same hash in full.
    fn search(&self, hash: u64) -> Option<Seen> {
        let mut pos = self.now.clone();
        let mut found: Option<Seen> = None;
        for (at, ply) in (0..self.now_index()).zip(&self.plies).rev() {
            pos.unplay_quiet(ply.mv);
            if pos.zobrist() & self.hash_mask == hash && pos.same_for_repetition(&self.now) {
                found = Some(match found {
                    None => Seen {
                        first: at,
                        latest: at,
                        count: 1,
                    },
                    Some(s) => Seen {
                        first: at,
                        count: s.count.saturating_add(1),
                        ..s
                    },
                });
            }
        }
        found
    }

    /// The position at index `at`, rebuilt by taking back the moves since.
    fn rebuilt(&self, at: u32) -> Position {
        let mut pos = self.now.clone();
        for ply in self.plies[index(at)..].iter().rev() {
            pos.unplay_quiet(ply.mv);
        }
        pos
    }

    /// The cycle the current position closes, if it occurred before: its first occurrence
    /// and how often it has occurred.
    pub fn cycle(&self) -> Option<Cycle> {
        (self.here.count >= 2).then(|| Cycle {
            start: index(self.here.first),
            occurrence: self.here.count,
        })
    }

    /// The last turn of the cycle the current position closes: from its previous occurrence
    /// to now (`occurrence` counts all of them, as in [`History::cycle`]).
    pub fn last_loop(&self) -> Option<Cycle> {
        let cycle = self.cycle()?;
        Some(Cycle {
            start: index(self.previous?),
            ..cycle
        })
    }

    /// The moves and positions from position `start` to now, rebuilt (with the two positions
    /// before `start`, for what the mover threatened a turn earlier).
    pub fn since(&self, start: usize) -> Stretch<'_> {
        let first = start.saturating_sub(2).min(self.plies.len());
        let mut pos = self.now.clone();
        let mut positions = vec![pos.clone()];
        for ply in self.plies[first..].iter().rev() {
            pos.unplay_quiet(ply.mv);
            positions.push(pos.clone());
        }
        positions.reverse();
        Stretch {
            first,
            start,
            positions,
            plies: &self.plies,
        }
    }

    /// The positions from `start` to now, as repetition compares them.
    pub fn keys_since(&self, start: usize) -> Vec<PositionKey> {
        let stretch = self.since(start);
        let skip = stretch.start - stretch.first;
        let positions = stretch.positions.iter().skip(skip);
        positions.map(Position::repetition_key).collect()
    }
}

/// A `u32` index of the history as a `usize` (never lossy on the machines we build for).
fn index(i: u32) -> usize {
    usize::try_from(i).expect("a u32 index fits a usize")
}

/// Positions rebuilt for a cycle judgment: from index `first` to now.
pub struct Stretch<'a> {
    first: usize,
    start: usize,
    positions: Vec<Position>,
    plies: &'a [Ply],
}

impl Stretch<'_> {
    /// The moves from position `start` to now, each with the positions around it.
    pub fn moves(&self) -> impl Iterator<Item = Around<'_>> {
        let at = |i: usize| &self.positions[i - self.first];
        (self.start..self.plies.len()).map(move |i| Around {
            ply: &self.plies[i],
            before: at(i),
            after: at(i + 1),
            earlier: i.checked_sub(2).map(at),
        })
    }
}

/// One move of the history with the positions around it.
pub struct Around<'a> {
    pub ply: &'a Ply,
    pub before: &'a Position,
    pub after: &'a Position,
    /// The mover's previous turn (two plies before `before`), if the history holds it: what
    /// it threatened before the opponent's last move.
    pub earlier: Option<&'a Position>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays `moves` (ICCS) from `pos`, recording each in `h`; seqs go on from `seq`.
    fn play(h: &mut History, pos: &mut Position, seq: &mut u64, moves: &[&str]) {
        for text in moves {
            let mv = Move::parse(text).unwrap();
            let mover = pos.side_to_move();
            let captured = pos.play(mv).is_some();
            *seq += 1;
            h.record(
                Ply {
                    seq: *seq,
                    mover,
                    mv,
                },
                pos,
                captured,
            );
        }
    }

    const HORSES: [&str; 4] = ["h0g2", "h9g7", "g2h0", "g7h9"];

    #[test]
    fn horses_out_and_back_repeat_the_start() {
        let mut pos = Position::startpos();
        let mut h = History::new(&pos);
        let mut seq = 0;
        for round in 1..=2u32 {
            play(&mut h, &mut pos, &mut seq, &HORSES);
            let cycle = h.cycle().unwrap();
            assert_eq!((cycle.start, cycle.occurrence), (0, round + 1));
            // The last turn starts at the previous occurrence: 4 plies back.
            let turn = h.last_loop().unwrap();
            assert_eq!(
                (turn.start, turn.occurrence),
                (usize::try_from(4 * (round - 1)).unwrap(), round + 1)
            );
        }
        let stretch = h.since(4);
        let moves: Vec<_> = stretch.moves().collect();
        assert_eq!(moves.len(), 4);
        assert!(moves[0].before.same_for_repetition(&Position::startpos()));
        assert!(moves[0].earlier.is_some());
        assert!(moves[3].after.same_for_repetition(&pos));
        assert_eq!(h.keys_since(4).len(), 5);
    }

    /// Every earlier position, kept in full as the history used to: the reference the
    /// compact one must agree with.
    fn occurrences(positions: &[Position]) -> Option<(usize, u32, usize)> {
        let now = positions.last()?;
        let same: Vec<usize> = (0..positions.len())
            .filter(|&i| positions[i].same_for_repetition(now))
            .collect();
        let count = u32::try_from(same.len()).unwrap();
        (count >= 2).then(|| (same[0], count, same[same.len() - 2]))
    }

    /// A long quiet walk of the chariots and horses with repeats far apart and near.
    fn long_walk() -> Vec<&'static str> {
        let mut moves = vec!["a0a1", "a9a8", "a1b1", "a8b8"];
        for _ in 0..3 {
            moves.extend(HORSES);
        }
        moves.extend(["b1a1", "b8a8", "a1a0", "a8a9"]);
        moves.extend(["a0a1", "a9a8", "a1b1", "a8b8"]);
        for _ in 0..2 {
            moves.extend(HORSES);
        }
        moves.extend(["h0i2", "h9i7", "i2h0", "i7h9"]);
        moves
    }

    fn agrees_with_full_positions(hash_mask: u64) {
        let mut pos = Position::startpos();
        let mut h = History::with_hash_mask(&pos, hash_mask);
        let mut all = vec![pos.clone()];
        let mut seq = 0;
        for text in long_walk() {
            play(&mut h, &mut pos, &mut seq, &[text]);
            all.push(pos.clone());
            let expected = occurrences(&all);
            let got = h
                .cycle()
                .map(|c| (c.start, c.occurrence, h.last_loop().unwrap().start));
            assert_eq!(got, expected, "after {text} (ply {seq})");
        }
    }

    #[test]
    fn repeats_far_apart_are_found_as_with_every_position_kept() {
        agrees_with_full_positions(u64::MAX);
    }

    #[test]
    fn a_hash_collision_is_no_repetition() {
        // Two bits of hash: nearly every position collides with an earlier one, and only
        // the full comparison tells them apart.
        agrees_with_full_positions(0b11);
        agrees_with_full_positions(0);
    }

    #[test]
    fn a_capture_starts_afresh() {
        let mut pos = Position::startpos();
        let mut h = History::new(&pos);
        let mut seq = 0;
        play(&mut h, &mut pos, &mut seq, &HORSES);
        assert!(h.cycle().is_some());
        play(&mut h, &mut pos, &mut seq, &["h2h9"]);
        assert!(h.cycle().is_none());
        assert_eq!(h.since(0).moves().count(), 0);
    }
}
