//! Simple drawn material (xiangqi 4.2, "双方均无可能取胜"): when neither side has a piece
//! that can cross the river (chariot, horse, cannon or soldier), neither can ever mate.

use crate::games::xiangqi::{Color, Position};

/// Whether neither side has any piece able to cross the river.
pub fn neither_can_win(pos: &Position) -> bool {
    Color::ALL.iter().all(|&c| !pos.has_attacking_material(c))
}

/// The pieces left, for the ruling's text: the FEN board field.
pub fn pieces_left(pos: &Position) -> String {
    let fen = pos.to_fen();
    fen.split(' ').next().unwrap_or_default().to_string()
}
