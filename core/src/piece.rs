//! Piece kinds and coloured pieces.

use crate::square::{Color, ParseError};
use core::fmt;

/// A kind of piece, without colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum PieceKind {
    Pawn,
    Knight,
    Bishop,
    Rook,
    Queen,
    King,
}

impl PieceKind {
    /// All kinds, pawn first.
    pub const ALL: [PieceKind; 6] = [
        PieceKind::Pawn,
        PieceKind::Knight,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Queen,
        PieceKind::King,
    ];
    /// The kinds a pawn may promote to, in reconchess's order.
    pub const PROMOTIONS: [PieceKind; 4] = [
        PieceKind::Knight,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Queen,
    ];

    /// 0 for pawn .. 5 for king.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The kind with this index; panics on 6 or more.
    #[inline]
    pub const fn index_const(i: usize) -> PieceKind {
        PieceKind::ALL[i]
    }

    /// The lower-case letter (`p`, `n`, `b`, `r`, `q`, `k`).
    pub const fn char(self) -> char {
        match self {
            PieceKind::Pawn => 'p',
            PieceKind::Knight => 'n',
            PieceKind::Bishop => 'b',
            PieceKind::Rook => 'r',
            PieceKind::Queen => 'q',
            PieceKind::King => 'k',
        }
    }

    /// Parses a letter of either case.
    pub const fn from_char(c: char) -> Option<PieceKind> {
        match c.to_ascii_lowercase() {
            'p' => Some(PieceKind::Pawn),
            'n' => Some(PieceKind::Knight),
            'b' => Some(PieceKind::Bishop),
            'r' => Some(PieceKind::Rook),
            'q' => Some(PieceKind::Queen),
            'k' => Some(PieceKind::King),
            _ => None,
        }
    }
}

/// A piece of one colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// What it is.
    pub kind: PieceKind,
    /// Whose it is.
    pub color: Color,
}

impl Piece {
    /// A `color` piece of kind `kind`.
    pub const fn new(kind: PieceKind, color: Color) -> Piece {
        Piece { kind, color }
    }

    /// Its FEN letter: upper case for white.
    pub const fn char(self) -> char {
        let c = self.kind.char();
        match self.color {
            Color::White => c.to_ascii_uppercase(),
            Color::Black => c,
        }
    }

    /// Parses a FEN letter.
    pub const fn from_char(c: char) -> Option<Piece> {
        match PieceKind::from_char(c) {
            Some(kind) => Some(Piece::new(
                kind,
                if c.is_ascii_uppercase() {
                    Color::White
                } else {
                    Color::Black
                },
            )),
            None => None,
        }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write;
        f.write_char(self.char())
    }
}

impl core::str::FromStr for Piece {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Piece::from_char(c).ok_or(ParseError::Piece),
            _ => Err(ParseError::Piece),
        }
    }
}
