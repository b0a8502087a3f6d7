//! The full chess board, as the arbiter sees it, with FEN in and out.

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::piece::{Piece, PieceKind};
use crate::square::{Color, File, Rank, Square};
use core::fmt;
use core::str::FromStr;

/// Castling rights, one bit per side and wing.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, Debug)]
pub struct Castling(u8);

impl Castling {
    /// No rights.
    pub const NONE: Castling = Castling(0);
    /// All four rights.
    pub const ALL: Castling = Castling(0b1111);

    const fn bit(color: Color, king_side: bool) -> u8 {
        1 << (color as u8 * 2 + if king_side { 0 } else { 1 })
    }

    /// Whether `color` may castle on the king side (`true`) or queen side.
    #[inline]
    pub const fn has(self, color: Color, king_side: bool) -> bool {
        self.0 & Self::bit(color, king_side) != 0
    }

    /// Grants or removes one right.
    #[inline]
    pub fn set(&mut self, color: Color, king_side: bool, on: bool) {
        if on {
            self.0 |= Self::bit(color, king_side);
        } else {
            self.0 &= !Self::bit(color, king_side);
        }
    }

    /// Removes both of `color`'s rights.
    #[inline]
    pub fn clear(&mut self, color: Color) {
        self.0 &= !(0b11 << (color as u8 * 2));
    }

    /// Whether no right is left.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The raw bits: white king side 1, white queen side 2, black king side 4, black queen side 8.
    #[inline]
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// The rights from raw bits (see [`Castling::bits`]).
    #[inline]
    pub const fn from_bits(bits: u8) -> Castling {
        Castling(bits & 0b1111)
    }

    /// The right that a rook standing on `sq` carries, if `sq` is a corner.
    #[inline]
    pub const fn corner(sq: Square) -> Option<(Color, bool)> {
        match sq {
            Square::H1 => Some((Color::White, true)),
            Square::A1 => Some((Color::White, false)),
            Square::H8 => Some((Color::Black, true)),
            Square::A8 => Some((Color::Black, false)),
            _ => None,
        }
    }

    /// The corner of `color`'s rook for the given wing.
    #[inline]
    pub const fn rook_square(color: Color, king_side: bool) -> Square {
        match (color, king_side) {
            (Color::White, true) => Square::H1,
            (Color::White, false) => Square::A1,
            (Color::Black, true) => Square::H8,
            (Color::Black, false) => Square::A8,
        }
    }

    /// The square `color`'s king starts on.
    #[inline]
    pub const fn king_square(color: Color) -> Square {
        match color {
            Color::White => Square::E1,
            Color::Black => Square::E8,
        }
    }
}

/// Why a FEN string was rejected.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// Fewer than the two required fields (placement and side to move).
    MissingField,
    /// More than six fields.
    TooManyFields,
    /// The placement is not eight ranks of eight squares of known letters.
    Placement,
    /// The side to move is not `w` or `b`.
    Turn,
    /// The castling field is not `-` or a subset of `KQkq`.
    Castling,
    /// The en-passant field is not `-` or a square on rank 3 or 6.
    EnPassant,
    /// A move counter is not a number.
    Counter,
    /// A side has more than one king, or a pawn stands on the first or last rank.
    Illegal,
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FenError::MissingField => "invalid FEN: expected at least placement and side to move",
            FenError::TooManyFields => "invalid FEN: more than six fields",
            FenError::Placement => {
                "invalid FEN: placement must be 8 ranks of 8 squares using PNBRQKpnbrqk and 1-8"
            }
            FenError::Turn => "invalid FEN: side to move must be w or b",
            FenError::Castling => "invalid FEN: castling must be - or letters from KQkq",
            FenError::EnPassant => {
                "invalid FEN: en-passant square must be - or a square on rank 3 or 6"
            }
            FenError::Counter => "invalid FEN: move counters must be non-negative integers",
            FenError::Illegal => {
                "invalid FEN: more than one king of a colour, or a pawn on the first or last rank"
            }
        })
    }
}

