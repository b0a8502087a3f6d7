//! A robust driver for an external UCI engine (Stockfish).
//!
//! Every read from the engine has a deadline: a background thread forwards
//! stdout lines into a channel that is read with `recv_timeout`, and another
//! thread drains stderr, keeping its last lines for error messages. An engine
//! that dies or hangs makes the call fail and the [`Engine`] unusable; the
//! [`Supervisor`] then kills it, restarts it once per game and, after a second
//! failure, stays disabled until the next game so that the caller falls back
//! to its built-in evaluator.

// The player wires this module up separately; until then only the tests use it.
#![allow(dead_code)]

use anyhow::{Context, Result, anyhow, bail};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How many stderr lines an [`Engine`] keeps for error messages.
const STDERR_TAIL: usize = 8;
/// How long [`Engine`]'s `Drop` waits for the engine to obey `quit`.
const QUIT_GRACE: Duration = Duration::from_millis(300);
/// The magnitude of [`Score::to_cp`] for a mate on the board (mate in 0 plies).
pub const MATE_CP: i32 = 100_000;

/// Settings for starting an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    /// The UCI `Threads` option.
    pub threads: usize,
    /// The UCI `Hash` option, in MiB.
    pub hash_mb: usize,
    /// How long to wait for any answer (`uciok`, `readyok`), and the slack
    /// allowed on top of the search limit for `bestmove`.
    pub timeout: Duration,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            threads: 1,
            hash_mb: 16,
            timeout: Duration::from_secs(10),
        }
    }
}

/// How long the engine may search.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    /// `go nodes N`.
    Nodes(u64),
    /// `go depth N`.
    Depth(u32),
    /// `go movetime MS`.
    MoveTime(Duration),
}

impl Limit {
    /// The `go` command for this limit.
    fn go_command(self) -> String {
        match self {
            Limit::Nodes(n) => format!("go nodes {}", n.max(1)),
            Limit::Depth(d) => format!("go depth {}", d.max(1)),
            Limit::MoveTime(t) => format!("go movetime {}", t.as_millis().max(1)),
        }
    }

    /// The time the search itself is expected to take (zero when unknown).
    fn expected_time(self) -> Duration {
        match self {
            Limit::MoveTime(t) => t,
            Limit::Nodes(_) | Limit::Depth(_) => Duration::ZERO,
        }
    }
}

/// An engine score, from the side to move's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves: positive if the side to move mates, zero or
    /// negative if it is mated (`Mate(0)`: it is checkmated now).
    Mate(i32),
}

impl Score {
    /// The score as centipawns, a mate in `p` plies counting as
    /// `±(MATE_CP - p)` so that quicker mates score higher. Centipawns are
    /// clamped to `±MATE_CP / 2`, so that they never reach a mate score.
    pub fn to_cp(self) -> i32 {
        match self {
            Score::Cp(cp) => cp.clamp(-MATE_CP / 2, MATE_CP / 2),
            Score::Mate(n) if n > 0 => MATE_CP - (2 * n.min(10_000) - 1),
            Score::Mate(n) => -(MATE_CP - 2 * n.saturating_neg().min(10_000)),
        }
    }
}

/// The result of one search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluation {
    /// The last score reported (for the first principal variation), possibly a bound.
    pub score: Score,
    /// The best move in UCI notation, `None` for `bestmove (none)`.
    pub best: Option<String>,
    /// The last node count reported.
    pub nodes: u64,
    /// The last depth reported.
    pub depth: u32,
}

/// The fields of an `info` line that matter here.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Info {
    depth: Option<u32>,
    multipv: Option<u32>,
    score: Option<Score>,
    nodes: Option<u64>,
}

/// Parses an `info` line; anything it does not understand is skipped.
fn parse_info(line: &str) -> Option<Info> {
    let mut tokens = line.split_ascii_whitespace();
    if tokens.next() != Some("info") {
        return None;
    }
    let mut info = Info::default();
    while let Some(token) = tokens.next() {
        match token {
            "depth" => info.depth = tokens.next().and_then(|t| t.parse().ok()),
            "multipv" => info.multipv = tokens.next().and_then(|t| t.parse().ok()),
            "nodes" => info.nodes = tokens.next().and_then(|t| t.parse().ok()),
            "score" => {
                let kind = tokens.next();
                let value = tokens.next().and_then(|t| t.parse::<i32>().ok());
                info.score = match (kind, value) {
                    (Some("cp"), Some(v)) => Some(Score::Cp(v)),
                    (Some("mate"), Some(v)) => Some(Score::Mate(v)),
                    _ => None,
                };
                // An optional `lowerbound`/`upperbound` follows; it is an
                // unknown token to this loop and so skipped.
            }
            // The rest of the line is free text or moves.
            "pv" | "string" | "refutation" | "currline" => break,
            _ => {}
        }
    }
    Some(info)
}

