//! A valid position: the board, whose turn it is, castling and en-passant rights, the
//! counters, the hidden piece awaiting its reveal, and what each side has revealed so far.

use super::board::{Board, Occupant};
use super::castling::{CastlingRights, CastlingSide};
use super::hidden::{RevealError, RevealedSet};
use super::illegal::{self, Illegal};
use super::movegen;
use super::moves::Move;
use super::piece::{Color, Piece, Role};
use super::square::Square;

/// The hidden piece that has just moved and awaits its reveal (chess_gjq 3.1.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Pending {
    pub square: Square,
    /// The role it moved as: perft reveals it as this.
    pub moved_as: Role,
}

/// A Chess Gjq position. Holding one proves it is valid: build it with
/// [`startpos`](Position::startpos) or [`from_fen`](Position::from_fen) and change it only
/// with [`play`](Position::play) and [`reveal`](Position::reveal).
///
/// A move of a hidden piece is completed by its reveal: after `play`, the turn has passed,
/// the piece stands face down on its target, and [`pending_reveal`](Position::pending_reveal)
/// names that square until [`reveal`](Position::reveal) tells what it is. Meanwhile no move
/// can be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub(super) board: Board,
    pub(super) turn: Color,
    pub(super) castling: CastlingRights,
    pub(super) ep_square: Option<Square>,
    pub(super) halfmoves: u32,
    pub(super) fullmoves: u32,
    pub(super) pending: Option<Pending>,
    pub(super) revealed: [RevealedSet; 2],
}

/// The Chess Gjq start (chess_gjq 3.1.2): kings face up on e1/e8, all else hidden.
pub const START_FEN: &str = "xxxxkxxx/xxxxxxxx/8/8/8/8/XXXXXXXX/XXXXKXXX w KQkq - 0 1";

impl Position {
    /// The start position, [`START_FEN`].
    pub fn startpos() -> Position {
        Position::from_fen(START_FEN).unwrap_or_else(|e| unreachable!("start fen: {e}"))
    }

    pub fn side_to_move(&self) -> Color {
        self.turn
    }

