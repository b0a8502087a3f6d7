//! `rbc connect`: play on a reconchess server, as reconchess's `rc-connect`
//! does, and the game loop that `rbc play-remote` shares.
//!
//! `connect` polls the server's invitations, accepts them and plays up to
//! `--max-concurrent-games` games at once, one thread per game, each with its
//! own [`Agent`] (agents are kept and reused from game to game). A game that
//! fails on our side (the server refuses a request, the connection stays
//! down, the bot panics) is resigned with `error_resign`; every accepted
//! invitation is then marked finished. On Ctrl-C (or SIGTERM) it stops
//! accepting, marks itself unranked if it had asked for ranked games, lets
//! the running games finish and exits; a second Ctrl-C exits at once.
//!
//! The game loop mirrors reconchess's `play_remote_game` and `play_turn`:
//! post `ready`; then, each turn, wait on `game_status` until the game is over
//! or it is our turn, read `sense_actions`, `move_actions` and
//! `opponent_move_results`, sense, move, `end_turn` (before the bot digests
//! its move result, so that runs on nobody's clock); at the end read
//! `winner_color`, `win_reason` and `game_history`. One line per turn and a
//! result line go to stderr. See `docs/connect.md`.

use crate::agent::{Agent, AgentConfig, Sizing};
use crate::args::{EngineArgs, MemoryArgs, non_negative_seconds};
use crate::server::{
    self, ApiError, Client, ClientConfig, Credentials, DEFAULT_SERVER, PROTOCOL_VERSION,
    RetryPolicy,
};
use anyhow::{Context, Result, bail};
use rbc_core::{Color, Move, Square};
use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Options shared by `rbc connect` and `rbc play-remote`.
#[derive(clap::Args, Debug, Clone)]
#[command(
    mut_arg("capacity", |a| a.help(
        "Active hypotheses per game [default: 1000000 when one game is played at \
         a time, else shared out between the games played at once, at least 100000 each]"
    )),
    mut_arg("memory", |a| a.help(
        "Size each game's belief to a memory budget instead, e.g. 256MiB"
    )),
)]
pub struct ServerArgs {
    /// The reconchess server.
    #[arg(long, value_name = "URL", default_value = DEFAULT_SERVER)]
    pub server_url: String,
    /// The account to play as. The password comes from $RBC_PASSWORD, or
    /// else from a prompt that does not echo.
    #[arg(long)]
    pub username: String,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub memory: MemoryArgs,
    /// Seed for every random choice (game thread i uses seed + i).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Seconds between two `game_status` polls while the opponent plays.
    #[arg(long, value_name = "SECS", default_value_t = 0.5, value_parser = parse_positive)]
    pub poll_interval: f64,
    /// Time-out of one HTTP request, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30.0, value_parser = parse_positive)]
    pub request_timeout: f64,
    /// Keep retrying a failing request (5xx, dropped connection, time-out)
    /// for this many seconds before giving up.
    #[arg(long, value_name = "SECS", default_value_t = 600.0, value_parser = parse_positive)]
    pub retry_for: f64,
    /// The clock increment the bot plans with [default: the server does not
    /// tell; assumed to be the starting clock / 180, at most 5 s: 900 s + 5 s
    /// on the public server].
    #[arg(long, value_name = "SECS", value_parser = non_negative_seconds)]
    pub increment: Option<f64>,
    /// Save each game's history (reconchess GameHistory JSON) there.
    #[arg(long, value_name = "DIR")]
    pub save_games: Option<PathBuf>,
}

/// Arguments of `rbc connect`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Ask the server for ranked games (prompts about the bot's version
    /// unless --keep-version).
    #[arg(long)]
    pub ranked: bool,
    /// In ranked mode, keep the bot's version number, without prompts.
    #[arg(long)]
    pub keep_version: bool,
    /// Games played at once [default: the number of cores, at most 4].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=64))]
    pub max_concurrent_games: Option<u64>,
    /// Stop after accepting this many games (once they are finished).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_games: Option<u64>,
    /// Seconds between two invitation polls.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, value_parser = parse_positive)]
    pub invitation_poll: f64,
}

