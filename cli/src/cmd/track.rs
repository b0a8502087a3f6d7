//! `rbc track`: the belief tracker behind a JSON-lines protocol.
//!
//! Reads one JSON object per line on stdin (events that update the belief,
//! queries that read it) and answers every non-blank line with exactly one
//! JSON line on stdout, flushed at once. The protocol is specified in
//! `docs/protocol.md`; its types live in [`crate::protocol`].
//!
//! A bad line never ends the process and never changes the state: it is
//! answered with `{"error": ..., "line": K}`. Input is read in bounded
//! chunks, so an over-long line is skipped without being held in memory.
//!
//! With `--profile FILE`, every answered line is also timed, with the
//! belief's size after it, into FILE (see [`crate::profile`]).

use crate::agent::{Agent, AgentConfig};
use crate::args::{ColorArg, EngineArgs, MemoryArgs, ProfileArgs};
use crate::profile::{self, ProfileFile, Record};
use crate::protocol::{
    self, Ack, BoardsReply, ContainsReply, CountReply, ErrorReply, Event, MoveReply, Query, Reply,
    Request, SenseReply, StatsReply,
};
use anyhow::{Context, Result};
use rbc_core::Color;
use std::io::{self, BufRead, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Arguments of `rbc track`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Our colour; `game_start` must then agree with it.
    #[arg(long, value_enum)]
    color: Option<ColorArg>,
    #[command(flatten)]
    memory: MemoryArgs,
    /// Seed for every random choice.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    profile: ProfileArgs,
}

// ---- bounded line reading ------------------------------------------------------

/// One input line.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// The line's bytes, without the newline (and without a `\r` before it).
    Bytes(Vec<u8>),
    /// The line was longer than the limit; its bytes were discarded.
    TooLong,
}

/// Splits input into lines of at most `max` bytes, reading in the reader's
/// chunks: an over-long line is discarded up to its newline as it streams
/// past, so memory stays bounded whatever the input.
pub struct LineReader<R> {
    inner: R,
    max: usize,
    buf: Vec<u8>,
}

impl<R: BufRead> LineReader<R> {
    /// A reader of lines up to `max` bytes.
    pub fn new(inner: R, max: usize) -> Self {
        LineReader {
            inner,
            max,
            buf: Vec::new(),
        }
    }

    /// The next line, or `None` at end of input. A last line without a
    /// newline is still a line.
    ///
    /// # Errors
    /// Read errors other than interruptions.
    pub fn next_line(&mut self) -> io::Result<Option<Line>> {
        self.buf.clear();
        let mut too_long = false;
        let mut seen_any = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                if !seen_any {
                    return Ok(None);
                }
                break;
            }
            seen_any = true;
            let newline = chunk.iter().position(|&b| b == b'\n');
            let take = newline.unwrap_or(chunk.len());
            if !too_long {
                if self.buf.len() + take > self.max + 1 {
                    // One byte of slack for a `\r` before the newline.
                    too_long = true;
                    self.buf = Vec::new();
                } else {
                    self.buf.extend_from_slice(&chunk[..take]);
                }
            }
            let consumed = newline.map_or(take, |i| i + 1);
            self.inner.consume(consumed);
            if newline.is_some() {
                break;
            }
        }
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        if too_long || self.buf.len() > self.max {
            self.buf.clear();
            return Ok(Some(Line::TooLong));
        }
        Ok(Some(Line::Bytes(std::mem::take(&mut self.buf))))
    }
}

// ---- the session ---------------------------------------------------------------

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// No `game_start` yet.
    NoGame,
    /// A game is being played.
    Playing,
    /// `game_end` came: only queries (other than sense and move) and a new
    /// `game_start` are answered.
    Ended,
}

/// What became of one line.
struct Handled {
    /// The event or query name, `invalid` if the line did not parse.
    name: &'static str,
    /// The clock a `sense` or `move` query gave.
    seconds_left: Option<f64>,
    reply: Result<Reply, String>,
}

impl Handled {
    fn invalid(error: String) -> Handled {
        Handled {
            name: "invalid",
            seconds_left: None,
            reply: Err(error),
        }
    }
}

/// `--profile`: a line for every line answered, written after the reply.
struct TrackProfile {
    file: ProfileFile,
    /// Accepted `game_start`s.
    game: u64,
    /// Our turn in the game: one more than the accepted `move_result`s.
    turn: u32,
    buf: Vec<u8>,
}

impl TrackProfile {
    fn new(file: ProfileFile) -> TrackProfile {
        TrackProfile {
            file,
            game: 0,
            turn: 1,
            buf: Vec::new(),
        }
    }

