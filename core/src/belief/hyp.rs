//! The packed hypothesis: the opponent's half of a position in 24 bytes.
//!
//! Three bit-planes give every square a 3-bit code. Only the opponent's pieces
//! are stored (ours are known exactly and kept once, in [`Own`](super::Own)).
//!
//! | code | meaning |
//! |------|---------|
//! | 0 | empty (or one of our pieces) |
//! | 1 | pawn |
//! | 2 | knight |
//! | 3 | bishop |
//! | 4 | rook |
//! | 5 | queen |
//! | 6 | king |
//! | 7 | special: on a back-rank corner, a rook that still carries its castling right; elsewhere a pawn that has just double-stepped and that one of our pawns could take en passant |
//!
//! The special code keeps castling rights and the en-passant state inside the
//! 24 bytes, and a position has exactly one encoding, so equal positions are
//! equal hypotheses (the X-FEN identity: an en-passant square counts only when
//! a capture is possible).

use crate::bitboard::Bitboard;
use crate::board::{Board, Castling};
use crate::piece::{Piece, PieceKind};
use crate::square::{Color, Square};

/// The opponent's pieces, castling rights and en-passant state in one position.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
#[repr(C)]
pub struct Hypothesis {
    pub(crate) planes: [u64; 3],
}

/// Squares where the special code means "rook with castling right".
pub(crate) const CORNERS: u64 = (1 << 0) | (1 << 7) | (1 << 56) | (1 << 63);

/// A hypothesis unpacked into bitboards.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Unpacked {
    /// The opponent's pieces by kind (castling rooks and en-passant pawns included).
    pub kinds: [Bitboard; 6],
    /// Rooks on their corner that still carry the castling right.
    pub castle_rooks: Bitboard,
    /// A pawn that has just double-stepped and may be taken en passant.
    pub ep_pawn: Bitboard,
    /// All of the opponent's pieces.
    pub occupied: Bitboard,
}

impl Hypothesis {
    /// No pieces at all.
    pub const EMPTY: Hypothesis = Hypothesis { planes: [0; 3] };

    /// The code (0..=7) on `sq`.
    #[inline]
    pub const fn code(&self, sq: Square) -> u8 {
        let s = sq as u32;
        ((self.planes[0] >> s & 1)
            | (self.planes[1] >> s & 1) << 1
            | (self.planes[2] >> s & 1) << 2) as u8
    }

    /// Writes `code` on `sq`.
    #[inline]
    pub fn set_code(&mut self, sq: Square, code: u8) {
        let bit = 1u64 << sq as u32;
        for (i, plane) in self.planes.iter_mut().enumerate() {
            if code >> i & 1 != 0 {
                *plane |= bit;
            } else {
                *plane &= !bit;
            }
        }
    }

    /// Every square holding an opponent piece.
    #[inline]
    pub const fn occupied(&self) -> Bitboard {
        Bitboard(self.planes[0] | self.planes[1] | self.planes[2])
    }

    /// Squares with the special code.
    #[inline]
    pub const fn specials(&self) -> Bitboard {
        Bitboard(self.planes[0] & self.planes[1] & self.planes[2])
    }

    /// The planes with the special code replaced by what a sense shows: a rook
    /// on a corner, a pawn elsewhere.
    #[inline]
    pub const fn visible_planes(&self) -> [u64; 3] {
        let [p0, p1, p2] = self.planes;
        let s = p0 & p1 & p2;
        [p0 & !(s & CORNERS), p1 & !s, p2 & !(s & !CORNERS)]
    }

    /// Unpacks into bitboards.
    #[inline]
    pub fn unpack(&self) -> Unpacked {
        let [p0, p1, p2] = self.planes;
        let s = p0 & p1 & p2;
        let castle_rooks = s & CORNERS;
        let ep_pawn = s & !CORNERS;
        let kinds = [
            Bitboard((p0 & !p1 & !p2) | ep_pawn),
            Bitboard(!p0 & p1 & !p2),
            Bitboard(p0 & p1 & !p2),
            Bitboard((!p0 & !p1 & p2) | castle_rooks),
            Bitboard(p0 & !p1 & p2),
            Bitboard(!p0 & p1 & p2),
        ];
        Unpacked {
            kinds,
            castle_rooks: Bitboard(castle_rooks),
            ep_pawn: Bitboard(ep_pawn),
            occupied: Bitboard(p0 | p1 | p2),
        }
    }

