//! Making RBC positions safe to hand to Stockfish.
//!
//! RBC positions need not be legal chess, and Stockfish (checked with
//! Debian's Stockfish 15.1) crashes or answers nonsense on some of them:
//!
//! * a missing king: segmentation fault as soon as it searches;
//! * the side to move able to capture the king: Stockfish plays the capture
//!   as its best move (`d6e8` with a knight, `d2e1r` with a pawn) with a
//!   meaningless score, and in busier positions crashes;
//! * castling rights without a rook on that side's back rank: segmentation
//!   fault while reading the FEN (it scans the rank for the rook);
//! * more than 32 pieces: its NNUE feature list holds at most 32 entries, so
//!   the evaluation overruns it (random scores, then a crash);
//! * a half-move clock of 100 or more: every line is scored as a draw;
//! * an en-passant square while the side to move is in check from a piece
//!   other than the pawn that just double-stepped (impossible in chess, as
//!   in `r2qkb1r/pp1b1ppp/5n2/1Pppp3/8/3P4/P1n2PPP/R1B1KBNR w K c6`, where
//!   a knight checks): segmentation fault in move generation;
//! * pawns on a back rank or a second king (impossible through rbc-core's
//!   FEN parser, possible through `Board::set_piece`): nonsense evaluations.
//!
//! [`clean`] decides the positions whose result is already known, refuses
//! those Stockfish cannot evaluate, and writes a safe FEN for the rest.

use rbc_core::attacks;
use rbc_core::{Bitboard, Board, Color, PieceKind, Rank};

/// The most pieces Stockfish's NNUE evaluation can take.
pub const MAX_PIECES: u32 = 32;
/// The largest half-move clock written (100 is a fifty-move draw).
pub const MAX_HALFMOVE: u32 = 99;
/// The largest full-move number written (Stockfish keeps plies in an `int`).
pub const MAX_FULLMOVE: u32 = 10_000;

/// A result known without searching.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The side to move wins (it can capture the opponent's king, or that king
    /// is already gone).
    WinForSideToMove,
    /// The side to move has lost (its king is gone).
    LossForSideToMove,
}

/// Why a position cannot be given to Stockfish at all.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Unsupported {
    /// More than [`MAX_PIECES`] pieces (the count is given).
    TooManyPieces(u32),
    /// This colour has more than one king.
    ExtraKing(Color),
    /// A pawn stands on the first or last rank.
    PawnOnBackRank,
}

/// What [`clean`] made of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cleaned {
    /// The game is decided; there is nothing to search.
    Decided(Outcome),
    /// A FEN that Stockfish can search safely.
    Fen(String),
    /// Stockfish cannot evaluate this position; use the built-in evaluator.
    Unsupported(Unsupported),
}

/// Decides, refuses, or writes a Stockfish-safe FEN for `board`.
///
/// In order: a missing king decides the game (if both are missing, the side
/// to move is taken to have lost, as its king went first); a second king is
/// unsupported; a side to move that attacks the opponent's king wins; pawns
/// on back ranks or too many pieces are unsupported. Otherwise the FEN has
/// castling rights only where king and rook stand at home, the en-passant
/// square only where the side to move can capture there and is not in check,
/// a half-move clock
/// of at most 99 and a full-move number from 1 to [`MAX_FULLMOVE`].
pub fn clean(board: &Board) -> Cleaned {
    let us = board.turn();
    let them = us.flip();
    let (Some(our_king), Some(their_king)) = (board.king(us), board.king(them)) else {
        let outcome = if board.king(us).is_none() {
            Outcome::LossForSideToMove
        } else {
            Outcome::WinForSideToMove
        };
        return Cleaned::Decided(outcome);
    };
    for color in [us, them] {
        if board.pieces(color, PieceKind::King).len() > 1 {
            return Cleaned::Unsupported(Unsupported::ExtraKing(color));
        }
    }
    if attacked_by(board, their_king, us) {
        return Cleaned::Decided(Outcome::WinForSideToMove);
    }
    let back_ranks = Bitboard::rank(Rank::First) | Bitboard::rank(Rank::Eighth);
    if board.by_kind(PieceKind::Pawn).intersects(back_ranks) {
        return Cleaned::Unsupported(Unsupported::PawnOnBackRank);
    }
    let count = board.occupied().len();
    if count > MAX_PIECES {
        return Cleaned::Unsupported(Unsupported::TooManyPieces(count));
    }

    let mut safe = *board;
    safe.clean_castling();
    // In chess the only check an en-passant square can come with is from the
    // pawn that just moved; RBC reaches others, and Stockfish crashes on them.
    // Dropping the square in every check costs at most one evasion.
    if attacked_by(board, our_king, them) {
        safe.set_ep_square(None);
    }
    safe.set_counters(
        board.halfmove_clock().min(MAX_HALFMOVE),
        board.fullmove_number().clamp(1, MAX_FULLMOVE),
    );
    Cleaned::Fen(safe.xfen().to_string())
}

