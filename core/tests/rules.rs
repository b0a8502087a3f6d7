//! The fast rules against a slow, literal transcription of reconchess and
//! python-chess (square-by-square, no bitboard tricks), on every position
//! that random games visit.

use rbc_core::Piece;
use rbc_core::rng::Rng;
use rbc_core::rules::*;
use rbc_core::{Board, Castling, Color, File, PieceKind, Rank, Square};

const KNIGHT: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];

fn forward(c: Color) -> i8 {
    if c == Color::White { 1 } else { -1 }
}

/// python-chess `is_pseudo_legal`, castling excluded (reconchess checks it separately).
fn is_pseudo_legal_slow(b: &Board, mv: Move) -> bool {
    let us = b.turn();
    let Some(piece) = b.piece_at(mv.from) else {
        return false;
    };
    if piece.color != us {
        return false;
    }
    if let Some(p) = mv.promotion {
        if piece.kind != PieceKind::Pawn || p == PieceKind::Pawn || p == PieceKind::King {
            return false;
        }
        if mv.to.rank() != Rank::Eighth.relative_to(us) {
            return false;
        }
    }
    if b.color_at(mv.to) == Some(us) {
        return false;
    }
    let (df, dr) = (
        mv.to.file() as i8 - mv.from.file() as i8,
        mv.to.rank() as i8 - mv.from.rank() as i8,
    );
    let path_clear = |step: (i8, i8), n: i8| {
        (1..n).all(|i| {
            b.piece_at(mv.from.offset(step.0 * i, step.1 * i).unwrap())
                .is_none()
        })
    };
    match piece.kind {
        PieceKind::Pawn => {
            let last = mv.to.rank() == Rank::Eighth.relative_to(us);
            if last != mv.promotion.is_some() {
                return false;
            }
            let fw = forward(us);
            if df == 0 && dr == fw {
                b.piece_at(mv.to).is_none()
            } else if df == 0 && dr == 2 * fw && mv.from.rank() == Rank::Second.relative_to(us) {
                b.piece_at(mv.to).is_none() && path_clear((0, fw), 2)
            } else if df.abs() == 1 && dr == fw {
                b.color_at(mv.to) == Some(us.flip())
                    || (b.ep_square() == Some(mv.to)
                        && b.piece_at(mv.to).is_none()
                        && mv.from.rank() == Rank::Fifth.relative_to(us))
            } else {
                false
            }
        }
        PieceKind::Knight => KNIGHT.contains(&(df, dr)),
        PieceKind::King => df.abs() <= 1 && dr.abs() <= 1,
        PieceKind::Bishop | PieceKind::Rook | PieceKind::Queen => {
            let n = df.abs().max(dr.abs());
            let step = (df.signum(), dr.signum());
            let diag = df.abs() == dr.abs();
            let orth = df == 0 || dr == 0;
            let shape = match piece.kind {
                PieceKind::Bishop => diag,
                PieceKind::Rook => orth,
                _ => diag || orth,
            };
            shape && path_clear(step, n)
        }
    }
}

fn without_opponent(b: &Board) -> Board {
    let mut c = *b;
    for sq in Square::ALL {
        if c.color_at(sq) == Some(b.turn().flip()) {
            c.remove_piece(sq);
        }
    }
    c
}