/// Parses a `bestmove` line: `Some(None)` for `bestmove (none)`.
fn parse_bestmove(line: &str) -> Option<Option<String>> {
    let mut tokens = line.split_ascii_whitespace();
    if tokens.next() != Some("bestmove") {
        return None;
    }
    Some(match tokens.next() {
        None | Some("(none)") | Some("0000") | Some("none") => None,
        Some(mv) => Some(mv.to_string()),
    })
}

/// Rejects text that would break the line protocol.
fn check_protocol_text(what: &str, text: &str) -> Result<()> {
    if text.is_empty() || text.chars().any(|c| c.is_control()) {
        bail!("invalid {what} for the engine: {text:?}");
    }
    Ok(())
}

/// A running UCI engine process.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// Set by the stderr thread when the engine's stderr is closed.
    stderr_done: Arc<AtomicBool>,
    path: PathBuf,
    name: Option<String>,
    timeout: Duration,
    /// Set once the engine failed (died, hung, or answered nonsense): it may be
    /// out of step with us, so it must not be used again.
    broken: bool,
}

impl Engine {
    /// Starts the engine at `path`, performs the `uci` handshake, sets the
    /// options and waits until it is ready.
    pub fn start(path: &Path, options: &EngineOptions) -> Result<Engine> {
        let mut child =
            spawn(path).with_context(|| format!("cannot start engine {}", path.display()))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");

        let (tx, lines) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("uci-stdout".into())
            .spawn(move || for_each_line(stdout, |line| tx.send(line).is_ok()));
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let stderr_done = Arc::new(AtomicBool::new(false));
        let (tail, done) = (Arc::clone(&stderr_tail), Arc::clone(&stderr_done));
        let spawned = spawned.and_then(|_| {
            std::thread::Builder::new()
                .name("uci-stderr".into())
                .spawn(move || {
                    drain_stderr(stderr, &tail);
                    done.store(true, Ordering::Release);
                })
        });

        let mut engine = Engine {
            child,
            stdin,
            lines,
            stderr_tail,
            stderr_done,
            path: path.to_path_buf(),
            name: None,
            timeout: options.timeout,
            broken: false,
        };
        if let Err(err) = spawned {
            engine.broken = true;
            return Err(err).context("cannot start the engine's reader threads");
        }
        engine.handshake(options)?;
        Ok(engine)
    }

