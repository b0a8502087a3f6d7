//! Options shared by several subcommands, flattened into their `Args`.

use crate::agent::{Sizing, parse_size};
use crate::scorer::{self, EngineArg, ScorerKind};
use anyhow::{Context, Result};
use std::path::PathBuf;

/// `--capacity N | --memory SIZE`: how large the belief may grow.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct MemoryArgs {
    /// Active boards the belief may hold (default 1,000,000); the stash for
    /// recovery adds half as many.
    #[arg(long, conflicts_with = "memory", value_parser = clap::value_parser!(u64).range(1..))]
    pub capacity: Option<u64>,
    /// Size the belief to a memory budget instead, e.g. 32MiB or 2GiB (all of
    /// rbc's memory: belief, tables and the rest of the process).
    #[arg(long, value_name = "SIZE")]
    pub memory: Option<String>,
}

impl MemoryArgs {
    /// The sizing these options ask for.
    ///
    /// # Errors
    /// A malformed or too small `--memory`.
    pub fn sizing(&self) -> Result<Sizing> {
        Ok(match (&self.memory, self.capacity) {
            (Some(mem), _) => Sizing::with_memory(parse_size(mem).context("--memory")?).context("--memory")?,
            (None, Some(n)) => Sizing::with_capacity(usize::try_from(n).context("--capacity is too large")?),
            (None, None) => Sizing::with_capacity(Sizing::DEFAULT_CAPACITY),
        })
    }
}

/// `--engine auto|stockfish|builtin` and `--stockfish PATH`.
#[derive(clap::Args, Debug, Clone)]
pub struct EngineArgs {
    /// Evaluator for move choice: Stockfish if found (auto), Stockfish or
    /// fail (stockfish), or the built-in evaluator (builtin).
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,
    /// Stockfish executable (otherwise $STOCKFISH_EXECUTABLE, `stockfish` on
    /// PATH, /usr/games/stockfish).
    #[arg(long, value_name = "PATH")]
    pub stockfish: Option<PathBuf>,
}

impl EngineArgs {
    /// The scorer these options ask for.
    ///
    /// # Errors
    /// `--engine stockfish` without a Stockfish.
    pub fn scorer(&self) -> Result<ScorerKind> {
        scorer::select(self.engine, self.stockfish.as_deref())
    }
}
