//! `rbc replay` (being written).

use anyhow::{Result, bail};
use std::process::ExitCode;

/// Arguments of `rbc replay`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> Result<ExitCode> {
    bail!("rbc replay is not built yet")
}
