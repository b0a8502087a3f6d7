//! Expansion: every position the opponent's move could have produced.
//!
//! The opponent may request any move of its own pieces; against the true
//! board the request is revised, so the distinct outcomes are exactly a pass
//! (a pass, or any request that fails) plus the pseudo-legal moves on the full
//! board (sliders stop on our first piece and take it; castling ignores check
//! but needs every square between king and rook empty). The reported capture
//! square masks the generation: with a capture on `x`, only moves that capture
//! there; without one, only quiet moves and the pass.

use super::hyp::{CORNERS, Hypothesis};
use super::own::Own;
use crate::attacks;
use crate::bitboard::Bitboard;
use crate::board::Castling;
use crate::piece::PieceKind;
use crate::square::{Color, File, Rank, Square};

/// More than any position can produce (218 moves at most, plus the pass).
pub const MAX_CHILDREN: usize = 256;

const BACK_RANKS: u64 = 0xff00_0000_0000_00ff;
const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

/// Per-expansion constants derived from our side.
#[derive(Copy, Clone)]
pub(crate) struct Context {
    them: Color,
    ours: Bitboard,
    our_pawns: Bitboard,
    /// Where our pieces may be captured: a single square, or none.
    targets: Bitboard,
    /// Whether the opponent captured something at all.
    capture: bool,
    /// An en-passant capture of our pawn that the capture report allows:
    /// (landing square).
    ep_target: Option<Square>,
}

impl Context {
    pub(crate) fn new(own: &Own, capture: Option<Square>) -> Context {
        let ours = own.occupied();
        let them = own.color.flip();
        let (targets, ep_target) = match capture {
            Some(sq) => {
                let ep = own.ep.filter(|&ep| ep.forward(own.color) == Some(sq));
                (Bitboard::square(sq) & ours, ep)
            }
            None => (!ours, None),
        };
        Context {
            them,
            ours,
            our_pawns: own.pieces[PieceKind::Pawn as usize],
            targets,
            capture: capture.is_some(),
            ep_target,
        }
    }
}

impl Context {
    /// Every capture of one of our pieces, wherever it is (en passant
    /// included): with [`Context::new`]`(own, None)`, all of the opponent's
    /// possible moves.
    pub(crate) fn any_capture(own: &Own) -> Context {
        Context {
            them: own.color.flip(),
            ours: own.occupied(),
            our_pawns: own.pieces[PieceKind::Pawn as usize],
            targets: own.occupied(),
            capture: true,
            ep_target: own.ep,
        }
    }
}

/// Where the move that made `child` (from a parent expanded with our side
/// `own`) captured one of our pieces: the one square where the opponent now
/// stands on one of ours, or our double-stepped pawn if an opponent pawn
/// stands on the square it passed (no piece can stand there before, and
/// only an en-passant capture brings a pawn there).
pub(crate) fn capture_square(child: &Hypothesis, own: &Own) -> Option<Square> {
    let occ = child.occupied();
    if let Some(sq) = (occ & own.occupied()).first() {
        return Some(sq);
    }
    let ep = own.ep?;
    if child.kind_at(ep) == Some(PieceKind::Pawn) {
        ep.forward(own.color)
    } else {
        None
    }
}

/// The planes of `code` as masks: all ones where the code has the bit.
#[inline(always)]
const fn code_masks(code: u8) -> [u64; 3] {
    [
        0u64.wrapping_sub((code & 1) as u64),
        0u64.wrapping_sub((code >> 1 & 1) as u64),
        0u64.wrapping_sub((code >> 2 & 1) as u64),
    ]
}

struct Sink<F: FnMut(Hypothesis)> {
    out: F,
    n: usize,
    base: [u64; 3],
}

impl<F: FnMut(Hypothesis)> Sink<F> {
    /// Every move of the piece on `from` to a square of `tos` (none of which
    /// holds one of the opponent's pieces), landing with code `code`;
    /// `demote` lists castle rooks that lose their right (they stay on the
    /// board as plain rooks: code 7 becomes 4).
    #[inline(always)]
    fn moves(&mut self, from: u32, mut tos: u64, code: u8, demote: u64) {
        let fb = 1u64 << from;
        let [b0, b1, b2] = self.base;
        let p = [b0 & !fb & !demote, b1 & !fb & !demote, b2 & !fb];
        let m = code_masks(code);
        while tos != 0 {
            let tb = tos & tos.wrapping_neg();
            tos &= tos - 1;
            (self.out)(Hypothesis {
                planes: [p[0] | tb & m[0], p[1] | tb & m[1], p[2] | tb & m[2]],
            });
            self.n += 1;
        }
    }

    /// Pawn moves of one step (`back` = 8) or two (16) onto each (empty)
    /// square of `tos`, from `back` behind it. The pawn is plain in the base
    /// (whose marks are dropped), a single bit in plane 0, and lands plain,
    /// or marked (code 7) where `marked` says.
    #[inline(always)]
    fn pawn_pushes(&mut self, mut tos: u64, white: bool, back: u32, marked: u64) {
        let [b0, b1, b2] = self.base;
        while tos != 0 {
            let tb = tos & tos.wrapping_neg();
            tos &= tos - 1;
            let fb = if white { tb >> back } else { tb << back };
            let mark = tb & marked;
            (self.out)(Hypothesis {
                planes: [b0 ^ fb ^ tb, b1 | mark, b2 | mark],
            });
            self.n += 1;
        }
    }

