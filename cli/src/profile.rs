//! `--profile FILE`: how long rbc spends on each phase of its turns and how
//! large its belief is after it, as JSON lines for plotting.
//!
//! `rbc track` writes one line for every input line it answers, flushed at
//! once; `rbc play` keeps the lines of a game in memory and writes them in
//! one piece when the game ends, so games played in parallel never mix their
//! lines and the bot's clock is not charged for file writes. The schema is
//! documented in docs/PERF.md ("Profiling a game"); `scripts/plot_profile.py`
//! draws it.
//!
//! Profiling only reads the clock and the belief's counters: the choices of
//! the bot, and so the games, are the same with and without it.

use crate::arbiter::{GameSettings, Player, WinReason};
use crate::history::GameHistory;
use crate::players::RbcPlayer;
use anyhow::{Context, Result};
use rbc_core::belief::Stats;
use rbc_core::{Board, Color, Move, Piece, Square};
use serde::Serialize;
use std::cell::RefCell;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The phases of one of our turns, in order (also the names `rbc track`
/// uses for these events and queries).
pub const OPPONENT_MOVE: &str = "opponent_move";
/// See [`OPPONENT_MOVE`].
pub const SENSE: &str = "sense";
/// See [`OPPONENT_MOVE`].
pub const SENSE_RESULT: &str = "sense_result";
/// See [`OPPONENT_MOVE`].
pub const MOVE: &str = "move";
/// See [`OPPONENT_MOVE`].
pub const MOVE_RESULT: &str = "move_result";

/// One line of a profile.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Record<'a> {
    /// `rbc track`: the input line's number (as in error replies).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// The game, from 1 (`rbc play`: its number in the match; `rbc track`:
    /// the count of accepted `game_start`s, 0 before the first).
    pub game: u64,
    /// `rbc play`: the player's label (`rbc`, or `rbc#1`/`rbc#2` when both
    /// players are rbc).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player: Option<&'a str>,
    /// Our colour in the game (`null` before any game).
    pub color: Option<&'static str>,
    /// Our turn, from 1: one more than the `move_result`s before this line
    /// in the game.
    pub turn: u32,
    /// What was timed: a phase of the turn (`rbc track`: any event or query
    /// name, or `invalid` for a line that did not parse).
    pub phase: &'static str,
    /// `rbc track`: whether the line was accepted (false: an error reply).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ok: Option<bool>,
    /// Wall time of the phase, in milliseconds (microsecond resolution).
    pub ms: f64,
    /// Active hypotheses after the phase.
    pub boards: Option<usize>,
    /// Stashed hypotheses after the phase.
    pub stashed: Option<usize>,
    /// Hypotheses dropped so far in the game.
    pub dropped: Option<u64>,
    /// Our clock as given to a `sense` or `move` decision; `null` for other
    /// phases and an unknown clock.
    pub seconds_left: Option<f64>,
}

/// Milliseconds with microsecond resolution.
pub fn millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// A clock worth reporting, to the millisecond: finite, else `None`.
pub fn clock(seconds: f64) -> Option<f64> {
    seconds.is_finite().then(|| (seconds * 1e3).round() / 1e3)
}

impl Record<'_> {
    /// Appends the record and a newline to `buf`.
    pub fn push_line(&self, buf: &mut Vec<u8>) {
        serde_json::to_writer(&mut *buf, self).expect("a profile record serializes");
        buf.push(b'\n');
    }
}

/// The profile file, shared by every thread that writes to it.
pub struct ProfileFile {
    path: PathBuf,
    /// `None` once a write failed: profiling stops, the games go on.
    out: Mutex<Option<BufWriter<File>>>,
}

impl ProfileFile {
    /// Creates (or truncates) the file.
    ///
    /// # Errors
    /// If it cannot be created.
    pub fn create(path: &Path) -> Result<ProfileFile> {
        let file = File::create(path)
            .with_context(|| format!("--profile: cannot create {}", path.display()))?;
        Ok(ProfileFile {
            path: path.to_path_buf(),
            out: Mutex::new(Some(BufWriter::new(file))),
        })
    }

