//! Why a move is illegal, in words a player can check on the board.
//!
//! The move generator decides legality; this module only explains a refusal, so the two can
//! never disagree about what is legal.

use std::fmt;

use super::attacks;
use super::board::Occupant;
use super::castling::{self, CastlingReason, CastlingSide};
use super::movegen;
use super::moves::Move;
use super::piece::{Color, Piece, Role};
use super::position::Position;
use super::square::Square;

/// A piece as it moves: its colour, the role it moves as, and whether it is still hidden
/// (then the role is its start square's, chess_gjq 3.1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mover {
    pub color: Color,
    pub role: Role,
    pub hidden: bool,
}

impl fmt::Display for Mover {
    /// `black queen`, `black hidden piece (moving as a queen)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.hidden {
            write!(f, "{} hidden piece (moving as a {})", self.color, self.role)
        } else {
            write!(f, "{} {}", self.color, self.role)
        }
    }
}

/// What is wrong with a pawn move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PawnReason {
    /// Backwards or sideways.
    NotForward,
    /// Straight ahead onto an occupied square: pawns capture diagonally.
    StraightOntoPiece,
    /// Diagonally onto an empty square that is no en-passant target.
    DiagonalWithoutCapture,
    /// Two squares, but not from its second rank.
    DoubleStepNotFromSecondRank,
    /// From its own back rank a pawn only steps to its second rank (chess_gjq 4.1.2.6.2 (1)).
    BackRankStep,
    /// Not one square forward, two from the second rank, or one diagonally forward.
    TooFar,
}

impl fmt::Display for PawnReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PawnReason::NotForward => "a pawn only moves forward",
            PawnReason::StraightOntoPiece => {
                "a pawn moves straight only onto an empty square; it captures diagonally"
            }
            PawnReason::DiagonalWithoutCapture => {
                "a pawn moves diagonally only to capture (or en passant right after a double step)"
            }
            PawnReason::DoubleStepNotFromSecondRank => {
                "a pawn advances two squares only from its second rank"
            }
            PawnReason::BackRankStep => {
                "a pawn on its own back rank may only step one square, to its second rank"
            }
            PawnReason::TooFar => {
                "a pawn moves one square forward (two from its second rank) and captures one \
                 square diagonally forward"
            }
        })
    }
}

/// Why a move cannot be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Illegal {
    /// No piece stands on `square`.
    EmptySquare { square: Square },
    /// The piece on `square` belongs to the side not to move.
    OpponentPiece { square: Square, piece: Piece },
    /// The hidden piece that has just moved to `square` must be revealed first (chess_gjq 3.1.5).
    AwaitingReveal { square: Square },
    /// From and to are the same square.
    NullMove { square: Square },
    /// One's own piece stands on the target.
    OwnPiece {
        mover: Mover,
        from: Square,
        to: Square,
    },
    /// The piece does not move that way.
    NotSuchMove {
        mover: Mover,
        from: Square,
        to: Square,
    },
    /// A piece stands in the way.
    Blocked {
        mover: Mover,
        from: Square,
        to: Square,
        blocker: Square,
    },
    /// A pawn move breaks the pawn's rules.
    Pawn {
        mover: Mover,
        from: Square,
        to: Square,
        reason: PawnReason,
    },
    /// A face-up pawn reaching the last rank must name its promotion.
    PromotionMissing { from: Square, to: Square },
    /// A promotion was named for a move that does not promote (a hidden piece promotes with
    /// its reveal, not its move).
    PromotionUnexpected { mover: Mover, to: Square },
    /// A pawn may promote only to a queen, rook, bishop or knight.
    InvalidPromotion { role: Role },
    /// The castling cannot be played now (chess_gjq 4.1.4).
    Castling {
        color: Color,
        side: CastlingSide,
        reason: CastlingReason,
    },
    /// After the move the mover's king is attacked (chess_gjq 4.1.2.1, 5.2).
    KingExposed {
        color: Color,
        king: Square,
        attacker: Square,
        by: Mover,
        was_in_check: bool,
    },
}