impl core::error::Error for FenError {}

/// A complete position: both sides' pieces, side to move, castling rights,
/// en-passant square and move counters, with python-chess's conventions
/// (the en-passant square is set after every double step; castling rights are
/// kept clean, i.e. only where king and rook stand on their home squares).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Board {
    pub(crate) pieces: [Bitboard; 6],
    pub(crate) colors: [Bitboard; 2],
    pub(crate) turn: Color,
    pub(crate) castling: Castling,
    pub(crate) ep: Option<Square>,
    pub(crate) halfmove: u32,
    pub(crate) fullmove: u32,
}

impl Default for Board {
    fn default() -> Self {
        Board::start()
    }
}

const START_PIECES: [u64; 6] = [
    0x00ff_0000_0000_ff00,
    0x4200_0000_0000_0042,
    0x2400_0000_0000_0024,
    0x8100_0000_0000_0081,
    0x0800_0000_0000_0008,
    0x1000_0000_0000_0010,
];

impl Board {
    /// A board with no pieces, white to move.
    pub const EMPTY: Board = Board {
        pieces: [Bitboard::EMPTY; 6],
        colors: [Bitboard::EMPTY; 2],
        turn: Color::White,
        castling: Castling::NONE,
        ep: None,
        halfmove: 0,
        fullmove: 1,
    };

    /// The standard starting position.
    pub const fn start() -> Board {
        Board {
            pieces: [
                Bitboard(START_PIECES[0]),
                Bitboard(START_PIECES[1]),
                Bitboard(START_PIECES[2]),
                Bitboard(START_PIECES[3]),
                Bitboard(START_PIECES[4]),
                Bitboard(START_PIECES[5]),
            ],
            colors: [Bitboard(0xffff), Bitboard(0xffff_0000_0000_0000)],
            turn: Color::White,
            castling: Castling::ALL,
            ep: None,
            halfmove: 0,
            fullmove: 1,
        }
    }

    /// The side to move.
    #[inline]
    pub const fn turn(&self) -> Color {
        self.turn
    }

    /// Sets the side to move.
    #[inline]
    pub fn set_turn(&mut self, turn: Color) {
        self.turn = turn;
    }

    /// Castling rights (always clean).
    #[inline]
    pub const fn castling(&self) -> Castling {
        self.castling
    }

    /// The en-passant square, set after every double step (python-chess's convention).
    #[inline]
    pub const fn ep_square(&self) -> Option<Square> {
        self.ep
    }

    /// Half-moves since the last capture or pawn move.
    #[inline]
    pub const fn halfmove_clock(&self) -> u32 {
        self.halfmove
    }

    /// The full-move number, starting at 1 and increasing after black moves.
    #[inline]
    pub const fn fullmove_number(&self) -> u32 {
        self.fullmove
    }

    /// Sets both move counters.
    pub fn set_counters(&mut self, halfmove: u32, fullmove: u32) {
        self.halfmove = halfmove;
        self.fullmove = fullmove;
    }

