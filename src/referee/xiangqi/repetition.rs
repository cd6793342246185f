//! Repeated positions (xiangqi 25.1): every position since the last capture, indexed by
//! zobrist hash and confirmed by comparing the full board and side to move, so a hash
//! collision can never make a false repetition.

use std::collections::HashMap;

use crate::games::xiangqi::{Color, Move, Position, PositionKey};

/// One move played since the last capture.
#[derive(Clone, Debug)]
pub struct Ply {
    pub seq: u64,
    pub mover: Color,
    pub mv: Move,
}

/// A repeated stretch of the game: the position at `positions[start]` has come back at
/// the end, `occurrence` times in all.
#[derive(Clone, Debug)]
pub struct Cycle {
    /// Index of the first occurrence of the repeated position.
    pub start: usize,
    /// How many times the position has now occurred (2 = first repetition).
    pub occurrence: u32,
}

/// The positions and moves since the last capture; a capture makes every earlier position
/// impossible to reach again.
#[derive(Clone, Debug)]
pub struct History {
    /// `positions[i]` is the position before `plies[i]`; the last one is the current one.
    positions: Vec<Position>,
    plies: Vec<Ply>,
    by_hash: HashMap<u64, Vec<usize>>,
}

impl History {
    /// A history that starts at `start`.
    pub fn new(start: &Position) -> History {
        let mut h = History {
            positions: Vec::new(),
            plies: Vec::new(),
            by_hash: HashMap::new(),
        };
        h.push_position(start.clone());
        h
    }

    /// Records a move and the position it led to. After a capture the history restarts.
    pub fn record(&mut self, ply: Ply, after: &Position, captured: bool) {
        if captured {
            *self = History::new(after);
            return;
        }
        self.plies.push(ply);
        self.push_position(after.clone());
    }

    fn push_position(&mut self, pos: Position) {
        let index = self.positions.len();
        self.by_hash.entry(pos.zobrist()).or_default().push(index);
        self.positions.push(pos);
    }

    /// The cycle the current position closes, if it occurred before: its first occurrence
    /// and how often it has occurred. Full positions are compared, the hash only finds them.
    pub fn cycle(&self) -> Option<Cycle> {
        let current = self.positions.last()?;
        let key = current.repetition_key();
        let same: Vec<usize> = self
            .by_hash
            .get(&current.zobrist())?
            .iter()
            .copied()
            .filter(|&i| self.positions[i].repetition_key() == key)
            .collect();
        let start = *same.first()?;
        let occurrence = u32::try_from(same.len()).unwrap_or(u32::MAX);
        (occurrence >= 2).then_some(Cycle { start, occurrence })
    }

    /// The last turn of the cycle the current position closes: from its previous occurrence
    /// to now (`occurrence` counts all of them, as in [`History::cycle`]).
    pub fn last_loop(&self) -> Option<Cycle> {
        let cycle = self.cycle()?;
        let key = self.positions.last()?.repetition_key();
        let now = self.positions.len() - 1;
        let start = (cycle.start..now)
            .rev()
            .find(|&i| self.positions[i].repetition_key() == key)?;
        Some(Cycle {
            start,
            occurrence: cycle.occurrence,
        })
    }

    /// The positions from `start` to now, as repetition compares them.
    pub fn keys_since(&self, start: usize) -> impl Iterator<Item = PositionKey> + '_ {
        self.positions[start..].iter().map(Position::repetition_key)
    }

    /// The moves from position `start` to now, each with the positions around it.
    pub fn moves_since(&self, start: usize) -> impl Iterator<Item = Around<'_>> {
        self.plies
            .iter()
            .enumerate()
            .skip(start)
            .map(|(i, ply)| Around {
                ply,
                before: &self.positions[i],
                after: &self.positions[i + 1],
                earlier: i.checked_sub(2).map(|e| &self.positions[e]),
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

    #[test]
    fn horses_out_and_back_repeat_the_start() {
        let mut pos = Position::startpos();
        let mut h = History::new(&pos);
        let mut seq = 0;
        for round in 1..=2u32 {
            for text in ["h0g2", "h9g7", "g2h0", "g7h9"] {
                let mv = Move::parse(text).unwrap();
                let mover = pos.side_to_move();
                let captured = pos.play(mv).is_some();
                seq += 1;
                h.record(Ply { seq, mover, mv }, &pos, captured);
            }
            let cycle = h.cycle().unwrap();
            assert_eq!((cycle.start, cycle.occurrence), (0, round + 1));
            // The last turn starts at the previous occurrence: 4 plies back.
            let turn = h.last_loop().unwrap();
            assert_eq!(
                (turn.start, turn.occurrence),
                (usize::try_from(4 * (round - 1)).unwrap(), round + 1)
            );
        }
        assert_eq!(h.moves_since(4).count(), 4);
    }
}
