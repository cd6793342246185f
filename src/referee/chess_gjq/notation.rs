//! Coordinate notation of a move with its reveal, as justifications write it (chess_gjq 9.3):
//! `e2-e4=R` (the hidden piece turned out a rook), `0-0=N`, `c5xd6 ep`, `e7-e8=Q`.

use crate::games::chess_gjq::{CastlingSide, Move, Position, Role};

/// `from-to` or `fromxto`, castling as `0-0`/`0-0-0`, `ep` for an en-passant capture, and
/// `=X` for what a hidden piece turned out (or a pawn became). `before` is the position the
/// move was played in.
pub fn coordinate(before: &Position, mv: Move, revealed: Option<Role>) -> String {
    let mut text = body(before, mv);
    if let Some(role) = revealed.or(mv.promotion) {
        text.push('=');
        text.push(role.upper_char());
    }
    text
}

fn body(before: &Position, mv: Move) -> String {
    let color = before.side_to_move();
    let king = before.moves_as(mv.from) == Some(Role::King);
    match king
        .then(|| CastlingSide::of_king_move(color, mv.from, mv.to))
        .flatten()
    {
        Some(CastlingSide::KingSide) => return "0-0".to_string(),
        Some(CastlingSide::QueenSide) => return "0-0-0".to_string(),
        None => {}
    }
    let pawn = before.moves_as(mv.from) == Some(Role::Pawn);
    let en_passant = pawn && mv.from.file() != mv.to.file() && before.piece_at(mv.to).is_none();
    if en_passant {
        format!("{}x{} ep", mv.from, mv.to)
    } else if before.piece_at(mv.to).is_some() {
        format!("{}x{}", mv.from, mv.to)
    } else {
        format!("{}-{}", mv.from, mv.to)
    }
}