/// Whether `by` attacks `sq` (pseudo-legally: pins do not matter).
fn attacked_by(board: &Board, sq: rbc_core::Square, by: Color) -> bool {
    let occ = board.occupied();
    let queens = board.pieces(by, PieceKind::Queen);
    let attackers = (attacks::pawn(by.flip(), sq) & board.pieces(by, PieceKind::Pawn))
        | (attacks::knight(sq) & board.pieces(by, PieceKind::Knight))
        | (attacks::king(sq) & board.pieces(by, PieceKind::King))
        | (attacks::bishop(sq, occ) & (board.pieces(by, PieceKind::Bishop) | queens))
        | (attacks::rook(sq, occ) & (board.pieces(by, PieceKind::Rook) | queens));
    attackers.any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uci::tests::stockfish;
    use crate::uci::{Engine, EngineOptions, Limit};
    use rbc_core::rng::Rng;
    use rbc_core::{Piece, Square};
    use std::time::Duration;

    fn board(fen: &str) -> Board {
        fen.parse().unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    fn fen_of(fen: &str) -> String {
        match clean(&board(fen)) {
            Cleaned::Fen(f) => f,
            other => panic!("{fen}: expected a FEN, got {other:?}"),
        }
    }

    fn engine() -> Engine {
        Engine::start(
            &stockfish(),
            &EngineOptions {
                timeout: Duration::from_secs(5),
                ..EngineOptions::default()
            },
        )
        .unwrap()
    }

    /// Positions on which Debian's Stockfish 15.1 crashes (segmentation fault).
    const CRASHERS: [&str; 7] = [
        // Black king missing.
        "8/8/8/8/8/8/4R3/4K3 w - - 0 1",
        // White king missing, black to move.
        "4k3/8/8/8/8/8/4r3/8 b - - 0 1",
        // Castling rights without rooks.
        "4k3/8/8/8/8/8/8/4K2R w KQkq - 0 1",
        // The side to move can capture the king (Qh5xe8).
        "rnbqkbnr/ppppp1pp/8/5p1Q/8/4P3/PPPP1PPP/RNB1KBNR w KQkq - 0 1",
        // 48 pieces.
        "rnbqkbnr/pppppppp/nnnnnnnn/8/8/NNNNNNNN/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        // En-passant squares with a knight check (from two games against
        // AttackerBot and RandomBot).
        "r2qkb1r/pp1b1ppp/5n2/1Pppp3/8/3P4/P1n2PPP/R1B1KBNR w K c6 0 2",
        "r1bqkb1r/1p4pp/1np1p3/3p1pP1/1p3N2/1B2P3/PBPP1n1P/RN1K3R w kq f6 0 2",
    ];

    #[test]
    fn missing_kings_decide() {
        use Outcome::*;
        for (fen, outcome) in [
            ("8/8/8/8/8/8/4R3/4K3 w - - 0 1", WinForSideToMove),
            ("8/8/8/8/8/8/4R3/4K3 b - - 0 1", LossForSideToMove),
            ("4k3/8/8/8/8/8/4r3/8 b - - 0 1", WinForSideToMove),
            ("4k3/8/8/8/8/8/4r3/8 w - - 0 1", LossForSideToMove),
            ("8/8/8/8/8/8/8/8 w - - 0 1", LossForSideToMove),
        ] {
            assert_eq!(clean(&board(fen)), Cleaned::Decided(outcome), "{fen}");
        }
    }

    #[test]
    fn capturable_king_decides() {
        for fen in [
            // Queen, knight, pawn (with promotion), rook through an open file, king.
            "rnbqkbnr/ppppp1pp/8/5p1Q/8/4P3/PPPP1PPP/RNB1KBNR w KQkq - 0 1",
            "4k3/8/3N4/8/8/8/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/3p4/4K3 b - - 0 1",
            "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1",
            "8/8/8/3kK3/8/8/8/8 b - - 0 1",
            // A pinned piece still captures the king.
            "3rk3/8/3N4/8/8/8/8/3K4 w - - 0 1",
            // Black bishop takes the white king.
            "4k3/8/8/8/8/8/6b1/7K b - - 0 1",
        ] {
            assert_eq!(
                clean(&board(fen)),
                Cleaned::Decided(Outcome::WinForSideToMove),
                "{fen}"
            );
        }
        // Blocked attacks and the side to move being in check decide nothing.
        for fen in [
            "4k3/4p3/8/8/8/8/4R3/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/4R3/4K3 b - - 0 1",
        ] {
            assert!(matches!(clean(&board(fen)), Cleaned::Fen(_)), "{fen}");
        }
    }

    #[test]
    fn fen_fields_are_cleaned() {
        // Castling rights need king and rook at home (rbc-core's parser
        // already drops them; clean keeps them dropped).
        assert_eq!(
            fen_of("4k3/8/8/8/8/8/8/4K2R w KQkq - 0 1"),
            "4k3/8/8/8/8/8/8/4K2R w K - 0 1"
        );
        assert_eq!(
            fen_of("r3k3/8/8/8/8/8/8/R4K1R b KQkq - 0 1"),
            "r3k3/8/8/8/8/8/8/R4K1R b q - 0 1"
        );
        assert_eq!(
            fen_of("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        );
        // En passant only with a capturer.
        assert_eq!(
            fen_of("4k3/8/8/8/8/8/8/4K3 w - e6 0 1"),
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
        );
        assert_eq!(
            fen_of("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1"),
            "4k3/8/8/8/4P3/8/8/4K3 b - - 0 1"
        );
        assert_eq!(
            fen_of("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"),
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"
        );
        // ... and not in check.
        assert_eq!(
            fen_of("r2qkb1r/pp1b1ppp/5n2/1Pppp3/8/3P4/P1n2PPP/R1B1KBNR w K c6 0 2"),
            "r2qkb1r/pp1b1ppp/5n2/1Pppp3/8/3P4/P1n2PPP/R1B1KBNR w K - 0 2"
        );
        assert_eq!(
            fen_of("4k3/8/8/3pP3/8/8/8/3rK3 w - d6 0 1"),
            "4k3/8/8/3pP3/8/8/8/3rK3 w - - 0 1"
        );
        // Counters.
        assert_eq!(
            fen_of("4k3/8/8/8/8/8/8/4K3 w - - 150 7"),
            "4k3/8/8/8/8/8/8/4K3 w - - 99 7"
        );
        let mut b = board("4k3/8/8/8/8/8/8/4K3 b - - 0 1");
        b.set_counters(u32::MAX, 0);
        assert_eq!(
            clean(&b),
            Cleaned::Fen("4k3/8/8/8/8/8/8/4K3 b - - 99 1".into())
        );
        b.set_counters(3, u32::MAX);
        assert_eq!(
            clean(&b),
            Cleaned::Fen(format!("4k3/8/8/8/8/8/8/4K3 b - - 3 {MAX_FULLMOVE}"))
        );
    }

    #[test]
    fn unsupported_positions() {
        let crowded =
            board("rnbqkbnr/pppppppp/nnnnnnnn/8/8/NNNNNNNN/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(
            clean(&crowded),
            Cleaned::Unsupported(Unsupported::TooManyPieces(48))
        );
        let full = board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(matches!(clean(&full), Cleaned::Fen(_)));
        let mut b = full;
        b.set_piece(
            Square::E4,
            Some(Piece::new(PieceKind::Knight, Color::White)),
        );
        assert_eq!(
            clean(&b),
            Cleaned::Unsupported(Unsupported::TooManyPieces(33))
        );

        let mut b = board("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
        b.set_piece(Square::A8, Some(Piece::new(PieceKind::Pawn, Color::White)));
        assert_eq!(clean(&b), Cleaned::Unsupported(Unsupported::PawnOnBackRank));
        let mut b = board("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
        b.set_piece(Square::A1, Some(Piece::new(PieceKind::King, Color::Black)));
        assert_eq!(
            clean(&b),
            Cleaned::Unsupported(Unsupported::ExtraKing(Color::Black))
        );
    }

    /// Every crash-prone position is decided, refused or cleaned, and
    /// Stockfish searches each cleaned FEN without trouble.
    #[test]
    fn stockfish_survives_cleaned_positions() {
        let mut sf = engine();
        let mut fens = Vec::new();
        for fen in CRASHERS.iter().chain(&[
            "4k3/8/3N4/8/8/8/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/3p4/4K3 b - - 0 1",
            "4k3/8/8/8/8/8/8/4K3 w - e6 0 1",
            "4k3/8/8/8/8/8/4P3/4K3 w - - 150 1",
            "r3k2r/8/8/8/8/8/8/4K3 w KQkq - 0 1",
            "4k3/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        ]) {
            if let Cleaned::Fen(clean_fen) = clean(&board(fen)) {
                fens.push(clean_fen);
            }
        }
        assert_eq!(fens.len(), 7, "{fens:?}");
        for fen in &fens {
            let eval = sf
                .evaluate(fen, Limit::Depth(8))
                .unwrap_or_else(|e| panic!("{fen}: {e:#}"));
            assert!(eval.best.is_some(), "{fen}: {eval:?}");
        }

        // Random positions: whatever clean lets through, Stockfish survives.
        let mut rng = Rng::new(0x5eed);
        let (mut searched, mut decided, mut refused) = (0, 0, 0);
        for _ in 0..300 {
            let b = random_board(&mut rng);
            match clean(&b) {
                Cleaned::Fen(fen) => {
                    let eval = sf
                        .evaluate(&fen, Limit::Nodes(3_000))
                        .unwrap_or_else(|e| panic!("{fen}: {e:#}"));
                    assert!(eval.depth >= 1 || eval.best.is_none(), "{fen}: {eval:?}");
                    searched += 1;
                }
                Cleaned::Decided(_) => decided += 1,
                Cleaned::Unsupported(_) => refused += 1,
            }
        }
        assert!(
            searched >= 50 && decided >= 20 && refused >= 10,
            "{searched} {decided} {refused}"
        );
    }

    /// The raw crash positions make the engine fail cleanly (never hang), and
    /// a fresh engine works afterwards.
    #[test]
    fn raw_crashers_fail_cleanly() {
        for fen in CRASHERS {
            let mut sf = engine();
            match sf.evaluate(fen, Limit::Depth(10)) {
                Ok(eval) => eprintln!("{fen}: survived: {eval:?}"),
                Err(err) => {
                    eprintln!("{fen}: {err:#}");
                    assert!(sf.is_broken(), "{fen}: {err:#}");
                }
            }
        }
    }

    /// Kings always present (mostly), up to 40 other pieces, either side to move.
    fn random_board(rng: &mut Rng) -> Board {
        let mut b = Board::EMPTY;
        let mut free: Vec<Square> = Square::ALL.to_vec();
        let mut take = |rng: &mut Rng| free.swap_remove(rng.below(free.len() as u64) as usize);
        for color in [Color::White, Color::Black] {
            if rng.below(20) != 0 {
                b.set_piece(take(rng), Some(Piece::new(PieceKind::King, color)));
            }
        }
        let extra = rng.below(41);
        for _ in 0..extra {
            let sq = take(rng);
            let color = if rng.below(2) == 0 {
                Color::White
            } else {
                Color::Black
            };
            let mut kind = PieceKind::ALL[rng.below(5) as usize];
            if kind == PieceKind::Pawn && matches!(sq.rank(), Rank::First | Rank::Eighth) {
                kind = PieceKind::Knight;
            }
            b.set_piece(sq, Some(Piece::new(kind, color)));
        }
        b.set_turn(if rng.below(2) == 0 {
            Color::White
        } else {
            Color::Black
        });
        b.set_castling(rbc_core::Castling::ALL);
        if rng.below(3) == 0 {
            let rank = if rng.below(2) == 0 {
                Rank::Third
            } else {
                Rank::Sixth
            };
            let file = rbc_core::File::ALL[rng.below(8) as usize];
            b.set_ep_square(Some(Square::new(file, rank)));
        }
        b.set_counters(rng.below(120) as u32, rng.below(3) as u32);
        b
    }
}