    fn handshake(&mut self, options: &EngineOptions) -> Result<()> {
        self.send("uci")?;
        let deadline = Instant::now() + self.timeout;
        let mut name = None;
        let mut known_options = Vec::new();
        self.read_until(deadline, "`uciok` after `uci`", |line| {
            if let Some(rest) = line.strip_prefix("id name ") {
                name = Some(rest.trim().to_string());
            } else if let Some(rest) = line.strip_prefix("option name ")
                && let Some((option, _)) = rest.split_once(" type ")
            {
                known_options.push(option.trim().to_ascii_lowercase());
            }
            (line.trim() == "uciok").then_some(())
        })?;
        self.name = name;
        for (option, value) in [
            ("Threads", options.threads.max(1)),
            ("Hash", options.hash_mb.max(1)),
        ] {
            if known_options.iter().any(|o| o.eq_ignore_ascii_case(option)) {
                self.send(&format!("setoption name {option} value {value}"))?;
            }
        }
        self.sync()
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The name the engine gave in `id name`.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Whether an earlier failure left the engine unusable.
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    /// Starts a new game: `ucinewgame`, then waits for `readyok`.
    pub fn new_game(&mut self) -> Result<()> {
        self.send("ucinewgame")?;
        self.sync()
    }

    /// Sends `isready` and waits for `readyok`.
    fn sync(&mut self) -> Result<()> {
        self.send("isready")?;
        let deadline = Instant::now() + self.timeout;
        self.read_until(deadline, "`readyok` after `isready`", |line| {
            (line.trim() == "readyok").then_some(())
        })
    }

    /// Searches the position `fen` within `limit` and returns the last score
    /// and the best move. An engine that dies, or that does not answer within
    /// the limit's time plus the options' time-out, makes this fail and the
    /// engine unusable.
    pub fn evaluate(&mut self, fen: &str, limit: Limit) -> Result<Evaluation> {
        check_protocol_text("FEN", fen)?;
        self.send(&format!("position fen {fen}"))?;
        self.send(&limit.go_command())?;
        let deadline = Instant::now() + limit.expected_time() + self.timeout;
        let (mut score, mut nodes, mut depth) = (None, 0, 0);
        let best = self.read_until(deadline, "`bestmove` after `go`", |line| {
            if let Some(info) = parse_info(line) {
                if info.multipv.unwrap_or(1) == 1 {
                    if let Some(s) = info.score {
                        score = Some(s);
                    }
                    if let Some(d) = info.depth {
                        depth = d;
                    }
                }
                if let Some(n) = info.nodes {
                    nodes = n;
                }
                None
            } else {
                parse_bestmove(line)
            }
        })?;
        let Some(score) = score else {
            self.broken = true;
            bail!(
                "engine {} answered `bestmove` without reporting a score",
                self.path.display()
            );
        };
        Ok(Evaluation {
            score,
            best,
            nodes,
            depth,
        })
    }

    /// Writes one command line.
    fn send(&mut self, command: &str) -> Result<()> {
        if self.broken {
            bail!(
                "engine {} failed earlier and must be restarted",
                self.path.display()
            );
        }
        let Some(stdin) = self.stdin.as_mut() else {
            self.broken = true;
            bail!("engine {} has no input pipe", self.path.display());
        };
        let written = stdin
            .write_all(command.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush());
        if let Err(err) = written {
            self.broken = true;
            let detail = self.death_detail();
            return Err(anyhow!(err)).with_context(|| {
                format!(
                    "cannot send `{command}` to engine {}{detail}",
                    self.path.display()
                )
            });
        }
        Ok(())
    }

    /// Reads lines until `f` returns a value, failing at `deadline` or when the
    /// engine's output ends.
    fn read_until<T>(
        &mut self,
        deadline: Instant,
        waiting_for: &str,
        mut f: impl FnMut(&str) -> Option<T>,
    ) -> Result<T> {
        if self.broken {
            bail!(
                "engine {} failed earlier and must be restarted",
                self.path.display()
            );
        }
        loop {
            // Checked before receiving, so that an engine that talks
            // without end cannot keep us past the deadline.
            let left = deadline.saturating_duration_since(Instant::now());
            let received = if left.is_zero() {
                Err(RecvTimeoutError::Timeout)
            } else {
                self.lines.recv_timeout(left)
            };
            match received {
                Ok(line) => {
                    if let Some(value) = f(&line) {
                        return Ok(value);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.broken = true;
                    bail!(
                        "engine {} hung: no {waiting_for} within the time-out{}",
                        self.path.display(),
                        self.stderr_detail()
                    );
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.broken = true;
                    let detail = self.death_detail();
                    bail!(
                        "engine {} closed its output while we waited for {waiting_for}{detail}",
                        self.path.display()
                    );
                }
            }
        }
    }

    /// The exit status (if the engine has exited) and the stderr tail.
    fn death_detail(&mut self) -> String {
        // Give a dying process a moment so that its status is known.
        let deadline = Instant::now() + Duration::from_millis(100);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => break None,
            }
        };
        if status.is_some() {
            // Let the stderr thread catch the engine's last words.
            while !self.stderr_done.load(Ordering::Acquire)
                && Instant::now() < deadline + Duration::from_millis(100)
            {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        let status = status
            .map(|s| format!(" (it exited: {s})"))
            .unwrap_or_default();
        format!("{status}{}", self.stderr_detail())
    }

    fn stderr_detail(&self) -> String {
        let tail = self
            .stderr_tail
            .lock()
            .map(|t| t.iter().cloned().collect::<Vec<_>>())
            .unwrap_or_default();
        if tail.is_empty() {
            String::new()
        } else {
            format!("; its stderr ended with: {}", tail.join(" | "))
        }
    }
}

impl Drop for Engine {
    /// Asks the engine to quit, then kills it if need be, and always reaps it.
    fn drop(&mut self) {
        if !self.broken
            && let Some(stdin) = self.stdin.as_mut()
        {
            let _ = stdin.write_all(b"quit\n").and_then(|()| stdin.flush());
        }
        // Closing stdin is a second way of telling it to stop.
        drop(self.stdin.take());
        let grace = if self.broken {
            Duration::ZERO
        } else {
            QUIT_GRACE
        };
        let deadline = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) => return,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2))
                }
                _ => break,
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        // The reader threads end by themselves once the pipes close.
    }
}

