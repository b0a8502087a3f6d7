//! Our own side: known exactly, stored once for all hypotheses.

use crate::bitboard::Bitboard;
use crate::board::{Board, Castling};
use crate::piece::PieceKind;
use crate::rules::Move;
use crate::square::{Color, File, Rank, Square};

/// Our pieces, castling rights and en-passant square.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Own {
    /// Our colour.
    pub color: Color,
    /// Our pieces by kind.
    pub pieces: [Bitboard; 6],
    /// Our castling rights (the opponent's bits are always clear).
    pub castling: Castling,
    /// The square behind our pawn that has just double-stepped (python-chess
    /// sets it after every double step), where the opponent may take it.
    pub ep: Option<Square>,
}

impl Own {
    /// Nothing (for filling storage).
    pub const EMPTY: Own = Own {
        color: Color::White,
        pieces: [Bitboard::EMPTY; 6],
        castling: Castling::NONE,
        ep: None,
    };

    /// `color`'s half of `board`.
    pub fn from_board(board: &Board, color: Color) -> Own {
        let mut pieces = [Bitboard::EMPTY; 6];
        for kind in PieceKind::ALL {
            pieces[kind as usize] = board.pieces(color, kind);
        }
        let mut castling = Castling::NONE;
        for side in [true, false] {
            castling.set(color, side, board.castling().has(color, side));
        }
        let ep = if board.turn() != color {
            board.ep_square()
        } else {
            None
        };
        Own {
            color,
            pieces,
            castling,
            ep,
        }
    }

    /// All our pieces.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        for p in self.pieces {
            bb |= p;
        }
        bb
    }

    /// The kind of our piece on `sq`.
    #[inline]
    pub fn kind_at(&self, sq: Square) -> Option<PieceKind> {
        PieceKind::ALL
            .into_iter()
            .find(|&k| self.pieces[k as usize].contains(sq))
    }

    /// The opponent captured our piece on `sq` (their move also clears our
    /// en-passant square).
    pub fn lose(&mut self, sq: Square) {
        for p in &mut self.pieces {
            p.remove(sq);
        }
        if let Some((color, side)) = Castling::corner(sq)
            && color == self.color
        {
            self.castling.set(color, side, false);
        }
        self.ep = None;
    }

    /// The opponent moved without capturing: only our en-passant square goes.
    pub fn opponent_moved(&mut self) {
        self.ep = None;
    }

    /// Plays our taken move on our pieces (python-chess `push` semantics).
    pub fn play(&mut self, taken: Option<Move>) {
        self.ep = None;
        let Some(mv) = taken else { return };
        let Some(kind) = self.kind_at(mv.from) else {
            return;
        };
        self.pieces[kind as usize].remove(mv.from);
        for p in &mut self.pieces {
            p.remove(mv.to);
        }
        for sq in [mv.from, mv.to] {
            if let Some((color, side)) = Castling::corner(sq)
                && color == self.color
            {
                self.castling.set(color, side, false);
            }
        }
        let us = self.color;
        match kind {
            PieceKind::King => {
                self.castling.clear(us);
                let castle = mv.from == Castling::king_square(us)
                    && mv.to.rank() == mv.from.rank()
                    && matches!(mv.to.file(), File::G | File::C);
                if castle {
                    let king_side = mv.to.file() == File::G;
                    let rank = mv.from.rank();
                    let (rook_from, rook_to) = if king_side {
                        (File::H, File::F)
                    } else {
                        (File::A, File::D)
                    };
                    self.pieces[PieceKind::Rook as usize].remove(Square::new(rook_from, rank));
                    self.pieces[PieceKind::Rook as usize].insert(Square::new(rook_to, rank));
                }
                self.pieces[PieceKind::King as usize].insert(mv.to);
            }
            PieceKind::Pawn => {
                if mv.from.rank() == Rank::Second.relative_to(us)
                    && mv.to.rank() == Rank::Fourth.relative_to(us)
                {
                    self.ep = mv.from.forward(us);
                }
                let kind = mv.promotion.unwrap_or(PieceKind::Pawn);
                self.pieces[kind as usize].insert(mv.to);
            }
            _ => self.pieces[kind as usize].insert(mv.to),
        }
    }

    /// The full board: our pieces plus the hypothesis's, with `turn` to move.
    pub fn board_with(&self, h: &super::Hypothesis, turn: Color) -> Board {
        let them = self.color.flip();
        let u = h.unpack();
        let mut b = Board::EMPTY;
        for kind in PieceKind::ALL {
            b.pieces[kind as usize] = self.pieces[kind as usize] | u.kinds[kind as usize];
        }
        b.colors[self.color as usize] = self.occupied();
        b.colors[them as usize] = u.occupied;
        b.turn = turn;
        let mut castling = self.castling;
        for side in [true, false] {
            if u.castle_rooks.contains(Castling::rook_square(them, side)) {
                castling.set(them, side, true);
            }
        }
        b.castling = castling;
        b.ep = if turn == self.color {
            u.ep_pawn.first().and_then(|sq| sq.forward(self.color))
        } else {
            self.ep
        };
        b
    }
}
