//! `rbc play`: local games on the built-in arbiter.
//!
//! One game (the default: rbc against reconchess's RandomBot) is shown turn
//! by turn; several games make a match with alternating colours, played
//! `--jobs` at a time, summed up in a table (or one JSON object with
//! `--json`) from the first named player's point of view (rbc's, if it plays
//! second). With `--profile FILE` the turns of rbc players are timed into
//! FILE (see [`crate::profile`]). See docs/play.md.

use crate::arbiter::{
    GameOutcome, GameSettings, Player, RealTime, TurnEvent, WinReason, play_game,
};
use crate::args::{EngineArgs, MemoryArgs, ProfileArgs, non_negative_seconds};
use crate::players::{self, Kind, PlayerOptions, RbcPlayer};
use crate::profile::{self, ProfileFile, ProfiledPlayer, SampleLog};
use crate::stats::{self, EloEstimate, format_elo};
use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rbc_core::{Board, Color, Piece, PieceKind, Square};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Arguments of `rbc play`.
#[derive(clap::Args, Debug)]
#[command(
    mut_arg("stockfish", |a| a.help(
        "Stockfish executable, for --engine and for the trout player (otherwise \
         $STOCKFISH_EXECUTABLE, `stockfish` on PATH, /usr/games/stockfish)"
    )),
    mut_arg("capacity", |a| a.help(
        "Active boards each rbc player's belief may hold; the stash for recovery \
         adds half as many [default: 1000000]"
    )),
    mut_arg("memory", |a| a.help(
        "Size each rbc player's belief to a memory budget instead, e.g. 256MiB \
         (belief, tables and the rest of the process)"
    )),
)]
pub struct Args {
    /// The white player (with --black; alternates in a match).
    #[arg(long, value_enum, value_name = "NAME", conflicts_with = "opponent")]
    pub white: Option<Kind>,
    /// The black player.
    #[arg(long, value_enum, value_name = "NAME", conflicts_with = "opponent")]
    pub black: Option<Kind>,
    /// Play rbc against NAME, colours alternating from game to game.
    #[arg(long, value_enum, value_name = "NAME")]
    pub opponent: Option<Kind>,
    /// Games to play; more than one makes a match with a summary.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub games: u32,
    /// Games played at once, each on its own thread.
    #[arg(long, short = 'j', default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: u32,
    /// Seconds on each clock at the start (`inf` for no limit).
    #[arg(long, default_value_t = 900.0, value_parser = parse_seconds)]
    pub seconds: f64,
    /// Seconds added after each turn.
    #[arg(long, default_value_t = 5.0, value_parser = non_negative_seconds)]
    pub increment: f64,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub memory: MemoryArgs,
    /// Seed of every random choice [default: from the clock, reported].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Save every game there, in reconchess's GameHistory JSON format.
    #[arg(long, value_name = "DIR")]
    pub history_dir: Option<PathBuf>,
    /// Print the summary as one JSON object (and nothing else on stdout).
    #[arg(long)]
    pub json: bool,
    /// No progress bar; a single game prints its result only.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Draw boards with chess glyphs instead of letters.
    #[arg(long)]
    pub unicode: bool,
    #[command(flatten)]
    pub profile: ProfileArgs,
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds"))?;
    if v.is_nan() || v <= 0.0 {
        return Err("the clock must start above 0 seconds".into());
    }
    Ok(v)
}

/// The two players of a match, by slot.
type Seats = [Box<dyn Player>; 2];

/// Everything a match needs, resolved from the arguments.
struct Setup {
    /// The two players: `kinds[0]` is white in even games.
    kinds: [Kind; 2],
    /// Display labels, distinct even when both players are of one kind.
    labels: [String; 2],
    /// Whose point of view the summary takes (0 or 1).
    focus: usize,
    games: usize,
    jobs: usize,
    settings: GameSettings,
    options: PlayerOptions,
    seed: u64,
    history_dir: Option<PathBuf>,
    /// `--profile`: where rbc players' turns are timed.
    profile: Option<ProfileFile>,
}