    /// Notes line `line` (a `name` event or query, `ok` if accepted),
    /// handled in `elapsed`, with the belief as it is now.
    fn note(
        &mut self,
        line: u64,
        name: &'static str,
        ok: bool,
        seconds_left: Option<f64>,
        elapsed: Duration,
        agent: &Agent,
    ) {
        if ok && name == "game_start" {
            self.game += 1;
            self.turn = 1;
        }
        let stats = agent.stats();
        let record = Record {
            line: Some(line),
            game: self.game,
            player: None,
            color: agent.belief().map(|b| b.color().name()),
            turn: self.turn,
            phase: name,
            ok: Some(ok),
            ms: profile::millis(elapsed),
            boards: stats.map(|s| s.active),
            stashed: stats.map(|s| s.stashed),
            dropped: stats.map(|s| s.dropped),
            seconds_left: seconds_left.and_then(profile::clock),
        };
        self.buf.clear();
        record.push_line(&mut self.buf);
        self.file.write(&self.buf);
        if ok && name == profile::MOVE_RESULT {
            self.turn += 1;
        }
    }
}

/// The tracker's state: the agent (its belief and whether its game ended).
struct Tracker {
    agent: Agent,
    /// `--color`, which every `game_start` must agree with.
    color: Option<Color>,
}

impl Tracker {
    fn new(agent: Agent, color: Option<Color>) -> Tracker {
        Tracker { agent, color }
    }

    fn phase(&self) -> Phase {
        if self.agent.belief().is_none() {
            Phase::NoGame
        } else if self.agent.game_over() {
            Phase::Ended
        } else {
            Phase::Playing
        }
    }

    /// The reply to one non-blank line (an error reply's line number is
    /// filled in by the caller).
    fn handle(&mut self, line: &str) -> Handled {
        match protocol::parse(line) {
            Err(e) => Handled::invalid(e),
            Ok(Request::Event(event)) => Handled {
                name: event.name(),
                seconds_left: None,
                reply: self.event(event),
            },
            Ok(Request::Query(query)) => Handled {
                name: query.name(),
                seconds_left: match query {
                    Query::Sense { seconds_left } | Query::Move { seconds_left } => {
                        Some(seconds_left)
                    }
                    _ => None,
                },
                reply: self.query(query),
            },
        }
    }

    fn ack(&self) -> Reply {
        let stats = self.agent.stats().unwrap_or_default();
        Reply::Ack(Ack {
            ok: true,
            boards: stats.active,
            stashed: stats.stashed,
        })
    }

    fn event(&mut self, event: Event) -> Result<Reply, String> {
        let name = event.name();
        if let Event::GameStart {
            color,
            board,
            seconds,
            increment,
        } = event
        {
            if let Some(fixed) = self.color
                && fixed != color
            {
                return Err(format!(
                    "game_start: color \"{color}\" disagrees with --color {fixed}"
                ));
            }
            self.agent
                .start_game(color, &board, seconds, increment)
                .map_err(|e| format!("game_start: {e:#}"))?;
            return Ok(self.ack());
        }
        match self.phase() {
            Phase::NoGame => return Err(format!("{name} before game_start")),
            Phase::Ended => return Err(format!("{name} after game_end")),
            Phase::Playing => {}
        }
        let applied = match event {
            Event::GameStart { .. } => unreachable!("handled above"),
            Event::OpponentMove { capture } => self.agent.opponent_move(capture),
            Event::SenseResult { result } => self.agent.sense_result(&result),
            Event::MoveResult {
                requested,
                taken,
                capture,
            } => self.agent.move_result(requested, taken, capture),
            Event::GameEnd { .. } => {
                self.agent.end_game();
                Ok(())
            }
        };
        // The message of a contradiction is exactly "observation contradicts
        // every hypothesis"; the others say which rule the event broke.
        applied.map_err(|e| e.to_string())?;
        Ok(self.ack())
    }

