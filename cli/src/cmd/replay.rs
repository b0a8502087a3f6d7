//! `rbc replay FILE`: prints a saved game (reconchess GameHistory JSON, as
//! `rbc play --history-dir` or reconchess writes it) turn by turn, and
//! re-tracks one side's belief by feeding that side's observations through an
//! [`Agent`]: the belief's size through each turn and a heat map of where the
//! opponent's pieces may stand.

use super::play::{board_lines, describe_capture, describe_move, describe_sense};
use crate::agent::{Agent, AgentConfig};
use crate::args::{ColorArg, MemoryArgs};
use crate::history::{GameHistory, Turn};
use anyhow::{Context, Result};
use rbc_core::belief::Belief;
use rbc_core::{Board, Color};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `rbc replay`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game history (reconchess GameHistory JSON).
    pub file: PathBuf,
    /// Whose belief to re-track [default: the first side named rbc, else white].
    #[arg(long = "as", value_enum, value_name = "SIDE")]
    pub side: Option<ColorArg>,
    #[command(flatten)]
    pub memory: MemoryArgs,
    /// Draw boards with chess glyphs instead of letters.
    #[arg(long)]
    pub unicode: bool,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let h = GameHistory::load(&args.file)?;
    let tracked = match args.side {
        Some(side) => side.into(),
        None => Color::ALL
            .into_iter()
            .find(|&c| h.name(c) == "rbc")
            .unwrap_or(Color::White),
    };
    let sizing = args.memory.sizing()?;
    let mut agent = Agent::new(AgentConfig {
        sizing,
        ..AgentConfig::default()
    })?;
    agent.start_game(tracked, &Board::start(), f64::INFINITY, 0.0)?;

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    writeln!(
        out,
        "{} (white) vs {} (black): {}\nre-tracking {}'s belief ({}), capacity {} boards\n",
        name_or(&h, Color::White),
        name_or(&h, Color::Black),
        result_text(&h),
        tracked,
        name_or(&h, tracked),
        sizing.capacity
    )?;

    let mut tracking: Option<String> = None; // why tracking stopped
    let mut board = Board::start();
    for (k, turn) in h.turns().into_iter().enumerate() {
        let Turn { color, number } = turn;
        let i = color.index();
        let mut info = vec![format!(
            "Turn {} · {color} ({}) · its turn {}",
            k + 1,
            name_or(&h, color),
            number + 1
        )];
        info.push(format!(
            "sense     {}",
            describe_sense(h.senses[i][number], &h.sense_results[i][number])
        ));
        if h.has_move(turn) {
            let b: Board = h.fens_before_move[i][number]
                .parse()
                .map_err(|e| anyhow::anyhow!("turn {}: bad FEN before the move: {e}", k + 1))?;
            let requested = h.requested_moves[i][number];
            let taken = h.taken_moves[i][number];
            let capture = h.capture_squares[i][number];
            info.push(format!("move      {}", describe_move(requested, taken)));
            info.push(format!(
                "capture   {}",
                describe_capture(capture, capture.and_then(|sq| b.piece_at(sq)))
            ));
            board = h.fens_after_move[i][number]
                .parse()
                .map_err(|e| anyhow::anyhow!("turn {}: bad FEN after the move: {e}", k + 1))?;
        } else {
            info.push("move      none (the game ended first)".into());
        }

        let mut heat: Option<Vec<String>> = None;
        if color == tracked && tracking.is_none() {
            match track_turn(&mut agent, &h, turn) {
                Ok(t) => {
                    info.push(format!(
                        "belief    {} boards after {}'s move → {} after the sense{}",
                        t.after_opponent,
                        color.flip(),
                        t.after_sense,
                        t.after_move
                            .map_or(String::new(), |n| format!(" → {n} after the move"))
                    ));
                    heat = Some(t.heat);
                }
                Err(e) => {
                    info.push(format!("belief    tracking stopped: {e:#}"));
                    tracking = Some(format!("{e:#}"));
                }
            }
        }

        for line in &info {
            writeln!(out, "{line}")?;
        }
        writeln!(out)?;
        let left = board_lines(&board, args.unicode);
        let text = match &heat {
            Some(map) => super::play::side_by_side(&left, map, 24),
            None => super::play::side_by_side(&left, &[], 0),
        };
        out.write_all(text.as_bytes())?;
        writeln!(out)?;
    }
    writeln!(out, "Result: {}", result_text(&h))?;
    if let Some(why) = tracking {
        writeln!(out, "(belief tracking stopped early: {why})")?;
    }
    Ok(ExitCode::SUCCESS)
}