/// Spawns the engine process, retrying briefly if the executable is busy
/// (a freshly written script can be held open by a concurrent fork).
fn spawn(path: &Path) -> std::io::Result<Child> {
    let mut attempts = 0;
    loop {
        let result = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        match result {
            Err(err) if err.kind() == std::io::ErrorKind::ExecutableFileBusy && attempts < 20 => {
                attempts += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            other => return other,
        }
    }
}

/// Reads `input` line by line until it ends or fails, or `each` returns
/// false; each line goes to `each` without its line break or trailing white
/// space (invalid UTF-8 replaced).
fn for_each_line(input: impl Read, mut each: impl FnMut(String) -> bool) {
    let mut reader = BufReader::new(input);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if !each(String::from_utf8_lossy(&buf).trim_end().to_string()) {
                    break;
                }
            }
        }
    }
}

/// Keeps the last [`STDERR_TAIL`] lines of the engine's stderr.
fn drain_stderr(stderr: impl Read, tail: &Mutex<VecDeque<String>>) {
    for_each_line(stderr, |line| {
        if !line.is_empty()
            && let Ok(mut tail) = tail.lock()
        {
            if tail.len() == STDERR_TAIL {
                tail.pop_front();
            }
            tail.push_back(line);
        }
        true
    });
}

/// Runs an engine for a game, restarting it once after a crash or hang; after
/// a second failure in the same game it stays disabled until
/// [`Supervisor::reset_for_new_game`].
///
/// A query that fails is retried once on a fresh engine. If that fails too,
/// the position is to blame, not the engine: it is remembered and refused
/// from then on (the caller falls back to its own evaluation for it), and the
/// engine stays enabled, so one poisonous position cannot cost the game its
/// engine.
pub struct Supervisor {
    path: PathBuf,
    options: EngineOptions,
    engine: Option<Engine>,
    failures: u32,
    restarts: u32,
    /// Whether the next start replaces an engine that failed.
    restarting: bool,
    last_error: Option<String>,
    /// Positions that failed on two engines in a row this game.
    poisoned: Vec<String>,
}

impl Supervisor {
    /// Failures tolerated per game before the engine is disabled.
    const MAX_FAILURES: u32 = 2;
    /// Positions blamed for failures per game; past this, failures count
    /// against the engine again (an engine failing on everything is broken).
    const MAX_POISONED: usize = 4;

    /// A supervisor that starts the engine on first use.
    pub fn new(path: &Path, options: EngineOptions) -> Supervisor {
        Supervisor {
            path: path.to_path_buf(),
            options,
            engine: None,
            failures: 0,
            restarts: 0,
            restarting: false,
            last_error: None,
            poisoned: Vec::new(),
        }
    }

    /// A supervisor with the engine already started (the first start failing is an error).
    pub fn start(path: &Path, options: EngineOptions) -> Result<Supervisor> {
        let mut supervisor = Supervisor::new(path, options);
        supervisor.engine = Some(Engine::start(path, &supervisor.options)?);
        Ok(supervisor)
    }

    /// Whether the engine is disabled for the rest of this game.
    pub fn is_disabled(&self) -> bool {
        self.failures >= Self::MAX_FAILURES
    }

    /// The running engine's process id, if it is running.
    pub fn pid(&self) -> Option<u32> {
        self.engine.as_ref().map(Engine::pid)
    }

    /// How many times the engine was restarted after a failure (over all games).
    pub fn restarts(&self) -> u32 {
        self.restarts
    }

    /// The last failure, for logging.
    pub fn last_error(&self) -> Option<&str> {
        self.last_error.as_deref()
    }

    /// Re-enables the engine for a new game (and tells a running one so).
    pub fn reset_for_new_game(&mut self) {
        self.failures = 0;
        self.poisoned.clear();
        if let Some(engine) = self.engine.as_mut()
            && let Err(err) = engine.new_game()
        {
            self.engine = None;
            self.note_failure(&err);
        }
    }

