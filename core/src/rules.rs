//! The rules of RBC as reconchess 1.6.9 arbitrates them.
//!
//! A player requests a move chosen from [`move_actions`] (its own pieces only,
//! as if the opponent's were not there). The arbiter adds a queen to a pawn
//! move onto the last rank ([`add_queen_promotion`]), revises the request
//! against the true board ([`revise`]: sliders stop on the first opponent
//! piece, blocked pawns and castles fail), reports the capture square
//! ([`capture_square`]) and plays the taken move, or a null move if it failed
//! ([`Board::play`]).

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::board::{Board, Castling};
use crate::piece::PieceKind;
use crate::square::{Color, File, ParseError, Rank, Square};
use core::fmt;
use core::str::FromStr;

/// A move, in UCI terms: castling is the king's two-square move (`e1g1`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Move {
    /// Where the piece starts.
    pub from: Square,
    /// Where it goes.
    pub to: Square,
    /// The piece a pawn becomes on the last rank.
    pub promotion: Option<PieceKind>,
}

impl Move {
    /// A move without promotion.
    #[inline]
    pub const fn new(from: Square, to: Square) -> Move {
        Move {
            from,
            to,
            promotion: None,
        }
    }

    /// A move with an optional promotion.
    #[inline]
    pub const fn with_promotion(from: Square, to: Square, promotion: Option<PieceKind>) -> Move {
        Move {
            from,
            to,
            promotion,
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        if let Some(p) = self.promotion {
            use fmt::Write;
            f.write_char(p.char())?;
        }
        Ok(())
    }
}

impl FromStr for Move {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Move, ParseError> {
        if !s.is_ascii() || (s.len() != 4 && s.len() != 5) {
            return Err(ParseError::Move);
        }
        let from = s[0..2].parse().map_err(|_| ParseError::Move)?;
        let to = s[2..4].parse().map_err(|_| ParseError::Move)?;
        let promotion = match s.as_bytes().get(4) {
            None => None,
            Some(b'n') => Some(PieceKind::Knight),
            Some(b'b') => Some(PieceKind::Bishop),
            Some(b'r') => Some(PieceKind::Rook),
            Some(b'q') => Some(PieceKind::Queen),
            Some(_) => return Err(ParseError::Move),
        };
        if from == to {
            return Err(ParseError::Move);
        }
        Ok(Move {
            from,
            to,
            promotion,
        })
    }
}

/// A request the arbiter refuses: not in [`move_actions`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IllegalRequest(pub Move);

impl fmt::Display for IllegalRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "requested move {} is not among the moves that may be requested",
            self.0
        )
    }
}

impl core::error::Error for IllegalRequest {}

/// What the arbiter reports for a request.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MoveResult {
    /// The move actually played; `None` for a pass or a failed move.
    pub taken: Option<Move>,
    /// Where an opponent piece was captured, if one was.
    pub capture: Option<Square>,
}

const BACK_RANKS: Bitboard = Bitboard(0xff00_0000_0000_00ff);
const CORNERS: Bitboard = Bitboard(0x8100_0000_0000_0081);

/// Calls `f` for every move the side to move may request: the pseudo-legal
/// moves of its pieces with the opponent's pieces removed (castling when the
/// right holds and none of its own pieces stands between king and rook), plus
/// every pawn diagonal onto a square not holding its own piece, plain and with
/// each promotion on the last rank. Each distinct move is reported once.
/// Returning `true` from `f` stops early; the function then returns `true`.
pub fn move_actions(board: &Board, mut f: impl FnMut(Move) -> bool) -> bool {
    let us = board.turn;
    let own = board.by_color(us);
    let not_own = !own;

    // Pawns: pushes on the board without opponent pieces, then every diagonal.
    for from in board.pieces(us, PieceKind::Pawn) {
        let Some(one) = from.forward(us) else {
            continue;
        };
        if !own.contains(one) {
            if BACK_RANKS.contains(one) {
                for p in PieceKind::PROMOTIONS {
                    if f(Move::with_promotion(from, one, Some(p))) {
                        return true;
                    }
                }
            } else {
                if f(Move::new(from, one)) {
                    return true;
                }
                if from.rank() == Rank::Second.relative_to(us) {
                    let two = one.forward(us).expect("double step stays on the board");
                    if !own.contains(two) && f(Move::new(from, two)) {
                        return true;
                    }
                }
            }
        }
        for to in attacks::pawn(us, from) & not_own {
            if f(Move::new(from, to)) {
                return true;
            }
            if BACK_RANKS.contains(to) {
                for p in PieceKind::PROMOTIONS {
                    if f(Move::with_promotion(from, to, Some(p))) {
                        return true;
                    }
                }
            }
        }
    }

    for kind in [
        PieceKind::Knight,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Queen,
        PieceKind::King,
    ] {
        for from in board.pieces(us, kind) {
            let targets = match kind {
                PieceKind::Knight => attacks::knight(from),
                PieceKind::Bishop => attacks::bishop(from, own),
                PieceKind::Rook => attacks::rook(from, own),
                PieceKind::Queen => attacks::queen(from, own),
                _ => attacks::king(from),
            } & not_own;
            for to in targets {
                if f(Move::new(from, to)) {
                    return true;
                }
            }
        }
    }

    for king_side in [true, false] {
        if let Some(mv) = castle_move(board, us, king_side)
            && !attacks::between(mv.from, Castling::rook_square(us, king_side)).intersects(own)
            && f(mv)
        {
            return true;
        }
    }
    false
}

