//! Legal move generation. Hidden pieces sit on the board under their start square's role, so
//! they move as chess_gjq 3.1.3 says without special cases here.
//!
//! Moves are generated pseudo-legally and kept if the mover's king is not attacked afterwards
//! (chess_gjq 4.1.2.1, 5.2). That check never depends on what a hidden mover turns out to
//! be: its own piece cannot attack its own king, and it blocks lines whatever it is.

use super::attacks;
use super::bitboard::Bitboard;
use super::board::{Board, Occupant};
use super::castling::{self, CastlingSide};
use super::moves::Move;
use super::piece::{Color, Role};
use super::position::Position;
use super::square::Square;

/// All legal moves of the side to move; none while a reveal is pending.
pub fn legal_moves(pos: &Position) -> Vec<Move> {
    if pos.pending.is_some() {
        return Vec::new();
    }
    let mut moves = Vec::with_capacity(64);
    pawn_moves(pos, &mut moves);
    piece_moves(pos, &mut moves);
    castling::castling_moves(pos, &mut moves);
    let risky = risky_from_squares(pos);
    moves.retain(|mv| !risky.contains(mv.from) || king_attackers_after(pos, *mv).is_empty());
    moves
}

/// Squares whose pieces might expose their own king by moving: all of them when in check,
/// else the king itself, pieces on a line with it (pins), and pawns that may capture en
/// passant (two pieces leave one line). Other moves cannot expose the king, which spares
/// most of the make-and-test work.
fn risky_from_squares(pos: &Position) -> Bitboard {
    let us = pos.turn;
    let Some(king) = pos.board.king_of(us) else {
        return Bitboard::EMPTY;
    };
    if pos.board.is_attacked(king, us.other()) {
        return !Bitboard::EMPTY;
    }
    let lines = attacks::bishop(king, Bitboard::EMPTY) | attacks::rook(king, Bitboard::EMPTY);
    let mut risky = lines | Bitboard::from_square(king);
    if let Some(ep) = pos.ep_square {
        risky |= attacks::pawn(us.other(), ep) & pos.board.pieces(us, Role::Pawn);
    }
    risky
}

/// The square one step forward for `color`, if on the board.
pub fn forward(color: Color, sq: Square) -> Option<Square> {
    let rank = match color {
        Color::White => sq.rank().checked_add(1)?,
        Color::Black => sq.rank().checked_sub(1)?,
    };
    Square::new(sq.file(), rank)
}

/// Pushes `from`-`to`, as four promotions when a face-up pawn reaches the last rank.
fn push_pawn_move(color: Color, from: Square, to: Square, out: &mut Vec<Move>) {
    if to.rank() != color.relative_rank(7) {
        out.push(Move::new(from, to));
        return;
    }
    for role in Role::PROMOTIONS {
        out.push(Move {
            from,
            to,
            promotion: Some(role),
        });
    }
}

/// Pawn moves. A pawn on its own back rank (chess_gjq 4.1.2.6.2 (1)) only steps to its second
/// rank; every pawn on its second rank may step one or two squares.
fn pawn_moves(pos: &Position, out: &mut Vec<Move>) {
    let us = pos.turn;
    let empty = !pos.board.occupied();
    let mut targets_ep = pos.board.by_color(us.other());
    if let Some(ep) = pos.ep_square {
        targets_ep.insert(ep);
    }
    for from in pos.board.pieces(us, Role::Pawn) {
        for to in attacks::pawn(us, from) & targets_ep {
            push_pawn_move(us, from, to, out);
        }
        let Some(one) = forward(us, from).filter(|s| empty.contains(*s)) else {
            continue;
        };
        push_pawn_move(us, from, one, out);
        if from.rank() == us.relative_rank(1) {
            let two = forward(us, one).filter(|s| empty.contains(*s));
            out.extend(two.map(|to| Move::new(from, to)));
        }
    }
}

/// Where a non-pawn piece of `role` on `from` may go, own pieces excluded.
pub fn piece_targets(board: &Board, color: Color, role: Role, from: Square) -> Bitboard {
    attacks::of(role, color, from, board.occupied()) & !board.by_color(color)
}

fn piece_moves(pos: &Position, out: &mut Vec<Move>) {
    let us = pos.turn;
    for role in [
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ] {
        for from in pos.board.pieces(us, role) {
            let targets = piece_targets(&pos.board, us, role, from);
            out.extend(targets.map(|to| Move::new(from, to)));
        }
    }
}

/// The board right after `mv` as far as king safety goes: the mover keeps the role it moved
/// as (what a hidden mover turns out to be cannot matter to its own king).
pub fn board_after(pos: &Position, mv: Move) -> Board {
    let mut board = pos.board;
    let Some(mover) = board.take(mv.from) else {
        return board;
    };
    if let Some(victim) = pos.en_passant_victim(mover, mv) {
        board.take(victim);
    }
    let castle = CastlingSide::of_king_move(mover.color, mv.from, mv.to);
    if mover.role == Some(Role::King)
        && let Some(side) = castle
        && let Some(partner) = board.take(side.corner(mover.color))
    {
        board.put(side.rook_to(mover.color), partner);
    }
    let role = mv.promotion.or(mover.role);
    board.put(mv.to, Occupant { role, ..mover });
    board
}

/// The enemy pieces attacking the mover's king after `mv`.
pub fn king_attackers_after(pos: &Position, mv: Move) -> Bitboard {
    let us = pos.turn;
    let board = board_after(pos, mv);
    match board.king_of(us) {
        Some(king) => board.attackers(king, us.other(), board.occupied()),
        None => Bitboard::EMPTY,
    }
}