fn name_or(h: &GameHistory, c: Color) -> String {
    match h.name(c) {
        "" => "?".into(),
        n => n.to_string(),
    }
}

fn result_text(h: &GameHistory) -> String {
    let reason = h.win_reason.map_or("no reason recorded", |r| r.name());
    match h.winner_color {
        Some(c) => format!("{} ({c}) wins by {reason}", name_or(h, c)),
        None => format!("no winner ({reason})"),
    }
}

/// What re-tracking one turn showed.
struct TrackedTurn {
    after_opponent: usize,
    after_sense: usize,
    after_move: Option<usize>,
    heat: Vec<String>,
}

/// Feeds one of the tracked side's turns through the agent: the opponent's
/// capture before it, the sense result and the move result. The heat map is
/// taken after the sense, when the move is chosen.
fn track_turn(agent: &mut Agent, h: &GameHistory, turn: Turn) -> Result<TrackedTurn> {
    let Turn { color, number } = turn;
    let (i, o) = (color.index(), color.flip().index());
    // The opponent's last move: black's previous turn before white's, white's
    // same-numbered turn before black's.
    let capture = match color {
        Color::White => number
            .checked_sub(1)
            .and_then(|n| h.capture_squares[o].get(n).copied().flatten()),
        Color::Black => h.capture_squares[o].get(number).copied().flatten(),
    };
    agent
        .opponent_move(capture)
        .context("the opponent's move")?;
    let after_opponent = belief_len(agent);
    agent
        .sense_result(&h.sense_results[i][number])
        .context("the sense result")?;
    let after_sense = belief_len(agent);
    let heat = agent.belief().map_or_else(Vec::new, |b| heat_map(b, color));
    let after_move = if h.has_move(turn) {
        agent
            .move_result(
                h.requested_moves[i][number],
                h.taken_moves[i][number],
                h.capture_squares[i][number],
            )
            .context("the move result")?;
        Some(belief_len(agent))
    } else {
        None
    };
    Ok(TrackedTurn {
        after_opponent,
        after_sense,
        after_move,
        heat,
    })
}

fn belief_len(agent: &Agent) -> usize {
    agent.belief().map_or(0, |b| b.len())
}

/// Per square, the share of the belief's boards with an opponent piece there,
/// as an 8x8 grid of percentages (rank 8 on top), with a caption.
fn heat_map(belief: &Belief<'_>, us: Color) -> Vec<String> {
    let hyps = belief.hypotheses();
    let mut counts = [0u64; 64];
    for h in hyps {
        for sq in h.occupied() {
            counts[sq.index()] += 1;
        }
    }
    let n = hyps.len().max(1) as f64;
    let mut lines = Vec::with_capacity(10);
    for rank in (0..8).rev() {
        let mut l = format!("{} ", rank + 1);
        for file in 0..8 {
            let c = counts[rank * 8 + file];
            let cell = if c == 0 {
                "·".to_string()
            } else {
                let pct = 100.0 * c as f64 / n;
                if pct < 0.5 {
                    "<1".to_string()
                } else {
                    format!("{pct:.0}")
                }
            };
            l.push_str(&format!("{cell:>4}"));
        }
        lines.push(l);
    }
    lines.push(format!(
        "{:>6}{:>4}{:>4}{:>4}{:>4}{:>4}{:>4}{:>4}",
        "a", "b", "c", "d", "e", "f", "g", "h"
    ));
    lines.push(format!(
        "% of {} boards with a {} piece",
        hyps.len(),
        us.flip()
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Sizing;

    #[test]
    fn the_opening_heat_map_is_certain() {
        let mut agent = Agent::new(AgentConfig {
            sizing: Sizing::with_capacity(1000),
            ..AgentConfig::default()
        })
        .unwrap();
        agent
            .start_game(Color::White, &Board::start(), 60.0, 0.0)
            .unwrap();
        let map = heat_map(agent.belief().unwrap(), Color::White);
        assert_eq!(map[0], "8  100 100 100 100 100 100 100 100");
        assert_eq!(map[4], "4    ·   ·   ·   ·   ·   ·   ·   ·");
        assert_eq!(map[9], "% of 1 boards with a black piece");
    }
}