/// The king's two-square move for `color`'s castle on one wing, if the right holds.
#[inline]
fn castle_move(board: &Board, color: Color, king_side: bool) -> Option<Move> {
    if !board.castling.has(color, king_side) {
        return None;
    }
    let king = Castling::king_square(color);
    let to = Square::new(if king_side { File::G } else { File::C }, king.rank());
    Some(Move::new(king, to))
}

/// If `mv` is a castling request (the king's two-square move from its home
/// square), the wing: `true` for king side.
#[inline]
pub(crate) fn castle_side(board: &Board, mv: Move) -> Option<bool> {
    let us = board.turn;
    if mv.from != Castling::king_square(us) || !board.pieces(us, PieceKind::King).contains(mv.from)
    {
        return None;
    }
    if mv.to.rank() != mv.from.rank() {
        return None;
    }
    match mv.to.file() {
        File::G => Some(true),
        File::C => Some(false),
        _ => None,
    }
}

/// Whether `mv` (as sent, before the queen is added) may be requested.
pub fn is_requestable(board: &Board, mv: Move) -> bool {
    let mv = add_queen_promotion(board, mv);
    move_actions(board, |m| m == mv)
}

/// Gives a pawn move onto the first or last rank without a promotion letter a
/// queen, as reconchess does before it validates a request.
#[inline]
pub fn add_queen_promotion(board: &Board, mv: Move) -> Move {
    if mv.promotion.is_none()
        && BACK_RANKS.contains(mv.to)
        && board.by_kind(PieceKind::Pawn).contains(mv.from)
    {
        Move {
            promotion: Some(PieceKind::Queen),
            ..mv
        }
    } else {
        mv
    }
}

/// Revises a requested move (already in [`move_actions`], queen added) into
/// the move taken on the true board, or `None` if it fails.
pub fn revise(board: &Board, mv: Move) -> Option<Move> {
    let us = board.turn;
    let them = board.by_color(us.flip());
    let occ = board.occupied();
    let kind = board.kind_at(mv.from)?;
    match kind {
        PieceKind::King => {
            if let Some(king_side) = castle_side(board, mv)
                && mv.from.file() == File::E
            {
                let rook = Castling::rook_square(us, king_side);
                let ok = board.castling.has(us, king_side)
                    && !attacks::between(mv.from, rook).intersects(occ);
                return ok.then_some(mv);
            }
            Some(mv)
        }
        PieceKind::Knight => Some(mv),
        PieceKind::Bishop | PieceKind::Rook | PieceKind::Queen => {
            let blockers = attacks::between(mv.from, mv.to) & them;
            let stop = if mv.to > mv.from {
                blockers.first()
            } else {
                blockers.last()
            };
            Some(match stop {
                Some(sq) => Move::new(mv.from, sq),
                None => mv,
            })
        }
        PieceKind::Pawn => {
            if mv.from.file() == mv.to.file() {
                let between = attacks::between(mv.from, mv.to);
                if between.any() {
                    // Double step: the middle square must be empty; an occupied
                    // destination shortens it to a single step.
                    if between.intersects(occ) {
                        return None;
                    }
                    if occ.contains(mv.to) {
                        let mid = between.first().expect("one square between");
                        return Some(Move::with_promotion(mv.from, mid, mv.promotion));
                    }
                    Some(mv)
                } else {
                    (!occ.contains(mv.to)).then_some(mv)
                }
            } else if them.contains(mv.to) || is_ep_capture(board, mv) {
                Some(mv)
            } else {
                None
            }
        }
    }
}

/// Whether `mv` is an en-passant capture on this board (python-chess's
/// pseudo-legal test: the destination is the empty en-passant square and the
/// pawn stands on its fifth rank).
#[inline]
fn is_ep_capture(board: &Board, mv: Move) -> bool {
    let us = board.turn;
    board.ep == Some(mv.to)
        && !board.occupied().contains(mv.to)
        && board.pieces(us, PieceKind::Pawn).contains(mv.from)
        && mv.from.rank() == Rank::Fifth.relative_to(us)
        && attacks::pawn(us, mv.from).contains(mv.to)
}