impl Setup {
    fn from_args(args: &Args) -> Result<Setup> {
        let kinds = match args.opponent {
            Some(k) => [Kind::Rbc, k],
            None => [
                args.white.unwrap_or(Kind::Rbc),
                args.black.unwrap_or(Kind::Random),
            ],
        };
        let labels = if kinds[0] == kinds[1] {
            [
                format!("{}#1", kinds[0].cli_name()),
                format!("{}#2", kinds[1].cli_name()),
            ]
        } else {
            kinds.map(|k| k.cli_name().to_string())
        };
        let focus = usize::from(kinds[0] != Kind::Rbc && kinds[1] == Kind::Rbc);
        let options = PlayerOptions {
            sizing: args.memory.sizing()?,
            scorer: args.engine.scorer()?,
            stockfish: args.engine.stockfish.clone(),
        };
        for k in kinds {
            players::check_available(k, &options)?;
        }
        let seed = args.seed.unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
        });
        if let Some(dir) = &args.history_dir {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create history directory {}", dir.display()))?;
        }
        let games = args.games as usize;
        // Last, so that a bad invocation leaves an earlier profile alone.
        let profile = args.profile.open()?;
        Ok(Setup {
            kinds,
            labels,
            focus,
            games,
            jobs: (args.jobs as usize).min(games),
            settings: GameSettings {
                seconds: args.seconds,
                increment: args.increment,
                move_limit: 100,
            },
            options,
            seed,
            history_dir: args.history_dir.clone(),
            profile,
        })
    }

    /// The seed of player `slot` on worker `worker`.
    fn player_seed(&self, worker: usize, slot: usize) -> u64 {
        let mut rng = rbc_core::rng::Rng::new(self.seed);
        let skip = 2 * worker + slot;
        for _ in 0..skip {
            rng.next_u64();
        }
        rng.next_u64()
    }

    /// Which slot plays white in game `index` (colours alternate).
    fn white_slot(index: usize) -> usize {
        index % 2
    }

    /// Both players, seeded for worker `worker` (reused for all its games).
    /// With a `log`, rbc players note the phases of their turns in it.
    fn seats(&self, worker: usize, log: Option<&SampleLog>) -> Result<Seats> {
        let seat = |slot: usize| -> Result<Box<dyn Player>> {
            let seed = self.player_seed(worker, slot);
            Ok(match (self.kinds[slot], log) {
                (Kind::Rbc, Some(log)) => Box::new(ProfiledPlayer::new(
                    RbcPlayer::from_options(&self.options, seed)?,
                    slot,
                    log.clone(),
                )),
                (kind, _) => players::create(kind, &self.options, seed)?,
            })
        };
        Ok([seat(0)?, seat(1)?])
    }

    /// A log for a worker's games when profiling.
    fn sample_log(&self) -> Option<SampleLog> {
        self.profile.as_ref().map(|_| SampleLog::default())
    }

    /// Writes the lines `log` holds for game `index` (also of a game that
    /// failed part way), and empties it for the next game.
    fn write_profile(&self, index: usize, log: Option<&SampleLog>) {
        if let (Some(file), Some(log)) = (&self.profile, log) {
            let samples = log.take();
            file.write(&profile::game_lines(
                index as u64 + 1,
                &self.labels,
                &samples,
            ));
        }
    }

    /// Plays game `index` between the seats, each slot on its colour.
    fn play(
        &self,
        seats: &mut Seats,
        index: usize,
        on_turn: &mut dyn FnMut(&TurnEvent<'_>),
    ) -> Result<GameOutcome> {
        let [a, b] = seats;
        let (white, black) = if Setup::white_slot(index) == 0 {
            (a, b)
        } else {
            (b, a)
        };
        play_game(
            white.as_mut(),
            black.as_mut(),
            self.settings,
            &RealTime::default(),
            on_turn,
        )
    }

    fn clock(&self) -> String {
        format!(
            "{}+{} s",
            fmt_seconds(self.settings.seconds),
            fmt_seconds(self.settings.increment)
        )
    }
}

fn fmt_seconds(s: f64) -> String {
    if s.is_infinite() {
        "inf".into()
    } else if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s}")
    }
}

/// One finished game of a match.
struct GameRecord {
    index: usize,
    white_slot: usize,
    outcome: GameOutcome,
    history_path: Option<PathBuf>,
}

