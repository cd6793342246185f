//! A move named by its two squares, as each game's ruling texts and scoresheet write it, so
//! that one game reads in one notation throughout a replay.

use crate::event::Square;

/// xiangqi in ICCS as UCCI engines write it (`b0d1`, the form of the cycle and chase texts),
/// chess_gjq as 9.3 writes it (`e2-e4`), draughts as article 10 does (`32-28`, `28x19` when
/// `capture`); a renju stone by its point alone (`h8`).
pub fn move_text(from: Square, to: Square, capture: bool) -> String {
    match from {
        Square::Xiangqi(_) => format!("{from}{to}"),
        Square::ChessGjq(_) => format!("{from}-{to}"),
        Square::Renju(_) => to.to_string(),
        Square::Draughts(_) => {
            let sep = if capture { 'x' } else { '-' };
            format!("{from}{sep}{to}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Variant;

    fn text(variant: Variant, from: &str, to: &str) -> String {
        let sq = |s| Square::parse_text(variant, s).expect("square");
        move_text(sq(from), sq(to), false)
    }

    #[test]
    fn each_game_keeps_its_own_notation() {
        assert_eq!(text(Variant::Xiangqi, "b0", "d1"), "b0d1");
        assert_eq!(text(Variant::ChessGjq, "e2", "e4"), "e2-e4");
        let sq = |n| Square::parse_number(Variant::Draughts, n).expect("square");
        assert_eq!(move_text(sq(32), sq(28), false), "32-28");
        assert_eq!(move_text(sq(28), sq(19), true), "28x19");
    }
}
