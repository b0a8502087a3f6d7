//! Squares, files, ranks and colours.

use core::fmt;
use core::str::FromStr;

/// A side: white or black.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    /// White moves first.
    White = 0,
    /// Black.
    Black = 1,
}

impl Color {
    /// Both colours, white first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The other side.
    #[inline]
    pub const fn flip(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0 for white, 1 for black.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The rank this side's pieces start on (1 for white, 8 for black).
    #[inline]
    pub const fn back_rank(self) -> Rank {
        match self {
            Color::White => Rank::First,
            Color::Black => Rank::Eighth,
        }
    }

    /// `"white"` or `"black"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Color {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "white" | "w" => Ok(Color::White),
            "black" | "b" => Ok(Color::Black),
            _ => Err(ParseError::Color),
        }
    }
}

/// What went wrong parsing a square, colour, piece or move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// Not `a1`..`h8`.
    Square,
    /// Not `white`/`black`.
    Color,
    /// Not a FEN piece letter.
    Piece,
    /// Not a UCI move such as `e2e4` or `e7e8q`.
    Move,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParseError::Square => "invalid square (expected a1..h8)",
            ParseError::Color => "invalid colour (expected white or black)",
            ParseError::Piece => "invalid piece (expected one of PNBRQKpnbrqk)",
            ParseError::Move => "invalid move (expected UCI such as e2e4 or e7e8q)",
        })
    }
}

impl core::error::Error for ParseError {}

/// A file, `a` to `h`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum File {
    A,
    B,
    C,
    D,
    E,
    F,
    G,
    H,
}

impl File {
    /// All files, a to h.
    pub const ALL: [File; 8] = [
        File::A,
        File::B,
        File::C,
        File::D,
        File::E,
        File::F,
        File::G,
        File::H,
    ];

    /// The file with this index (0 = a); panics on 8 or more.
    #[inline]
    pub const fn index_const(i: usize) -> File {
        File::ALL[i]
    }

    /// Its letter.
    pub const fn char(self) -> char {
        (b'a' + self as u8) as char
    }
}

/// A rank, `1` to `8`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum Rank {
    First,
    Second,
    Third,
    Fourth,
    Fifth,
    Sixth,
    Seventh,
    Eighth,
}

impl Rank {
    /// All ranks, 1 to 8.
    pub const ALL: [Rank; 8] = [
        Rank::First,
        Rank::Second,
        Rank::Third,
        Rank::Fourth,
        Rank::Fifth,
        Rank::Sixth,
        Rank::Seventh,
        Rank::Eighth,
    ];

    /// The rank with this index (0 = rank 1); panics on 8 or more.
    #[inline]
    pub const fn index_const(i: usize) -> Rank {
        Rank::ALL[i]
    }

    /// Seen from `color`'s side: rank 1 for black is rank 8.
    #[inline]
    pub const fn relative_to(self, color: Color) -> Rank {
        match color {
            Color::White => self,
            Color::Black => Rank::ALL[7 - self as usize],
        }
    }

    /// Its digit.
    pub const fn char(self) -> char {
        (b'1' + self as u8) as char
    }
}

macro_rules! squares {
    ($($sq:ident),* $(,)?) => {
        /// One of the 64 squares, a1 = 0 .. h8 = 63 (rank-major, as python-chess numbers them).
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        #[allow(missing_docs)]
        pub enum Square { $($sq),* }

        impl Square {
            /// All squares, a1 to h8.
            pub const ALL: [Square; 64] = [$(Square::$sq),*];
        }
    };
}

squares! {
    A1, B1, C1, D1, E1, F1, G1, H1,
    A2, B2, C2, D2, E2, F2, G2, H2,
    A3, B3, C3, D3, E3, F3, G3, H3,
    A4, B4, C4, D4, E4, F4, G4, H4,
    A5, B5, C5, D5, E5, F5, G5, H5,
    A6, B6, C6, D6, E6, F6, G6, H6,
    A7, B7, C7, D7, E7, F7, G7, H7,
    A8, B8, C8, D8, E8, F8, G8, H8,
}

impl Square {
    /// The number of squares.
    pub const NUM: usize = 64;

    /// The square at `file` and `rank`.
    #[inline]
    pub const fn new(file: File, rank: Rank) -> Square {
        Square::ALL[rank as usize * 8 + file as usize]
    }

    /// The square with this index (a1 = 0); panics on 64 or more.
    #[inline]
    pub const fn index_const(i: usize) -> Square {
        Square::ALL[i]
    }

    /// The square with this index, or `None` past h8.
    #[inline]
    pub const fn try_index(i: usize) -> Option<Square> {
        if i < 64 { Some(Square::ALL[i]) } else { None }
    }

    /// Its index, a1 = 0 .. h8 = 63.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Its file.
    #[inline]
    pub const fn file(self) -> File {
        File::ALL[self as usize & 7]
    }

    /// Its rank.
    #[inline]
    pub const fn rank(self) -> Rank {
        Rank::ALL[self as usize >> 3]
    }

    /// The square `df` files and `dr` ranks away, if it is on the board.
    #[inline]
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = (self as usize & 7) as i8 + df;
        let r = (self as usize >> 3) as i8 + dr;
        if f >= 0 && f < 8 && r >= 0 && r < 8 {
            Some(Square::ALL[(r * 8 + f) as usize])
        } else {
            None
        }
    }

    /// The square one rank forward from `color`'s point of view, if any.
    #[inline]
    pub const fn forward(self, color: Color) -> Option<Square> {
        match color {
            Color::White => self.offset(0, 1),
            Color::Black => self.offset(0, -1),
        }
    }

    /// The same square mirrored top to bottom (a1 <-> a8).
    #[inline]
    pub const fn flip_rank(self) -> Square {
        Square::ALL[self as usize ^ 56]
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write;
        f.write_char(self.file().char())?;
        f.write_char(self.rank().char())
    }
}

impl FromStr for Square {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.as_bytes() {
            &[f @ b'a'..=b'h', r @ b'1'..=b'8'] => Ok(Square::new(
                File::ALL[(f - b'a') as usize],
                Rank::ALL[(r - b'1') as usize],
            )),
            _ => Err(ParseError::Square),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_round_trips() {
        for sq in Square::ALL {
            let mut buf = [0u8; 2];
            buf[0] = sq.file().char() as u8;
            buf[1] = sq.rank().char() as u8;
            let s = core::str::from_utf8(&buf).unwrap();
            assert_eq!(s.parse::<Square>(), Ok(sq));
            assert_eq!(Square::new(sq.file(), sq.rank()), sq);
        }
        assert!("i1".parse::<Square>().is_err());
        assert!("a9".parse::<Square>().is_err());
        assert!("a".parse::<Square>().is_err());
        assert!("a10".parse::<Square>().is_err());
    }

    #[test]
    fn offsets_stay_on_board() {
        assert_eq!(Square::H1.offset(1, 0), None);
        assert_eq!(Square::A1.offset(-1, 0), None);
        assert_eq!(Square::E4.offset(1, 1), Some(Square::F5));
        assert_eq!(Square::E2.forward(Color::Black), Some(Square::E1));
        assert_eq!(Square::E8.forward(Color::White), None);
    }
}