fn parse_positive(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("{s:?} is not a positive number of seconds")),
    }
}

// ---- set-up -------------------------------------------------------------------------

/// The password: $RBC_PASSWORD, or a prompt on the terminal without echo.
fn password(args: &ServerArgs) -> Result<String> {
    if let Some(p) = std::env::var_os("RBC_PASSWORD") {
        return p
            .into_string()
            .map_err(|_| anyhow::anyhow!("RBC_PASSWORD is not valid UTF-8"));
    }
    rpassword::prompt_password(format!(
        "Password for {} at {}: ",
        args.username, args.server_url
    ))
    .context("no RBC_PASSWORD in the environment and no terminal to ask for the password")
}

/// The belief capacity per game when none is given: the default for one
/// game at a time, shared out between `games` otherwise.
pub fn default_capacity(games: usize) -> usize {
    if games <= 1 {
        Sizing::DEFAULT_CAPACITY
    } else {
        (Sizing::DEFAULT_CAPACITY / games).max(100_000)
    }
}

fn agent_config(args: &ServerArgs, games: usize) -> Result<AgentConfig> {
    Ok(AgentConfig {
        sizing: args.memory.sizing_or(default_capacity(games))?,
        seed: args.seed,
        scorer: args.engine.scorer()?,
        ..AgentConfig::default()
    })
}

fn client_config(args: &ServerArgs, credentials: &Credentials) -> ClientConfig {
    ClientConfig {
        server_url: args.server_url.clone(),
        credentials: credentials.clone(),
        timeout: Duration::from_secs_f64(args.request_timeout),
        retry: RetryPolicy {
            give_up_after: Some(Duration::from_secs_f64(args.retry_for)),
            ..RetryPolicy::default()
        },
        log_prefix: String::new(),
    }
}

/// The increment assumed when `--increment` is not given: reconchess's
/// server does not report it.
pub fn assumed_increment(starting_seconds: f64) -> f64 {
    if starting_seconds.is_finite() {
        (starting_seconds / 180.0).clamp(0.0, 5.0)
    } else {
        5.0
    }
}

// ---- one game -----------------------------------------------------------------------

/// What the game loop needs besides the client and the bot.
#[derive(Clone, Debug)]
pub struct GameOptions {
    /// Wait between two `game_status` polls.
    pub poll: Duration,
    /// The increment to plan with (`None`: [`assumed_increment`]).
    pub increment: Option<f64>,
    /// Where to save game histories.
    pub save_games: Option<PathBuf>,
}

impl GameOptions {
    fn from_args(args: &ServerArgs) -> GameOptions {
        GameOptions {
            poll: Duration::from_secs_f64(args.poll_interval),
            increment: args.increment,
            save_games: args.save_games.clone(),
        }
    }
}

/// How a game ended for us.
#[derive(Clone, Debug, PartialEq)]
pub struct GameSummary {
    /// The server's game id.
    pub game_id: String,
    /// Our colour.
    pub color: Color,
    /// The opponent's name.
    pub opponent: String,
    /// The winner (`None`: a draw).
    pub winner: Option<Color>,
    /// The server's reason (`KING_CAPTURE`, ...), if any.
    pub reason: Option<String>,
    /// Turns we played.
    pub turns: u32,
}

impl GameSummary {
    /// `win`, `loss` or `draw`.
    pub fn outcome(&self) -> &'static str {
        match self.winner {
            Some(c) if c == self.color => "win",
            Some(_) => "loss",
            None => "draw",
        }
    }

    fn line(&self) -> String {
        format!(
            "[game {}] result: {} (winner={} reason={} us={} opponent={:?} turns={})",
            self.game_id,
            self.outcome(),
            self.winner.map_or("none", Color::name),
            self.reason.as_deref().unwrap_or("none"),
            self.color,
            self.opponent,
            self.turns
        )
    }
}

fn boards(agent: &Agent) -> usize {
    agent.belief().map_or(0, |b| b.len())
}

fn show_move(m: Option<Move>) -> String {
    m.map_or_else(|| "pass".to_string(), |m| m.to_string())
}