/// The square of the opponent piece a taken move captures: the destination,
/// or for en passant the captured pawn's square.
pub fn capture_square(board: &Board, taken: Option<Move>) -> Option<Square> {
    let mv = taken?;
    let us = board.turn;
    if board.by_color(us.flip()).contains(mv.to) {
        return Some(mv.to);
    }
    let is_ep = board.ep == Some(mv.to)
        && board.pieces(us, PieceKind::Pawn).contains(mv.from)
        && mv.from.file() != mv.to.file()
        && !board.occupied().contains(mv.to);
    if is_ep {
        mv.to.forward(us.flip())
    } else {
        None
    }
}

/// Arbitrates one request (`None` is a pass): adds the queen, checks it may be
/// requested, revises it and finds the capture square. The board is unchanged;
/// play the result with [`Board::play`].
///
/// # Errors
/// [`IllegalRequest`] if the move is not among [`move_actions`].
pub fn arbitrate(board: &Board, requested: Option<Move>) -> Result<MoveResult, IllegalRequest> {
    let Some(mv) = requested else {
        return Ok(MoveResult {
            taken: None,
            capture: None,
        });
    };
    let mv = add_queen_promotion(board, mv);
    if !move_actions(board, |m| m == mv) {
        return Err(IllegalRequest(mv));
    }
    let taken = revise(board, mv);
    Ok(MoveResult {
        taken,
        capture: capture_square(board, taken),
    })
}

impl Board {
    /// Plays a taken move (`None`: a pass or failed move, i.e. a null move)
    /// exactly as python-chess's `push` does: counters, castling rights, the
    /// en-passant square after every double step, en-passant captures,
    /// promotion and castling. The move must be pseudo-legal.
    pub fn play(&mut self, mv: Option<Move>) {
        let us = self.turn;
        let them = us.flip();
        let ep_prev = self.ep;
        self.ep = None;
        self.halfmove += 1;
        if us == Color::Black {
            self.fullmove += 1;
        }
        self.turn = them;
        let Some(mv) = mv else { return };
        let Some(kind) = self.kind_at(mv.from) else {
            return;
        };
        let (from_bb, to_bb) = (Bitboard::square(mv.from), Bitboard::square(mv.to));

        // Take the moving piece off, and whatever stands on the destination.
        self.pieces[kind as usize] ^= from_bb;
        self.colors[us as usize] ^= from_bb;
        let captured = if self.colors[them as usize].intersects(to_bb) {
            let c = self.kind_at(mv.to);
            if let Some(c) = c {
                self.pieces[c as usize] ^= to_bb;
            }
            self.colors[them as usize] ^= to_bb;
            c
        } else {
            None
        };
        if kind == PieceKind::Pawn || captured.is_some() {
            self.halfmove = 0;
        }

        if !self.castling.is_empty() {
            if (from_bb | to_bb).intersects(CORNERS) {
                for sq in [mv.from, mv.to] {
                    if let Some((color, side)) = Castling::corner(sq) {
                        self.castling.set(color, side, false);
                    }
                }
            }
            if kind == PieceKind::King {
                self.castling.clear(us);
            }
            // A side whose king is gone has no right left (python-chess
            // drops it when it cleans the rights, whoever took the king).
            if captured == Some(PieceKind::King) {
                self.castling.clear(them);
            }
        }

        let mut placed = kind;
        if kind == PieceKind::Pawn {
            let diff = mv.to as i32 - mv.from as i32;
            if diff == 16 && mv.from.rank() == Rank::Second {
                self.ep = Square::try_index(mv.from as usize + 8);
            } else if diff == -16 && mv.from.rank() == Rank::Seventh {
                self.ep = Square::try_index(mv.from as usize - 8);
            } else if Some(mv.to) == ep_prev && matches!(diff.abs(), 7 | 9) && captured.is_none() {
                // En passant: the captured pawn stands behind the destination.
                if let Some(behind) = mv.to.forward(them) {
                    self.remove_piece(behind);
                }
            }
            if let Some(p) = mv.promotion {
                placed = p;
            }
        }

        if kind == PieceKind::King
            && mv.from.file() == File::E
            && mv.from.rank() == mv.to.rank()
            && matches!(mv.to.file(), File::G | File::C)
        {
            // Castling: the rook jumps over the king.
            let rank = mv.from.rank();
            let (rook_from, rook_to) = if mv.to.file() == File::G {
                (File::H, File::F)
            } else {
                (File::A, File::D)
            };
            let rook_bb = Bitboard::square(Square::new(rook_from, rank))
                | Bitboard::square(Square::new(rook_to, rank));
            if self
                .pieces(us, PieceKind::Rook)
                .contains(Square::new(rook_from, rank))
            {
                self.pieces[PieceKind::Rook as usize] ^= rook_bb;
                self.colors[us as usize] ^= rook_bb;
            }
        }
        self.pieces[placed as usize] |= to_bb;
        self.colors[us as usize] |= to_bb;
    }

    /// Whether either king has been captured.
    pub fn king_captured(&self) -> Option<Color> {
        Color::ALL.into_iter().find(|&c| self.king(c).is_none())
    }
}
