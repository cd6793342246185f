//! How a game's board is laid out for a feed: the squares a field update names, the cell of
//! [`Placement::cells`] each stands for, and the placement text of a set of cells.
//!
//! `games::sensor` reads and writes a [`Placement`] but builds one only from text, so the
//! bridge folds field updates into plain cells and reads the text it writes back through
//! [`sensor::read`]: every report it sends has passed the game's own reader.

use crate::games::Variant;
use crate::games::sensor::{self, Placement};

/// A game's board as square names and cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Files `a..` left to right and ranks numbered from `first_rank` at the bottom; cells run
    /// from the top row down (the FEN's order).
    Rows {
        width: usize,
        height: usize,
        first_rank: usize,
    },
    /// Squares numbered 1..=count (draughts, FMJD numbering), cell `n - 1`.
    Numbered { count: usize },
}

impl Layout {
    /// The layout of `variant`'s board (log format, "Squares").
    pub fn of(variant: Variant) -> Layout {
        match variant {
            // chess_gjq a1-h8, xiangqi ICCS a0-i9, renju a1-o15.
            Variant::ChessGjq => Layout::rows(8, 8, 1),
            Variant::Xiangqi => Layout::rows(9, 10, 0),
            Variant::Renju => Layout::rows(15, 15, 1),
            Variant::Draughts => Layout::Numbered { count: 50 },
        }
    }

    fn rows(width: usize, height: usize, first_rank: usize) -> Layout {
        Layout::Rows {
            width,
            height,
            first_rank,
        }
    }

    /// The row width `sensor::write_placement` takes (`None`: draughts lists).
    pub fn width(self) -> Option<usize> {
        match self {
            Layout::Rows { width, .. } => Some(width),
            Layout::Numbered { .. } => None,
        }
    }

    /// The cell of a square named as the game's log names it (`e2`, `e0`, `h8`, `32`).
    pub fn cell(self, square: &str) -> Option<usize> {
        match self {
            Layout::Numbered { count } => {
                let n: usize = square.parse().ok()?;
                (1..=count).contains(&n).then(|| n - 1)
            }
            Layout::Rows {
                width,
                height,
                first_rank,
            } => {
                let (file, rank) = square.split_at_checked(1)?;
                let file = usize::from(file.bytes().next()?.checked_sub(b'a')?);
                // "e02" is no square: ranks are written without leading zeros.
                if rank.starts_with('0') && rank.len() > 1 {
                    return None;
                }
                let rank: usize = rank.parse().ok()?;
                let from_bottom = rank.checked_sub(first_rank)?;
                (file < width && from_bottom < height)
                    .then(|| (height - 1 - from_bottom) * width + file)
            }
        }
    }

    /// The name of cell `index`, as the log writes squares.
    pub fn name(self, index: usize) -> String {
        match self {
            Layout::Numbered { .. } => (index + 1).to_string(),
            Layout::Rows {
                width,
                height,
                first_rank,
            } => {
                let file = u8::try_from(index % width).expect("a board is under 26 files wide");
                let rank = height - 1 - index / width + first_rank;
                format!("{}{rank}", char::from(b'a' + file))
            }
        }
    }

    /// The placement text of `cells`, as the `board` event writes it (rows as in a FEN,
    /// draughts as PDN lists), read back by the game's reader: an error names what the game
    /// does not accept (a letter it has no piece for).
    pub fn placement(self, variant: Variant, cells: &[Option<u8>]) -> Result<Placement, String> {
        let text = sensor::write_placement(&Placement::from_cells(cells.to_vec()), self.width());
        sensor::read(variant, &text)
    }

    /// The text of a placement, as `sensor` writes it.
    pub fn text(self, placement: &Placement) -> String {
        sensor::write_placement(placement, self.width())
    }
}

/// The board part of a start FEN: the first field, or for draughts the piece lists after the
/// side to move (`W:W31-50:B1-20` gives `W31-50:B1-20`).
pub fn board_part(variant: Variant, fen: &str) -> &str {
    match variant {
        Variant::Draughts => fen.split_once(':').map_or(fen, |(_, lists)| lists),
        _ => fen.split_whitespace().next().unwrap_or(""),
    }
}