/// Logs a belief update that failed; the game goes on with what the bot has.
fn note_update(prefix: &str, what: &str, r: Result<(), rbc_core::belief::UpdateError>) {
    if let Err(e) = r {
        eprintln!("{prefix} belief: {what}: {e} (playing on)");
    }
}

/// Plays one turn; `turn` is ours, 1-based.
fn play_turn(
    game: &server::RemoteGame<'_>,
    agent: &mut Agent,
    prefix: &str,
    turn: u32,
) -> Result<()> {
    let sense_actions = game.sense_actions()?;
    let move_actions = game.move_actions()?;

    let capture = game.opponent_move_results()?;
    let at_start = boards(agent);
    note_update(prefix, "opponent move", agent.opponent_move(capture));
    let after_opponent = boards(agent);

    let seconds = game.seconds_left()?;
    let sense = match agent.choose_sense(seconds) {
        Ok(s) => s.filter(|s| sense_actions.contains(s)),
        Err(e) => {
            eprintln!("{prefix} choose_sense: {e}; not sensing");
            None
        }
    };
    let result = match game.sense(sense) {
        Ok(r) => r,
        // The sense was made but its answer was lost: move on without it
        // (the belief just learns nothing from this sense).
        Err(e) if e.is_refused_repeat() => {
            eprintln!("{prefix} {e}: the sense result was lost; going on without it");
            Vec::new()
        }
        Err(e) => return Err(e.into()),
    };
    note_update(prefix, "sense result", agent.sense_result(&result));
    let after_sense = boards(agent);

    let seconds = game.seconds_left()?;
    let requested = match agent.choose_move(seconds) {
        Ok(Some(m)) if !move_actions.contains(&m) => {
            eprintln!("{prefix} choose_move: {m} is not a move action; passing");
            None
        }
        Ok(m) => m,
        Err(e) => {
            eprintln!("{prefix} choose_move: {e}; passing");
            None
        }
    };
    let outcome = game.make_move(requested)?;
    game.end_turn()?;
    note_update(
        prefix,
        "move result",
        agent.move_result(outcome.requested, outcome.taken, outcome.capture),
    );
    // The opponent's turn has begun: its time is ours to use.
    agent.think_ahead();

    let pieces = result.iter().filter(|(_, p)| p.is_some()).count();
    eprintln!(
        "{prefix} turn {turn} {seconds:.1}s left: {}sense {} ({pieces} pieces), move {} -> {}{}, boards {at_start} -> {after_opponent} -> {after_sense} -> {}",
        capture.map_or(String::new(), |s| format!("lost a piece on {s}, ")),
        sense.map_or_else(|| "none".to_string(), |s: Square| s.to_string()),
        show_move(requested),
        show_move(outcome.taken),
        outcome
            .capture
            .map_or(String::new(), |s| format!(" captures on {s}")),
        boards(agent),
    );
    Ok(())
}

/// Plays game `game_id` to the end with `agent` (reconchess's `play_remote_game`).
///
/// # Errors
/// A request that failed for good, or an answer that makes no sense.
pub fn play_game(
    client: &Client,
    game_id: &str,
    agent: &mut Agent,
    options: &GameOptions,
) -> Result<GameSummary> {
    let prefix = format!("[game {game_id}]");
    let client = client.with_log_prefix(&format!("{prefix} "));
    let game = client.game(game_id);

    let color = game.color()?;
    let board = game.starting_board()?;
    let opponent = game.opponent_name()?;
    let seconds = game.seconds_left()?;
    let increment = options
        .increment
        .unwrap_or_else(|| assumed_increment(seconds));
    agent.start_game(color, &board, seconds, increment)?;
    eprintln!(
        "{prefix} playing {color} against {opponent:?} ({seconds:.0} s, planning with +{increment:.1} s per turn, evaluator {})",
        agent.scorer_name()
    );
    game.ready()?;

    let mut turns = 0;
    'game: loop {
        loop {
            let status = game.game_status()?;
            if status.is_over {
                break 'game;
            }
            if status.is_my_turn {
                break;
            }
            std::thread::sleep(options.poll);
        }
        turns += 1;
        if let Err(e) = play_turn(&game, agent, &prefix, turns) {
            // The server refuses turn requests once the game is over (our
            // clock ran out mid-turn): that is the end, not an error.
            if server::is_rejected(&e) && game.game_status()?.is_over {
                eprintln!("{prefix} the game ended during our turn ({e:#})");
                break;
            }
            return Err(e);
        }
    }
    agent.end_game();

    let winner = game.winner_color()?;
    let reason = game.win_reason()?;
    let history = game.game_history()?;
    if let Some(dir) = &options.save_games {
        let path = dir.join(format!("game-{game_id}.json"));
        std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&path, history.to_string()))
            .with_context(|| format!("saving the game history to {}", path.display()))?;
    }
    let summary = GameSummary {
        game_id: game_id.to_string(),
        color,
        opponent,
        winner,
        reason,
        turns,
    };
    eprintln!("{}", summary.line());
    Ok(summary)
}

