//! The 50 playable squares of the 10x10 board, numbered as the FMJD does: 1-5 on black's back
//! row (black starts on 1-20), 46-50 on white's back row (white starts on 31-50).

use std::fmt;

/// A playable (dark) square, 1..=50.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    pub const COUNT: usize = 50;

    /// The square with this FMJD number, if it is 1..=50.
    pub fn new(number: u64) -> Option<Square> {
        u8::try_from(number)
            .ok()
            .filter(|n| (1..=50).contains(n))
            .map(Square)
    }

    /// The FMJD number, 1..=50.
    pub fn number(self) -> u8 {
        self.0
    }

    /// 0-based index (number - 1), for arrays.
    pub fn index(self) -> usize {
        usize::from(self.0 - 1)
    }

    /// The square with 0-based index `index` (0..50); internal boards index by it.
    pub(super) fn of_index(index: u8) -> Square {
        debug_assert!(index < 50, "square index {index}");
        Square(index + 1)
    }

    /// The 0-based index as a `u8`, for the bit boards.
    pub(super) fn bit_index(self) -> u8 {
        self.0 - 1
    }

    /// Row 0 (squares 1-5, black's back row) .. row 9 (46-50, white's back row).
    pub fn row(self) -> u8 {
        (self.0 - 1) / 5
    }

    /// Column 0 (left, from white's view) .. 9 (right).
    pub fn column(self) -> u8 {
        let pos = (self.0 - 1) % 5;
        if self.row().is_multiple_of(2) {
            pos * 2 + 1
        } else {
            pos * 2
        }
    }

    /// The playable square at `row`, `column`, if that square is dark and on the board.
    pub fn at(row: i8, column: i8) -> Option<Square> {
        if !(0..10).contains(&row) || !(0..10).contains(&column) || (row + column) % 2 == 0 {
            return None;
        }
        let (row, column) = (u8::try_from(row).ok()?, u8::try_from(column).ok()?);
        Some(Square(row * 5 + column / 2 + 1))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::Square;

    #[test]
    fn numbers_and_coordinates_agree() {
        for n in 1..=50 {
            let sq = Square::new(n).unwrap();
            let row = i8::try_from(sq.row()).unwrap();
            let col = i8::try_from(sq.column()).unwrap();
            assert_eq!(Square::at(row, col), Some(sq), "{n}");
        }
        assert_eq!(Square::new(0), None);
        assert_eq!(Square::new(51), None);
        assert_eq!(
            (
                Square::new(1).unwrap().row(),
                Square::new(1).unwrap().column()
            ),
            (0, 1)
        );
        assert_eq!(
            (
                Square::new(46).unwrap().row(),
                Square::new(46).unwrap().column()
            ),
            (9, 0)
        );
    }
}
