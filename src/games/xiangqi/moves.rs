//! A move: one piece from one point to another.

use std::fmt;

use super::square::Square;

/// A move from `from` to `to`. Displays and parses in ICCS (`h2e2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub from: Square,
    pub to: Square,
}

impl Move {
    pub fn new(from: Square, to: Square) -> Move {
        Move { from, to }
    }

    /// Parses ICCS text such as `h2e2` (lower case, as the manifests write it); also accepts
    /// `h2-e2`.
    pub fn parse(text: &str) -> Option<Move> {
        let text = text.trim();
        let (from, to) = match text.len() {
            4 => text.split_at_checked(2)?,
            5 if text.as_bytes()[2] == b'-' => (text.get(..2)?, text.get(3..)?),
            _ => return None,
        };
        Some(Move::new(Square::parse(from)?, Square::parse(to)?))
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)
    }
}

#[cfg(test)]
mod tests {
    use super::Move;

    #[test]
    fn iccs_text() {
        let mv = Move::parse("h2e2").unwrap();
        assert_eq!(mv.to_string(), "h2e2");
        assert_eq!(Move::parse("h2-e2"), Some(mv));
        for bad in ["h2e", "h2e22", "j2e2", "h2xe2", "é2e2"] {
            assert_eq!(Move::parse(bad), None, "{bad}");
        }
    }
}