    /// Appends whole lines and flushes them: the lines of one call are never
    /// interleaved with another's. A failed write is reported once on
    /// stderr and ends profiling, never the games or the tracker.
    pub fn write(&self, lines: &[u8]) {
        if lines.is_empty() {
            return;
        }
        let mut guard = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(out) = guard.as_mut() else {
            return;
        };
        if let Err(e) = out.write_all(lines).and_then(|()| out.flush()) {
            eprintln!(
                "rbc: --profile {}: {e}; profiling stopped",
                self.path.display()
            );
            *guard = None;
        }
    }
}

// ---- rbc play ----------------------------------------------------------------

/// One timed phase of an rbc player's turn in `rbc play`.
#[derive(Copy, Clone, Debug)]
pub struct Sample {
    /// The player's slot in the match (0 or 1).
    slot: usize,
    color: Color,
    turn: u32,
    phase: &'static str,
    ms: f64,
    stats: Option<Stats>,
    seconds_left: Option<f64>,
}

/// The samples of the game being played, shared by the profiled players of
/// one worker (both seats, when both are rbc).
pub type SampleLog = Rc<RefCell<Vec<Sample>>>;

/// The lines of game `game` (numbered from 1), players labelled by slot.
pub fn game_lines(game: u64, labels: &[String; 2], samples: &[Sample]) -> Vec<u8> {
    let mut buf = Vec::with_capacity(samples.len() * 160);
    for s in samples {
        Record {
            line: None,
            game,
            player: Some(&labels[s.slot]),
            color: Some(s.color.name()),
            turn: s.turn,
            phase: s.phase,
            ok: None,
            ms: s.ms,
            boards: s.stats.map(|st| st.active),
            stashed: s.stats.map(|st| st.stashed),
            dropped: s.stats.map(|st| st.dropped),
            seconds_left: s.seconds_left,
        }
        .push_line(&mut buf);
    }
    buf
}

/// An rbc player that times each of its turn's callbacks and notes the
/// belief's size after it; it decides exactly as the player it wraps.
pub struct ProfiledPlayer {
    inner: RbcPlayer,
    slot: usize,
    log: SampleLog,
    color: Color,
    turn: u32,
}

impl ProfiledPlayer {
    /// Wraps `inner`, seated in `slot`, noting its phases in `log`.
    pub fn new(inner: RbcPlayer, slot: usize, log: SampleLog) -> ProfiledPlayer {
        ProfiledPlayer {
            inner,
            slot,
            log,
            color: Color::White,
            turn: 1,
        }
    }

    fn timed<T>(
        &mut self,
        phase: &'static str,
        seconds_left: Option<f64>,
        call: impl FnOnce(&mut RbcPlayer) -> Result<T>,
    ) -> Result<T> {
        let start = Instant::now();
        let result = call(&mut self.inner);
        let ms = millis(start.elapsed());
        self.log.borrow_mut().push(Sample {
            slot: self.slot,
            color: self.color,
            turn: self.turn,
            phase,
            ms,
            stats: self.inner.stats(),
            seconds_left: seconds_left.and_then(clock),
        });
        if phase == MOVE_RESULT {
            self.turn += 1;
        }
        result
    }
}

impl Player for ProfiledPlayer {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn handle_game_start(
        &mut self,
        color: Color,
        board: &Board,
        opponent_name: &str,
        settings: &GameSettings,
    ) -> Result<()> {
        self.color = color;
        self.turn = 1;
        self.inner
            .handle_game_start(color, board, opponent_name, settings)
    }

    fn handle_opponent_move_result(&mut self, capture: Option<Square>) -> Result<()> {
        self.timed(OPPONENT_MOVE, None, |p| {
            p.handle_opponent_move_result(capture)
        })
    }

    fn choose_sense(&mut self, actions: &[Move], seconds_left: f64) -> Result<Option<Square>> {
        self.timed(SENSE, Some(seconds_left), |p| {
            p.choose_sense(actions, seconds_left)
        })
    }

    fn handle_sense_result(&mut self, result: &[(Square, Option<Piece>)]) -> Result<()> {
        self.timed(SENSE_RESULT, None, |p| p.handle_sense_result(result))
    }

