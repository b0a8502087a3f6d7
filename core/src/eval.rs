//! A small built-in evaluator, for choosing moves where no engine is available.
//!
//! Scores are centipawns from the side to move's point of view. The static
//! part is material plus placement bonuses computed from simple geometry
//! (centrality, pawn advance, a sheltered king). [`evaluate`] adds one ply of
//! replies: the side to move may stand pat or make its best capture, and a
//! capture of the king ends the game.

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::piece::PieceKind;
use crate::square::{Color, Square};

/// The score of a won game (the opponent's king can be taken).
pub const WIN: i32 = 30_000;

/// Piece values in centipawns, pawn to king (the king's value only matters
/// for ordering captures).
pub const VALUES: [i32; 6] = [100, 320, 330, 500, 900, 2_000];

/// Distance from the centre: 0 in the middle four squares, 3 in the corners.
const fn center_distance(sq: usize) -> i32 {
    let f = (sq % 8) as i32;
    let r = (sq / 8) as i32;
    let df = if f < 4 { 3 - f } else { f - 4 };
    let dr = if r < 4 { 3 - r } else { r - 4 };
    if df > dr { df } else { dr }
}

/// Placement bonus for a white piece of `kind` on `sq` (mirror for black).
const fn placement_slow(kind: usize, sq: usize) -> i32 {
    let rank = (sq / 8) as i32;
    let c = center_distance(sq);
    match kind {
        0 => {
            // Pawns: advance, central files a little more.
            let file = (sq % 8) as i32;
            let central = if file >= 2 && file <= 5 { 4 } else { 0 };
            if rank == 0 || rank == 7 {
                0
            } else {
                (rank - 1) * 8 + central * (rank - 1) / 2
            }
        }
        1 => 12 - 8 * c,
        2 => 8 - 4 * c,
        3 => {
            if rank == 6 {
                15
            } else {
                0
            }
        }
        4 => 4 - 2 * c,
        // The king stays home, where it is hardest to find and take.
        _ => {
            if rank == 0 {
                10
            } else {
                -12 * rank
            }
        }
    }
}

static PLACEMENT: [[i32; 64]; 6] = {
    let mut t = [[0i32; 64]; 6];
    let mut k = 0;
    while k < 6 {
        let mut sq = 0;
        while sq < 64 {
            t[k][sq] = placement_slow(k, sq);
            sq += 1;
        }
        k += 1;
    }
    t
};

/// Material and placement, from white's point of view.
pub fn static_white(board: &Board) -> i32 {
    let mut score = 0;
    for kind in PieceKind::ALL {
        let k = kind as usize;
        for sq in board.pieces(Color::White, kind) {
            score += VALUES[k] + PLACEMENT[k][sq as usize];
        }
        for sq in board.pieces(Color::Black, kind) {
            score -= VALUES[k] + PLACEMENT[k][sq.flip_rank() as usize];
        }
    }
    score
}

/// Every piece of `by` that attacks `sq` (pseudo-legally, ignoring pins).
pub fn attackers(board: &Board, sq: Square, by: Color) -> Bitboard {
    let occ = board.occupied();
    let them = board.by_color(by);
    let rooks = board.by_kind(PieceKind::Rook) | board.by_kind(PieceKind::Queen);
    let bishops = board.by_kind(PieceKind::Bishop) | board.by_kind(PieceKind::Queen);
    (attacks::pawn(by.flip(), sq) & board.by_kind(PieceKind::Pawn)
        | attacks::knight(sq) & board.by_kind(PieceKind::Knight)
        | attacks::king(sq) & board.by_kind(PieceKind::King)
        | attacks::rook(sq, occ) & rooks
        | attacks::bishop(sq, occ) & bishops)
        & them
}

/// Whether the side to move can take the opponent's king right now.
pub fn can_take_king(board: &Board) -> bool {
    let us = board.turn();
    match board.king(us.flip()) {
        Some(k) => attackers(board, k, us).any(),
        None => false,
    }
}

/// Static score from the side to move's point of view.
pub fn static_eval(board: &Board) -> i32 {
    let s = static_white(board);
    if board.turn() == Color::White { s } else { -s }
}

/// Score from the side to move's point of view with one ply of replies: a
/// capturable king is a win, a missing own king a loss; otherwise the better
/// of standing pat and the best capture (captured value minus what the
/// capturing piece risks if the square is defended).
pub fn evaluate(board: &Board) -> i32 {
    let us = board.turn();
    if board.king(us).is_none() {
        return -WIN;
    }
    if board.king(us.flip()).is_none() || can_take_king(board) {
        return WIN;
    }
    let stand = static_eval(board);
    let mut best_gain = 0;
    let them = board.by_color(us.flip());
    for target in them {
        let victim = board.kind_at(target).expect("occupied");
        let mut cheapest = i32::MAX;
        for from in attackers(board, target, us) {
            let v = VALUES[board.kind_at(from).expect("occupied") as usize];
            cheapest = cheapest.min(v);
        }
        if cheapest == i32::MAX {
            continue;
        }
        let defended = attackers(board, target, us.flip()).any();
        let gain = VALUES[victim as usize] - if defended { cheapest } else { 0 };
        best_gain = best_gain.max(gain);
    }
    // Our own king under attack is a serious liability: the opponent moves next
    // after our reply only if we do not address it, but a blind opponent finds
    // it often enough to count.
    let mut danger = 0;
    if let Some(k) = board.king(us)
        && attackers(board, k, us.flip()).any()
    {
        danger = 300;
    }
    stand + best_gain - danger
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_balanced() {
        assert_eq!(static_white(&Board::start()), 0);
        assert_eq!(evaluate(&Board::start()), 0);
    }

    #[test]
    fn sees_king_captures_and_hanging_pieces() {
        let b: Board = "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1".parse().unwrap();
        assert_eq!(evaluate(&b), WIN);
        let b: Board = "4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1".parse().unwrap();
        assert!(evaluate(&b) > static_eval(&b) + 800, "a free queen");
        let mirrored: Board = "3rk3/8/8/8/3Q4/8/8/4K3 b - - 0 1".parse().unwrap();
        assert_eq!(evaluate(&b), evaluate(&mirrored));
    }
}
