//! Coordinate notation of a move with its reveal, as justifications write it (chess_gjq 9.3):
//! `e2-e4=R` (the hidden piece turned out a rook), `0-0=N`, `c5xd6 ep`, `e7-e8=Q`.

use std::fmt;

use crate::event::Side;
use crate::games::chess_gjq::{CastlingSide, Move, Position, Role, Square};

/// A completed move as the rulings name it (`move 12... e2-e4=R`), kept as data: most moves
/// are never named in a ruling, so the text is written only when one is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// The scoresheet's move number, and whether black made the move (`move 12...`).
    number: u32,
    by_black: bool,
    body: Body,
    /// The promotion the move itself named.
    promotion: Option<Role>,
    /// What the reveal turned the hidden mover up as, and the promotion it named.
    revealed: Option<(Role, Option<Role>)>,
}

impl Played {
    /// `mv` by `side`, played in `before`.
    pub fn new(before: &Position, mv: Move, side: Side) -> Played {
        Played {
            number: before.fullmove_number(),
            by_black: side == Side::Second,
            body: Body::of(before, mv),
            promotion: mv.promotion,
            revealed: None,
        }
    }

    /// The same move completed by its reveal as `role` (promoted to `promotion`).
    pub fn revealed(self, role: Role, promotion: Option<Role>) -> Played {
        Played {
            revealed: Some((role, promotion)),
            ..self
        }
    }
}

/// `move 12 e2-e4`, `move 12... 0-0=N`, `move 3 e7-e8=Q`.
impl fmt::Display for Played {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dots = if self.by_black { "..." } else { "" };
        write!(f, "move {}{dots} {}", self.number, self.body)?;
        if let Some(role) = self.promotion {
            write!(f, "={}", role.upper_char())?;
        }
        match self.revealed {
            Some((role, Some(p))) => write!(f, "={}={}", role.upper_char(), p.upper_char()),
            Some((role, None)) => write!(f, "={}", role.upper_char()),
            None => Ok(()),
        }
    }
}

/// A move's squares as coordinate notation writes them, without what follows `=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Body {
    Castle(CastlingSide),
    /// `from-to`; `fromxto` for a capture; `fromxto ep` for en passant.
    Squares {
        from: Square,
        to: Square,
        capture: bool,
        en_passant: bool,
    },
}

impl Body {
    fn of(before: &Position, mv: Move) -> Body {
        let color = before.side_to_move();
        let role = before.moves_as(mv.from);
        let castle = (role == Some(Role::King))
            .then(|| CastlingSide::of_king_move(color, mv.from, mv.to))
            .flatten();
        if let Some(side) = castle {
            return Body::Castle(side);
        }
        let occupied = before.piece_at(mv.to).is_some();
        let en_passant = role == Some(Role::Pawn) && mv.from.file() != mv.to.file() && !occupied;
        Body::Squares {
            from: mv.from,
            to: mv.to,
            capture: occupied || en_passant,
            en_passant,
        }
    }
}

impl fmt::Display for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Body::Castle(CastlingSide::KingSide) => f.write_str("0-0"),
            Body::Castle(CastlingSide::QueenSide) => f.write_str("0-0-0"),
            Body::Squares {
                from,
                to,
                capture,
                en_passant,
            } => {
                let sep = if capture { 'x' } else { '-' };
                let ep = if en_passant { " ep" } else { "" };
                write!(f, "{from}{sep}{to}{ep}")
            }
        }
    }
}

/// The rule book's Chinese name of a role (chess_gjq 2.1.3).
pub fn chinese_name(role: Role) -> &'static str {
    match role {
        Role::King => "王",
        Role::Queen => "后",
        Role::Rook => "车",
        Role::Knight => "马",
        Role::Bishop => "象",
        Role::Pawn => "兵",
    }
}

/// A move as the scoresheet of chess_gjq 9.3 writes it, before its reveal: a revealed
/// piece is named (`后d1-d5`), a hidden piece by its start square's name (`暗马g1-f3`) except
/// a hidden pawn-square piece, which is written by its squares alone (`e2-e4`, 3.1.5);
/// `×` for a capture, `0-0`/`0-0-0` for castling, `ep` for en passant, `=后` for a
/// promotion. [`chinese_reveal`] gives what the reveal adds (`车` in `e2-e4车`).
pub fn chinese(before: &Position, mv: Move) -> String {
    let body = Body::of(before, mv).to_string().replace('x', "×");
    if body.starts_with('0') {
        return body;
    }
    let Some(piece) = before.piece_at(mv.from) else {
        return body;
    };
    let role = before.moves_as(mv.from);
    let mut text = match (piece.role, role) {
        // Hidden: named by the start square's piece, pawns unnamed.
        (None, Some(Role::Pawn)) | (None, None) => body,
        (None, Some(start)) => format!("暗{}{body}", chinese_name(start)),
        (Some(role), _) => format!("{}{body}", chinese_name(role)),
    };
    if let Some(promoted) = mv.promotion {
        text.push('=');
        text.push_str(chinese_name(promoted));
    }
    text
}

/// What a reveal adds to its move on the scoresheet (chess_gjq 9.3): the piece's name, and
/// `=后` when the revealed pawn promotes at once (`暗车a1×a8兵=后`).
pub fn chinese_reveal(role: Role, promotion: Option<Role>) -> String {
    let mut text = chinese_name(role).to_string();
    if let Some(promoted) = promotion {
        text.push('=');
        text.push_str(chinese_name(promoted));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::{chinese, chinese_reveal};
    use crate::games::chess_gjq::{Move, Position, Role, Square};

    fn sq(name: &str) -> Square {
        Square::parse(name).expect("square")
    }

    #[test]
    fn rule_book_examples() {
        // 9.3: "e2—e4车", "暗马g1—f3后", "暗车a1×a8兵=后", "后d1-d5".
        let start = Position::startpos();
        let pawn = chinese(&start, Move::new(sq("e2"), sq("e4")));
        assert_eq!(
            format!("{pawn}{}", chinese_reveal(Role::Rook, None)),
            "e2-e4车"
        );
        let knight = chinese(&start, Move::new(sq("g1"), sq("f3")));
        assert_eq!(
            format!("{knight}{}", chinese_reveal(Role::Queen, None)),
            "暗马g1-f3后"
        );
        let open = Position::from_fen("x3k3/8/8/8/8/8/8/X3K3 w - - 0 1").expect("fen");
        let rook = chinese(&open, Move::new(sq("a1"), sq("a8")));
        let reveal = chinese_reveal(Role::Pawn, Some(Role::Queen));
        assert_eq!(format!("{rook}{reveal}"), "暗车a1×a8兵=后");
        let queen = Position::from_fen("4k3/8/8/8/8/8/8/3QK3 w - - 0 1").expect("fen");
        assert_eq!(chinese(&queen, Move::new(sq("d1"), sq("d5"))), "后d1-d5");
    }

    #[test]
    fn castling_takes_the_reveal() {
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/4K2X w K - 0 1").expect("fen");
        let castle = chinese(&pos, Move::new(sq("e1"), sq("g1")));
        assert_eq!(
            format!("{castle}{}", chinese_reveal(Role::Knight, None)),
            "0-0马"
        );
    }
}