/// Resigns `game_id` after an error of ours; logs what happens.
fn resign_after_error(client: &Client, game_id: &str, err: &anyhow::Error) {
    eprintln!("[game {game_id}] fatal error: {err:#}; resigning");
    if let Err(e) = client.error_resign(game_id) {
        eprintln!("[game {game_id}] error_resign failed: {e}");
    }
}

/// A panic in the bot, caught.
#[derive(Debug)]
struct Panicked(String);

impl std::fmt::Display for Panicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "internal error: {}", self.0)
    }
}

impl std::error::Error for Panicked {}

/// Runs `f`, turning a panic into a [`Panicked`] error.
fn catching<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(Panicked(msg).into())
        }
    }
}

/// Plays one game by id (`rbc play-remote`).
///
/// # Errors
/// Bad arguments, a failed start, or a game that failed (and was resigned).
pub fn play_one(args: &ServerArgs, game_id: &str) -> Result<ExitCode> {
    let credentials = Credentials::new(&args.username, &password(args)?);
    let client = Client::new(client_config(args, &credentials));
    check_version(&client)?;
    let mut agent = Agent::new(agent_config(args, 1)?)?;
    let options = GameOptions::from_args(args);
    match catching(|| play_game(&client, game_id, &mut agent, &options)) {
        Ok(_) => Ok(ExitCode::SUCCESS),
        Err(e) if server::is_unauthorized(&e) => Err(e),
        Err(e) => {
            resign_after_error(&client, game_id, &e);
            Err(e.context(format!("game {game_id} failed and was resigned")))
        }
    }
}

/// Reports a server that speaks another reconchess version (and goes on).
fn check_version(client: &Client) -> Result<()> {
    let version = client.server_version()?;
    if version != PROTOCOL_VERSION {
        eprintln!(
            "rbc: warning: the server runs reconchess {version}, rbc speaks the protocol of reconchess {PROTOCOL_VERSION}; going on, but requests may fail"
        );
    }
    Ok(())
}

// ---- signals ------------------------------------------------------------------------

/// Ctrl-C and SIGTERM, counted.
mod interrupt {
    use std::sync::atomic::{AtomicUsize, Ordering};

    static COUNT: AtomicUsize = AtomicUsize::new(0);

    /// Signals received since [`install`].
    pub fn count() -> usize {
        COUNT.load(Ordering::SeqCst)
    }

    /// Counts SIGINT and SIGTERM instead of dying on them (the `ctrlc`
    /// crate's handler thread only increments the counter).
    pub fn install() {
        if let Err(e) = ctrlc::set_handler(|| {
            COUNT.fetch_add(1, Ordering::SeqCst);
        }) {
            eprintln!("rbc: cannot catch Ctrl-C ({e}); it will stop rbc at once");
        }
    }
}

// ---- rc-connect -------------------------------------------------------------------

