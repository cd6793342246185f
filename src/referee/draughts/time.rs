//! Draughts 8.1.3.1: in sudden-death play a theoretical draw is not lost on time (A), and with
//! few pieces left a player short of time may ask the arbiter for a draw (B).

use super::DraughtsTable;
use super::draw_counts::{EndgameClass, material};

/// 8.1.3.1B: the most pieces on the board at which a player may ask for the draw.
pub const JUDGMENT_MAX_PIECES: usize = 8;
/// 8.1.3.1B: the time a player must be under to ask.
pub const JUDGMENT_UNDER_MS: i64 = 60_000;

impl DraughtsTable {
    /// The theoretical draw of 8.1.3.1A (the material of 12.3.3 or 12.3.4: three kings, two
    /// kings and a man, a king and two men, two kings, a king and a man, or a king against a
    /// lone king), in words, if the position holds one.
    pub fn theoretical_draw(&self) -> Option<String> {
        let pos = &self.game.position;
        EndgameClass::of(pos).map(|_| material(pos))
    }

    /// Pieces on the board, for 8.1.3.1B.
    pub fn piece_count(&self) -> usize {
        self.game.position.pieces().count()
    }
}
