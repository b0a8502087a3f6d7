//! `rbc play-remote`: play one game on a reconchess server by its id
//! (reconchess's `play_remote_game`), with the game loop of `rbc connect`.

use crate::cmd::connect::{ServerArgs, play_one};
use anyhow::Result;
use std::process::ExitCode;

/// Arguments of `rbc play-remote`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The game to play (as the server numbers it).
    #[arg(long, value_name = "ID")]
    pub game_id: String,
}

/// `rbc play-remote`.
///
/// # Errors
/// Bad arguments, the server refusing our credentials, or a game that failed
/// on our side (it is then resigned).
pub fn run(args: Args) -> Result<ExitCode> {
    play_one(&args.server, &args.game_id)
}
