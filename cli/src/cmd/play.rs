//! `rbc play` (being written).

use anyhow::{Result, bail};
use std::process::ExitCode;

/// Arguments of `rbc play`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> Result<ExitCode> {
    bail!("rbc play is not built yet")
}