/// Asks a yes/no question on the terminal (an empty answer is yes, as in rc-connect).
fn confirm(question: &str) -> Result<bool> {
    let stdin = std::io::stdin();
    loop {
        eprint!("{question} [y/n] ");
        std::io::stderr().flush().ok();
        let mut line = String::new();
        if stdin.lock().read_line(&mut line)? == 0 {
            bail!(
                "no answer to {question:?} (stdin is closed): use --keep-version to play ranked without prompts"
            );
        }
        match line.trim().to_ascii_lowercase().chars().next() {
            None | Some('y') => return Ok(true),
            Some('n') => return Ok(false),
            _ => eprintln!("please answer y or n"),
        }
    }
}

/// rc-connect's `ranked_mode`: maybe a new version, then ranked.
fn ranked_mode(client: &Client, keep_version: bool) -> Result<()> {
    let current = client.bot_version()?;
    let increment = if current == 0 {
        true
    } else if keep_version {
        false
    } else {
        confirm("Is this a new version of your bot?")?
    };
    let next = current + i64::from(increment);
    if !keep_version
        && !confirm(&format!(
            "Are you sure you want to participate in ranked matches as v{next} (currently v{current})?"
        ))?
    {
        bail!("not joining ranked matches");
    }
    if increment {
        client.increment_version()?;
    }
    client.set_ranked(true)?;
    eprintln!("rbc: playing ranked games as v{next}");
    Ok(())
}

/// How a game thread ended.
enum Report {
    Played(GameSummary),
    /// Failed on our side and resigned.
    Resigned(String),
    /// The invitation could not be accepted.
    NotAccepted,
    /// The server refused our credentials.
    Unauthorized(anyhow::Error),
}

/// What game threads share.
struct Shared {
    client_config: ClientConfig,
    agent_config: AgentConfig,
    options: GameOptions,
    /// Idle agents, reused game after game (their memory is allocated once).
    pool: Mutex<Vec<Agent>>,
    /// Agents made so far (seeds them apart).
    made: Mutex<u64>,
}

impl Shared {
    fn take_agent(&self) -> Result<Agent> {
        if let Some(a) = self.pool.lock().unwrap_or_else(|p| p.into_inner()).pop() {
            return Ok(a);
        }
        let mut made = self.made.lock().unwrap_or_else(|p| p.into_inner());
        let config = AgentConfig {
            seed: self.agent_config.seed.wrapping_add(*made),
            ..self.agent_config.clone()
        };
        *made += 1;
        Agent::new(config)
    }

    fn give_back(&self, agent: Agent) {
        self.pool
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(agent);
    }
}

/// rc-connect's `accept_invitation_and_play`.
fn accept_and_play(shared: &Shared, invitation: &str) -> Report {
    let client = Client::new(ClientConfig {
        log_prefix: format!("[invitation {invitation}] "),
        ..shared.client_config.clone()
    });
    eprintln!("[invitation {invitation}] accepting");
    let game_id = match client.accept_invitation(invitation) {
        Ok(id) => id,
        Err(e @ ApiError::Unauthorized { .. }) => return Report::Unauthorized(e.into()),
        Err(e) => {
            eprintln!("[invitation {invitation}] could not accept: {e}");
            return Report::NotAccepted;
        }
    };
    eprintln!("[invitation {invitation}] accepted: game {game_id}");
    let mut poisoned = false;
    let result = match shared.take_agent() {
        Ok(mut agent) => {
            let r = catching(|| play_game(&client, &game_id, &mut agent, &shared.options));
            // After a panic the agent may be half updated: let it go (its
            // memory stays allocated) and make a fresh one next time.
            poisoned = r.as_ref().is_err_and(|e| e.is::<Panicked>());
            if !poisoned {
                shared.give_back(agent);
            }
            r
        }
        Err(e) => Err(e.context("starting the bot")),
    };
    let report = match result {
        Ok(summary) => Report::Played(summary),
        Err(e) if server::is_unauthorized(&e) => Report::Unauthorized(e),
        Err(e) => {
            if poisoned {
                eprintln!("[game {game_id}] discarding the bot after an internal error");
            }
            resign_after_error(&client, &game_id, &e);
            Report::Resigned(format!("game {game_id}: {e:#}"))
        }
    };
    if let Err(e) = client.finish_invitation(invitation) {
        eprintln!("[invitation {invitation}] finish failed: {e}");
    }
    report
}

