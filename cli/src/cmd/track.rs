//! `rbc track` (being written).

use anyhow::{Result, bail};
use std::process::ExitCode;

/// Arguments of `rbc track`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> Result<ExitCode> {
    bail!("rbc track is not built yet")
}