    /// A castle: king and rook leave their squares for `king_to` and
    /// `rook_to`; `demote` lists the other castle rook if it keeps its place
    /// but loses its right.
    #[inline(always)]
    fn castle(
        &mut self,
        king: Square,
        rook: Square,
        king_to: Square,
        rook_to: Square,
        demote: u64,
    ) {
        let [b0, b1, b2] = self.base;
        let gone = (1u64 << king as u32) | (1u64 << rook as u32);
        let (kb, rb) = (1u64 << king_to as u32, 1u64 << rook_to as u32);
        // King 6 = planes 1 and 2, rook 4 = plane 2.
        (self.out)(Hypothesis {
            planes: [
                b0 & !gone & !demote,
                (b1 & !gone & !demote) | kb,
                (b2 & !gone) | kb | rb,
            ],
        });
        self.n += 1;
    }
}

/// Calls `out` with every child of `parent`; returns how many.
#[inline]
pub(crate) fn children(parent: &Hypothesis, cx: &Context, out: impl FnMut(Hypothesis)) -> usize {
    let parent = parent.without_ep();
    let u = parent.unpack();
    let them_occ = u.occupied;
    let occ = them_occ | cx.ours;
    let targets = (cx.targets & !them_occ).0;
    let mut sink = Sink {
        out,
        n: 0,
        base: parent.planes,
    };

    if !cx.capture {
        (sink.out)(parent);
        sink.n += 1;
    }

    let kinds = u.kinds;
    for from in kinds[PieceKind::Knight as usize] {
        sink.moves(from as u32, attacks::knight(from).0 & targets, 2, 0);
    }
    for from in kinds[PieceKind::Bishop as usize] {
        sink.moves(from as u32, attacks::bishop(from, occ).0 & targets, 3, 0);
    }
    for from in kinds[PieceKind::Rook as usize] {
        // A castle rook that moves loses its right: it lands as a plain rook.
        sink.moves(from as u32, attacks::rook(from, occ).0 & targets, 4, 0);
    }
    for from in kinds[PieceKind::Queen as usize] {
        sink.moves(from as u32, attacks::queen(from, occ).0 & targets, 5, 0);
    }
    let their_corners = CORNERS & Bitboard::rank(cx.them.back_rank()).0;
    for from in kinds[PieceKind::King as usize] {
        let demote = u.castle_rooks.0 & their_corners;
        sink.moves(from as u32, attacks::king(from).0 & targets, 6, demote);
        if !cx.capture && from == Castling::king_square(cx.them) {
            for king_side in [true, false] {
                let rook = Castling::rook_square(cx.them, king_side);
                if u.castle_rooks.contains(rook) && !attacks::between(from, rook).intersects(occ) {
                    let rank = from.rank();
                    let (k_to, r_to) = if king_side {
                        (File::G, File::F)
                    } else {
                        (File::C, File::D)
                    };
                    sink.castle(
                        from,
                        rook,
                        Square::new(k_to, rank),
                        Square::new(r_to, rank),
                        demote & !(1u64 << rook as u32),
                    );
                }
            }
        }
    }

    // Pawns: pushes only without a capture, diagonals only with one.
    let pawns = kinds[PieceKind::Pawn as usize];
    if !cx.capture {
        let white = cx.them == Color::White;
        let empty = !occ.0;
        let singles = pawns.shift_forward(white).0 & empty;
        sink.pawn_pushes(singles & !BACK_RANKS, white, 8, 0);
        // From the start rank, through the third.
        let third = Bitboard::rank(Rank::Third.relative_to(cx.them)).0;
        let doubles = Bitboard(singles & third).shift_forward(white).0 & empty;
        // Marked for en passant only if one of our pawns could take it:
        // one stands beside the landing square.
        let ours = cx.our_pawns.0;
        let beside = ((ours << 1) & !FILE_A) | ((ours >> 1) & !FILE_H);
        sink.pawn_pushes(doubles, white, 16, beside);
        let mut promos = singles & BACK_RANKS;
        while promos != 0 {
            let to = promos.trailing_zeros();
            promos &= promos - 1;
            let from = if white { to - 8 } else { to + 8 };
            for promo in PieceKind::PROMOTIONS {
                sink.moves(from, 1 << to, promo as u8 + 1, 0);
            }
        }
    } else {
        for from in pawns {
            let tos = attacks::pawn(cx.them, from).0 & targets;
            sink.moves(from as u32, tos & !BACK_RANKS, 1, 0);
            let promos = tos & BACK_RANKS;
            if promos != 0 {
                for promo in PieceKind::PROMOTIONS {
                    sink.moves(from as u32, promos, promo as u8 + 1, 0);
                }
            }
            if let Some(ep) = cx.ep_target
                && attacks::pawn(cx.them, from).contains(ep)
                && from.rank() == Rank::Fifth.relative_to(cx.them)
            {
                sink.moves(from as u32, 1 << ep as u32, 1, 0);
            }
        }
    }
    sink.n
}