    fn query(&mut self, query: Query) -> Result<Reply, String> {
        let name = query.name();
        let phase = self.phase();
        let Some(belief) = self.agent.belief() else {
            return Err(format!("{name} query before game_start"));
        };
        if matches!(query, Query::Sense { .. } | Query::Move { .. }) {
            if phase == Phase::Ended {
                return Err(format!("{name} query after game_end"));
            }
            if !belief.our_turn() {
                return Err(format!(
                    "{name} query outside our turn (the opponent moves next)"
                ));
            }
        }
        Ok(match query {
            Query::Sense { seconds_left } => {
                let sq = self
                    .agent
                    .choose_sense(seconds_left)
                    .map_err(|e| e.to_string())?;
                Reply::Sense(SenseReply {
                    sense: sq.map(|s| s.to_string()),
                })
            }
            Query::Move { seconds_left } => {
                let mv = self
                    .agent
                    .choose_move(seconds_left)
                    .map_err(|e| e.to_string())?;
                Reply::Move(MoveReply {
                    mv: mv.map(|m| m.to_string()),
                })
            }
            Query::Count => {
                let s = belief.stats();
                Reply::Count(CountReply {
                    boards: s.active,
                    stashed: s.stashed,
                    dropped: s.dropped,
                })
            }
            Query::Contains { board, history } => {
                let active = belief.contains(&board);
                Reply::Contains(ContainsReply {
                    contains: active,
                    recoverable: history.map(|h| active || belief.stash_holds(&h)),
                })
            }
            Query::Boards { limit } => {
                let turn = belief.side_to_move();
                let fens = belief
                    .hypotheses()
                    .iter()
                    .take(limit)
                    .map(|h| belief.board(h, turn).to_string())
                    .collect();
                Reply::Boards(BoardsReply {
                    total: belief.len(),
                    fens,
                })
            }
            Query::Stats => {
                let s = belief.stats();
                let t = &self.agent.timing;
                Reply::Stats(StatsReply {
                    engine: self.agent.scorer_name().to_string(),
                    bytes: s.bytes,
                    capacity: s.capacity,
                    active: s.active,
                    stashed: s.stashed,
                    dropped: s.dropped,
                    expansions: s.expansions,
                    recoveries: s.recoveries,
                    rebuilds: s.rebuilds,
                    children: s.children,
                    overflows: s.overflows,
                    logged: s.logged,
                    last_update_seconds: t.last_update,
                    last_sense_seconds: t.last_sense,
                    last_move_seconds: t.last_move,
                    last_move_boards: t.last_move_boards,
                    last_sense_scored: t.last_sense_scored,
                })
            }
        })
    }
}

/// Runs the tracker until end of input.
pub fn run(args: Args) -> Result<ExitCode> {
    // The `stats` query reports the evaluator actually in use, which falls
    // back to the built-in one if Stockfish fails twice in a game.
    let config = AgentConfig {
        sizing: args.memory.sizing()?,
        seed: args.seed,
        scorer: args.engine.scorer()?,
        ..AgentConfig::default()
    };
    let agent = Agent::new(config)?;
    let mut tracker = Tracker::new(agent, args.color.map(Color::from));
    let mut profile = args.profile.open()?.map(TrackProfile::new);

    let mut input = LineReader::new(io::stdin().lock(), protocol::MAX_LINE);
    let mut out = io::stdout().lock();
    let mut number: u64 = 0;
    while let Some(line) = input.next_line().context("reading stdin")? {
        number += 1;
        let start = profile.is_some().then(Instant::now);
        let handled = match line {
            Line::TooLong => {
                Handled::invalid(format!("line longer than {} bytes", protocol::MAX_LINE))
            }
            Line::Bytes(bytes) => match std::str::from_utf8(&bytes) {
                Err(e) => Handled::invalid(format!("line is not valid UTF-8 ({e})")),
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => tracker.handle(text),
            },
        };
        let elapsed = start.map(|t| t.elapsed());
        let Handled {
            name,
            seconds_left,
            reply,
        } = handled;
        let ok = reply.is_ok();
        let reply = reply.unwrap_or_else(|error| {
            Reply::Error(ErrorReply {
                error,
                line: number,
            })
        });
        serde_json::to_writer(&mut out, &reply).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
        out.flush()?;
        if let (Some(profile), Some(elapsed)) = (&mut profile, elapsed) {
            // The reply is out first: the bot on the other end is not kept
            // waiting for the profile's write.
            profile.note(number, name, ok, seconds_left, elapsed, &tracker.agent);
        }
        if ok && name == profile::MOVE_RESULT {
            // The opponent's turn: expand ahead of its report, after our
            // reply is out, so the next opponent_move is only a filter.
            tracker.agent.think_ahead();
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<Line> {
        // A tiny buffer so lines span many chunks.
        let mut r = LineReader::new(io::BufReader::with_capacity(3, input), max);
        std::iter::from_fn(|| r.next_line().unwrap()).collect()
    }

    #[test]
    fn lines_are_split_bounded_and_the_last_needs_no_newline() {
        let b = |s: &str| Line::Bytes(s.as_bytes().to_vec());
        assert_eq!(
            lines(b"ab\r\n\nabcdefgh\nabcdef\nxyz", 6),
            vec![b("ab"), b(""), Line::TooLong, b("abcdef"), b("xyz")]
        );
        assert_eq!(lines(b"", 6), vec![]);
        assert_eq!(lines(b"abc\n", 6), vec![b("abc")]);
        assert_eq!(lines(b"abcdef\r\n", 6), vec![b("abcdef")]);
        assert_eq!(lines(b"abcdefg\r\n", 6), vec![Line::TooLong]);
    }
}
