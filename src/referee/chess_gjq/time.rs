//! A time forfeit the rules turn into a draw: chess_gjq plays by the rules of chess where its
//! own book is silent (第一章), and a player whose flag falls does not lose when the opponent
//! cannot mate by any series of legal moves (FIDE Laws 6.9); 5.3 states only the loss.

use crate::event::Side;
use crate::games::chess_gjq::{Color, Role, Square};

use super::ChessGjqTable;

impl ChessGjqTable {
    /// Why `winner` could not mate by any series of legal moves, if that is so: it has only
    /// its king; or it has one knight or one bishop and the other side has a lone king; or
    /// every piece but the kings is a bishop and all stand on squares of one colour. A hidden
    /// piece may be anything, so none may be on the board.
    pub fn cannot_mate(&self, winner: Side) -> Option<String> {
        let winner = match winner {
            Side::First => Color::White,
            Side::Second => Color::Black,
            Side::Arbiter | Side::Board => return None,
        };
        let pos = &self.position;
        if pos.hidden_count() > 0 {
            return None;
        }
        let mut own = Vec::new();
        let mut other = Vec::new();
        for sq in (0..Square::COUNT).filter_map(Square::from_index) {
            let Some(piece) = pos.piece_at(sq) else {
                continue;
            };
            let role = piece.role?;
            if role == Role::King {
                continue;
            }
            if piece.color == winner {
                own.push((sq, role));
            } else {
                other.push((sq, role));
            }
        }
        let (w, l) = (winner.name(), winner.other().name());
        if own.is_empty() {
            return Some(format!("{w} has only its king"));
        }
        if other.is_empty() && own.len() == 1 && matches!(own[0].1, Role::Knight | Role::Bishop) {
            return Some(format!(
                "{w} has only a {} on {} against {l}'s lone king",
                own[0].1.name(),
                own[0].0
            ));
        }
        let shade = |sq: Square| (sq.file() + sq.rank()) % 2;
        let all: Vec<&(Square, Role)> = own.iter().chain(&other).collect();
        if all.iter().all(|(_, role)| *role == Role::Bishop)
            && all.windows(2).all(|p| shade(p[0].0) == shade(p[1].0))
        {
            return Some(format!(
                "every piece but the kings is a bishop on squares of one colour ({})",
                all.iter()
                    .map(|(sq, _)| sq.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use crate::event::{Header, Side};
    use crate::games::Variant;

    use super::ChessGjqTable;

    fn table(fen: &str) -> ChessGjqTable {
        let mut header = Header::new(Variant::ChessGjq, "t");
        header.start = Some(fen.to_string());
        ChessGjqTable::new(&header).expect("table")
    }

    #[test]
    fn mating_material() {
        let lone = table("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        assert!(
            lone.cannot_mate(Side::Second).is_some(),
            "black has a lone king"
        );
        assert!(lone.cannot_mate(Side::First).is_none(), "a rook mates");
        let knight = table("4k3/8/8/8/8/8/8/1N2K3 w - - 0 1");
        assert!(knight.cannot_mate(Side::First).is_some());
        let knight_v_pawn = table("4k3/4p3/8/8/8/8/8/1N2K3 w - - 0 1");
        assert!(
            knight_v_pawn.cannot_mate(Side::First).is_none(),
            "a helpmate exists"
        );
        let bishops = table("4k3/8/8/2b5/8/8/8/2B1K3 w - - 0 1");
        assert!(
            bishops.cannot_mate(Side::First).is_some(),
            "c5 and c1: both dark"
        );
        let opposite = table("4k3/8/8/3b4/8/8/8/2B1K3 w - - 0 1");
        assert!(opposite.cannot_mate(Side::First).is_none());
        let hidden = table("4k2x/8/8/8/8/8/8/4K3 w - - 0 1");
        assert!(
            hidden.cannot_mate(Side::Second).is_none(),
            "a hidden piece may be a queen"
        );
    }
}