struct Running {
    invitation: String,
    handle: JoinHandle<Report>,
}

#[derive(Default)]
struct Tally {
    wins: u32,
    losses: u32,
    draws: u32,
    errors: u32,
    not_accepted: u32,
}

impl Tally {
    fn add(&mut self, report: &Report) {
        match report {
            Report::Played(s) => match s.outcome() {
                "win" => self.wins += 1,
                "loss" => self.losses += 1,
                _ => self.draws += 1,
            },
            Report::Resigned(_) => self.errors += 1,
            Report::NotAccepted => self.not_accepted += 1,
            Report::Unauthorized(_) => {}
        }
    }
}

/// `rbc connect`.
///
/// # Errors
/// Bad arguments, the server refusing our credentials, or an unreachable
/// server at start.
pub fn run(args: Args) -> Result<ExitCode> {
    let max_concurrent = args.max_concurrent_games.map_or_else(
        || {
            std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .min(4)
        },
        |n| n as usize,
    );
    let credentials = Credentials::new(&args.server.username, &password(&args.server)?);
    let shared = Arc::new(Shared {
        client_config: client_config(&args.server, &credentials),
        agent_config: agent_config(&args.server, max_concurrent)?,
        options: GameOptions::from_args(&args.server),
        pool: Mutex::new(Vec::new()),
        made: Mutex::new(0),
    });
    // The lobby gives up on a request sooner than a game does: the poll loop
    // itself retries.
    let lobby = Client::new(ClientConfig {
        retry: RetryPolicy {
            give_up_after: Some(
                Duration::from_secs(20).min(Duration::from_secs_f64(args.server.retry_for)),
            ),
            ..RetryPolicy::default()
        },
        ..shared.client_config.clone()
    });

    check_version(&lobby)?;
    let ranked = if args.ranked {
        ranked_mode(&lobby, args.keep_version)?;
        true
    } else {
        lobby.set_ranked(false)?;
        false
    };
    // From here on Ctrl-C winds down instead of killing (not during the
    // prompts above, which it must be able to interrupt).
    interrupt::install();
    eprintln!(
        "rbc: connected to {} as {}; up to {max_concurrent} game(s) at once, {} hypotheses each{}",
        lobby.server_url(),
        credentials.username(),
        shared.agent_config.sizing.capacity,
        args.max_games
            .map_or(String::new(), |n| format!(", stopping after {n} game(s)"))
    );

    let poll = Duration::from_secs_f64(args.invitation_poll);
    let max_games = args.max_games.map_or(u64::MAX, |n| n);
    let mut connected = false;
    let mut running: Vec<Running> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut full_reported: HashSet<String> = HashSet::new();
    let mut accepted = 0u64;
    let mut stopping = false;
    let mut tally = Tally::default();
    let mut unauthorized: Option<anyhow::Error> = None;
    let mut next_poll = Instant::now();

    loop {
        let signals = interrupt::count();
        if signals >= 2 {
            eprintln!(
                "rbc: second interrupt: exiting now, {} game(s) left unfinished",
                running.len()
            );
            return Ok(ExitCode::from(130));
        }
        let stop_now = signals == 1 || accepted >= max_games || unauthorized.is_some();
        if stop_now && !stopping {
            stopping = true;
            if signals == 1 {
                eprintln!(
                    "rbc: interrupted: accepting no more games; waiting for {} running game(s) (Ctrl-C again to quit at once)",
                    running.len()
                );
            }
            if ranked && unauthorized.is_none() {
                match lobby.set_ranked(false) {
                    Ok(()) => eprintln!("rbc: marked unranked"),
                    Err(e) => eprintln!("rbc: could not mark unranked: {e}"),
                }
            }
        }

        // Collect finished games.
        let mut i = 0;
        while i < running.len() {
            if running[i].handle.is_finished() {
                let r = running.swap_remove(i);
                let report = r.handle.join().unwrap_or_else(|_| {
                    Report::Resigned(format!("invitation {}: the game thread died", r.invitation))
                });
                tally.add(&report);
                match report {
                    Report::Unauthorized(e) => {
                        unauthorized.get_or_insert(e);
                    }
                    Report::Resigned(msg) => eprintln!("rbc: {msg}"),
                    _ => {}
                }
            } else {
                i += 1;
            }
        }

        if stopping && running.is_empty() {
            break;
        }

        if !stopping && Instant::now() >= next_poll {
            next_poll = Instant::now() + poll;
            match lobby.invitations() {
                Ok(invitations) => {
                    if !connected {
                        match lobby.set_max_games(max_concurrent) {
                            Ok(()) => {
                                connected = true;
                                eprintln!("rbc: connected to the server");
                            }
                            Err(e @ ApiError::Unauthorized { .. }) => return Err(e.into()),
                            Err(e) => eprintln!("rbc: could not set max_games: {e}"),
                        }
                    }
                    for invitation in invitations {
                        if seen.contains(&invitation) || accepted >= max_games {
                            continue;
                        }
                        if running.len() >= max_concurrent {
                            if full_reported.insert(invitation.clone()) {
                                eprintln!("rbc: invitation {invitation}: no free game slot yet");
                            }
                            continue;
                        }
                        seen.insert(invitation.clone());
                        accepted += 1;
                        let shared = Arc::clone(&shared);
                        let inv = invitation.clone();
                        let handle = std::thread::Builder::new()
                            .name(format!("game-{invitation}"))
                            .spawn(move || accept_and_play(&shared, &inv))
                            .context("starting a game thread")?;
                        running.push(Running { invitation, handle });
                    }
                }
                Err(e @ ApiError::Unauthorized { .. }) => return Err(e.into()),
                Err(e) => {
                    if connected {
                        eprintln!("rbc: lost the server: {e}");
                    } else {
                        eprintln!("rbc: cannot reach the server: {e}");
                    }
                    connected = false;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }

    if let Some(e) = unauthorized {
        return Err(e);
    }
    eprintln!(
        "rbc: {} game(s) played: {} won, {} lost, {} drawn; {} failed and resigned; {} invitation(s) not accepted",
        tally.wins + tally.losses + tally.draws + tally.errors,
        tally.wins,
        tally.losses,
        tally.draws,
        tally.errors,
        tally.not_accepted
    );
    Ok(if tally.errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_increment_is_guessed_from_the_clock() {
        assert_eq!(assumed_increment(900.0), 5.0);
        assert_eq!(assumed_increment(3600.0), 5.0);
        assert!((assumed_increment(60.0) - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(assumed_increment(f64::INFINITY), 5.0);
        assert_eq!(assumed_increment(0.0), 0.0);
    }

    #[test]
    fn concurrent_games_share_out_the_default_capacity() {
        assert_eq!(default_capacity(1), Sizing::DEFAULT_CAPACITY);
        assert_eq!(default_capacity(2), Sizing::DEFAULT_CAPACITY / 2);
        assert_eq!(default_capacity(4), 250_000);
        assert_eq!(default_capacity(64), 100_000);
    }

    #[test]
    fn results_are_seen_from_our_side() {
        let mut s = GameSummary {
            game_id: "7".into(),
            color: Color::Black,
            opponent: "RandomBot".into(),
            winner: Some(Color::Black),
            reason: Some("KING_CAPTURE".into()),
            turns: 12,
        };
        assert_eq!(s.outcome(), "win");
        assert_eq!(
            s.line(),
            "[game 7] result: win (winner=black reason=KING_CAPTURE us=black opponent=\"RandomBot\" turns=12)"
        );
        s.winner = Some(Color::White);
        assert_eq!(s.outcome(), "loss");
        s.winner = None;
        s.reason = None;
        assert_eq!(s.outcome(), "draw");
        assert!(s.line().contains("winner=none reason=none"));
    }

    #[test]
    fn panics_become_errors() {
        let r: Result<()> = catching(|| panic!("boom"));
        let e = r.unwrap_err();
        assert!(e.is::<Panicked>());
        assert_eq!(e.to_string(), "internal error: boom");
        assert_eq!(catching(|| Ok(3)).unwrap(), 3);
    }
}
