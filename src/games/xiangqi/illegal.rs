//! Why a move is illegal: each rule of movement checked on its own, in the order a referee
//! would explain it, so a ruling can quote the rule that was broken.

use std::fmt;

use super::geometry::{in_palace, on_home_side};
use super::moves::Move;
use super::piece::{Color, Piece, PieceKind};
use super::position::Position;
use super::square::Square;

/// The reason a move is illegal. Messages are lower case and name pieces and points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Illegal {
    /// No piece stands on `from` (the referee treats this as an invalid event, not a move).
    EmptySquare { from: Square },
    /// The piece on `from` belongs to the side not to move.
    OpponentPiece { from: Square, piece: Piece },
    /// `from` and `to` are the same point: not a move.
    SameSquare { square: Square },
    /// The target holds a piece of the mover's own side (xiangqi 2.3).
    OwnPieceOnTarget {
        from: Square,
        to: Square,
        piece: Piece,
        target: Piece,
    },
    /// The piece does not move that way at all (xiangqi 2.2).
    Geometry {
        piece: Piece,
        from: Square,
        to: Square,
    },
    /// A general step out of the palace (xiangqi 2.2).
    GeneralLeavesPalace { from: Square, to: Square },
    /// An advisor step out of the palace (xiangqi 2.2).
    AdvisorLeavesPalace { from: Square, to: Square },
    /// An elephant move over the river (xiangqi 2.2).
    ElephantCrossesRiver { from: Square, to: Square },
    /// An elephant move whose midpoint is taken (塞象眼, xiangqi 2.2).
    ElephantEyeBlocked {
        from: Square,
        to: Square,
        eye: Square,
    },
    /// A horse move whose leg is taken (蹩马腿, xiangqi 2.2).
    HorseLegBlocked {
        from: Square,
        to: Square,
        leg: Square,
    },
    /// A soldier move towards its own side (xiangqi 2.2).
    SoldierBackward { from: Square, to: Square },
    /// A soldier step sideways before crossing the river (xiangqi 2.2).
    SoldierSidewaysBeforeRiver { from: Square, to: Square },
    /// A chariot move through a piece; `at` is the first piece in the way.
    PathBlocked {
        piece: Piece,
        from: Square,
        to: Square,
        at: Square,
    },
    /// A cannon capture with nothing to jump over (炮打隔子, xiangqi 2.2).
    CannonNoScreen { from: Square, to: Square },
    /// A cannon capture over more than one piece.
    CannonTwoScreens {
        from: Square,
        to: Square,
        count: usize,
    },
    /// A cannon move without capture through a piece; `over` is the first in the way.
    CannonJumpWithoutCapture {
        from: Square,
        to: Square,
        over: Square,
    },
    /// After the move the mover's general (`side`'s, on `general`) is attacked by the
    /// pieces on `by`, whose kinds are `pieces` in the same order (xiangqi 3.1). This also
    /// covers leaving a check unanswered.
    LeavesGeneralInCheck {
        general: Square,
        side: Color,
        by: Vec<Square>,
        pieces: Vec<PieceKind>,
    },
    /// After the move the generals face each other on an open file, 0 = file a
    /// (xiangqi 2.2; the mover loses, 4.1).
    GeneralsFace { file: u8 },
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Illegal::EmptySquare { from } => write!(f, "there is no piece on {from}"),
            Illegal::OpponentPiece { from, piece } => write!(
                f,
                "the piece on {from} is {piece}, not {}'s",
                piece.color.opponent()
            ),
            Illegal::SameSquare { square } => {
                write!(f, "from and to are the same point {square}")
            }
            Illegal::OwnPieceOnTarget {
                from,
                to,
                piece,
                target,
            } => write!(
                f,
                "{piece} on {from} cannot capture {}'s own {} on {to}",
                target.color, target.kind
            ),
            Illegal::Geometry { piece, from, to } => write!(
                f,
                "{}; {from} to {to} is not such a move",
                movement_rule(piece.kind)
            ),
            Illegal::GeneralLeavesPalace { from, to } => {
                write!(
                    f,
                    "a general may not leave the palace; {from} to {to} leaves it"
                )
            }
            Illegal::AdvisorLeavesPalace { from, to } => {
                write!(
                    f,
                    "an advisor may not leave the palace; {from} to {to} leaves it"
                )
            }
            Illegal::ElephantCrossesRiver { from, to } => {
                write!(
                    f,
                    "an elephant may not cross the river; {from} to {to} crosses it"
                )
            }
            Illegal::ElephantEyeBlocked { from, to, eye } => {
                write!(f, "elephant {from} to {to} is blocked at {eye}")
            }
            Illegal::HorseLegBlocked { from, to, leg } => {
                write!(f, "horse {from} to {to} is blocked at {leg}")
            }
            Illegal::SoldierBackward { from, to } => {
                write!(
                    f,
                    "a soldier never moves backward; {from} to {to} goes back"
                )
            }
            Illegal::SoldierSidewaysBeforeRiver { from, to } => write!(
                f,
                "a soldier moves sideways only after crossing the river; {from} to {to} is before it"
            ),
            Illegal::PathBlocked {
                piece,
                from,
                to,
                at,
            } => {
                write!(f, "{} {from} to {to} is blocked at {at}", piece.kind)
            }
            Illegal::CannonNoScreen { from, to } => write!(
                f,
                "cannon {from} to {to} captures only by jumping exactly one piece; there is none between"
            ),
            Illegal::CannonTwoScreens { from, to, count } => write!(
                f,
                "cannon {from} to {to} captures only by jumping exactly one piece; there are {count} between"
            ),
            Illegal::CannonJumpWithoutCapture { from, to, over } => write!(
                f,
                "cannon {from} to {to} does not capture, so it may not jump; it is blocked at {over}"
            ),
            Illegal::LeavesGeneralInCheck {
                general,
                side,
                by,
                pieces,
            } => {
                write!(
                    f,
                    "after this move {side}'s general on {general} is attacked by "
                )?;
                write_attackers(f, side.opponent(), by, pieces)
            }
            Illegal::GeneralsFace { file } => write!(
                f,
                "after this move the generals face each other on file {}",
                char::from(b'a' + file)
            ),
        }
    }
}