    /// Every occupied square.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.colors[0] | self.colors[1]
    }

    /// `color`'s pieces.
    #[inline]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.colors[color as usize]
    }

    /// Pieces of `kind`, both colours.
    #[inline]
    pub fn by_kind(&self, kind: PieceKind) -> Bitboard {
        self.pieces[kind as usize]
    }

    /// `color`'s pieces of `kind`.
    #[inline]
    pub fn pieces(&self, color: Color, kind: PieceKind) -> Bitboard {
        self.pieces[kind as usize] & self.colors[color as usize]
    }

    /// `color`'s king, if it is still on the board.
    #[inline]
    pub fn king(&self, color: Color) -> Option<Square> {
        self.pieces(color, PieceKind::King).first()
    }

    /// The kind of piece on `sq`, if any.
    #[inline]
    pub fn kind_at(&self, sq: Square) -> Option<PieceKind> {
        if !self.occupied().contains(sq) {
            return None;
        }
        let mut k = 0;
        while k < 6 {
            if self.pieces[k].contains(sq) {
                return Some(PieceKind::index_const(k));
            }
            k += 1;
        }
        None
    }

    /// The colour of the piece on `sq`, if any.
    #[inline]
    pub fn color_at(&self, sq: Square) -> Option<Color> {
        if self.colors[0].contains(sq) {
            Some(Color::White)
        } else if self.colors[1].contains(sq) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Some(Piece::new(self.kind_at(sq)?, self.color_at(sq)?))
    }

    /// Puts `piece` on `sq`, replacing whatever stood there. Castling rights
    /// are not cleaned; call [`Board::clean_castling`] after editing.
    pub fn set_piece(&mut self, sq: Square, piece: Option<Piece>) {
        self.remove_piece(sq);
        if let Some(p) = piece {
            self.pieces[p.kind as usize].insert(sq);
            self.colors[p.color as usize].insert(sq);
        }
    }

    /// Removes and returns the piece on `sq`.
    #[inline]
    pub fn remove_piece(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.piece_at(sq)?;
        self.pieces[piece.kind as usize].remove(sq);
        self.colors[piece.color as usize].remove(sq);
        Some(piece)
    }

    /// Sets the castling rights, then cleans them.
    pub fn set_castling(&mut self, castling: Castling) {
        self.castling = castling;
        self.clean_castling();
    }

    /// Sets the en-passant square as given (no check).
    pub fn set_ep_square(&mut self, ep: Option<Square>) {
        self.ep = ep;
    }

    /// Drops every castling right whose king and rook are not both on their
    /// home squares (python-chess's `clean_castling_rights`).
    pub fn clean_castling(&mut self) {
        for color in Color::ALL {
            let king_home = self
                .pieces(color, PieceKind::King)
                .contains(Castling::king_square(color));
            for king_side in [true, false] {
                let rook_home = self
                    .pieces(color, PieceKind::Rook)
                    .contains(Castling::rook_square(color, king_side));
                if !(king_home && rook_home) {
                    self.castling.set(color, king_side, false);
                }
            }
        }
    }

    /// The en-passant square only if the side to move has a pawn that could
    /// capture there pseudo-legally (the X-FEN convention).
    pub fn capturable_ep_square(&self) -> Option<Square> {
        let ep = self.ep?;
        let us = self.turn;
        let rank_ok = ep.rank() == Rank::Sixth.relative_to(us);
        let behind = ep.forward(us.flip())?;
        let pawn_behind = self.pieces(us.flip(), PieceKind::Pawn).contains(behind);
        let capturers = attacks::pawn(us.flip(), ep) & self.pieces(us, PieceKind::Pawn);
        (rank_ok && pawn_behind && capturers.any() && !self.occupied().contains(ep)).then_some(ep)
    }

    /// A [`fmt::Display`] of the FEN with the en-passant square only where a
    /// pseudo-legal en-passant capture exists.
    pub fn xfen(&self) -> XFen<'_> {
        XFen(self)
    }

    /// Writes the placement field.
    fn write_placement(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write;
        for rank in Rank::ALL.iter().rev() {
            let mut empty = 0u8;
            for file in File::ALL {
                match self.piece_at(Square::new(file, *rank)) {
                    Some(p) => {
                        if empty > 0 {
                            f.write_char((b'0' + empty) as char)?;
                            empty = 0;
                        }
                        f.write_char(p.char())?;
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                f.write_char((b'0' + empty) as char)?;
            }
            if *rank != Rank::First {
                f.write_char('/')?;
            }
        }
        Ok(())
    }

    fn write_fen(&self, f: &mut fmt::Formatter<'_>, ep: Option<Square>) -> fmt::Result {
        use fmt::Write;
        self.write_placement(f)?;
        f.write_str(if self.turn == Color::White {
            " w "
        } else {
            " b "
        })?;
        if self.castling.is_empty() {
            f.write_char('-')?;
        } else {
            for (color, side, c) in [
                (Color::White, true, 'K'),
                (Color::White, false, 'Q'),
                (Color::Black, true, 'k'),
                (Color::Black, false, 'q'),
            ] {
                if self.castling.has(color, side) {
                    f.write_char(c)?;
                }
            }
        }
        match ep {
            Some(sq) => write!(f, " {sq}")?,
            None => f.write_str(" -")?,
        }
        write!(f, " {} {}", self.halfmove, self.fullmove)
    }

    /// Checks the internal invariants (used by tests after every update).
    ///
    /// # Panics
    /// If the bitboards overlap or disagree, or castling rights are not clean.
    pub fn debug_check(&self) {
        assert!(
            !self.colors[0].intersects(self.colors[1]),
            "colours overlap"
        );
        let mut all = Bitboard::EMPTY;
        for k in 0..6 {
            assert!(!all.intersects(self.pieces[k]), "piece kinds overlap");
            all |= self.pieces[k];
        }
        assert_eq!(all, self.occupied(), "kinds and colours disagree");
        let mut clean = *self;
        clean.clean_castling();
        assert_eq!(
            clean.castling, self.castling,
            "castling rights are not clean"
        );
    }
}

/// See [`Board::xfen`].
pub struct XFen<'a>(&'a Board);