impl Illegal {
    /// The article the move breaks, as `chess_gjq N.N`: 5.2 for leaving or moving the king
    /// into check, 8.3 for a hidden piece moving against the rules, 5.6 otherwise.
    pub fn article(&self) -> &'static str {
        match self {
            Illegal::KingExposed { .. } => "chess_gjq 5.2",
            Illegal::Castling {
                reason: CastlingReason::InCheck { .. } | CastlingReason::Into { .. },
                ..
            } => "chess_gjq 5.2",
            Illegal::AwaitingReveal { .. } => "chess_gjq 3.1.5",
            Illegal::OwnPiece { mover, .. }
            | Illegal::NotSuchMove { mover, .. }
            | Illegal::Blocked { mover, .. }
            | Illegal::Pawn { mover, .. }
            | Illegal::PromotionUnexpected { mover, .. }
                if mover.hidden =>
            {
                "chess_gjq 8.3"
            }
            _ => "chess_gjq 5.6",
        }
    }
}

/// How a role moves, for messages.
fn movement(role: Role) -> &'static str {
    match role {
        Role::Pawn => "straight forward and captures diagonally forward",
        Role::Knight => "two squares one way and one square across",
        Role::Bishop => "diagonally",
        Role::Rook => "along ranks and files",
        Role::Queen => "along ranks, files and diagonals",
        Role::King => "one square in any direction",
    }
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Illegal::EmptySquare { square } => write!(f, "there is no piece on {square}"),
            Illegal::OpponentPiece { square, piece } => {
                let turn = piece.color.other();
                write!(f, "{square} holds a {piece}, but it is {turn}'s turn")
            }
            Illegal::AwaitingReveal { square } => write!(
                f,
                "the hidden piece that has just moved to {square} must be revealed first"
            ),
            Illegal::NullMove { square } => write!(f, "a move must leave {square}"),
            Illegal::OwnPiece { mover, to, .. } => {
                write!(f, "{}'s own piece stands on {to}", mover.color)
            }
            Illegal::NotSuchMove { mover, from, to } => not_such_move(f, *mover, *from, *to),
            Illegal::Blocked {
                mover,
                from,
                to,
                blocker,
            } => write!(
                f,
                "the {mover} cannot go from {from} to {to}: the piece on {blocker} is in the way"
            ),
            Illegal::Pawn {
                mover,
                from,
                to,
                reason,
            } => pawn_text(f, *mover, *from, *to, *reason),
            Illegal::PromotionMissing { from, to } => write!(
                f,
                "the pawn moving from {from} to {to} must be promoted to a queen, rook, bishop \
                 or knight"
            ),
            Illegal::PromotionUnexpected { mover, to } => unexpected(f, *mover, *to),
            Illegal::InvalidPromotion { role } => {
                write!(f, "a pawn cannot be promoted to a {role}")
            }
            Illegal::Castling {
                color,
                side,
                reason,
            } => castling_text(f, *color, *side, *reason),
            Illegal::KingExposed {
                color,
                king,
                attacker,
                by,
                was_in_check,
            } => {
                let lead = if *was_in_check {
                    format!("{color} is in check and this move does not answer it: ")
                } else {
                    String::new()
                };
                write!(
                    f,
                    "{lead}after this move {color}'s king on {king} is attacked by {}'s {} on \
                     {attacker}",
                    by.color,
                    mover_noun(*by)
                )
            }
        }
    }
}

/// `queen`, `hidden piece (moving as a queen)`.
fn mover_noun(m: Mover) -> String {
    if m.hidden {
        format!("hidden piece (moving as a {})", m.role)
    } else {
        m.role.to_string()
    }
}

