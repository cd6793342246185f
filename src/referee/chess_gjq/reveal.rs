//! Move first, then reveal (先走后翻, chess_gjq 3.1.5): the reveal that completes a hidden
//! piece's move, a reveal out of order (5.5), a reveal the piece set cannot hold (8.6), and
//! a reveal that is late.

use crate::event::Side;
use crate::games::chess_gjq::{Position, RevealError, Role, Square};
use crate::referee::Article;

use super::notation::Played;
use super::{ChessGjqTable, name};
use crate::referee::{Ruling, RulingKind};

/// A hidden piece's move that waits for its reveal.
#[derive(Clone, Debug)]
pub struct PendingMove {
    /// The event of the move.
    seq: u64,
    side: Side,
    /// Where the face-down piece now stands (for castling, the rook square's new square).
    square: Square,
    /// The position the move was played in, for notation and the draw counters.
    before: Position,
    /// `move 12 e2-e4`, completed with the reveal.
    played: Played,
    /// Whether the late reveal has been reported at a clock press already.
    late_reported: bool,
}

impl PendingMove {
    pub fn new(
        seq: u64,
        side: Side,
        square: Square,
        before: Position,
        played: Played,
    ) -> PendingMove {
        PendingMove {
            seq,
            side,
            square,
            before,
            played,
            late_reported: false,
        }
    }

    /// `move 1 e2-e4 (event 2)`.
    fn described(&self) -> String {
        format!("{} (event {})", self.played, self.seq)
    }
}

impl ChessGjqTable {
    pub(super) fn on_reveal(
        &mut self,
        seq: u64,
        side: Side,
        square: Square,
        piece: char,
        promotion: Option<char>,
    ) -> Vec<Ruling> {
        let Some(role) = Role::from_char(piece).filter(|r| *r != Role::King) else {
            return vec![self.unknown_piece(seq, side, square, piece)];
        };
        let promotion_role = promotion.and_then(Role::from_char);
        match self.position.reveal(square, role, promotion_role) {
            Ok(()) => self.revealed(seq, role, promotion_role),
            Err(why @ RevealError::NotPending { .. }) => {
                vec![self.out_of_order(seq, side, square, &why)]
            }
            Err(why) => vec![self.impossible_reveal(seq, side, &why)],
        }
    }

    /// The reveal completes the pending move: now judge it as a whole.
    fn revealed(&mut self, seq: u64, role: Role, promotion: Option<Role>) -> Vec<Ruling> {
        let Some(pending) = self.pending.take() else {
            return Vec::new();
        };
        let played = pending.played.revealed(role, promotion);
        self.complete(seq, pending.side, &pending.before, played)
    }

    /// Turning up a piece in place, or before it moves, loses (chess_gjq 5.5).
    fn out_of_order(&self, seq: u64, side: Side, square: Square, why: &RevealError) -> Ruling {
        let text = format!(
            "{} turned up {square} at event {seq}: {why}. Only a hidden piece that has just \
             moved is turned up (move first, then reveal, chess_gjq 3.1.5); turning a \
             piece up in place or before moving it loses (chess_gjq 5.5)",
            name(side)
        );
        Ruling::loss(
            seq,
            RulingKind::IllegalMove,
            side,
            Article::ChessGjq("5.5"),
            text,
        )
    }

    /// A reveal the colour's piece set cannot hold, or a wrong promotion: the board and the
    /// log disagree and the arbiter must look; the move still waits for a true reveal.
    fn impossible_reveal(&self, seq: u64, side: Side, why: &RevealError) -> Ruling {
        let set = match why {
            RevealError::Inconsistent { .. } => {
                " The hidden pieces of a colour are 8 pawns, 2 rooks, 2 knights, 2 bishops \
                 and 1 queen, and captured hidden pieces stay unknown (chess_gjq 8.6)."
            }
            _ => "",
        };
        let text = format!(
            "{} reported a reveal at event {seq} that cannot be: {why}.{set} The arbiter must \
             look at the piece; the move waits for its true reveal",
            name(side)
        );
        Ruling::notice(
            seq,
            RulingKind::InvalidEvent,
            Some(side),
            Article::Game(why.article()),
            text,
        )
    }

    fn unknown_piece(&self, seq: u64, side: Side, square: Square, piece: char) -> Ruling {
        let text = format!(
            "{} reported at event {seq} that the piece on {square} is a {piece:?}, but a \
             hidden piece is a queen, rook, bishop, knight or pawn (chess_gjq 8.6): the \
             arbiter must look",
            name(side)
        );
        Ruling::notice(
            seq,
            RulingKind::InvalidEvent,
            Some(side),
            Article::ChessGjq("8.6"),
            text,
        )
    }

    /// The mover pressed the clock with its hidden piece still face down.
    pub(super) fn on_clock(&mut self, seq: u64, side: Side) -> Vec<Ruling> {
        let Some(pending) = self.pending.as_mut() else {
            return Vec::new();
        };
        if pending.side != side || pending.late_reported {
            return Vec::new();
        }
        pending.late_reported = true;
        let pending = pending.clone();
        vec![late(seq, &pending, "pressed the clock")]
    }

    /// The opponent moves while the last move still waits for its reveal: that move cannot
    /// be judged yet, so it is reported and not played.
    pub(super) fn overdue_on_move(&self, seq: u64, side: Side) -> Option<Ruling> {
        let pending = self.pending.as_ref()?;
        (pending.side != side).then(|| late(seq, pending, "let the opponent move"))
    }
}

/// Chess_gjq 3.1.5 makes the reveal part of the move; the rules name no penalty for a late
/// one, so it is not a loss: the arbiter has the piece turned up and play resumes from the
/// reveal. The move reported meanwhile is not played; it must be made again after the reveal.
fn late(seq: u64, pending: &PendingMove, what: &str) -> Ruling {
    let text = format!(
        "{} {what} at event {seq} while the hidden piece it moved, {}, still stands face down \
         on {}: a hidden piece's move is complete only when it is turned up (chess_gjq \
         3.1.5). The arbiter must have the piece on {} revealed; the game continues from that \
         reveal, and a move reported before it is not played",
        name(pending.side),
        pending.described(),
        pending.square,
        pending.square
    );
    Ruling::notice(
        seq,
        RulingKind::InvalidEvent,
        Some(pending.side),
        Article::ChessGjq("3.1.5"),
        text,
    )
    .with_evidence(vec![pending.seq, seq])
}