impl fmt::Display for XFen<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write_fen(f, self.0.capturable_ep_square())
    }
}

/// The FEN with the en-passant square whenever one is set (python-chess's
/// `fen(en_passant="fen")`).
impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_fen(f, self.ep)
    }
}

fn parse_counter(s: Option<&str>, default: u32) -> Result<u32, FenError> {
    match s {
        None => Ok(default),
        Some(s) if !s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit()) => {
            s.parse().map_err(|_| FenError::Counter)
        }
        Some(_) => Err(FenError::Counter),
    }
}

impl FromStr for Board {
    type Err = FenError;

    /// Parses a FEN. The castling and en-passant fields and the counters may be
    /// omitted. Castling rights are cleaned as python-chess does.
    fn from_str(fen: &str) -> Result<Board, FenError> {
        let mut fields = fen.split_ascii_whitespace();
        let placement = fields.next().ok_or(FenError::MissingField)?;
        let turn = fields.next().ok_or(FenError::MissingField)?;
        let castling = fields.next();
        let ep = fields.next();
        let half = fields.next();
        let full = fields.next();
        if fields.next().is_some() {
            return Err(FenError::TooManyFields);
        }

        let mut board = Board::EMPTY;
        let (mut rank, mut file) = (7i32, 0i32);
        for c in placement.chars() {
            match c {
                '/' => {
                    if file != 8 || rank == 0 {
                        return Err(FenError::Placement);
                    }
                    rank -= 1;
                    file = 0;
                }
                '1'..='8' => {
                    file += c as i32 - '0' as i32;
                    if file > 8 {
                        return Err(FenError::Placement);
                    }
                }
                _ => {
                    let piece = Piece::from_char(c).ok_or(FenError::Placement)?;
                    if file >= 8 {
                        return Err(FenError::Placement);
                    }
                    board.set_piece(Square::index_const((rank * 8 + file) as usize), Some(piece));
                    file += 1;
                }
            }
        }
        if rank != 0 || file != 8 {
            return Err(FenError::Placement);
        }
        for color in Color::ALL {
            if board.pieces(color, PieceKind::King).len() > 1 {
                return Err(FenError::Illegal);
            }
        }
        if board
            .by_kind(PieceKind::Pawn)
            .intersects(Bitboard::rank(Rank::First) | Bitboard::rank(Rank::Eighth))
        {
            return Err(FenError::Illegal);
        }

        board.turn = match turn {
            "w" => Color::White,
            "b" => Color::Black,
            _ => return Err(FenError::Turn),
        };

        let mut rights = Castling::NONE;
        match castling {
            None | Some("-") => {}
            Some(s) => {
                for c in s.chars() {
                    let (color, side) = match c {
                        'K' => (Color::White, true),
                        'Q' => (Color::White, false),
                        'k' => (Color::Black, true),
                        'q' => (Color::Black, false),
                        _ => return Err(FenError::Castling),
                    };
                    rights.set(color, side, true);
                }
            }
        }
        board.castling = rights;
        board.clean_castling();

        board.ep = match ep {
            None | Some("-") => None,
            Some(s) => {
                let sq: Square = s.parse().map_err(|_| FenError::EnPassant)?;
                if sq.rank() != Rank::Third && sq.rank() != Rank::Sixth {
                    return Err(FenError::EnPassant);
                }
                Some(sq)
            }
        };
        board.halfmove = parse_counter(half, 0)?;
        board.fullmove = parse_counter(full, 1)?.max(1);
        Ok(board)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Buf {
        data: [u8; 128],
        len: usize,
    }
    impl fmt::Write for Buf {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            let end = self.len + s.len();
            if end > self.data.len() {
                return Err(fmt::Error);
            }
            self.data[self.len..end].copy_from_slice(s.as_bytes());
            self.len = end;
            Ok(())
        }
    }
    fn show(b: &impl fmt::Display) -> Buf {
        use fmt::Write;
        let mut buf = Buf {
            data: [0; 128],
            len: 0,
        };
        write!(buf, "{b}").unwrap();
        buf
    }
    fn as_str(b: &Buf) -> &str {
        core::str::from_utf8(&b.data[..b.len]).unwrap()
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn start_round_trips() {
        let b: Board = START.parse().unwrap();
        assert_eq!(b, Board::start());
        assert_eq!(as_str(&show(&b)), START);
        b.debug_check();
    }

    #[test]
    fn fen_round_trips() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",
            "4k3/8/8/8/8/8/8/4K3 b - - 99 120",
        ] {
            let b: Board = fen.parse().unwrap();
            assert_eq!(as_str(&show(&b)), fen);
            b.debug_check();
        }
    }

    #[test]
    fn castling_is_cleaned() {
        let b: Board = "r3k3/8/8/8/8/8/8/4K2R w KQkq - 0 1".parse().unwrap();
        assert_eq!(as_str(&show(&b)), "r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1");
    }

    #[test]
    fn xfen_hides_uncapturable_ep() {
        let b: Board = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
            .parse()
            .unwrap();
        assert_eq!(
            as_str(&show(&b.xfen())),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        );
        let b: Board = "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3"
            .parse()
            .unwrap();
        assert_eq!(b.capturable_ep_square(), Some(Square::E3));
    }

    #[test]
    fn bad_fens_are_errors() {
        for (fen, err) in [
            ("", FenError::MissingField),
            ("8/8/8/8/8/8/8/8", FenError::MissingField),
            ("8/8/8/8/8/8/8 w", FenError::Placement),
            ("9/8/8/8/8/8/8/8 w", FenError::Placement),
            ("8/8/8/8/8/8/8/7x w", FenError::Placement),
            ("8/8/8/8/8/8/8/8/8 w", FenError::Placement),
            ("ppppppppp/8/8/8/8/8/8/8 w", FenError::Placement),
            ("8/8/8/8/8/8/8/8 x", FenError::Turn),
            ("8/8/8/8/8/8/8/8 w X", FenError::Castling),
            ("8/8/8/8/8/8/8/8 w - e4", FenError::EnPassant),
            ("8/8/8/8/8/8/8/8 w - - x", FenError::Counter),
            ("8/8/8/8/8/8/8/8 w - - 0 1 extra", FenError::TooManyFields),
            ("kk6/8/8/8/8/8/8/8 w", FenError::Illegal),
            ("P7/8/8/8/8/8/8/8 w", FenError::Illegal),
        ] {
            assert_eq!(fen.parse::<Board>(), Err(err), "{fen}");
        }
    }
}
