//! Options shared by several subcommands, flattened into their `Args`.
//!
//! A command whose defaults or wording differ (per game, per player)
//! rewords the help with `#[command(mut_arg(...))]`.

use crate::agent::{Sizing, parse_size};
use crate::profile::ProfileFile;
use crate::scorer::{self, EngineArg, ScorerKind};
use anyhow::{Context, Result, bail};
use rbc_core::Color;
use std::path::PathBuf;

/// `--capacity N | --memory SIZE`: how large the belief may grow.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct MemoryArgs {
    /// Active boards the belief may hold, at most 11184810; the stash for
    /// recovery adds half as many [default: 1000000].
    #[arg(long, value_name = "N", conflicts_with = "memory", value_parser = clap::value_parser!(u64).range(1..))]
    pub capacity: Option<u64>,
    /// Size the belief to a memory budget instead, e.g. 32MiB or 2GiB (all of
    /// rbc's memory: belief, tables and the rest of the process).
    #[arg(long, value_name = "SIZE")]
    pub memory: Option<String>,
}

impl MemoryArgs {
    /// The sizing these options ask for, [`Sizing::DEFAULT_CAPACITY`] boards
    /// when neither is given.
    ///
    /// # Errors
    /// A malformed or too small `--memory`.
    pub fn sizing(&self) -> Result<Sizing> {
        self.sizing_or(Sizing::DEFAULT_CAPACITY)
    }

    /// The sizing these options ask for, `default_capacity` boards when
    /// neither is given.
    ///
    /// # Errors
    /// A malformed or too small `--memory`, or a `--capacity` above
    /// [`Sizing::MAX_CAPACITY`]. A larger `--memory` is capped there.
    pub fn sizing_or(&self, default_capacity: usize) -> Result<Sizing> {
        Ok(match (&self.memory, self.capacity) {
            (Some(mem), _) => {
                Sizing::with_memory(parse_size(mem).context("--memory")?).context("--memory")?
            }
            (None, Some(n)) => match usize::try_from(n) {
                Ok(n) if n <= Sizing::MAX_CAPACITY => Sizing::with_capacity(n),
                _ => bail!(
                    "--capacity {n} is more than a belief can index: at most {} (with its stash, {} slots)",
                    Sizing::MAX_CAPACITY,
                    rbc_core::belief::MAX_SLOTS
                ),
            },
            (None, None) => Sizing::with_capacity(default_capacity),
        })
    }
}

/// `--engine auto|stockfish|builtin` and `--stockfish PATH`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct EngineArgs {
    /// Evaluator behind rbc's move choice: Stockfish if found (auto),
    /// Stockfish or fail (stockfish), or the built-in evaluator (builtin).
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,
    /// Stockfish executable (otherwise $STOCKFISH_EXECUTABLE, `stockfish` on
    /// PATH, /usr/games/stockfish).
    #[arg(long, value_name = "PATH")]
    pub stockfish: Option<PathBuf>,
}

impl EngineArgs {
    /// The scorer these options ask for (Stockfish is looked up as
    /// [`crate::uci::find_stockfish`] does).
    ///
    /// # Errors
    /// `--engine stockfish` without a Stockfish.
    pub fn scorer(&self) -> Result<ScorerKind> {
        scorer::select(self.engine, self.stockfish.as_deref())
    }
}

/// `--profile FILE`: per-phase timings and belief sizes as JSON lines.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ProfileArgs {
    /// Write how long each phase of rbc's turns took and the belief's size
    /// after it to FILE, one JSON object a line (see docs/PERF.md; plot with
    /// scripts/plot_profile.py).
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
}

impl ProfileArgs {
    /// The profile file, created (or truncated) now, if one was asked for.
    ///
    /// # Errors
    /// If the file cannot be created.
    pub fn open(&self) -> Result<Option<ProfileFile>> {
        self.profile.as_deref().map(ProfileFile::create).transpose()
    }
}

/// A colour on the command line: `white` or `black`.
#[derive(clap::ValueEnum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum ColorArg {
    White,
    Black,
}

impl From<ColorArg> for Color {
    fn from(c: ColorArg) -> Color {
        match c {
            ColorArg::White => Color::White,
            ColorArg::Black => Color::Black,
        }
    }
}

/// Parses a finite number of seconds, 0 or more (a clap value parser).
///
/// # Errors
/// Anything else, with a message for clap to show.
pub fn non_negative_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "{s:?} is not a finite number of seconds, 0 or more"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizing_follows_capacity_memory_or_the_default() {
        let args = |capacity, memory: Option<&str>| MemoryArgs {
            capacity,
            memory: memory.map(str::to_string),
        };
        assert_eq!(
            args(None, None).sizing().unwrap().capacity,
            Sizing::DEFAULT_CAPACITY
        );
        assert_eq!(
            args(None, None).sizing_or(250_000).unwrap().capacity,
            250_000
        );
        assert_eq!(
            args(Some(1234), None).sizing_or(250_000).unwrap().capacity,
            1234
        );
        let mem = args(None, Some("64MiB")).sizing_or(250_000).unwrap();
        assert_eq!(
            mem.capacity,
            Sizing::with_memory(64 << 20).unwrap().capacity
        );
        let err = args(None, Some("lots")).sizing().unwrap_err();
        assert!(
            format!("{err:#}").contains("--memory: invalid size"),
            "{err:#}"
        );
        assert!(args(None, Some("1MiB")).sizing().is_err());
        let max = Sizing::MAX_CAPACITY as u64;
        assert_eq!(
            args(Some(max), None).sizing().unwrap().capacity,
            Sizing::MAX_CAPACITY
        );
        let err = args(Some(max + 1), None).sizing().unwrap_err();
        assert!(
            format!("{err}").contains("more than a belief can index"),
            "{err}"
        );
        let huge = args(None, Some("64GiB")).sizing().unwrap();
        assert_eq!(huge.capacity, Sizing::MAX_CAPACITY);
        assert!(huge.capacity + huge.stash <= rbc_core::belief::MAX_SLOTS);
    }

    #[test]
    fn seconds_are_finite_and_not_negative() {
        assert_eq!(non_negative_seconds("0"), Ok(0.0));
        assert_eq!(non_negative_seconds("2.5"), Ok(2.5));
        for bad in ["-1", "inf", "NaN", "soon", ""] {
            assert!(non_negative_seconds(bad).is_err(), "{bad}");
        }
    }
}
