//! Attack tables, all built at compile time by `const fn`.
//!
//! Leapers (knight, king, pawn captures) are one table lookup. Sliders use the
//! classical ray method: one ray per direction, cut at the first blocker found
//! with a bit scan. Every fast table has a `*_slow` twin that the tests compare
//! against on every input.

use crate::bitboard::Bitboard;
use crate::square::{Color, Square};

const KNIGHT_DELTAS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING_DELTAS: [(i8, i8); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];
const WHITE_PAWN_DELTAS: [(i8, i8); 2] = [(-1, 1), (1, 1)];
const BLACK_PAWN_DELTAS: [(i8, i8); 2] = [(-1, -1), (1, -1)];

/// The eight ray directions as (file, rank) steps. The first four increase the
/// square index, so their nearest blocker is the lowest bit.
const DIRS: [(i8, i8); 8] = [
    (0, 1),
    (1, 0),
    (1, 1),
    (-1, 1),
    (0, -1),
    (-1, 0),
    (-1, -1),
    (1, -1),
];

const fn leaper_slow(sq: usize, deltas: &[(i8, i8)]) -> Bitboard {
    let (file, rank) = ((sq % 8) as i8, (sq / 8) as i8);
    let (mut bb, mut i) = (0u64, 0);
    while i < deltas.len() {
        let (f, r) = (file + deltas[i].0, rank + deltas[i].1);
        if f >= 0 && f < 8 && r >= 0 && r < 8 {
            bb |= 1 << (r * 8 + f);
        }
        i += 1;
    }
    Bitboard(bb)
}

/// Squares a slider on `sq` reaches along `dir`, stopping at (and including)
/// the first square in `blockers`.
const fn ray_slow(sq: usize, dir: (i8, i8), blockers: u64) -> u64 {
    let (mut f, mut r) = ((sq % 8) as i8, (sq / 8) as i8);
    let mut bb = 0u64;
    loop {
        f += dir.0;
        r += dir.1;
        if f < 0 || f >= 8 || r < 0 || r >= 8 {
            break;
        }
        let bit = 1u64 << (r * 8 + f);
        bb |= bit;
        if blockers & bit != 0 {
            break;
        }
    }
    bb
}

const fn slider_slow(sq: usize, dirs: &[(i8, i8)], blockers: u64) -> Bitboard {
    let (mut bb, mut i) = (0u64, 0);
    while i < dirs.len() {
        bb |= ray_slow(sq, dirs[i], blockers);
        i += 1;
    }
    Bitboard(bb)
}

const fn leaper_table(deltas: &[(i8, i8)]) -> [Bitboard; 64] {
    let (mut table, mut sq) = ([Bitboard(0); 64], 0);
    while sq < 64 {
        table[sq] = leaper_slow(sq, deltas);
        sq += 1;
    }
    table
}

static KNIGHT: [Bitboard; 64] = leaper_table(&KNIGHT_DELTAS);
static KING: [Bitboard; 64] = leaper_table(&KING_DELTAS);
static PAWN: [[Bitboard; 64]; 2] = [
    leaper_table(&WHITE_PAWN_DELTAS),
    leaper_table(&BLACK_PAWN_DELTAS),
];

static RAYS: [[u64; 64]; 8] = RAYS_CONST;