    /// The piece on `sq`; a hidden one (also one awaiting its reveal) has `role: None`.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board.piece_at(sq)
    }

    /// The role the piece on `sq` moves as: its own when face up, its start square's when
    /// hidden (chess_gjq 3.1.3); `None` for an empty square or a piece awaiting its reveal.
    pub fn moves_as(&self, sq: Square) -> Option<Role> {
        self.board.occupant(sq).and_then(|o| o.role)
    }

    /// The square of the hidden piece that has just moved and must now be revealed.
    pub fn pending_reveal(&self) -> Option<Square> {
        self.pending.map(|p| p.square)
    }

    /// Castling rights still held (king and rook-square piece unmoved).
    pub fn castling_rights(&self) -> CastlingRights {
        self.castling
    }

    /// The square passed over by the double step just made, if any (as FEN writes it).
    pub fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// Half-moves since the last capture, pawn move or move of a hidden piece.
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmoves
    }

    /// The FEN move number: starts at 1, grows after each black move.
    pub fn fullmove_number(&self) -> u32 {
        self.fullmoves
    }

    /// What `color` has revealed so far (for the piece-set check of chess_gjq 8.6).
    pub fn revealed(&self, color: Color) -> RevealedSet {
        self.revealed[color.index()]
    }

    /// Pieces on the board, face up or down.
    pub fn piece_count(&self) -> usize {
        self.board.occupied().count()
    }

    /// Face-down pieces on the board, one awaiting its reveal included.
    pub fn hidden_count(&self) -> usize {
        self.board.hidden().count()
    }

    /// Whether the side to move is in check. While a reveal is pending the moved piece is not
    /// known yet and gives no check.
    pub fn in_check(&self) -> bool {
        self.board
            .king_of(self.turn)
            .is_some_and(|k| self.board.is_attacked(k, self.turn.other()))
    }

    /// Every legal move of the side to move; a hidden piece moves as its start square's role.
    /// Empty while a reveal is pending.
    pub fn legal_moves(&self) -> Vec<Move> {
        movegen::legal_moves(self)
    }

    /// The move `from`-`to` if it is legal, or why it is not.
    pub fn check_move(
        &self,
        from: Square,
        to: Square,
        promotion: Option<Role>,
    ) -> Result<Move, Illegal> {
        illegal::check(
            self,
            Move {
                from,
                to,
                promotion,
            },
        )
    }

    /// Plays `mv`, which must be legal (from [`legal_moves`](Position::legal_moves) or
    /// [`check_move`](Position::check_move)). A hidden mover (and a hidden rook-square piece
    /// in castling) stays face down on its new square until [`reveal`](Position::reveal).
    pub fn play(&mut self, mv: Move) {
        let us = self.turn;
        let Some(mover) = self.board.take(mv.from) else {
            return;
        };
        let captured = self.remove_captured(mover, mv);
        self.ep_square = double_step_square(mover, mv);
        self.update_castling(mover, mv);
        let castle = (mover.role == Some(Role::King))
            .then(|| CastlingSide::of_king_move(us, mv.from, mv.to))
            .flatten();
        let hidden_moved = match castle {
            Some(side) => self.castle_partner(side, us),
            None => self.land(mover, mv),
        } || mover.hidden;
        let irreversible = captured || hidden_moved || mover.role == Some(Role::Pawn);
        self.halfmoves = if irreversible { 0 } else { self.halfmoves + 1 };
        if us == Color::Black {
            self.fullmoves += 1;
        }
        self.turn = us.other();
    }

    /// Removes what `mv` captures, the en-passant victim included; whether it took anything.
    fn remove_captured(&mut self, mover: Occupant, mv: Move) -> bool {
        if let Some(victim) = self.en_passant_victim(mover, mv) {
            return self.board.take(victim).is_some();
        }
        self.board.take(mv.to).is_some()
    }

    /// The square of the piece an en-passant capture takes: beside the capturer, behind the
    /// target. It may be any piece (chess_gjq 4.1.2.6.2 (2)).
    pub(super) fn en_passant_victim(&self, mover: Occupant, mv: Move) -> Option<Square> {
        let is_ep = mover.role == Some(Role::Pawn)
            && Some(mv.to) == self.ep_square
            && mv.from.file() != mv.to.file()
            && !self.board.occupied().contains(mv.to);
        is_ep
            .then(|| Square::new(mv.to.file(), mv.from.rank()))
            .flatten()
    }

    fn update_castling(&mut self, mover: Occupant, mv: Move) {
        if mover.role == Some(Role::King) {
            self.castling.remove_color(mover.color);
        }
        self.castling.touch(mv.from);
        self.castling.touch(mv.to);
    }

    /// Puts the mover on its target; a hidden one becomes pending. Whether it was hidden.
    fn land(&mut self, mover: Occupant, mv: Move) -> bool {
        if mover.hidden {
            self.set_pending(mv.to, mover);
            return true;
        }
        let role = mv.promotion.or(mover.role);
        self.board.put(mv.to, Occupant { role, ..mover });
        false
    }

    /// Castling: the king (already lifted) lands, the rook-square piece jumps over it
    /// (chess_gjq 4.1.3). Whether that piece was hidden (and so awaits its reveal).
    fn castle_partner(&mut self, side: CastlingSide, us: Color) -> bool {
        let king = Occupant {
            color: us,
            role: Some(Role::King),
            hidden: false,
        };
        self.board.put(side.king_to(us), king);
        let Some(partner) = self.board.take(side.corner(us)) else {
            return false;
        };
        if partner.hidden {
            self.set_pending(side.rook_to(us), partner);
        } else {
            self.board.put(side.rook_to(us), partner);
        }
        partner.hidden
    }

    fn set_pending(&mut self, square: Square, mover: Occupant) {
        let face_down = Occupant {
            role: None,
            hidden: true,
            ..mover
        };
        self.board.put(square, face_down);
        let moved_as = mover.role.unwrap_or(Role::Pawn);
        self.pending = Some(Pending { square, moved_as });
    }

    /// Turns up the hidden piece that has just moved to `square`: it is `role`, promoted to
    /// `promotion` if it is a pawn on the last rank (chess_gjq 4.1.2.6.2 (3)).
    ///
    /// Errors leave the position unchanged.
    pub fn reveal(
        &mut self,
        square: Square,
        role: Role,
        promotion: Option<Role>,
    ) -> Result<(), RevealError> {
        let pending = self.pending_reveal();
        let Some(occupant) = self
            .board
            .occupant(square)
            .filter(|_| pending == Some(square))
        else {
            return Err(RevealError::NotPending { square, pending });
        };
        let color = occupant.color;
        if !self.revealed(color).allows(role) {
            let revealed_so_far = self.revealed(color);
            return Err(RevealError::Inconsistent {
                color,
                role,
                revealed_so_far,
            });
        }
        check_promotion(color, square, role, promotion)?;
        self.revealed[color.index()].record(role);
        self.turn_up(square, promotion.unwrap_or(role));
        Ok(())
    }

    /// Completes a pending move without the piece-set check, the piece being what it moved
    /// as: how perft counts hidden moves.
    pub(super) fn reveal_as_moved(&mut self) {
        if let Some(p) = self.pending {
            self.turn_up(p.square, p.moved_as);
        }
    }

    fn turn_up(&mut self, square: Square, role: Role) {
        if let Some(occupant) = self.board.occupant(square) {
            let face_up = Occupant {
                role: Some(role),
                hidden: false,
                ..occupant
            };
            self.board.put(square, face_up);
        }
        self.pending = None;
    }
}

/// The square a double step passes over. A hidden second-rank piece's double step counts
/// whatever it turns out to be (chess_gjq 4.1.2.6.2 (2) b).
fn double_step_square(mover: Occupant, mv: Move) -> Option<Square> {
    let two_ranks = mv.from.rank().abs_diff(mv.to.rank()) == 2;
    if mover.role != Some(Role::Pawn) || !two_ranks {
        return None;
    }
    Square::new(mv.from.file(), (mv.from.rank() + mv.to.rank()) / 2)
}

/// A revealed pawn on the last rank must promote; nothing else may (chess_gjq 4.1.2.6.2 (3)).
fn check_promotion(
    color: Color,
    square: Square,
    role: Role,
    promotion: Option<Role>,
) -> Result<(), RevealError> {
    let must = role == Role::Pawn && square.rank() == color.relative_rank(7);
    match (must, promotion) {
        (true, None) => Err(RevealError::PromotionMissing { square }),
        (true, Some(p)) if !Role::PROMOTIONS.contains(&p) => {
            Err(RevealError::InvalidPromotion { square, role: p })
        }
        (false, Some(p)) => Err(RevealError::PromotionUnexpected { square, role: p }),
        _ => Ok(()),
    }
}