    fn choose_move(&mut self, actions: &[Move], seconds_left: f64) -> Result<Option<Move>> {
        self.timed(MOVE, Some(seconds_left), |p| {
            p.choose_move(actions, seconds_left)
        })
    }

    fn handle_move_result(
        &mut self,
        requested: Option<Move>,
        taken: Option<Move>,
        capture: Option<Square>,
    ) -> Result<()> {
        self.timed(MOVE_RESULT, None, |p| {
            p.handle_move_result(requested, taken, capture)
        })
    }

    fn handle_game_end(
        &mut self,
        winner: Option<Color>,
        reason: Option<WinReason>,
        history: &GameHistory,
    ) -> Result<()> {
        self.inner.handle_game_end(winner, reason, history)
    }

    fn belief_size(&self) -> Option<usize> {
        self.inner.belief_size()
    }

    fn think_ahead(&mut self) {
        self.inner.think_ahead();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{AgentConfig, Sizing};
    use crate::arbiter::{RealTime, play_game};
    use crate::players::RandomBot;
    use serde_json::Value;

    #[test]
    fn records_serialize_with_nulls_for_the_unknown() {
        let mut buf = Vec::new();
        Record {
            line: Some(3),
            game: 0,
            player: None,
            color: None,
            turn: 1,
            phase: "invalid",
            ok: Some(false),
            ms: millis(Duration::from_nanos(1_234_567)),
            boards: None,
            stashed: None,
            dropped: None,
            seconds_left: clock(f64::INFINITY),
        }
        .push_line(&mut buf);
        assert_eq!(
            std::str::from_utf8(&buf).unwrap(),
            "{\"line\":3,\"game\":0,\"color\":null,\"turn\":1,\"phase\":\"invalid\",\"ok\":false,\
             \"ms\":1.235,\"boards\":null,\"stashed\":null,\"dropped\":null,\"seconds_left\":null}\n"
        );
    }

    #[test]
    fn a_profiled_player_notes_five_phases_a_turn_and_plays_the_same_game() {
        let config = AgentConfig {
            sizing: Sizing::with_capacity(20_000),
            seed: 11,
            ..AgentConfig::default()
        };
        let settings = GameSettings {
            seconds: f64::INFINITY,
            ..GameSettings::default()
        };
        let mut plain = RbcPlayer::new(config.clone()).unwrap();
        let log = SampleLog::default();
        let mut profiled = ProfiledPlayer::new(RbcPlayer::new(config).unwrap(), 0, log.clone());
        let game = |white: &mut dyn Player| {
            let mut black = RandomBot::new(5);
            play_game(
                white,
                &mut black,
                settings,
                &RealTime::default(),
                &mut |_| {},
            )
            .unwrap()
        };
        let a = game(&mut plain);
        let b = game(&mut profiled);
        assert_eq!(a.history.requested_moves, b.history.requested_moves);
        assert_eq!((a.winner, a.reason), (b.winner, b.reason));

        let samples = log.take();
        let turns = b.history.num_turns(Color::White);
        assert_eq!(samples.len(), 5 * turns);
        let labels = ["rbc".to_string(), "random".to_string()];
        let text = String::from_utf8(game_lines(7, &labels, &samples)).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let phases = [OPPONENT_MOVE, SENSE, SENSE_RESULT, MOVE, MOVE_RESULT];
        for (i, v) in lines.iter().enumerate() {
            assert_eq!(v["game"], 7);
            assert_eq!(v["player"], "rbc");
            assert_eq!(v["color"], "white");
            assert_eq!(v["turn"], i / 5 + 1, "{v}");
            assert_eq!(v["phase"], phases[i % 5], "{v}");
            assert!(v["boards"].as_u64().unwrap() >= 1, "{v}");
            assert!(v["ms"].as_f64().unwrap() >= 0.0, "{v}");
            assert!(v.get("line").is_none() && v.get("ok").is_none());
            // An infinite clock is reported as unknown.
            assert!(v["seconds_left"].is_null(), "{v}");
        }
    }
}