impl GameRecord {
    /// The slot's colour.
    fn color_of(&self, slot: usize) -> Color {
        if slot == self.white_slot {
            Color::White
        } else {
            Color::Black
        }
    }

    /// +1 win, 0 draw, -1 loss for `slot`.
    fn result_for(&self, slot: usize) -> i8 {
        match self.outcome.winner {
            None => 0,
            Some(c) if c == self.color_of(slot) => 1,
            Some(_) => -1,
        }
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let setup = Setup::from_args(&args)?;
    if setup.games == 1 && !args.json {
        watch(&setup, &args)
    } else {
        run_match(&setup, &args)
    }
}

fn save_history(setup: &Setup, index: usize, outcome: &GameOutcome) -> Result<Option<PathBuf>> {
    let Some(dir) = &setup.history_dir else {
        return Ok(None);
    };
    let h = &outcome.history;
    let path = dir.join(format!(
        "game-{:04}-{}-{}.json",
        index + 1,
        h.white_name,
        h.black_name
    ));
    h.save(&path)?;
    Ok(Some(path))
}

// ---- one watched game -------------------------------------------------------

fn watch(setup: &Setup, args: &Args) -> Result<ExitCode> {
    let white_slot = Setup::white_slot(0);
    let log = setup.sample_log();
    let mut seats = setup.seats(0, log.as_ref())?;
    let labels = [
        setup.labels[white_slot].clone(),
        setup.labels[1 - white_slot].clone(),
    ];
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let show = !args.quiet;
    if show {
        writeln!(
            out,
            "{} (white) vs {} (black) · {} · seed {}\n",
            labels[0],
            labels[1],
            setup.clock(),
            setup.seed
        )?;
    }
    let mut io_error: Option<std::io::Error> = None;
    let mut half = 0usize;
    let played = setup.play(&mut seats, 0, &mut |ev| {
        half += 1;
        if show && io_error.is_none() {
            let text = render_turn(half, ev, &labels, args.unicode);
            if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
                io_error = Some(e);
            }
        }
    });
    setup.write_profile(0, log.as_ref());
    let outcome = played?;
    if let Some(e) = io_error {
        return Err(e.into());
    }
    let path = save_history(setup, 0, &outcome)?;
    writeln!(out, "{}", result_line(&outcome, &labels))?;
    if show {
        writeln!(
            out,
            "time used: white {:.1} s, black {:.1} s; left: white {}, black {}",
            outcome.seconds_used[0],
            outcome.seconds_used[1],
            fmt_clock(outcome.seconds_left[0]),
            fmt_clock(outcome.seconds_left[1]),
        )?;
    }
    if let Some(p) = path {
        writeln!(out, "history saved to {}", p.display())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn fmt_clock(s: f64) -> String {
    if s.is_infinite() {
        "inf".into()
    } else {
        format!("{s:.1} s")
    }
}

fn result_line(outcome: &GameOutcome, labels: &[String; 2]) -> String {
    let turns = outcome.turns();
    let reason = outcome.reason.map_or("?", WinReason::name);
    match outcome.winner {
        Some(c) => format!(
            "Result: {} ({c}) wins by {reason} after {turns} turns",
            labels[c.index()]
        ),
        None if outcome.reason == Some(WinReason::MoveLimit) => format!(
            "Result: draw by {reason} (100 half-moves without a capture or pawn move) after {turns} turns"
        ),
        None => format!("Result: draw ({reason}) after {turns} turns"),
    }
}

/// The glyph of a piece: its FEN letter, or a chess symbol.
fn glyph(piece: Option<Piece>, unicode: bool) -> char {
    match piece {
        None if unicode => '·',
        None => '.',
        Some(p) if !unicode => p.char(),
        Some(p) => {
            let white = ['♙', '♘', '♗', '♖', '♕', '♔'];
            let black = ['♟', '♞', '♝', '♜', '♛', '♚'];
            let k = p.kind as usize;
            if p.color == Color::White {
                white[k]
            } else {
                black[k]
            }
        }
    }
}

/// The board as 9 lines (rank 8 first, then the file letters), each
/// `width` columns wide.
pub(crate) fn board_lines(board: &Board, unicode: bool) -> Vec<String> {
    let mut lines = Vec::with_capacity(9);
    for rank in (0..8).rev() {
        let mut l = format!("{} ", rank + 1);
        for file in 0..8 {
            let sq = Square::ALL[rank * 8 + file];
            l.push(' ');
            l.push(glyph(board.piece_at(sq), unicode));
        }
        lines.push(l);
    }
    lines.push("   a b c d e f g h".into());
    lines
}

/// Places `right` beside `left`, `left` padded to `width` columns.
pub(crate) fn side_by_side(left: &[String], right: &[String], width: usize) -> String {
    let mut s = String::new();
    for i in 0..left.len().max(right.len()) {
        let l = left.get(i).map_or("", String::as_str);
        let r = right.get(i).map_or("", String::as_str);
        let pad = width.saturating_sub(l.chars().count());
        s.push_str("  ");
        s.push_str(l);
        if !r.is_empty() {
            s.push_str(&" ".repeat(pad));
            s.push_str(r);
        }
        s.push('\n');
    }
    s
}

/// "p on d5", "KING on e8".
pub(crate) fn describe_capture(capture: Option<Square>, piece: Option<Piece>) -> String {
    match (capture, piece) {
        (None, _) => "-".into(),
        (Some(sq), Some(p)) if p.kind == PieceKind::King => format!("the KING on {sq}!"),
        (Some(sq), Some(p)) => format!("{} on {sq}", piece_name(p)),
        (Some(sq), None) => format!("on {sq}"),
    }
}

fn piece_name(p: Piece) -> &'static str {
    match p.kind {
        PieceKind::Pawn => "pawn",
        PieceKind::Knight => "knight",
        PieceKind::Bishop => "bishop",
        PieceKind::Rook => "rook",
        PieceKind::Queen => "queen",
        PieceKind::King => "king",
    }
}

/// "d7: d8 q, e8 k (7 empty)".
pub(crate) fn describe_sense(square: Option<Square>, result: &[(Square, Option<Piece>)]) -> String {
    let Some(sq) = square else {
        return "none".into();
    };
    let pieces: Vec<String> = result
        .iter()
        .filter_map(|(s, p)| p.map(|p| format!("{s} {}", p.char())))
        .collect();
    let empty = result.iter().filter(|(_, p)| p.is_none()).count();
    if pieces.is_empty() {
        format!("{sq}: all {empty} empty")
    } else {
        format!("{sq}: {} ({empty} empty)", pieces.join(", "))
    }
}

/// "e2e4", "e2e4 → e2e3 (revised)", "e2e4 → failed", "pass".
pub(crate) fn describe_move(
    requested: Option<rbc_core::Move>,
    taken: Option<rbc_core::Move>,
) -> String {
    match (requested, taken) {
        (None, _) => "pass".into(),
        (Some(r), Some(t))
            if r == t || (r.promotion.is_none() && r.from == t.from && r.to == t.to) =>
        {
            t.to_string()
        }
        (Some(r), Some(t)) => format!("{r} → {t} (revised)"),
        (Some(r), None) => format!("{r} → failed"),
    }
}

fn render_turn(half: usize, ev: &TurnEvent<'_>, labels: &[String; 2], unicode: bool) -> String {
    let name = &labels[ev.color.index()];
    let belief = |c: Color| match ev.beliefs[c.index()] {
        Some(n) => format!("{} {n}", labels[c.index()]),
        None => format!("{} -", labels[c.index()]),
    };
    let info = vec![
        format!("Turn {half} · {} ({name})", ev.color),
        format!("sense     {}", describe_sense(ev.sense, ev.sense_result)),
        format!("move      {}", describe_move(ev.requested, ev.taken)),
        format!("capture   {}", describe_capture(ev.capture, ev.captured)),
        format!("clock     {}", fmt_clock(ev.seconds_left)),
        format!(
            "boards    {} · {}",
            belief(Color::White),
            belief(Color::Black)
        ),
    ];
    let mut s = side_by_side(&board_lines(ev.board, unicode), &info, 24);
    s.push('\n');
    s
}

// ---- a match ----------------------------------------------------------------

fn run_match(setup: &Setup, args: &Args) -> Result<ExitCode> {
    let bar = if args.quiet || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let b =
            ProgressBar::with_draw_target(Some(setup.games as u64), ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} games  {msg}",
            )
            .expect("valid template"),
        );
        b.enable_steady_tick(Duration::from_millis(250));
        b
    };
    let label = &setup.labels[setup.focus];
    bar.set_message(format!("{label}: +0 -0 ="));

    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<Result<GameRecord>>();
    let mut records: Vec<GameRecord> = Vec::with_capacity(setup.games);
    let mut first_error: Option<anyhow::Error> = None;
    std::thread::scope(|scope| {
        for worker in 0..setup.jobs {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || work(setup, worker, next, stop, tx));
        }
        drop(tx);
        let (mut w, mut l, mut d) = (0, 0, 0);
        for r in rx {
            match r {
                Ok(rec) => {
                    match rec.result_for(setup.focus) {
                        1 => w += 1,
                        -1 => l += 1,
                        _ => d += 1,
                    }
                    bar.inc(1);
                    bar.set_message(format!("{label}: +{w} -{l} ={d}"));
                    records.push(rec);
                }
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    first_error.get_or_insert(e);
                }
            }
        }
    });
    bar.finish_and_clear();
    if let Some(e) = first_error {
        return Err(e);
    }
    records.sort_by_key(|r| r.index);
    let summary = summarize(setup, &records);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&summary)?)?;
    } else {
        out.write_all(render_table(setup, &records).as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn work(
    setup: &Setup,
    worker: usize,
    next: &AtomicUsize,
    stop: &AtomicBool,
    tx: mpsc::Sender<Result<GameRecord>>,
) {
    let mut seats: Option<Seats> = None;
    let log = setup.sample_log();
    while !stop.load(Ordering::Relaxed) {
        let index = next.fetch_add(1, Ordering::Relaxed);
        if index >= setup.games {
            break;
        }
        let result = (|| -> Result<GameRecord> {
            let seats = match &mut seats {
                Some(s) => s,
                None => seats.insert(setup.seats(worker, log.as_ref())?),
            };
            let played = setup.play(seats, index, &mut |_| {});
            setup.write_profile(index, log.as_ref());
            let outcome = played?;
            let history_path = save_history(setup, index, &outcome)?;
            Ok(GameRecord {
                index,
                white_slot: Setup::white_slot(index),
                outcome,
                history_path,
            })
        })()
        .with_context(|| format!("game {}", index + 1));
        let failed = result.is_err();
        if tx.send(result).is_err() || failed {
            break;
        }
    }
}

/// Counts of a match from the focus player's side.
struct Tally {
    wins: u32,
    losses: u32,
    draws: u32,
    win_reasons: BTreeMap<&'static str, u32>,
    loss_reasons: BTreeMap<&'static str, u32>,
    draw_reasons: BTreeMap<&'static str, u32>,
    /// Seconds used per game, by slot.
    seconds: [Vec<f64>; 2],
    /// Games lost on time, by slot.
    lost_on_time: [u32; 2],
}

fn tally(setup: &Setup, records: &[GameRecord]) -> Tally {
    let mut t = Tally {
        wins: 0,
        losses: 0,
        draws: 0,
        win_reasons: BTreeMap::new(),
        loss_reasons: BTreeMap::new(),
        draw_reasons: BTreeMap::new(),
        seconds: [Vec::new(), Vec::new()],
        lost_on_time: [0; 2],
    };
    for r in records {
        let reason = r.outcome.reason.map_or("UNKNOWN", WinReason::name);
        let bucket = match r.result_for(setup.focus) {
            1 => {
                t.wins += 1;
                &mut t.win_reasons
            }
            -1 => {
                t.losses += 1;
                &mut t.loss_reasons
            }
            _ => {
                t.draws += 1;
                &mut t.draw_reasons
            }
        };
        *bucket.entry(reason).or_default() += 1;
        for slot in 0..2 {
            t.seconds[slot].push(r.outcome.seconds_used[r.color_of(slot).index()]);
            if r.outcome.reason == Some(WinReason::Timeout) && r.result_for(slot) == -1 {
                t.lost_on_time[slot] += 1;
            }
        }
    }
    t
}

fn finite_or_null(x: f64) -> Value {
    if x.is_finite() {
        json!((x * 100.0).round() / 100.0)
    } else {
        Value::Null
    }
}

fn summarize(setup: &Setup, records: &[GameRecord]) -> Value {
    let t = tally(setup, records);
    let (me, them) = (setup.focus, 1 - setup.focus);
    let elo = stats::elo_estimate(t.wins, t.losses, t.draws);
    let elo_json =
        |f: fn(&EloEstimate) -> f64| elo.as_ref().map_or(Value::Null, |e| finite_or_null(f(e)));
    let side = |slot: usize| {
        let (mean, max) = stats::mean_max(&t.seconds[slot]);
        json!({
            "name": setup.labels[slot],
            "mean": (mean * 1000.0).round() / 1000.0,
            "max": (max * 1000.0).round() / 1000.0,
            "lost_on_time": t.lost_on_time[slot],
        })
    };
    let games: Vec<Value> = records
        .iter()
        .map(|r| {
            let white = r.white_slot;
            let result = match r.result_for(me) {
                1 => "win",
                -1 => "loss",
                _ => "draw",
            };
            json!({
                "game": r.index + 1,
                "white": setup.labels[white],
                "black": setup.labels[1 - white],
                "winner": r.outcome.winner.map(|c| c.name()),
                "reason": r.outcome.reason.map(WinReason::name),
                "result": result,
                "turns": r.outcome.turns(),
                "seconds_used": {
                    "white": (r.outcome.seconds_used[0] * 1000.0).round() / 1000.0,
                    "black": (r.outcome.seconds_used[1] * 1000.0).round() / 1000.0,
                },
                "history": r.history_path.as_ref().map(|p| p.display().to_string()),
            })
        })
        .collect();
    json!({
        "player": setup.labels[me],
        "opponent": setup.labels[them],
        "games": records.len(),
        "wins": t.wins,
        "losses": t.losses,
        "draws": t.draws,
        "score": elo.as_ref().map(|e| e.score),
        "elo": elo_json(|e| e.elo),
        "elo_lower": elo_json(|e| e.lower),
        "elo_upper": elo_json(|e| e.upper),
        "elo_confidence": 0.95,
        "win_reasons": t.win_reasons,
        "loss_reasons": t.loss_reasons,
        "draw_reasons": t.draw_reasons,
        "losses_on_time": t.lost_on_time[me],
        "seconds_per_game": {
            "player": side(me),
            "opponent": side(them),
        },
        "settings": {
            "seconds": finite_or_null(setup.settings.seconds),
            "increment": setup.settings.increment,
            "jobs": setup.jobs,
            "seed": setup.seed,
            "capacity": setup.options.sizing.capacity,
        },
        "results": games,
    })
}

fn reasons(map: &BTreeMap<&'static str, u32>) -> String {
    map.iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn render_table(setup: &Setup, records: &[GameRecord]) -> String {
    let t = tally(setup, records);
    let (me, them) = (setup.focus, 1 - setup.focus);
    let n = records.len().max(1) as f64;
    let pct = |k: u32| format!("{:5.1}%", 100.0 * k as f64 / n);
    let mut s = String::new();
    s.push_str(&format!(
        "{} vs {}: {} games, colours alternating, {}, {} job{}, seed {}\n\n",
        setup.labels[me],
        setup.labels[them],
        records.len(),
        setup.clock(),
        setup.jobs,
        if setup.jobs == 1 { "" } else { "s" },
        setup.seed
    ));
    s.push_str(&format!(
        "  {:<8}{:>6} {:>6}   reasons\n",
        "", "games", "share"
    ));
    let mut row = |label: &str, k: u32, why: &BTreeMap<&'static str, u32>| {
        let line = format!("  {label:<8}{k:>6} {}   {}", pct(k), reasons(why));
        s.push_str(line.trim_end());
        s.push('\n');
    };
    row("wins", t.wins, &t.win_reasons);
    row("losses", t.losses, &t.loss_reasons);
    row("draws", t.draws, &t.draw_reasons);
    s.push_str(&format!("  {:<8}{:>6}\n\n", "total", records.len()));
    if let Some(e) = stats::elo_estimate(t.wins, t.losses, t.draws) {
        s.push_str(&format!(
            "  score {:.1}%  Elo difference ({} - {}) {}  95% interval [{}, {}]\n\n",
            100.0 * e.score,
            setup.labels[me],
            setup.labels[them],
            format_elo(e.elo),
            format_elo(e.lower),
            format_elo(e.upper)
        ));
    }
    let width = setup
        .labels
        .iter()
        .map(String::len)
        .max()
        .unwrap_or(4)
        .max(16);
    s.push_str(&format!(
        "  {:<width$}{:>10}{:>10}{:>14}\n",
        "seconds per game", "mean", "max", "lost on time"
    ));
    for slot in [me, them] {
        let (mean, max) = stats::mean_max(&t.seconds[slot]);
        s.push_str(&format!(
            "  {:<width$}{:>10.2}{:>10.2}{:>14}\n",
            setup.labels[slot], mean, max, t.lost_on_time[slot]
        ));
    }
    if let Some(dir) = &setup.history_dir {
        s.push_str(&format!("\n  histories saved in {}\n", dir.display()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_render_with_rank_8_on_top() {
        let lines = board_lines(&Board::start(), false);
        assert_eq!(lines[0], "8  r n b q k b n r");
        assert_eq!(lines[7], "1  R N B Q K B N R");
        assert_eq!(lines[8], "   a b c d e f g h");
        assert!(board_lines(&Board::start(), true)[0].contains('♜'));
    }

    #[test]
    fn moves_and_captures_read_well() {
        let m = |s: &str| Some(s.parse::<rbc_core::Move>().unwrap());
        assert_eq!(describe_move(None, None), "pass");
        assert_eq!(describe_move(m("e2e4"), m("e2e4")), "e2e4");
        assert_eq!(describe_move(m("e7e8"), m("e7e8q")), "e7e8q");
        assert_eq!(describe_move(m("d1h5"), m("d1g4")), "d1h5 → d1g4 (revised)");
        assert_eq!(describe_move(m("e2e4"), None), "e2e4 → failed");
        assert_eq!(describe_capture(None, None), "-");
        let r = vec![
            (Square::D8, Some("q".parse().unwrap())),
            (Square::E8, Some("k".parse().unwrap())),
            (Square::D7, None),
        ];
        assert_eq!(
            describe_sense(Some(Square::D7), &r),
            "d7: d8 q, e8 k (1 empty)"
        );
        assert_eq!(describe_sense(None, &[]), "none");
        assert_eq!(
            describe_capture(Some(Square::E8), Some("k".parse().unwrap())),
            "the KING on e8!"
        );
    }

    #[test]
    fn colours_alternate_and_seeds_differ() {
        assert_eq!(Setup::white_slot(0), 0);
        assert_eq!(Setup::white_slot(1), 1);
        let args = Args {
            white: None,
            black: None,
            opponent: Some(Kind::Attacker),
            games: 2,
            jobs: 4,
            seconds: 10.0,
            increment: 0.0,
            engine: EngineArgs::default(),
            memory: MemoryArgs {
                capacity: Some(100),
                memory: None,
            },
            seed: Some(9),
            history_dir: None,
            json: true,
            quiet: true,
            unicode: false,
            profile: ProfileArgs::default(),
        };
        let s = Setup::from_args(&args).unwrap();
        assert_eq!(s.kinds, [Kind::Rbc, Kind::Attacker]);
        assert_eq!(s.jobs, 2, "no more workers than games");
        assert_eq!(s.focus, 0);
        assert_ne!(s.player_seed(0, 0), s.player_seed(0, 1));
        assert_ne!(s.player_seed(0, 1), s.player_seed(1, 0));
        let args = Args {
            white: Some(Kind::Random),
            black: Some(Kind::Rbc),
            opponent: None,
            ..args
        };
        assert_eq!(Setup::from_args(&args).unwrap().focus, 1);
    }
}