impl std::error::Error for Illegal {}

/// "black's chariot on e7 and black's horse on d2".
fn write_attackers(
    f: &mut fmt::Formatter<'_>,
    color: Color,
    by: &[Square],
    pieces: &[PieceKind],
) -> fmt::Result {
    for (i, (sq, kind)) in by.iter().zip(pieces).enumerate() {
        let separator = match i {
            0 => "",
            _ if i + 1 == by.len() => " and ",
            _ => ", ",
        };
        write!(f, "{separator}{color}'s {kind} on {sq}")?;
    }
    Ok(())
}

/// How each piece moves (xiangqi 2.2), for the geometry message.
fn movement_rule(kind: PieceKind) -> &'static str {
    match kind {
        PieceKind::General => "a general moves one point along a file or a rank",
        PieceKind::Advisor => "an advisor moves one point diagonally",
        PieceKind::Elephant => "an elephant moves two points diagonally",
        PieceKind::Horse => "a horse moves one point orthogonally then one diagonally outward",
        PieceKind::Chariot => "a chariot moves along a file or a rank",
        PieceKind::Cannon => "a cannon moves along a file or a rank",
        PieceKind::Soldier => {
            "a soldier moves one point forward, or sideways once across the river"
        }
    }
}

impl Position {
    /// Checks a move the side to move wants to make and says why it is illegal if it is.
    /// Reasons come in this order: empty point, opponent's piece, same point, own piece on
    /// the target, the piece's movement rule, then the general's safety.
    pub fn check_move(&self, from: Square, to: Square) -> Result<Move, Illegal> {
        let piece = self.piece_at(from).ok_or(Illegal::EmptySquare { from })?;
        if piece.color != self.side {
            return Err(Illegal::OpponentPiece { from, piece });
        }
        if from == to {
            return Err(Illegal::SameSquare { square: from });
        }
        if let Some(target) = self.piece_at(to)
            && target.color == piece.color
        {
            return Err(Illegal::OwnPieceOnTarget {
                from,
                to,
                piece,
                target,
            });
        }
        self.check_movement(piece, from, to)?;
        let mv = Move::new(from, to);
        self.check_general_safety(mv)?;
        Ok(mv)
    }

    fn check_movement(&self, piece: Piece, from: Square, to: Square) -> Result<(), Illegal> {
        let geometry = Illegal::Geometry { piece, from, to };
        let (df, dr) = delta(from, to);
        let fits = match piece.kind {
            PieceKind::General => df.abs() + dr.abs() == 1,
            PieceKind::Advisor => df.abs() == 1 && dr.abs() == 1,
            PieceKind::Elephant => df.abs() == 2 && dr.abs() == 2,
            PieceKind::Horse => df.abs() * dr.abs() == 2,
            PieceKind::Chariot | PieceKind::Cannon => df == 0 || dr == 0,
            PieceKind::Soldier => true,
        };
        if !fits {
            return Err(geometry);
        }
        match piece.kind {
            PieceKind::General => palace_rule(piece.color, from, to, PieceKind::General),
            PieceKind::Advisor => palace_rule(piece.color, from, to, PieceKind::Advisor),
            PieceKind::Elephant => self.elephant_rule(piece.color, from, to),
            PieceKind::Horse => self.horse_rule(from, to),
            PieceKind::Chariot => self.chariot_rule(piece, from, to),
            PieceKind::Cannon => self.cannon_rule(from, to),
            PieceKind::Soldier => soldier_rule(piece, from, to),
        }
    }

