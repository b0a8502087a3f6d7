//! Pseudo-legal chess moves: what a move can actually do on a full board.
//!
//! These are exactly the taken moves the arbiter can produce (every revised
//! request other than a failure): sliders stop on the first piece, pawns push
//! onto empty squares and take diagonally (en passant included), castling
//! needs the right and empty squares between king and rook but ignores
//! check. [`perft`] walks them, for speed measurements and consistency
//! checks; RBC has no legality beyond this.

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::board::{Board, Castling};
use crate::piece::PieceKind;
use crate::rules::Move;
use crate::square::{File, Rank, Square};

const BACK_RANKS: Bitboard = Bitboard(0xff00_0000_0000_00ff);

/// Calls `f` with every pseudo-legal move of the side to move.
pub fn pseudo_legal(board: &Board, mut f: impl FnMut(Move)) {
    let us = board.turn();
    let own = board.by_color(us);
    let them = board.by_color(us.flip());
    let occ = own | them;
    let not_own = !own;
    for from in board.pieces(us, PieceKind::Knight) {
        for to in attacks::knight(from) & not_own {
            f(Move::new(from, to));
        }
    }
    for from in board.pieces(us, PieceKind::Bishop) {
        for to in attacks::bishop(from, occ) & not_own {
            f(Move::new(from, to));
        }
    }
    for from in board.pieces(us, PieceKind::Rook) {
        for to in attacks::rook(from, occ) & not_own {
            f(Move::new(from, to));
        }
    }
    for from in board.pieces(us, PieceKind::Queen) {
        for to in attacks::queen(from, occ) & not_own {
            f(Move::new(from, to));
        }
    }
    for from in board.pieces(us, PieceKind::King) {
        for to in attacks::king(from) & not_own {
            f(Move::new(from, to));
        }
        if from == Castling::king_square(us) {
            for king_side in [true, false] {
                let rook = Castling::rook_square(us, king_side);
                if board.castling().has(us, king_side)
                    && !attacks::between(from, rook).intersects(occ)
                {
                    let file = if king_side { File::G } else { File::C };
                    f(Move::new(from, Square::new(file, from.rank())));
                }
            }
        }
    }
    let ep = board.ep_square().filter(|&ep| !occ.contains(ep));
    let fifth = Bitboard::rank(Rank::Fifth.relative_to(us));
    let second = Bitboard::rank(Rank::Second.relative_to(us));
    for from in board.pieces(us, PieceKind::Pawn) {
        let mut targets = attacks::pawn(us, from) & them;
        if let Some(ep) = ep
            && fifth.contains(from)
            && attacks::pawn(us, from).contains(ep)
        {
            targets.insert(ep);
        }
        if let Some(one) = from.forward(us)
            && !occ.contains(one)
        {
            targets.insert(one);
            if second.contains(from)
                && let Some(two) = one.forward(us)
                && !occ.contains(two)
            {
                targets.insert(two);
            }
        }
        for to in targets {
            if BACK_RANKS.contains(to) {
                for p in PieceKind::PROMOTIONS {
                    f(Move::with_promotion(from, to, Some(p)));
                }
            } else {
                f(Move::new(from, to));
            }
        }
    }
}

/// The number of pseudo-legal moves, counted with population counts only.
pub fn count(board: &Board) -> u64 {
    let us = board.turn();
    let own = board.by_color(us);
    let them = board.by_color(us.flip());
    let occ = own | them;
    let not_own = !own;
    let mut n = 0u64;
    for from in board.pieces(us, PieceKind::Knight) {
        n += (attacks::knight(from) & not_own).len() as u64;
    }
    for from in board.pieces(us, PieceKind::Bishop) | board.pieces(us, PieceKind::Queen) {
        n += (attacks::bishop(from, occ) & not_own).len() as u64;
    }
    for from in board.pieces(us, PieceKind::Rook) | board.pieces(us, PieceKind::Queen) {
        n += (attacks::rook(from, occ) & not_own).len() as u64;
    }
    for from in board.pieces(us, PieceKind::King) {
        n += (attacks::king(from) & not_own).len() as u64;
        if from == Castling::king_square(us) {
            for king_side in [true, false] {
                let rook = Castling::rook_square(us, king_side);
                if board.castling().has(us, king_side)
                    && !attacks::between(from, rook).intersects(occ)
                {
                    n += 1;
                }
            }
        }
    }
    let pawns = board.pieces(us, PieceKind::Pawn);
    if !pawns.is_empty() {
        let white = us == crate::square::Color::White;
        let empty = !occ;
        let one = pawns.shift_forward(white) & empty;
        let two = (one & Bitboard::rank(Rank::Third.relative_to(us))).shift_forward(white) & empty;
        let (west, east) = if white {
            (
                Bitboard((pawns.0 & !Bitboard::file(File::A).0) << 7),
                Bitboard((pawns.0 & !Bitboard::file(File::H).0) << 9),
            )
        } else {
            (
                Bitboard((pawns.0 & !Bitboard::file(File::A).0) >> 9),
                Bitboard((pawns.0 & !Bitboard::file(File::H).0) >> 7),
            )
        };
        let mut caps_west = west & them;
        let mut caps_east = east & them;
        if let Some(ep) = board.ep_square().filter(|&ep| !occ.contains(ep)) {
            let fifth = pawns & Bitboard::rank(Rank::Fifth.relative_to(us));
            let capturers = attacks::pawn(us.flip(), ep) & fifth;
            n += capturers.len() as u64;
            // Counted above; keep the diagonal sets free of the empty ep square.
            caps_west.remove(ep);
            caps_east.remove(ep);
        }
        let promo = BACK_RANKS;
        n += (one & !promo).len() as u64 + 4 * (one & promo).len() as u64;
        n += two.len() as u64;
        for caps in [caps_west, caps_east] {
            n += (caps & !promo).len() as u64 + 4 * (caps & promo).len() as u64;
        }
    }
    n
}

/// Leaf count of the pseudo-legal move tree to `depth` (bulk-counted at the
/// last ply). Games do not stop at a king capture here: the tree is pure
/// move generation.
pub fn perft(board: &Board, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => count(board),
        _ => {
            let mut n = 0;
            pseudo_legal(board, |mv| {
                let mut child = *board;
                child.play(Some(mv));
                n += perft(&child, depth - 1);
            });
            n
        }
    }
}

#[cfg(test)]
#[path = "../unit/movegen.rs"]
mod tests;