fn not_such_move(f: &mut fmt::Formatter<'_>, m: Mover, from: Square, to: Square) -> fmt::Result {
    if m.hidden {
        write!(
            f,
            "the hidden piece on {from} moves as a {}, {} (chess_gjq 3.1.3); {from} to {to} \
             is not such a move",
            m.role,
            movement(m.role)
        )
    } else {
        write!(
            f,
            "a {} moves {}; {from} to {to} is not such a move",
            m.role,
            movement(m.role)
        )
    }
}

fn pawn_text(
    f: &mut fmt::Formatter<'_>,
    m: Mover,
    from: Square,
    to: Square,
    reason: PawnReason,
) -> fmt::Result {
    let hidden = if m.hidden {
        " (the hidden piece there moves as a pawn, chess_gjq 3.1.3)"
    } else {
        ""
    };
    write!(f, "{reason}; {from} to {to} is not such a move{hidden}")
}

fn unexpected(f: &mut fmt::Formatter<'_>, m: Mover, to: Square) -> fmt::Result {
    if m.hidden {
        write!(
            f,
            "a hidden piece is promoted with its reveal, not with its move to {to}"
        )
    } else {
        write!(f, "the {} moving to {to} cannot be promoted", mover_noun(m))
    }
}

fn castling_text(
    f: &mut fmt::Formatter<'_>,
    color: Color,
    side: CastlingSide,
    reason: CastlingReason,
) -> fmt::Result {
    match reason {
        CastlingReason::KingMoved | CastlingReason::RookSquareMoved { .. } => {
            write!(f, "{reason}, so {color} cannot castle {}", side.name())
        }
        _ => write!(f, "{color} cannot castle {}: {reason}", side.name()),
    }
}

/// The move `mv` if legal, else why not.
pub fn check(pos: &Position, mv: Move) -> Result<Move, Illegal> {
    if let Some(square) = pos.pending_reveal() {
        return Err(Illegal::AwaitingReveal { square });
    }
    let occupant = pos
        .board
        .occupant(mv.from)
        .ok_or(Illegal::EmptySquare { square: mv.from })?;
    if occupant.color != pos.turn {
        return Err(Illegal::OpponentPiece {
            square: mv.from,
            piece: occupant.piece(),
        });
    }
    if movegen::is_legal(pos, mv) {
        return Ok(mv);
    }
    Err(explain(pos, occupant, mv))
}

/// Why a move of the side to move's piece is not in the legal list. Checked in the order a
/// player would see it: geometry, then promotion, then king safety.
fn explain(pos: &Position, occupant: Occupant, mv: Move) -> Illegal {
    let mover = Mover {
        color: occupant.color,
        role: occupant.role.unwrap_or(Role::Pawn),
        hidden: occupant.hidden,
    };
    if mv.from == mv.to {
        return Illegal::NullMove { square: mv.from };
    }
    if let Some(illegal) = castling_reason(pos, mover, mv) {
        return illegal;
    }
    if pos.board.by_color(mover.color).contains(mv.to) {
        return Illegal::OwnPiece {
            mover,
            from: mv.from,
            to: mv.to,
        };
    }
    geometry(pos, mover, mv)
        .or_else(|| promotion(mover, mv))
        .or_else(|| king_exposed(pos, mv))
        .unwrap_or(Illegal::NotSuchMove {
            mover,
            from: mv.from,
            to: mv.to,
        })
}

fn castling_reason(pos: &Position, mover: Mover, mv: Move) -> Option<Illegal> {
    if mover.role != Role::King || mv.promotion.is_some() {
        return None;
    }
    let side = CastlingSide::of_king_move(mover.color, mv.from, mv.to)?;
    let reason = castling::obstacle(pos, mover.color, side)?;
    Some(Illegal::Castling {
        color: mover.color,
        side,
        reason,
    })
}