    /// 塞象眼: the midpoint must be empty; and the river may not be crossed.
    fn elephant_rule(&self, color: Color, from: Square, to: Square) -> Result<(), Illegal> {
        if !on_home_side(color, to) {
            return Err(Illegal::ElephantCrossesRiver { from, to });
        }
        let eye = midpoint(from, to);
        match self.piece_at(eye) {
            Some(_) => Err(Illegal::ElephantEyeBlocked { from, to, eye }),
            None => Ok(()),
        }
    }

    /// 蹩马腿: the leg is the orthogonal neighbour in the long direction of the move.
    fn horse_rule(&self, from: Square, to: Square) -> Result<(), Illegal> {
        let (df, dr) = delta(from, to);
        let leg = step(from, df / 2, dr / 2);
        match self.piece_at(leg) {
            Some(_) => Err(Illegal::HorseLegBlocked { from, to, leg }),
            None => Ok(()),
        }
    }

    fn chariot_rule(&self, piece: Piece, from: Square, to: Square) -> Result<(), Illegal> {
        match self.pieces_between(from, to).first() {
            Some(&at) => Err(Illegal::PathBlocked {
                piece,
                from,
                to,
                at,
            }),
            None => Ok(()),
        }
    }

    /// 炮打隔子: a quiet move needs a clear path, a capture exactly one piece between.
    fn cannon_rule(&self, from: Square, to: Square) -> Result<(), Illegal> {
        let between = self.pieces_between(from, to);
        match (self.piece_at(to), between.len()) {
            (None, 0) | (Some(_), 1) => Ok(()),
            (None, _) => Err(Illegal::CannonJumpWithoutCapture {
                from,
                to,
                over: between[0],
            }),
            (Some(_), 0) => Err(Illegal::CannonNoScreen { from, to }),
            (Some(_), count) => Err(Illegal::CannonTwoScreens { from, to, count }),
        }
    }

    /// The occupied points strictly between two points on one line, nearest first.
    fn pieces_between(&self, from: Square, to: Square) -> Vec<Square> {
        let (df, dr) = delta(from, to);
        let steps = df.abs().max(dr.abs());
        let points = (1..steps).map(|k| step(from, df.signum() * k, dr.signum() * k));
        points.filter(|&s| self.piece_at(s).is_some()).collect()
    }

    /// Plays the move on a copy and looks at the mover's general: facing the other general
    /// is named as such (xiangqi 2.2, 4.1), any other attack as a check left open (3.1).
    fn check_general_safety(&self, mv: Move) -> Result<(), Illegal> {
        let mut after = self.clone();
        after.put(mv);
        let side = self.side;
        let general = after.general(side);
        let other = after.general(side.opponent());
        if general.file() == other.file() && after.pieces_between(general, other).is_empty() {
            return Err(Illegal::GeneralsFace {
                file: general.file(),
            });
        }
        // The cheap yes-or-no first: the attackers are listed only for the message.
        if !after.general_attacked(general, side.opponent()) {
            return Ok(());
        }
        let by = after.attackers(general, side.opponent());
        let kinds = by.iter().filter_map(|&s| after.piece_at(s)).map(|p| p.kind);
        let pieces = kinds.collect();
        Err(Illegal::LeavesGeneralInCheck {
            general,
            side,
            by,
            pieces,
        })
    }
}

/// Palace pieces: general and advisor stay in the nine points of their palace (xiangqi 2.2).
fn palace_rule(color: Color, from: Square, to: Square, kind: PieceKind) -> Result<(), Illegal> {
    match (in_palace(color, to), kind) {
        (true, _) => Ok(()),
        (false, PieceKind::General) => Err(Illegal::GeneralLeavesPalace { from, to }),
        (false, _) => Err(Illegal::AdvisorLeavesPalace { from, to }),
    }
}

/// Forward one point; sideways one point only once across the river; never back.
fn soldier_rule(piece: Piece, from: Square, to: Square) -> Result<(), Illegal> {
    let (df, dr) = delta(from, to);
    let forward = i16::from(piece.color.forward());
    if dr * forward < 0 {
        return Err(Illegal::SoldierBackward { from, to });
    }
    match (df.abs(), dr * forward) {
        (0, 1) => Ok(()),
        (1, 0) if on_home_side(piece.color, from) => {
            Err(Illegal::SoldierSidewaysBeforeRiver { from, to })
        }
        (1, 0) => Ok(()),
        _ => Err(Illegal::Geometry { piece, from, to }),
    }
}

/// Files and ranks from `from` to `to`.
fn delta(from: Square, to: Square) -> (i16, i16) {
    let df = i16::from(to.file()) - i16::from(from.file());
    let dr = i16::from(to.rank()) - i16::from(from.rank());
    (df, dr)
}

fn midpoint(from: Square, to: Square) -> Square {
    let (df, dr) = delta(from, to);
    step(from, df / 2, dr / 2)
}

/// The point `(df, dr)` from `from`, which callers know to lie between two board points.
fn step(from: Square, df: i16, dr: i16) -> Square {
    let offset = |d: i16| i8::try_from(d).expect("a step within the board");
    from.offset(offset(df), offset(dr))
        .expect("a point between two board points is on the board")
}
