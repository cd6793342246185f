//! The hidden-piece rules: how an unmoved hidden piece moves (its start square's role,
//! chess_gjq 3.1.3) and what its reveal may turn out (the colour's piece set, chess_gjq 8.6).

use std::fmt;

use super::piece::{Color, Role};
use super::square::Square;

/// The role a hidden piece on `sq` moves as, if `sq` is a start square of a hidden piece of
/// `color` (chess_gjq 3.1.3): second rank pawn; a/h rook, b/g knight, c/f bishop, d queen.
/// The king's square is no such square: the kings start face up (chess_gjq 3.1.2).
pub fn start_role(color: Color, sq: Square) -> Option<Role> {
    if sq.rank() == color.relative_rank(1) {
        return Some(Role::Pawn);
    }
    if sq.rank() != color.relative_rank(0) {
        return None;
    }
    match sq.file() {
        0 | 7 => Some(Role::Rook),
        1 | 6 => Some(Role::Knight),
        2 | 5 => Some(Role::Bishop),
        3 => Some(Role::Queen),
        _ => None,
    }
}

/// How many of each role are among a colour's 15 hidden pieces (chess_gjq 2.1.3, 8.6).
pub fn quota(role: Role) -> u8 {
    match role {
        Role::Pawn => 8,
        Role::Knight | Role::Bishop | Role::Rook => 2,
        Role::Queen => 1,
        Role::King => 0,
    }
}

/// How many hidden pieces of one colour have been revealed as each role so far.
///
/// A pawn revealed with a promotion counts as a pawn: the promotion creates the new piece.
/// Captured hidden pieces stay unknown (chess_gjq 8.6), so they count as nothing here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RevealedSet {
    counts: [u8; 6],
}

impl RevealedSet {
    /// How many pieces have been revealed as `role`.
    pub fn count(&self, role: Role) -> u8 {
        self.counts[role.index()]
    }

    /// Whether the piece set still holds an unrevealed `role` (chess_gjq 8.6).
    pub fn allows(&self, role: Role) -> bool {
        self.count(role) < quota(role)
    }

    /// Records one more reveal of `role`.
    pub fn record(&mut self, role: Role) {
        self.counts[role.index()] = self.counts[role.index()].saturating_add(1);
    }
}

impl fmt::Display for RevealedSet {
    /// `2 rooks, 1 queen`, or `nothing` before the first reveal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = Role::ALL
            .into_iter()
            .filter(|&r| self.count(r) > 0)
            .map(|r| counted(self.count(r), r))
            .collect();
        if parts.is_empty() {
            f.write_str("nothing")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

/// `1 rook`, `2 rooks`.
fn counted(n: u8, role: Role) -> String {
    if n == 1 {
        format!("1 {role}")
    } else {
        format!("{n} {role}s")
    }
}

/// Why a reveal cannot stand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RevealError {
    /// The square holds no hidden piece that has just moved: turning a piece up in place or
    /// before moving it loses (chess_gjq 5.5). `pending` is the square that does await a reveal.
    NotPending {
        square: Square,
        pending: Option<Square>,
    },
    /// The colour's piece set holds no further piece of this role (chess_gjq 8.6).
    Inconsistent {
        color: Color,
        role: Role,
        revealed_so_far: RevealedSet,
    },
    /// A pawn revealed on the last rank must name its promotion (chess_gjq 4.1.2.6.2 (3)).
    PromotionMissing { square: Square },
    /// A promotion was named for a piece that does not promote.
    PromotionUnexpected { square: Square, role: Role },
    /// A pawn may promote only to a queen, rook, bishop or knight.
    InvalidPromotion { square: Square, role: Role },
}

impl RevealError {
    /// The article this reveal breaks, as `chess_gjq N.N`.
    pub fn article(&self) -> &'static str {
        match self {
            RevealError::NotPending { .. } => "chess_gjq 5.5",
            RevealError::Inconsistent { .. } => "chess_gjq 8.6",
            _ => "chess_gjq 4.1.2.6.2",
        }
    }
}

impl fmt::Display for RevealError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RevealError::NotPending { square, pending } => not_pending(f, *square, *pending),
            RevealError::Inconsistent {
                color,
                role,
                revealed_so_far,
            } => write!(
                f,
                "{color} cannot reveal another {role}: its hidden pieces held {} and it has \
                 already revealed {revealed_so_far}",
                counted(quota(*role), *role)
            ),
            RevealError::PromotionMissing { square } => write!(
                f,
                "a pawn revealed on the last rank ({square}) must be promoted to a queen, \
                 rook, bishop or knight"
            ),
            RevealError::PromotionUnexpected { square, role } => write!(
                f,
                "promotion to {role} named, but the piece revealed on {square} is no pawn on \
                 the last rank"
            ),
            RevealError::InvalidPromotion { square, role } => write!(
                f,
                "the pawn revealed on {square} cannot be promoted to a {role}"
            ),
        }
    }
}

fn not_pending(f: &mut fmt::Formatter<'_>, square: Square, pending: Option<Square>) -> fmt::Result {
    match pending {
        Some(p) => write!(
            f,
            "the piece on {square} has not just moved; the hidden piece awaiting its reveal \
             stands on {p}"
        ),
        None => write!(
            f,
            "the piece on {square} has not just moved hidden, so it may not be turned up \
             (in place or before moving)"
        ),
    }
}

impl std::error::Error for RevealError {}

#[cfg(test)]
mod tests {
    use super::super::piece::{Color, Role};
    use super::super::square::Square;
    use super::{RevealedSet, start_role};

    fn sq(name: &str) -> Square {
        Square::parse(name).unwrap()
    }

    #[test]
    fn start_squares_give_the_role_of_3_1_3() {
        let white = [
            ("a1", Some(Role::Rook)),
            ("b1", Some(Role::Knight)),
            ("c1", Some(Role::Bishop)),
            ("d1", Some(Role::Queen)),
            ("e1", None),
            ("f1", Some(Role::Bishop)),
            ("g1", Some(Role::Knight)),
            ("h1", Some(Role::Rook)),
            ("e2", Some(Role::Pawn)),
            ("e3", None),
            ("e7", None),
        ];
        for (name, role) in white {
            assert_eq!(start_role(Color::White, sq(name)), role, "{name}");
        }
        assert_eq!(start_role(Color::Black, sq("d8")), Some(Role::Queen));
        assert_eq!(start_role(Color::Black, sq("a7")), Some(Role::Pawn));
        assert_eq!(start_role(Color::Black, sq("a2")), None);
    }

    #[test]
    fn the_piece_set_runs_out() {
        let mut set = RevealedSet::default();
        assert!(set.allows(Role::Queen));
        set.record(Role::Queen);
        assert!(!set.allows(Role::Queen));
        assert!(!set.allows(Role::King));
        set.record(Role::Rook);
        set.record(Role::Rook);
        assert_eq!(set.to_string(), "2 rooks, 1 queen");
        assert_eq!(RevealedSet::default().to_string(), "nothing");
    }
}