    /// The piece kind on `sq`, if any.
    #[inline]
    pub fn kind_at(&self, sq: Square) -> Option<PieceKind> {
        match self.code(sq) {
            0 => None,
            7 => Some(if CORNERS >> sq as u32 & 1 != 0 {
                PieceKind::Rook
            } else {
                PieceKind::Pawn
            }),
            c => Some(PieceKind::index_const(c as usize - 1)),
        }
    }

    /// The opponent (`them`) half of `board`. The en-passant square is kept
    /// only if `board`'s side to move is not `them` and a pawn of the side to
    /// move could take there.
    pub fn from_board(board: &Board, them: Color) -> Hypothesis {
        let mut h = Hypothesis::EMPTY;
        for sq in board.by_color(them) {
            let kind = board.kind_at(sq).expect("occupied");
            h.set_code(sq, kind as u8 + 1);
        }
        for king_side in [true, false] {
            if board.castling().has(them, king_side) {
                h.set_code(Castling::rook_square(them, king_side), 7);
            }
        }
        if board.turn() != them
            && let Some(ep) = board.capturable_ep_square()
            && let Some(pawn) = ep.forward(them)
        {
            h.set_code(pawn, 7);
        }
        h
    }

    /// Whether any special code marks an en-passant pawn.
    #[inline]
    pub const fn has_ep(&self) -> bool {
        self.planes[0] & self.planes[1] & self.planes[2] & !CORNERS != 0
    }

    /// The same hypothesis with the en-passant mark dropped.
    #[inline]
    pub const fn without_ep(&self) -> Hypothesis {
        let [p0, p1, p2] = self.planes;
        let ep = p0 & p1 & p2 & !CORNERS;
        Hypothesis {
            planes: [p0, p1 & !ep, p2 & !ep],
        }
    }

    /// The piece of colour `them` on `sq`, if any.
    #[inline]
    pub fn piece_at(&self, sq: Square, them: Color) -> Option<Piece> {
        self.kind_at(sq).map(|k| Piece::new(k, them))
    }

    /// A 64-bit hash of the planes (for deduplication). Children of one
    /// parent differ in a few squares anywhere on the board, so every input
    /// bit must reach the low bits (the table index) and the high bits (the
    /// fingerprint): each plane is multiplied by its own odd constant, the
    /// sum goes through a full avalanche finaliser.
    #[inline]
    pub const fn hash64(&self) -> u64 {
        let mut h = self.planes[0].wrapping_mul(0x9e37_79b9_7f4a_7c15)
            ^ self.planes[1]
                .rotate_left(21)
                .wrapping_mul(0xc2b2_ae3d_27d4_eb4f)
            ^ self.planes[2]
                .rotate_left(42)
                .wrapping_mul(0x1656_67b1_9e37_79f9);
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_spreads_every_square_into_index_and_fingerprint() {
        // Flipping any single bit of any plane changes the low 16 bits (the
        // table index) and the top 24 bits (the fingerprint).
        let base = Hypothesis::from_board(&Board::start(), Color::Black);
        for plane in 0..3 {
            for bit in 0..64 {
                let mut h = base;
                h.planes[plane] ^= 1 << bit;
                let (a, b) = (base.hash64(), h.hash64());
                assert_ne!(a & 0xffff, b & 0xffff, "plane {plane} bit {bit}: index");
                assert_ne!(a >> 40, b >> 40, "plane {plane} bit {bit}: fingerprint");
            }
        }
    }

    #[test]
    fn start_position_round_trips_through_codes() {
        let b = Board::start();
        let h = Hypothesis::from_board(&b, Color::Black);
        assert_eq!(core::mem::size_of::<Hypothesis>(), 24);
        assert_eq!(h.kind_at(Square::A8), Some(PieceKind::Rook));
        assert_eq!(h.code(Square::A8), 7, "castling rook");
        assert_eq!(h.code(Square::E8), 6);
        assert_eq!(h.code(Square::E7), 1);
        let u = h.unpack();
        assert_eq!(u.kinds[PieceKind::Pawn as usize].len(), 8);
        assert_eq!(u.kinds[PieceKind::Rook as usize].len(), 2);
        assert_eq!(u.castle_rooks.len(), 2);
        assert_eq!(u.occupied, b.by_color(Color::Black));
        let v = h.visible_planes();
        assert_eq!(v[0] & (1 << 56), 0);
        assert_ne!(v[2] & (1 << 56), 0);
    }
}