    /// Evaluates like [`Engine::evaluate`], restarting a failed engine once
    /// per game and retrying the same query once. Fails at once while
    /// disabled, and for a position that failed on two engines in a row.
    pub fn evaluate(&mut self, fen: &str, limit: Limit) -> Result<Evaluation> {
        // A malformed query is the caller's fault, not the engine's.
        check_protocol_text("FEN", fen)?;
        if self.poisoned.iter().any(|p| p == fen) {
            bail!("position {fen} made the engine fail twice; not sent again");
        }
        let mut attempts = 0;
        loop {
            if self.is_disabled() {
                bail!(
                    "engine disabled for the rest of the game after {} failures; last: {}",
                    self.failures,
                    self.last_error.as_deref().unwrap_or("unknown")
                );
            }
            // Only a started engine failing on the query counts as an attempt
            // on the position; failing to start is the engine's fault.
            let result = match self.running() {
                Ok(engine) => {
                    attempts += 1;
                    engine.evaluate(fen, limit)
                }
                Err(err) => Err(err),
            };
            let err = match result {
                Ok(evaluation) => return Ok(evaluation),
                Err(err) => err,
            };
            // Dropping a broken engine kills and reaps it.
            self.engine = None;
            if attempts == 2 && self.poisoned.len() < Self::MAX_POISONED {
                // Two engines in a row failed on this position: blame it, and
                // take back the first failure charged to the engine.
                self.failures = self.failures.saturating_sub(1);
                self.note_failure(&err);
                self.failures -= 1;
                self.poisoned.push(fen.to_owned());
                return Err(err.context("the engine fails on this position; it is not sent again"));
            }
            self.note_failure(&err);
            if self.is_disabled() {
                return Err(err.context("engine failed again; disabled for the rest of the game"));
            }
        }
    }

    /// The running engine, starting (or restarting) it if needed.
    fn running(&mut self) -> Result<&mut Engine> {
        if self.engine.is_none() {
            if std::mem::take(&mut self.restarting) {
                self.restarts += 1;
            }
            self.engine = Some(Engine::start(&self.path, &self.options)?);
        }
        Ok(self.engine.as_mut().expect("just started"))
    }

    fn note_failure(&mut self, err: &anyhow::Error) {
        self.failures += 1;
        self.restarting = true;
        self.last_error = Some(format!("{err:#}"));
    }
}

/// Finds a Stockfish executable: `explicit` if given (it must exist), else
/// `$STOCKFISH_EXECUTABLE`, else `stockfish` on `$PATH`, else
/// `/usr/games/stockfish` (Debian's package).
pub fn find_stockfish(explicit: Option<&Path>) -> Option<PathBuf> {
    find_stockfish_in(
        explicit,
        std::env::var_os("STOCKFISH_EXECUTABLE"),
        std::env::var_os("PATH"),
    )
}

fn find_stockfish_in(
    explicit: Option<&Path>,
    env: Option<OsString>,
    path_var: Option<OsString>,
) -> Option<PathBuf> {
    if let Some(path) = explicit {
        return is_executable(path).then(|| path.to_path_buf());
    }
    let on_path = |name: &Path| {
        path_var.as_ref().and_then(|dirs| {
            std::env::split_paths(dirs)
                .map(|dir| dir.join(name))
                .find(|p| is_executable(p))
        })
    };
    if let Some(env) = env.filter(|e| !e.is_empty()) {
        let path = PathBuf::from(env);
        if path.components().count() == 1 && !path.is_absolute() {
            if let Some(found) = on_path(&path) {
                return Some(found);
            }
        } else if is_executable(&path) {
            return Some(path);
        }
    }
    on_path(Path::new("stockfish")).or_else(|| {
        let debian = Path::new("/usr/games/stockfish");
        is_executable(debian).then(|| debian.to_path_buf())
    })
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The real Stockfish; the tests need it.
    pub(crate) fn stockfish() -> PathBuf {
        find_stockfish(None).unwrap_or_else(|| {
            panic!(
                "Stockfish not found: these tests need a real engine. Install Debian's `stockfish` package \
                 (`apt-get install stockfish`, which puts it at /usr/games/stockfish), put `stockfish` on PATH \
                 or set STOCKFISH_EXECUTABLE"
            )
        })
    }

    fn quick() -> EngineOptions {
        EngineOptions {
            threads: 1,
            hash_mb: 16,
            timeout: Duration::from_secs(5),
        }
    }

    /// Whether process `pid` still exists (a zombie counts as existing).
    fn process_exists(pid: u32) -> bool {
        Command::new("kill")
            .args(["-0", &pid.to_string()])
            .stderr(Stdio::null())
            .status()
            .expect("run kill -0")
            .success()
    }

    fn kill_9(pid: u32) {
        let status = Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -9 {pid} failed");
    }

    /// A temporary executable shell script, removed on drop.
    struct Script(PathBuf);

    impl Script {
        fn new(name: &str, body: &str) -> Script {
            use std::os::unix::fs::PermissionsExt;
            let dir =
                std::env::temp_dir().join(format!("rbc-uci-test-{}-{name}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join("engine.sh");
            std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            Script(path)
        }
    }

    impl Drop for Script {
        fn drop(&mut self) {
            if let Some(dir) = self.0.parent() {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }

    /// Never answers anything.
    const SILENT: &str = "while read -r line; do :; done\n";
    /// Completes the handshake but never answers `go`.
    const NO_BESTMOVE: &str = r#"while read -r line; do
  case "$line" in
    uci) echo "id name NoBestmove"; echo "uciok" ;;
    isready) echo "readyok" ;;
    quit) exit 0 ;;
  esac
done
"#;

    /// Completes the handshake, then answers `go` with endless `info` lines.
    const CHATTY: &str = r#"while read -r line; do
  case "$line" in
    uci) echo "uciok" ;;
    isready) echo "readyok" ;;
    go*) while :; do echo "info depth 1 score cp 0 nodes 1"; done ;;
  esac
