//! `rbc`: a Reconnaissance Blind Chess bot, belief tracker and toolbox.
// One `unsafe` call, in `hugepages`, asks the kernel for huge pages.
#![deny(unsafe_code)]

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod agent;
mod arbiter;
mod args;
mod chess_json;
mod clean;
mod clock;
mod cmd;
mod history;
mod hugepages;
mod players;
mod profile;
mod protocol;
mod scorer;
mod server;
mod stats;
mod uci;

/// rbc: Reconnaissance Blind Chess engine, bot and belief tracker.
#[derive(Parser, Debug)]
#[command(name = "rbc", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Measure memory and throughput on the built-in belief fixtures.
    Bench(cmd::bench::Args),
    /// Play local games: one watched game, or a match with statistics.
    Play(cmd::play::Args),
    /// Print a saved game turn by turn, with belief size and a heat map.
    Replay(cmd::replay::Args),
    /// Track the belief from JSON-lines observations on stdin.
    Track(cmd::track::Args),
    /// Play on a reconchess server: accept invitations and play them, like rc-connect.
    Connect(cmd::connect::Args),
    /// Play one game on a reconchess server by its id.
    PlayRemote(cmd::play_remote::Args),
    /// Answer rules queries as JSON lines (used by the differential tests).
    #[command(hide = true)]
    Rules(cmd::rules::Args),
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Rules(args) => cmd::rules::run(args),
        Command::Bench(args) => cmd::bench::run(args),
        Command::Play(args) => cmd::play::run(args),
        Command::Replay(args) => cmd::replay::run(args),
        Command::Track(args) => cmd::track::run(args),
        Command::Connect(args) => cmd::connect::run(args),
        Command::PlayRemote(args) => cmd::play_remote::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("rbc: {err:#}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