/// `BETWEEN[a][b]`: the squares strictly between two squares on a line, else empty.
static BETWEEN: [[u64; 64]; 64] = {
    let mut table = [[0u64; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut d = 0;
        while d < 8 {
            let ray = RAYS_CONST[d][a];
            let mut rest = ray;
            while rest != 0 {
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                // The part of the ray before b: the ray from a with b as a blocker, minus b.
                table[a][b] = ray_slow(a, DIRS[d], 1u64 << b) & !(1u64 << b);
            }
            d += 1;
        }
        a += 1;
    }
    table
};

const RAYS_CONST: [[u64; 64]; 8] = {
    let mut table = [[0u64; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let mut sq = 0;
        while sq < 64 {
            table[d][sq] = ray_slow(sq, DIRS[d], 0);
            sq += 1;
        }
        d += 1;
    }
    table
};

// The sentinels of `ray_pos` and `ray_neg`: nothing lies beyond h8 in the
// increasing directions, nor beyond a1 in the decreasing ones.
const _: () = {
    let mut d = 0;
    while d < 4 {
        assert!(RAYS_CONST[d][63] == 0 && RAYS_CONST[d + 4][0] == 0);
        d += 1;
    }
};

/// Knight moves from `sq`.
#[inline]
pub fn knight(sq: Square) -> Bitboard {
    KNIGHT[sq as usize]
}

/// King moves from `sq`.
#[inline]
pub fn king(sq: Square) -> Bitboard {
    KING[sq as usize]
}

/// The squares a `color` pawn on `sq` attacks.
#[inline]
pub fn pawn(color: Color, sq: Square) -> Bitboard {
    PAWN[color as usize][sq as usize]
}

/// The ray from `sq` in an increasing direction `d`, cut after its first
/// blocker. Without a branch: with no blocker the scan finds the sentinel on
/// h8, whose rays in these directions are empty.
#[inline(always)]
fn ray_pos(d: usize, sq: usize, occ: u64) -> u64 {
    let ray = RAYS[d][sq];
    let first = ((ray & occ) | 1 << 63).trailing_zeros() as usize;
    ray ^ RAYS[d][first]
}

/// As [`ray_pos`] in a decreasing direction, with the sentinel on a1.
#[inline(always)]
fn ray_neg(d: usize, sq: usize, occ: u64) -> u64 {
    let ray = RAYS[d][sq];
    let first = 63 - ((ray & occ) | 1).leading_zeros() as usize;
    ray ^ RAYS[d][first]
}

/// Rook moves from `sq` with `occ` occupied: each ray includes its first blocker.
#[inline]
pub fn rook(sq: Square, occ: Bitboard) -> Bitboard {
    let (s, o) = (sq as usize, occ.0);
    Bitboard(ray_pos(0, s, o) | ray_pos(1, s, o) | ray_neg(4, s, o) | ray_neg(5, s, o))
}

/// Bishop moves from `sq` with `occ` occupied: each ray includes its first blocker.
#[inline]
pub fn bishop(sq: Square, occ: Bitboard) -> Bitboard {
    let (s, o) = (sq as usize, occ.0);
    Bitboard(ray_pos(2, s, o) | ray_pos(3, s, o) | ray_neg(6, s, o) | ray_neg(7, s, o))
}

/// Queen moves: rook and bishop together.
#[inline]
pub fn queen(sq: Square, occ: Bitboard) -> Bitboard {
    rook(sq, occ) | bishop(sq, occ)
}

/// The squares strictly between `a` and `b` if they share a rank, file or
/// diagonal; otherwise empty.
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(BETWEEN[a as usize][b as usize])
}

/// Slow reference for [`rook`].
pub const fn rook_slow(sq: Square, occ: Bitboard) -> Bitboard {
    slider_slow(sq as usize, &[DIRS[0], DIRS[1], DIRS[4], DIRS[5]], occ.0)
}

/// Slow reference for [`bishop`].
pub const fn bishop_slow(sq: Square, occ: Bitboard) -> Bitboard {
    slider_slow(sq as usize, &[DIRS[2], DIRS[3], DIRS[6], DIRS[7]], occ.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn leapers_match_slow() {
        for sq in Square::ALL {
            assert_eq!(knight(sq), leaper_slow(sq as usize, &KNIGHT_DELTAS));
            assert_eq!(king(sq), leaper_slow(sq as usize, &KING_DELTAS));
            assert_eq!(
                pawn(Color::White, sq),
                leaper_slow(sq as usize, &WHITE_PAWN_DELTAS)
            );
            assert_eq!(
                pawn(Color::Black, sq),
                leaper_slow(sq as usize, &BLACK_PAWN_DELTAS)
            );
        }
        assert_eq!(knight(Square::A1).len(), 2);
        assert_eq!(king(Square::E4).len(), 8);
    }

    #[test]
    fn sliders_match_slow_on_random_occupancy() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for sq in Square::ALL {
            for _ in 0..2000 {
                let occ = Bitboard(xorshift(&mut seed) & xorshift(&mut seed));
                assert_eq!(rook(sq, occ), rook_slow(sq, occ));
                assert_eq!(bishop(sq, occ), bishop_slow(sq, occ));
            }
            assert_eq!(rook(sq, Bitboard::EMPTY).len(), 14);
        }
    }

    #[test]
    fn between_is_strict_and_symmetric() {
        assert_eq!(
            between(Square::E1, Square::H1),
            Bitboard::square(Square::F1) | Bitboard::square(Square::G1)
        );
        assert_eq!(between(Square::A1, Square::H8).len(), 6);
        assert!(between(Square::A1, Square::B3).is_empty());
        for a in Square::ALL {
            for b in Square::ALL {
                assert_eq!(between(a, b), between(b, a));
                assert!(!between(a, b).contains(a) && !between(a, b).contains(b));
            }
        }
    }
}