done
"#;

    /// Answers every search, but dies on one position.
    const DIES_ON_POISON: &str = r#"while read -r line; do
  case "$line" in
    uci) echo "uciok" ;;
    isready) echo "readyok" ;;
    "position fen 4k3/8/8/8/8/8/8/3QK3 "*) exit 3 ;;
    go*) echo "info depth 1 score cp 12 nodes 1"; echo "bestmove e1e2" ;;
    quit) exit 0 ;;
  esac
done
"#;
    const POISON: &str = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1";

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    const MATE_IN_ONE: &str = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1";

    #[test]
    fn parses_info_lines() {
        let info = parse_info(
            "info depth 12 seldepth 15 multipv 1 score cp -31 upperbound nodes 4242 nps 1 time 3 pv e2e4 e7e5",
        )
        .unwrap();
        assert_eq!(
            info,
            Info {
                depth: Some(12),
                multipv: Some(1),
                score: Some(Score::Cp(-31)),
                nodes: Some(4242)
            }
        );
        let info = parse_info("info depth 3 score mate -2 lowerbound nodes 10").unwrap();
        assert_eq!(info.score, Some(Score::Mate(-2)));
        assert_eq!(info.nodes, Some(10));
        assert_eq!(
            parse_info("info depth 0 score mate 0").unwrap().score,
            Some(Score::Mate(0))
        );
        // Free text must not be read as fields.
        assert_eq!(
            parse_info("info string score cp 5 nodes 9").unwrap(),
            Info::default()
        );
        assert_eq!(parse_info("info score cp").unwrap().score, None);
        assert!(parse_info("bestmove e2e4").is_none());
        assert_eq!(
            parse_bestmove("bestmove e2e4 ponder e7e5"),
            Some(Some("e2e4".to_string()))
        );
        assert_eq!(parse_bestmove("bestmove (none)"), Some(None));
        assert_eq!(parse_bestmove("info depth 1"), None);
    }

    #[test]
    fn score_to_cp_orders_mates() {
        assert_eq!(Score::Cp(35).to_cp(), 35);
        assert_eq!(Score::Mate(1).to_cp(), MATE_CP - 1);
        assert_eq!(Score::Mate(0).to_cp(), -MATE_CP);
        assert_eq!(Score::Mate(-1).to_cp(), -(MATE_CP - 2));
        assert!(Score::Mate(1).to_cp() > Score::Mate(3).to_cp());
        assert!(Score::Mate(3).to_cp() > Score::Cp(5_000).to_cp());
        assert!(Score::Mate(-3).to_cp() < Score::Cp(-5_000).to_cp());
        assert!(Score::Mate(0).to_cp() < Score::Mate(-1).to_cp());
        assert!(Score::Cp(i32::MAX).to_cp() < Score::Mate(i32::MAX).to_cp());
        assert!(Score::Cp(i32::MIN).to_cp() > Score::Mate(i32::MIN).to_cp());
    }

    #[test]
    fn finds_stockfish() {
        let sf = stockfish();
        assert_eq!(find_stockfish(Some(&sf)), Some(sf.clone()));
        assert_eq!(
            find_stockfish(Some(Path::new("/nonexistent/stockfish"))),
            None
        );
        let dir = sf.parent().unwrap().as_os_str().to_owned();
        // The environment variable wins over PATH; a bare name is looked up on PATH.
        assert_eq!(
            find_stockfish_in(None, Some(sf.clone().into()), None),
            Some(sf.clone())
        );
        assert_eq!(
            find_stockfish_in(None, Some("stockfish".into()), Some(dir.clone())),
            Some(sf.clone())
        );
        assert_eq!(find_stockfish_in(None, None, Some(dir)), Some(sf.clone()));
        let debian = Path::new("/usr/games/stockfish");
        let fallback = find_stockfish_in(
            None,
            Some("/nonexistent".into()),
            Some("/nonexistent".into()),
        );
        assert_eq!(fallback, debian.exists().then(|| debian.to_path_buf()));
    }

    #[test]
    fn handshake_and_start_position() {
        let mut engine = Engine::start(&stockfish(), &quick()).unwrap();
        assert!(
            engine.name().is_some_and(|n| n.contains("Stockfish")),
            "name: {:?}",
            engine.name()
        );
        assert!(engine.pid() > 0);
        engine.new_game().unwrap();
        let eval = engine.evaluate(START, Limit::Nodes(20_000)).unwrap();
        let Score::Cp(cp) = eval.score else {
            panic!("expected a cp score: {eval:?}")
        };
        assert!((-100..=150).contains(&cp), "start position: {eval:?}");
        assert!(
            eval.best.is_some() && eval.nodes >= 20_000 && eval.depth >= 1,
            "{eval:?}"
        );
        let pid = engine.pid();
        drop(engine);
        assert!(!process_exists(pid), "engine {pid} not reaped");
    }

    #[test]
    fn mate_in_one_depth_and_movetime() {
        let mut engine = Engine::start(&stockfish(), &quick()).unwrap();
        let eval = engine.evaluate(MATE_IN_ONE, Limit::Depth(6)).unwrap();
        assert_eq!(eval.score, Score::Mate(1), "{eval:?}");
        assert_eq!(eval.best.as_deref(), Some("a1a8"));
        assert_eq!(eval.depth, 6);

        // Black is checkmated: no move, mate 0.
        let mated = "R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1";
        let eval = engine.evaluate(mated, Limit::Depth(3)).unwrap();
        assert_eq!((eval.score, eval.best), (Score::Mate(0), None));
        // Stalemate: no move, a draw.
        let eval = engine
            .evaluate("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", Limit::Depth(3))
            .unwrap();
        assert_eq!((eval.score, eval.best), (Score::Cp(0), None));

        let eval = engine.evaluate(START, Limit::Depth(5)).unwrap();
        assert_eq!(eval.depth, 5, "{eval:?}");
        let eval = engine
            .evaluate(START, Limit::MoveTime(Duration::from_millis(200)))
            .unwrap();
        assert!(eval.best.is_some() && eval.depth >= 1, "{eval:?}");
    }

    #[test]
    fn engine_killed_mid_game_is_restarted_once_then_disabled() {
        let sf = stockfish();
        let mut sup = Supervisor::start(&sf, quick()).unwrap();
        sup.evaluate(START, Limit::Nodes(2_000)).unwrap();
        let first = sup.pid().unwrap();

        kill_9(first);
        let eval = sup.evaluate(MATE_IN_ONE, Limit::Depth(4)).unwrap();
        assert_eq!(eval.best.as_deref(), Some("a1a8"));
        let second = sup.pid().unwrap();
        assert_ne!(first, second);
        assert_eq!(sup.restarts(), 1);
        assert!(!sup.is_disabled());
        assert!(!process_exists(first), "killed engine {first} not reaped");

        // A second failure in the same game disables the engine.
        kill_9(second);
        let err = sup.evaluate(START, Limit::Nodes(2_000)).unwrap_err();
        assert!(format!("{err:#}").contains("disabled"), "{err:#}");
        assert!(sup.is_disabled() && sup.pid().is_none());
        assert!(sup.evaluate(START, Limit::Nodes(2_000)).is_err());
        assert!(!process_exists(second), "killed engine {second} not reaped");

        // A new game re-enables it.
        sup.reset_for_new_game();
        assert!(!sup.is_disabled());
        let eval = sup.evaluate(MATE_IN_ONE, Limit::Depth(4)).unwrap();
        assert_eq!(eval.score, Score::Mate(1));
        assert_eq!(sup.restarts(), 2);
        sup.reset_for_new_game();
        sup.evaluate(START, Limit::Nodes(1_000)).unwrap();
    }

    #[test]
    fn a_position_that_kills_the_engine_is_not_retried_and_keeps_it_enabled() {
        let script = Script::new("poison", DIES_ON_POISON);
        let mut sup = Supervisor::start(&script.0, quick()).unwrap();
        assert_eq!(
            sup.evaluate(START, Limit::Nodes(10)).unwrap().score,
            Score::Cp(12)
        );
        let err = sup.evaluate(POISON, Limit::Nodes(10)).unwrap_err();
        assert!(format!("{err:#}").contains("not sent again"), "{err:#}");
        assert!(!sup.is_disabled());
        // Refused at once from then on: no engine is started or lost for it.
        assert!(sup.evaluate(START, Limit::Nodes(10)).is_ok());
        let pid = sup.pid().unwrap();
        let restarts = sup.restarts();
        assert!(sup.evaluate(POISON, Limit::Nodes(10)).is_err());
        assert_eq!((sup.pid(), sup.restarts()), (Some(pid), restarts));
        // The engine still has its one restart for a real failure.
        kill_9(pid);
        assert!(sup.evaluate(START, Limit::Nodes(10)).is_ok());
        assert!(!sup.is_disabled());
        // A new game forgets the position.
        sup.reset_for_new_game();
        assert!(sup.evaluate(POISON, Limit::Nodes(10)).is_err());
        assert!(!sup.is_disabled());
    }

    #[test]
    fn silent_engine_times_out_quickly() {
        let script = Script::new("silent", SILENT);
        let options = EngineOptions {
            timeout: Duration::from_millis(300),
            ..quick()
        };
        let err = Engine::start(&script.0, &options)
            .err()
            .expect("a silent engine must not start");
        assert!(format!("{err:#}").contains("uciok"), "{err:#}");

        // The supervisor tries twice, then gives up for the game.
        let mut sup = Supervisor::new(&script.0, options);
        assert!(sup.evaluate(START, Limit::Nodes(1)).is_err());
        assert!(sup.is_disabled());
        assert!(sup.evaluate(START, Limit::Nodes(1)).is_err());
    }

    #[test]
    fn engine_without_bestmove_times_out_and_is_reaped() {
        let script = Script::new("nobestmove", NO_BESTMOVE);
        let options = EngineOptions {
            timeout: Duration::from_millis(300),
            ..quick()
        };
        let mut engine = Engine::start(&script.0, &options).unwrap();
        assert_eq!(engine.name(), Some("NoBestmove"));
        engine.new_game().unwrap();
        let err = engine
            .evaluate(START, Limit::MoveTime(Duration::from_millis(100)))
            .unwrap_err();
        assert!(format!("{err:#}").contains("bestmove"), "{err:#}");
        assert!(engine.is_broken());
        assert!(engine.evaluate(START, Limit::Nodes(1)).is_err());
        let pid = engine.pid();
        drop(engine);
        assert!(!process_exists(pid), "hung engine {pid} not reaped");
    }

    #[test]
    fn chatty_engine_times_out() {
        let script = Script::new("chatty", CHATTY);
        let options = EngineOptions {
            timeout: Duration::from_millis(300),
            ..quick()
        };
        let mut engine = Engine::start(&script.0, &options).unwrap();
        let err = engine.evaluate(START, Limit::Nodes(1)).unwrap_err();
        assert!(format!("{err:#}").contains("hung"), "{err:#}");
        let pid = engine.pid();
        drop(engine);
        assert!(!process_exists(pid), "chatty engine {pid} not reaped");
    }

    #[test]
    fn engine_that_exits_is_an_error() {
        let script = Script::new("exits", "echo 'cannot start' >&2\nexit 3\n");
        let err = Engine::start(&script.0, &quick()).err().expect("must fail");
        let msg = format!("{err:#}");
        assert!(
            msg.contains("exited") && msg.contains("cannot start"),
            "{msg}"
        );
        assert!(Engine::start(Path::new("/nonexistent/engine"), &quick()).is_err());
    }

    #[test]
    fn rejects_fen_with_newlines() {
        let mut sup = Supervisor::new(&stockfish(), quick());
        assert!(
            sup.evaluate("8/8/8/8/8/8/8/8 w - -\ngo infinite", Limit::Nodes(1))
                .is_err()
        );
        // Not the engine's fault: no failure counted, nothing started.
        assert!(!sup.is_disabled() && sup.last_error().is_none() && sup.pid().is_none());
    }
}