/// Whether the piece can reach the target by its movement, and the path is clear.
fn geometry(pos: &Position, mover: Mover, mv: Move) -> Option<Illegal> {
    if mover.role == Role::Pawn {
        return pawn_geometry(pos, mover, mv).map(|reason| Illegal::Pawn {
            mover,
            from: mv.from,
            to: mv.to,
            reason,
        });
    }
    let empty_board = super::bitboard::Bitboard::EMPTY;
    if !attacks::of(mover.role, mover.color, mv.from, empty_board).contains(mv.to) {
        return Some(Illegal::NotSuchMove {
            mover,
            from: mv.from,
            to: mv.to,
        });
    }
    let between = attacks::between(mv.from, mv.to).unwrap_or_default();
    let blocker = (between & pos.board.occupied())
        .into_iter()
        .min_by_key(|sq| {
            let d = |a: u8, b: u8| a.abs_diff(b);
            d(sq.file(), mv.from.file()).max(d(sq.rank(), mv.from.rank()))
        })?;
    Some(Illegal::Blocked {
        mover,
        from: mv.from,
        to: mv.to,
        blocker,
    })
}

/// The pawn rules, forward meaning up the board for white (chess_gjq 4.1.2.6).
fn pawn_geometry(pos: &Position, mover: Mover, mv: Move) -> Option<PawnReason> {
    let us = mover.color;
    let rank_of = |sq: Square| match us {
        Color::White => sq.rank(),
        Color::Black => 7 - sq.rank(),
    };
    let (from_rank, to_rank) = (rank_of(mv.from), rank_of(mv.to));
    let files = mv.from.file().abs_diff(mv.to.file());
    if to_rank <= from_rank {
        return Some(PawnReason::NotForward);
    }
    let occupied = pos.board.occupied();
    match (to_rank - from_rank, files) {
        (1, 0) => occupied
            .contains(mv.to)
            .then_some(PawnReason::StraightOntoPiece),
        (1, 1) => {
            let capture = occupied.contains(mv.to) || pos.ep_square == Some(mv.to);
            (!capture).then_some(PawnReason::DiagonalWithoutCapture)
        }
        (2, 0) if from_rank == 0 => Some(PawnReason::BackRankStep),
        (2, 0) if from_rank != 1 => Some(PawnReason::DoubleStepNotFromSecondRank),
        (2, 0) => double_step_blocked(pos, mv),
        _ if from_rank == 0 => Some(PawnReason::BackRankStep),
        _ => Some(PawnReason::TooFar),
    }
}

fn double_step_blocked(pos: &Position, mv: Move) -> Option<PawnReason> {
    let occupied = pos.board.occupied();
    let middle = Square::new(mv.from.file(), (mv.from.rank() + mv.to.rank()) / 2)?;
    (occupied.contains(middle) || occupied.contains(mv.to)).then_some(PawnReason::StraightOntoPiece)
}

fn promotion(mover: Mover, mv: Move) -> Option<Illegal> {
    let last_rank = mv.to.rank() == mover.color.relative_rank(7);
    let promotes = mover.role == Role::Pawn && !mover.hidden && last_rank;
    match (promotes, mv.promotion) {
        (true, None) => Some(Illegal::PromotionMissing {
            from: mv.from,
            to: mv.to,
        }),
        (true, Some(role)) if !Role::PROMOTIONS.contains(&role) => {
            Some(Illegal::InvalidPromotion { role })
        }
        (false, Some(_)) => Some(Illegal::PromotionUnexpected { mover, to: mv.to }),
        _ => None,
    }
}

/// The first enemy piece that would attack the mover's king after `mv`.
fn king_exposed(pos: &Position, mv: Move) -> Option<Illegal> {
    let mv = Move {
        promotion: mv.promotion.filter(|r| Role::PROMOTIONS.contains(r)),
        ..mv
    };
    let attacker = movegen::king_attackers_after(pos, mv).first()?;
    let board = movegen::board_after(pos, mv);
    let by = board.occupant(attacker)?;
    Some(Illegal::KingExposed {
        color: pos.turn,
        king: board.king_of(pos.turn)?,
        attacker,
        by: Mover {
            color: by.color,
            role: by.role?,
            hidden: by.hidden,
        },
        was_in_check: pos.in_check(),
    })
}
