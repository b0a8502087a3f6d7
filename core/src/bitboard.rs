//! A set of squares in one `u64`.

use crate::square::{File, Rank, Square};
use core::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of squares: bit `i` is square `i` (a1 = bit 0, h8 = bit 63).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// No squares.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// Every square.
    pub const FULL: Bitboard = Bitboard(!0);

    /// The single square `sq`.
    #[inline]
    pub const fn square(sq: Square) -> Bitboard {
        Bitboard(1 << sq as u8)
    }

    /// Every square of `file`.
    #[inline]
    pub const fn file(file: File) -> Bitboard {
        Bitboard(0x0101_0101_0101_0101 << file as u8)
    }

    /// Every square of `rank`.
    #[inline]
    pub const fn rank(rank: Rank) -> Bitboard {
        Bitboard(0xff << (8 * rank as u8))
    }

    /// Whether `sq` is in the set.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq as u8 & 1 != 0
    }

    /// Adds `sq`.
    #[inline]
    pub fn insert(&mut self, sq: Square) {
        self.0 |= 1 << sq as u8;
    }

    /// Removes `sq`.
    #[inline]
    pub fn remove(&mut self, sq: Square) {
        self.0 &= !(1 << sq as u8);
    }

    /// The set with `sq` added.
    #[inline]
    #[must_use]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1 << sq as u8)
    }

    /// The set with `sq` removed.
    #[inline]
    #[must_use]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq as u8))
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set has at least one square.
    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// The number of squares.
    #[inline]
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// The lowest square, if any.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::index_const(self.0.trailing_zeros() as usize))
        }
    }

    /// The highest square, if any.
    #[inline]
    pub const fn last(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::index_const(63 - self.0.leading_zeros() as usize))
        }
    }

    /// Whether the two sets share a square.
    #[inline]
    pub const fn intersects(self, other: Bitboard) -> bool {
        self.0 & other.0 != 0
    }

    /// The squares in ascending order.
    #[inline]
    pub fn iter(self) -> BitIter {
        BitIter(self.0)
    }

    /// The set moved one rank forward from `white`'s side (up) or black's (down).
    #[inline]
    pub const fn shift_forward(self, white: bool) -> Bitboard {
        if white {
            Bitboard(self.0 << 8)
        } else {
            Bitboard(self.0 >> 8)
        }
    }
}

impl core::fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Bitboard({:#018x})", self.0)
    }
}

/// Iterator over the squares of a [`Bitboard`], lowest first.
#[derive(Clone)]
pub struct BitIter(u64);

impl Iterator for BitIter {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(Square::index_const(sq))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for BitIter {}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = BitIter;
    fn into_iter(self) -> BitIter {
        self.iter()
    }
}

macro_rules! binop {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $tra for Bitboard {
            #[inline]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

binop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
binop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

/// Draws a [`Bitboard`] as an 8x8 picture, rank 8 first; `X` marks a square in the set.
///
/// # Examples
/// ```
/// use rbc_core::{bitboard, Bitboard, Square};
/// let bb = bitboard! {
///     . . . . . . . .
///     . . . . . . . .
///     . . . . . . . .
///     . . . . . . . .
///     . . . . X . . .
///     . . . . . . . .
///     . . . . . . . .
///     X . . . . . . .
/// };
/// assert_eq!(bb, Bitboard::square(Square::E4) | Bitboard::square(Square::A1));
/// ```
#[macro_export]
macro_rules! bitboard {
    ($($sq:tt)*) => {{
        const CELLS: &[u8] = stringify!($($sq)*).as_bytes();
        let mut bits = 0u64;
        let mut i = 0usize;
        let mut n = 0usize;
        while i < CELLS.len() {
            let c = CELLS[i];
            if c == b'X' || c == b'.' {
                if c == b'X' {
                    let rank = 7 - n / 8;
                    let file = n % 8;
                    bits |= 1u64 << (rank * 8 + file);
                }
                n += 1;
            }
            i += 1;
        }
        assert!(n == 64, "bitboard! needs 64 cells");
        $crate::Bitboard(bits)
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterates_in_order() {
        let bb = Bitboard::square(Square::H8)
            | Bitboard::square(Square::A1)
            | Bitboard::square(Square::E4);
        let mut it = bb.iter();
        assert_eq!(it.len(), 3);
        assert_eq!(it.next(), Some(Square::A1));
        assert_eq!(it.next(), Some(Square::E4));
        assert_eq!(it.next(), Some(Square::H8));
        assert_eq!(it.next(), None);
        assert_eq!(bb.first(), Some(Square::A1));
        assert_eq!(bb.last(), Some(Square::H8));
    }

    #[test]
    fn files_and_ranks() {
        for sq in Square::ALL {
            assert!(Bitboard::file(sq.file()).contains(sq));
            assert!(Bitboard::rank(sq.rank()).contains(sq));
            assert_eq!(
                (Bitboard::file(sq.file()) & Bitboard::rank(sq.rank())),
                Bitboard::square(sq)
            );
        }
    }
}
