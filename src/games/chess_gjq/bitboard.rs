//! Sets of squares as 64-bit masks: bit `i` is the square with index `i`.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

use super::square::Square;

/// A set of squares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bitboard(pub u64);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);

    /// The set holding only `sq`.
    pub fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    /// All squares of one rank (0 = rank 1).
    pub fn rank(rank: u8) -> Bitboard {
        Bitboard(0xff << (8 * u32::from(rank)))
    }

    pub fn contains(self, sq: Square) -> bool {
        self.0 & (1 << sq.index()) != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn any(self) -> bool {
        self.0 != 0
    }

    pub fn count(self) -> usize {
        // A u64 has at most 64 bits set, so the count always fits.
        usize::try_from(self.0.count_ones()).unwrap_or(64)
    }

    /// The lowest square in the set, if any.
    pub fn first(self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let index = u8::try_from(self.0.trailing_zeros()).ok()?;
        Square::new(index % 8, index / 8)
    }

    /// The highest square in the set, if any.
    pub fn last(self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let index = u8::try_from(63 - self.0.leading_zeros()).ok()?;
        Square::new(index % 8, index / 8)
    }

    pub fn insert(&mut self, sq: Square) {
        self.0 |= 1 << sq.index();
    }

    pub fn remove(&mut self, sq: Square) {
        self.0 &= !(1 << sq.index());
    }
}

impl Iterator for Bitboard {
    type Item = Square;

    /// Squares in ascending index order, emptying the set.
    fn next(&mut self) -> Option<Square> {
        let sq = self.first()?;
        self.0 &= self.0 - 1;
        Some(sq)
    }
}

impl BitAnd for Bitboard {
    type Output = Bitboard;
    fn bitand(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & rhs.0)
    }
}

impl BitOr for Bitboard {
    type Output = Bitboard;
    fn bitor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 | rhs.0)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl BitAndAssign for Bitboard {
    fn bitand_assign(&mut self, rhs: Bitboard) {
        self.0 &= rhs.0;
    }
}

impl BitOrAssign for Bitboard {
    fn bitor_assign(&mut self, rhs: Bitboard) {
        self.0 |= rhs.0;
    }
}

#[cfg(test)]
mod tests {
    use super::super::square::Square;
    use super::Bitboard;

    #[test]
    fn iterates_in_index_order() {
        let e4 = Square::parse("e4").unwrap();
        let a1 = Square::parse("a1").unwrap();
        let set = Bitboard::from_square(e4) | Bitboard::from_square(a1);
        assert_eq!(set.collect::<Vec<_>>(), vec![a1, e4]);
        assert_eq!(set.last(), Some(e4));
        assert_eq!(Bitboard::rank(1).count(), 8);
    }
}