/// reconchess `move_actions`, as a sorted, deduplicated list.
fn move_actions_slow(b: &Board) -> Vec<Move> {
    let mut out = Vec::new();
    let bare = without_opponent(b);
    let us = b.turn();
    for from in Square::ALL {
        for to in Square::ALL {
            if from == to {
                continue;
            }
            for promotion in [
                None,
                Some(PieceKind::Knight),
                Some(PieceKind::Bishop),
                Some(PieceKind::Rook),
                Some(PieceKind::Queen),
            ] {
                let mv = Move::with_promotion(from, to, promotion);
                if is_pseudo_legal_slow(&bare, mv) {
                    out.push(mv);
                }
            }
        }
    }
    // Castling on the bare board: right held, squares between king and rook empty.
    for king_side in [true, false] {
        if b.castling().has(us, king_side) {
            let king = Castling::king_square(us);
            let rook = Castling::rook_square(us, king_side);
            let step = if king_side { 1 } else { -1 };
            let mut clear = true;
            let mut sq = king.offset(step, 0).unwrap();
            while sq != rook {
                clear &= bare.piece_at(sq).is_none();
                sq = sq.offset(step, 0).unwrap();
            }
            if clear {
                let to = king.offset(2 * step, 0).unwrap();
                out.push(Move::new(king, to));
            }
        }
    }
    // Every pawn diagonal onto a square without our piece, plain and promoted.
    for from in Square::ALL {
        if b.piece_at(from) != Some(Piece::new(PieceKind::Pawn, us)) {
            continue;
        }
        for df in [-1, 1] {
            let Some(to) = from.offset(df, forward(us)) else {
                continue;
            };
            if b.color_at(to) == Some(us) {
                continue;
            }
            out.push(Move::new(from, to));
            if to.rank() == Rank::First || to.rank() == Rank::Eighth {
                for p in PieceKind::PROMOTIONS {
                    out.push(Move::with_promotion(from, to, Some(p)));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// reconchess `revise_move`, literally.
fn revise_slow(b: &Board, mv: Move) -> Option<Move> {
    let us = b.turn();
    let king_home = Castling::king_square(us);
    let is_castle = b.piece_at(mv.from) == Some(Piece::new(PieceKind::King, us))
        && mv.from == king_home
        && (mv.to.file() as i8 - mv.from.file() as i8).abs() == 2
        && mv.to.rank() == mv.from.rank();
    if is_castle {
        let king_side = mv.to.file() == File::G;
        if !b.castling().has(us, king_side) {
            return None;
        }
        let rook = Castling::rook_square(us, king_side);
        let step = if king_side { 1 } else { -1 };
        let mut sq = king_home.offset(step, 0).unwrap();
        while sq != rook {
            if b.piece_at(sq).is_some() {
                return None;
            }
            sq = sq.offset(step, 0).unwrap();
        }
        return Some(mv);
    }
    if is_pseudo_legal_slow(b, mv) {
        return Some(mv);
    }
    let kind = b.piece_at(mv.from)?.kind;
    if matches!(
        kind,
        PieceKind::Pawn | PieceKind::Rook | PieceKind::Bishop | PieceKind::Queen
    ) {
        // The squares from `to` back towards `from`, farthest first.
        let (df, dr) = (
            mv.to.file() as i8 - mv.from.file() as i8,
            mv.to.rank() as i8 - mv.from.rank() as i8,
        );
        let on_line = df == 0 || dr == 0 || df.abs() == dr.abs();
        let n = df.abs().max(dr.abs());
        let mut candidates = vec![mv.to];
        if on_line {
            for i in (1..n).rev() {
                candidates.push(mv.from.offset(df.signum() * i, dr.signum() * i).unwrap());
            }
        }
        for sq in candidates {
            let revised = Move::with_promotion(mv.from, sq, mv.promotion);
            if is_pseudo_legal_slow(b, revised) {
                return Some(revised);
            }
        }
    }
    None
}

fn capture_square_slow(b: &Board, taken: Option<Move>) -> Option<Square> {
    let mv = taken?;
    if b.color_at(mv.to) == Some(b.turn().flip()) {
        return Some(mv.to);
    }
    let pawn = b.piece_at(mv.from).map(|p| p.kind) == Some(PieceKind::Pawn);
    let diag =
        (mv.to as i32 - mv.from as i32).abs() == 7 || (mv.to as i32 - mv.from as i32).abs() == 9;
    if b.ep_square() == Some(mv.to) && pawn && diag && b.piece_at(mv.to).is_none() {
        return mv.to.offset(0, -forward(b.turn()));
    }
    None
}

fn fast_actions(b: &Board) -> Vec<Move> {
    let mut v = Vec::new();
    move_actions(b, |m| {
        v.push(m);
        false
    });
    let n = v.len();
    v.sort();
    v.dedup();
    assert_eq!(n, v.len(), "move_actions reported a move twice on {b}");
    v
}

/// Checks every request on `b` against the slow reference; returns the actions.
fn check_position(b: &Board) -> Vec<Move> {
    b.debug_check();
    let actions = fast_actions(b);
    assert_eq!(actions, move_actions_slow(b), "move_actions differ on {b}");
    for &mv in &actions {
        assert!(is_requestable(b, mv));
        let queened = add_queen_promotion(b, mv);
        let taken = revise(b, queened);
        assert_eq!(
            taken,
            revise_slow(b, queened),
            "revise({mv}) differs on {b}"
        );
        assert_eq!(
            capture_square(b, taken),
            capture_square_slow(b, taken),
            "capture square of {mv} on {b}"
        );
        let result = arbitrate(b, Some(mv)).unwrap();
        assert_eq!(result.taken, taken);
    }
    actions
}

/// Random games with a bias towards the rare rules: captures, promotions,
/// castling, long slides and moves that fail.
fn random_games(games: usize, seed: u64) -> usize {
    let mut rng = Rng::new(seed);
    let mut plies = 0;
    for _ in 0..games {
        let mut b = Board::start();
        for _ in 0..300 {
            let actions = check_position(&b);
            plies += 1;
            let pick = if rng.below(10) == 0 || actions.is_empty() {
                None
            } else {
                // Prefer king moves two squares (castles), promotions and far moves.
                let mut best = actions[rng.below(actions.len() as u64) as usize];
                for _ in 0..2 {
                    let c = actions[rng.below(actions.len() as u64) as usize];
                    let dist = |m: Move| {
                        (m.to as i32 - m.from as i32).abs()
                            + if m.promotion.is_some() { 20 } else { 0 }
                    };
                    if dist(c) > dist(best) {
                        best = c;
                    }
                }
                Some(best)
            };
            let result = arbitrate(&b, pick).unwrap();
            b.play(result.taken);
            b.debug_check();
            if b.king_captured().is_some() || b.halfmove_clock() >= 100 {
                break;
            }
        }
    }
    plies
}

#[test]
fn fast_rules_match_slow_reference_in_random_games() {
    let plies = random_games(150, 0x5eed);
    assert!(plies > 5_000, "only {plies} plies visited");
}

#[test]
fn start_position_has_twenty_plus_diagonals() {
    // 16 pushes, 4 knight moves, 14 pawn diagonals (a and h pawns have one each).
    assert_eq!(fast_actions(&Board::start()).len(), 16 + 4 + 14);
}

#[test]
fn sliders_stop_at_first_opponent_piece() {
    let b: Board = "4k3/8/8/p7/8/8/8/R3K3 w - - 0 1".parse().unwrap();
    let r = arbitrate(&b, Some("a1a8".parse().unwrap())).unwrap();
    assert_eq!(r.taken, Some("a1a5".parse().unwrap()));
    assert_eq!(r.capture, Some(Square::A5));
}

#[test]
fn pawn_rules_fail_and_shorten() {
    // Double step onto an occupied square becomes a single step; a blocked
    // middle square fails; a diagonal onto an empty square fails.
    let b: Board = "4k3/8/8/8/4p3/8/4P3/4K3 w - - 0 1".parse().unwrap();
    assert_eq!(
        arbitrate(&b, Some("e2e4".parse().unwrap())).unwrap().taken,
        Some("e2e3".parse().unwrap())
    );
    assert_eq!(
        arbitrate(&b, Some("e2d3".parse().unwrap())).unwrap().taken,
        None
    );
    let b: Board = "4k3/8/8/8/8/4p3/4P3/4K3 w - - 0 1".parse().unwrap();
    assert_eq!(
        arbitrate(&b, Some("e2e4".parse().unwrap())).unwrap().taken,
        None
    );
    assert_eq!(
        arbitrate(&b, Some("e2e3".parse().unwrap())).unwrap().taken,
        None
    );
}

#[test]
fn en_passant_reports_the_pawn_square() {
    let mut b: Board = "4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1".parse().unwrap();
    b.play(Some("d7d5".parse().unwrap()));
    assert_eq!(b.ep_square(), Some(Square::D6));
    let r = arbitrate(&b, Some("e5d6".parse().unwrap())).unwrap();
    assert_eq!(
        r,
        MoveResult {
            taken: Some("e5d6".parse().unwrap()),
            capture: Some(Square::D5)
        }
    );
    b.play(r.taken);
    assert_eq!(b.piece_at(Square::D5), None);
}

#[test]
fn promotion_defaults_to_queen() {
    let b: Board = "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1".parse().unwrap();
    let r = arbitrate(&b, Some("b7b8".parse().unwrap())).unwrap();
    assert_eq!(r.taken, Some("b7b8q".parse().unwrap()));
    assert_eq!(
        arbitrate(&b, Some("b7a8".parse().unwrap())).unwrap().taken,
        None
    );
}

#[test]
fn castling_ignores_check_but_not_blockers() {
    // Through an attacked square: allowed.
    let b: Board = "4k3/8/8/8/8/8/5r2/4K2R w K - 0 1".parse().unwrap();
    let r = arbitrate(&b, Some("e1g1".parse().unwrap())).unwrap();
    assert_eq!(r.taken, Some("e1g1".parse().unwrap()));
    // b1 occupied by an opponent piece: the queen-side castle fails whole.
    let b: Board = "4k3/8/8/8/8/8/8/Rn2K3 w Q - 0 1".parse().unwrap();
    assert_eq!(
        arbitrate(&b, Some("e1c1".parse().unwrap())).unwrap(),
        MoveResult {
            taken: None,
            capture: None
        }
    );
}

#[test]
fn illegal_requests_are_refused() {
    let b = Board::start();
    assert!(arbitrate(&b, Some("e2e5".parse().unwrap())).is_err());
    assert!(arbitrate(&b, Some("e1g1".parse().unwrap())).is_err());
}

#[test]
fn capturing_a_king_on_its_home_square_voids_its_rights() {
    // Found by the differential test: python-chess prints no right for a side
    // without its king on e1/e8, even when a king captured it there.
    for (fen, mv, after) in [
        (
            "2B5/8/8/7p/7P/5pP1/2Pk4/4K1NR b K - 18 104",
            "d2e1",
            "2B5/8/8/7p/7P/5pP1/2P5/4k1NR w - - 0 105",
        ),
        (
            "rn2kb1r/p3K2p/4P2n/2P5/5p2/8/8/8 w kq - 3 137",
            "e7e8",
            "rn2Kb1r/p6p/4P2n/2P5/5p2/8/8/8 b - - 0 137",
        ),
    ] {
        let mut b: Board = fen.parse().unwrap();
        let r = arbitrate(&b, Some(mv.parse().unwrap())).unwrap();
        b.play(r.taken);
        assert_eq!(format!("{b}"), after);
        b.debug_check();
    }
}
