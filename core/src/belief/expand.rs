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

#[inline(always)]
fn clear2(p: &mut [u64; 3], a: u64) {
    p[0] &= !a;
    p[1] &= !a;
    p[2] &= !a;
}

#[inline(always)]
fn put(p: &mut [u64; 3], bit: u64, code: u8) {
    if code & 1 != 0 {
        p[0] |= bit;
    }
    if code & 2 != 0 {
        p[1] |= bit;
    }
    if code & 4 != 0 {
        p[2] |= bit;
    }
}

struct Sink<F: FnMut(Hypothesis)> {
    out: F,
    n: usize,
    base: [u64; 3],
}

impl<F: FnMut(Hypothesis)> Sink<F> {
    /// A move of code `code` from `from` to `to`; `demote` lists castle rooks
    /// that lose their right (they stay on the board as plain rooks).
    #[inline(always)]
    fn emit(&mut self, from: Square, to: Square, code: u8, demote: u64) {
        let mut p = self.base;
        let (fb, tb) = (1u64 << from as u32, 1u64 << to as u32);
        clear2(&mut p, fb | tb | demote);
        put(&mut p, tb, code);
        if demote != 0 {
            put(&mut p, demote & !(fb | tb), 4);
        }
        (self.out)(Hypothesis { planes: p });
        self.n += 1;
    }

    #[inline(always)]
    fn castle(
        &mut self,
        king: Square,
        rook: Square,
        king_to: Square,
        rook_to: Square,
        demote: u64,
    ) {
        let mut p = self.base;
        clear2(&mut p, (1 << king as u32) | (1 << rook as u32) | demote);
        put(&mut p, demote & !(1 << rook as u32), 4);
        put(&mut p, 1 << king_to as u32, 6);
        put(&mut p, 1 << rook_to as u32, 4);
        (self.out)(Hypothesis { planes: p });
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
    let targets = cx.targets & !them_occ;
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
        for to in attacks::knight(from) & targets {
            sink.emit(from, to, 2, 0);
        }
    }
    for from in kinds[PieceKind::Bishop as usize] {
        for to in attacks::bishop(from, occ) & targets {
            sink.emit(from, to, 3, 0);
        }
    }
    for from in kinds[PieceKind::Rook as usize] {
        // A castle rook that moves loses its right: it lands as a plain rook.
        for to in attacks::rook(from, occ) & targets {
            sink.emit(from, to, 4, 0);
        }
    }
    for from in kinds[PieceKind::Queen as usize] {
        for to in attacks::queen(from, occ) & targets {
            sink.emit(from, to, 5, 0);
        }
    }
    let their_corners = CORNERS & Bitboard::rank(cx.them.back_rank()).0;
    for from in kinds[PieceKind::King as usize] {
        let demote = u.castle_rooks.0 & their_corners;
        for to in attacks::king(from) & targets {
            sink.emit(from, to, 6, demote);
        }
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
                        demote,
                    );
                }
            }
        }
    }

    // Pawns: pushes only without a capture, diagonals only with one.
    let start_rank = Bitboard::rank(Rank::Second.relative_to(cx.them));
    for from in kinds[PieceKind::Pawn as usize] {
        if !cx.capture {
            let Some(one) = from.forward(cx.them) else {
                continue;
            };
            if occ.contains(one) {
                continue;
            }
            if BACK_RANKS >> one as u32 & 1 != 0 {
                for promo in PieceKind::PROMOTIONS {
                    sink.emit(from, one, promo as u8 + 1, 0);
                }
            } else {
                sink.emit(from, one, 1, 0);
                if start_rank.contains(from) {
                    let two = one.forward(cx.them).expect("double step on board");
                    if !occ.contains(two) {
                        // Marked for en passant only if one of our pawns could take it.
                        let code = if (attacks::pawn(cx.them, one) & cx.our_pawns).any() {
                            7
                        } else {
                            1
                        };
                        sink.emit(from, two, code, 0);
                    }
                }
            }
        } else {
            for to in attacks::pawn(cx.them, from) & targets {
                if BACK_RANKS >> to as u32 & 1 != 0 {
                    for promo in PieceKind::PROMOTIONS {
                        sink.emit(from, to, promo as u8 + 1, 0);
                    }
                } else {
                    sink.emit(from, to, 1, 0);
                }
            }
            if let Some(ep) = cx.ep_target
                && attacks::pawn(cx.them, from).contains(ep)
                && from.rank() == Rank::Fifth.relative_to(cx.them)
            {
                sink.emit(from, ep, 1, 0);
            }
        }
    }
    sink.n
}
