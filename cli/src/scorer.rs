//! Position scoring for the move chooser: the built-in evaluator, or
//! Stockfish over UCI with the built-in evaluator as fallback.
//!
//! Positions go through [`clean`](crate::clean::clean) before they reach
//! Stockfish: decided positions (a king gone or capturable) never reach it,
//! nor do positions it cannot evaluate. A crashed or hung engine is restarted
//! once per game by the [`Supervisor`]; after that the built-in evaluator
//! scores the rest of the game.

use crate::clean::{self, Cleaned, Outcome};
use crate::uci::{EngineOptions, Limit, Supervisor};
use anyhow::Result;
use rbc_core::{Board, eval};
use std::path::PathBuf;
use std::time::Duration;

/// Which evaluator to use.
#[derive(Clone, Debug, PartialEq)]
pub enum ScorerKind {
    /// The evaluator in rbc-core.
    Builtin,
    /// Stockfish at `path`, searching `nodes` nodes per position.
    Stockfish {
        /// The engine executable.
        path: PathBuf,
        /// Nodes per evaluation.
        nodes: u64,
    },
}

/// Nodes per Stockfish evaluation by default: a fast, shallow but tactical look.
pub const DEFAULT_NODES: u64 = 1_500;

/// Scores positions from the side to move's point of view, in centipawns.
pub struct Scorer {
    kind: ScorerKind,
    engine: Option<Supervisor>,
    /// Evaluations the engine answered this game.
    pub engine_evals: u64,
    /// Evaluations that fell back to the built-in evaluator.
    pub fallbacks: u64,
}

impl Scorer {
    /// A scorer of the given kind; for Stockfish, the engine starts now so a
    /// broken installation is reported at once.
    pub fn new(kind: ScorerKind) -> Result<Scorer> {
        let engine = match &kind {
            ScorerKind::Builtin => None,
            ScorerKind::Stockfish { path, .. } => {
                let options = EngineOptions {
                    threads: 1,
                    hash_mb: 16,
                    timeout: Duration::from_secs(5),
                };
                Some(Supervisor::start(path, options)?)
            }
        };
        Ok(Scorer {
            kind,
            engine,
            engine_evals: 0,
            fallbacks: 0,
        })
    }

    /// Resets per-game state (a disabled engine gets another chance).
    pub fn new_game(&mut self) {
        if let Some(e) = &mut self.engine {
            e.reset_for_new_game();
        }
        self.engine_evals = 0;
        self.fallbacks = 0;
    }

    /// The evaluator's name.
    pub fn name(&self) -> &str {
        match &self.engine {
            None => "builtin",
            Some(e) if e.is_disabled() => "builtin (stockfish failed)",
            Some(_) => "stockfish",
        }
    }

    /// Whether an engine is in use (and not disabled).
    pub fn uses_engine(&self) -> bool {
        self.engine.as_ref().is_some_and(|e| !e.is_disabled())
    }

    /// The built-in score of `board` for its side to move.
    pub fn quick(&self, board: &Board) -> i32 {
        eval::evaluate(board)
    }

    /// The score of `board` for its side to move.
    pub fn score(&mut self, board: &Board) -> i32 {
        let nodes = match &self.kind {
            ScorerKind::Builtin => return eval::evaluate(board),
            ScorerKind::Stockfish { nodes, .. } => *nodes,
        };
        let fen = match clean::clean(board) {
            Cleaned::Decided(Outcome::WinForSideToMove) => return eval::WIN,
            Cleaned::Decided(Outcome::LossForSideToMove) => return -eval::WIN,
            Cleaned::Unsupported(_) => {
                self.fallbacks += 1;
                return eval::evaluate(board);
            }
            Cleaned::Fen(fen) => fen,
        };
        let Some(engine) = self.engine.as_mut().filter(|e| !e.is_disabled()) else {
            self.fallbacks += 1;
            return eval::evaluate(board);
        };
        match engine.evaluate(&fen, Limit::Nodes(nodes)) {
            Ok(e) => {
                self.engine_evals += 1;
                e.score.to_cp().clamp(-(eval::WIN - 1), eval::WIN - 1)
            }
            Err(_) => {
                self.fallbacks += 1;
                eval::evaluate(board)
            }
        }
    }
}

/// `--engine`: which evaluator chooses rbc's moves.
#[derive(clap::ValueEnum, Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum EngineArg {
    /// Stockfish if one is found, else the built-in evaluator.
    #[default]
    Auto,
    /// Stockfish; fail at start if none is found.
    Stockfish,
    /// The built-in evaluator.
    Builtin,
}

/// Resolves `--engine` and `--stockfish` (Stockfish is looked up as
/// [`find_stockfish`](crate::uci::find_stockfish) does).
///
/// # Errors
/// `--engine stockfish` when no Stockfish is found.
pub fn select(engine: EngineArg, stockfish: Option<&std::path::Path>) -> Result<ScorerKind> {
    let found = || crate::uci::find_stockfish(stockfish);
    let kind = |path| ScorerKind::Stockfish {
        path,
        nodes: DEFAULT_NODES,
    };
    Ok(match engine {
        EngineArg::Builtin => ScorerKind::Builtin,
        EngineArg::Auto => found().map_or(ScorerKind::Builtin, kind),
        EngineArg::Stockfish => kind(found().ok_or_else(|| match stockfish {
            Some(p) => anyhow::anyhow!("Stockfish not found: --stockfish {} is not an executable file", p.display()),
            None => anyhow::anyhow!(
                "Stockfish not found (tried $STOCKFISH_EXECUTABLE, stockfish on PATH and /usr/games/stockfish); \
                 install it, pass --stockfish PATH, or use --engine builtin"
            ),
        })?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn engine_selection() {
        assert_eq!(
            select(EngineArg::Builtin, None).unwrap(),
            ScorerKind::Builtin
        );
        // An explicit path is authoritative: no other Stockfish is looked for.
        let missing = Some(Path::new("/nonexistent/stockfish"));
        let err = select(EngineArg::Stockfish, missing)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("Stockfish not found")
                && err.contains("/nonexistent/stockfish")
                && err.contains("not an executable"),
            "{err}"
        );
        assert_eq!(
            select(EngineArg::Auto, missing).unwrap(),
            ScorerKind::Builtin
        );
        assert_eq!(
            select(EngineArg::Builtin, missing).unwrap(),
            ScorerKind::Builtin
        );
    }
}
