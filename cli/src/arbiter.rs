//! A local arbiter on the core rules, behaving like reconchess 1.6.9's
//! `LocalGame` driven by `play_local_game` (`game.py`, `play.py`).
//!
//! - Clock: each side starts with `seconds`; a turn is charged the wall time
//!   from its start (the end of the opponent's turn) to its end, then the
//!   increment is added. The clock is only looked at between turns, after the
//!   increment: a turn that overruns what was left by less than the increment
//!   survives. A side at zero or below loses on TIMEOUT, and that outranks a
//!   king capture made in the same turn.
//! - Turn: the opponent's capture square (`None` before white's first move) →
//!   choose sense → sense result → choose move → move result → end of turn
//!   (`end_turn_last=True`, as `play_local_game` does: the move-result
//!   callback is on the mover's clock).
//! - End: a captured king (KING_CAPTURE), a clock at zero (TIMEOUT), or
//!   `move_limit` (100) half-moves without a capture or pawn move (a draw,
//!   MOVE_LIMIT). The game is checked before every turn, so the side whose
//!   king was taken, or whose opponent ran out of time, gets no further turn,
//!   only the end notification.
//! - A request outside the moves a player may request is an error of the
//!   game, as reconchess raises `ValueError`; it is never turned into a pass.

use crate::history::{GameHistory, SenseResult};
use anyhow::{Context, Result, bail};
use rbc_core::rules::{self, IllegalRequest, MoveResult};
use rbc_core::{Board, Color, Move, Piece, Square};
use std::time::Instant;

/// Why a game ended (reconchess's `WinReason`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WinReason {
    /// A king was captured.
    KingCapture,
    /// A side ran out of time.
    Timeout,
    /// A side resigned (reconchess only; this arbiter never resigns anyone).
    Resign,
    /// The full-turn limit was reached (reconchess only; off by default there too).
    TurnLimit,
    /// The reversible half-move limit was reached: a draw.
    MoveLimit,
}

impl WinReason {
    /// Every reason, in reconchess's order.
    pub const ALL: [WinReason; 5] = [
        WinReason::KingCapture,
        WinReason::Timeout,
        WinReason::Resign,
        WinReason::TurnLimit,
        WinReason::MoveLimit,
    ];

    /// The reconchess name (`KING_CAPTURE`, ...).
    pub fn name(self) -> &'static str {
        match self {
            WinReason::KingCapture => "KING_CAPTURE",
            WinReason::Timeout => "TIMEOUT",
            WinReason::Resign => "RESIGN",
            WinReason::TurnLimit => "TURN_LIMIT",
            WinReason::MoveLimit => "MOVE_LIMIT",
        }
    }

    /// Parses a reconchess name.
    pub fn from_name(name: &str) -> Option<WinReason> {
        WinReason::ALL.into_iter().find(|r| r.name() == name)
    }
}

impl std::fmt::Display for WinReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The clock and limits of a game.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct GameSettings {
    /// Seconds each side starts with (may be infinite).
    pub seconds: f64,
    /// Seconds added after each turn.
    pub increment: f64,
    /// Half-moves without a capture or pawn move before the game is drawn.
    pub move_limit: u32,
}

impl Default for GameSettings {
    fn default() -> Self {
        GameSettings {
            seconds: 900.0,
            increment: 5.0,
            move_limit: 100,
        }
    }
}

/// Where the arbiter reads the time (seconds from any fixed origin).
pub trait TimeSource {
    /// The current time in seconds.
    fn now(&self) -> f64;
}

/// Wall-clock time.
#[derive(Copy, Clone, Debug)]
pub struct RealTime(Instant);

impl Default for RealTime {
    fn default() -> Self {
        RealTime(Instant::now())
    }
}

impl TimeSource for RealTime {
    fn now(&self) -> f64 {
        self.0.elapsed().as_secs_f64()
    }
}

/// A player, with reconchess's `Player` callbacks. The arbiter calls them in
/// `play_local_game`'s order; every error ends the game as an error.
pub trait Player {
    /// The name written to the game history (reconchess writes the class name).
    fn name(&self) -> &str;

    /// A new game starts: our colour, the true starting board, the opponent's
    /// name and the clock.
    fn handle_game_start(
        &mut self,
        color: Color,
        board: &Board,
        opponent_name: &str,
        settings: &GameSettings,
    ) -> Result<()>;

    /// The opponent moved; `capture` is where it took one of our pieces.
    /// White's first turn gets `None`.
    fn handle_opponent_move_result(&mut self, capture: Option<Square>) -> Result<()>;

    /// Where to sense (`None`: no sense). `move_actions` are the moves we may
    /// request this turn.
    fn choose_sense(&mut self, move_actions: &[Move], seconds_left: f64) -> Result<Option<Square>>;

    /// What the sense showed.
    fn handle_sense_result(&mut self, result: &[(Square, Option<Piece>)]) -> Result<()>;

    /// The move to request (`None`: pass).
    fn choose_move(&mut self, move_actions: &[Move], seconds_left: f64) -> Result<Option<Move>>;

    /// What became of our request.
    fn handle_move_result(
        &mut self,
        requested: Option<Move>,
        taken: Option<Move>,
        capture: Option<Square>,
    ) -> Result<()>;

    /// The game ended.
    fn handle_game_end(
        &mut self,
        winner: Option<Color>,
        reason: Option<WinReason>,
        history: &GameHistory,
    ) -> Result<()>;

    /// How many boards the player's belief holds, if it keeps one.
    fn belief_size(&self) -> Option<usize> {
        None
    }

    /// Our turn has ended and the opponent's is about to begin: work that
    /// helps the next turn (rbc expands its belief ahead of the opponent's
    /// report). Called between the two turns, on neither player's clock:
    /// the stand-in for the opponent's think time, which a player on a
    /// server has to itself.
    fn think_ahead(&mut self) {}
}

/// The game state of reconchess's `LocalGame`: the true board, the clocks and
/// the history.
pub struct LocalGame<'t> {
    board: Board,
    turn: Color,
    settings: GameSettings,
    seconds_left: [f64; 2],
    seconds_used: [f64; 2],
    turn_start: Option<f64>,
    time: &'t dyn TimeSource,
    move_results: Option<Square>,
    history: GameHistory,
    finished: bool,
}

impl<'t> LocalGame<'t> {
    /// A game from the starting position, not started yet.
    pub fn new(settings: GameSettings, time: &'t dyn TimeSource) -> LocalGame<'t> {
        LocalGame {
            board: Board::start(),
            turn: Color::White,
            settings,
            seconds_left: [settings.seconds; 2],
            seconds_used: [0.0; 2],
            turn_start: None,
            time,
            move_results: None,
            history: GameHistory::default(),
            finished: false,
        }
    }

    /// Records the players' names in the history.
    pub fn store_players(&mut self, white: &str, black: &str) {
        self.history.white_name = white.to_string();
        self.history.black_name = black.to_string();
    }

    /// Starts the clock of the first player.
    pub fn start(&mut self) {
        self.turn_start = Some(self.time.now());
    }

    /// The true board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Whose turn it is.
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The seconds left to the side to move, counting the running turn.
    pub fn seconds_left(&self) -> f64 {
        match self.turn_start {
            Some(start) if !self.finished => {
                self.seconds_left[self.turn.index()] - (self.time.now() - start)
            }
            _ => self.seconds_left[self.turn.index()],
        }
    }

    /// The seconds `color` had left at the end of its last turn.
    pub fn seconds_left_of(&self, color: Color) -> f64 {
        self.seconds_left[color.index()]
    }

    /// Seconds each side has spent on its turns (increments not counted).
    pub fn seconds_used(&self) -> [f64; 2] {
        self.seconds_used
    }

    /// The moves the side to move may request.
    pub fn move_actions(&self) -> Vec<Move> {
        let mut v = Vec::with_capacity(64);
        rules::move_actions(&self.board, |m| {
            v.push(m);
            false
        });
        v
    }

    /// Where the last move captured, for the next player.
    pub fn opponent_move_results(&self) -> Option<Square> {
        self.move_results
    }

    /// Senses the 3x3 window around `square` (clipped at the edges), top row
    /// first, left to right; `None` senses nothing.
    pub fn sense(&mut self, square: Option<Square>) -> SenseResult {
        if self.finished {
            return Vec::new();
        }
        let result = match square {
            None => Vec::new(),
            Some(sq) => {
                let mut r = Vec::with_capacity(9);
                for dr in [1i8, 0, -1] {
                    for df in [-1i8, 0, 1] {
                        if let Some(s) = sq.offset(df, dr) {
                            r.push((s, self.board.piece_at(s)));
                        }
                    }
                }
                r
            }
        };
        self.history.store_sense(self.turn, square, result.clone());
        result
    }

    /// Arbitrates and plays a request (`None`: pass).
    ///
    /// # Errors
    /// [`IllegalRequest`] if the move is not one the side may request; the game
    /// is unchanged then.
    pub fn make_move(&mut self, requested: Option<Move>) -> Result<MoveResult, IllegalRequest> {
        if self.finished {
            return Ok(MoveResult {
                taken: None,
                capture: None,
            });
        }
        let result = rules::arbitrate(&self.board, requested)?;
        let before = self.board.to_string();
        self.board.play(result.taken);
        let after = self.board.to_string();
        self.history.store_move(
            self.turn,
            requested,
            result.taken,
            result.capture,
            before,
            after,
        );
        self.move_results = result.capture;
        Ok(result)
    }

    /// Charges the turn to the mover's clock, adds the increment and starts
    /// the other side's clock.
    pub fn end_turn(&mut self) {
        let now = self.time.now();
        let elapsed = now - self.turn_start.unwrap_or(now);
        let i = self.turn.index();
        self.seconds_left[i] -= elapsed;
        self.seconds_left[i] += self.settings.increment;
        self.seconds_used[i] += elapsed;
        self.turn = self.turn.flip();
        self.turn_start = Some(now);
    }

    /// Whether the game is over (checked between turns).
    pub fn is_over(&self) -> bool {
        if self.finished {
            return true;
        }
        let no_time = self.seconds_left() <= 0.0 || self.seconds_left_of(self.turn.flip()) <= 0.0;
        no_time
            || self.board.king_captured().is_some()
            || self.board.halfmove_clock() >= self.settings.move_limit
    }

    /// The winner once the game is over (`None`: not over, or a draw).
    pub fn winner(&self) -> Option<Color> {
        if !self.is_over() {
            return None;
        }
        if self.seconds_left[0] <= 0.0 {
            return Some(Color::Black);
        }
        if self.seconds_left[1] <= 0.0 {
            return Some(Color::White);
        }
        self.board.king_captured().map(Color::flip)
    }

    /// Why the game ended (`None` while it runs).
    pub fn win_reason(&self) -> Option<WinReason> {
        if !self.is_over() {
            return None;
        }
        if self.seconds_left.iter().any(|&s| s <= 0.0) {
            Some(WinReason::Timeout)
        } else if self.board.king_captured().is_some() {
            Some(WinReason::KingCapture)
        } else if self.board.halfmove_clock() >= self.settings.move_limit {
            Some(WinReason::MoveLimit)
        } else {
            None
        }
    }

    /// Ends the game: charges the side to move for its running turn and
    /// stores the result in the history.
    pub fn end(&mut self) {
        let left = self.seconds_left();
        let i = self.turn.index();
        self.seconds_used[i] += self.seconds_left[i] - left;
        self.seconds_left[i] = left;
        let (winner, reason) = (self.winner(), self.win_reason());
        self.finished = true;
        self.history.winner_color = winner;
        self.history.win_reason = reason;
    }

    /// The history so far.
    pub fn history(&self) -> &GameHistory {
        &self.history
    }
}

/// One finished turn, for watching a game.
#[derive(Debug)]
pub struct TurnEvent<'a> {
    /// Who played it.
    pub color: Color,
    /// Where it sensed.
    pub sense: Option<Square>,
    /// What the sense showed.
    pub sense_result: &'a [(Square, Option<Piece>)],
    /// The request (`None`: pass).
    pub requested: Option<Move>,
    /// The move taken (`None`: pass or failed).
    pub taken: Option<Move>,
    /// Where the move captured.
    pub capture: Option<Square>,
    /// The piece it captured there.
    pub captured: Option<Piece>,
    /// The true board after the move.
    pub board: &'a Board,
    /// The mover's clock after the turn (increment added).
    pub seconds_left: f64,
    /// The size of each side's belief, by colour, for players that keep one.
    pub beliefs: [Option<usize>; 2],
}

/// How a game ended.
#[derive(Clone, Debug)]
pub struct GameOutcome {
    /// The winner (`None`: a draw).
    pub winner: Option<Color>,
    /// Why the game ended.
    pub reason: Option<WinReason>,
    /// The full record.
    pub history: GameHistory,
    /// Seconds each side spent on its turns.
    pub seconds_used: [f64; 2],
    /// Seconds each side had left at the end.
    pub seconds_left: [f64; 2],
}

impl GameOutcome {
    /// Turns played by both sides.
    pub fn turns(&self) -> usize {
        self.history.num_turns(Color::White) + self.history.num_turns(Color::Black)
    }
}

/// Plays one game from the starting position, as reconchess's
/// `play_local_game` does, calling `on_turn` after every turn.
pub fn play_game(
    white: &mut dyn Player,
    black: &mut dyn Player,
    settings: GameSettings,
    time: &dyn TimeSource,
    on_turn: &mut dyn FnMut(&TurnEvent<'_>),
) -> Result<GameOutcome> {
    let mut game = LocalGame::new(settings, time);
    let (white_name, black_name) = (white.name().to_string(), black.name().to_string());
    game.store_players(&white_name, &black_name);
    let names = [white_name, black_name];
    white
        .handle_game_start(Color::White, game.board(), &names[1], &settings)
        .with_context(|| format!("white ({}): handle_game_start", names[0]))?;
    black
        .handle_game_start(Color::Black, game.board(), &names[0], &settings)
        .with_context(|| format!("black ({}): handle_game_start", names[1]))?;
    game.start();

    while !game.is_over() {
        let color = game.turn();
        let name = &names[color.index()];
        let player: &mut dyn Player = if color == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        let ctx = |what: &str| format!("{color} ({name}): {what}");

        let move_actions = game.move_actions();
        player
            .handle_opponent_move_result(game.opponent_move_results())
            .with_context(|| ctx("handle_opponent_move_result"))?;

        let sense = player
            .choose_sense(&move_actions, game.seconds_left())
            .with_context(|| ctx("choose_sense"))?;
        let sense_result = game.sense(sense);
        player
            .handle_sense_result(&sense_result)
            .with_context(|| ctx("handle_sense_result"))?;

        let requested = player
            .choose_move(&move_actions, game.seconds_left())
            .with_context(|| ctx("choose_move"))?;
        let before = *game.board();
        let result = match game.make_move(requested) {
            Ok(r) => r,
            Err(e) => bail!(
                "{color} ({name}) requested an illegal move: {e} (board {})",
                game.board()
            ),
        };
        player
            .handle_move_result(requested, result.taken, result.capture)
            .with_context(|| ctx("handle_move_result"))?;
        game.end_turn();
        player.think_ahead();

        let beliefs = [white.belief_size(), black.belief_size()];
        on_turn(&TurnEvent {
            color,
            sense,
            sense_result: &sense_result,
            requested,
            taken: result.taken,
            capture: result.capture,
            captured: result.capture.and_then(|sq| before.piece_at(sq)),
            board: game.board(),
            seconds_left: game.seconds_left_of(color),
            beliefs,
        });
    }

    game.end();
    let (winner, reason) = (game.winner(), game.win_reason());
    let history = game.history().clone();
    white
        .handle_game_end(winner, reason, &history)
        .with_context(|| format!("white ({}): handle_game_end", names[0]))?;
    black
        .handle_game_end(winner, reason, &history)
        .with_context(|| format!("black ({}): handle_game_end", names[1]))?;
    Ok(GameOutcome {
        winner,
        reason,
        seconds_used: game.seconds_used(),
        seconds_left: [
            game.seconds_left_of(Color::White),
            game.seconds_left_of(Color::Black),
        ],
        history,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::collections::VecDeque;
    use std::rc::Rc;

    /// Time that only moves when a scripted player says so.
    #[derive(Clone, Default)]
    struct ManualTime(Rc<Cell<f64>>);

    impl ManualTime {
        fn advance(&self, seconds: f64) {
            self.0.set(self.0.get() + seconds);
        }
    }

    impl TimeSource for ManualTime {
        fn now(&self) -> f64 {
            self.0.get()
        }
    }

    /// Plays a fixed list of requests (then passes), spending a fixed time
    /// on each turn, and logs its callbacks.
    struct Scripted {
        name: String,
        moves: VecDeque<Option<Move>>,
        think: VecDeque<f64>,
        time: ManualTime,
        log: Vec<String>,
    }

    impl Scripted {
        fn new(name: &str, moves: &[&str], think: &[f64], time: &ManualTime) -> Scripted {
            Scripted {
                name: name.into(),
                moves: moves
                    .iter()
                    .map(|m| (*m != "pass").then(|| m.parse().unwrap()))
                    .collect(),
                think: think.iter().copied().collect(),
                time: time.clone(),
                log: Vec::new(),
            }
        }
    }

    impl Player for Scripted {
        fn name(&self) -> &str {
            &self.name
        }
        fn handle_game_start(
            &mut self,
            color: Color,
            _: &Board,
            opponent: &str,
            _: &GameSettings,
        ) -> Result<()> {
            self.log.push(format!("start {color} vs {opponent}"));
            Ok(())
        }
        fn handle_opponent_move_result(&mut self, capture: Option<Square>) -> Result<()> {
            self.log.push(format!("opponent {capture:?}"));
            Ok(())
        }
        fn choose_sense(&mut self, _: &[Move], _: f64) -> Result<Option<Square>> {
            self.log.push("sense".into());
            Ok(Some(Square::E4))
        }
        fn handle_sense_result(&mut self, result: &[(Square, Option<Piece>)]) -> Result<()> {
            assert_eq!(result.len(), 9);
            self.log.push("sense_result".into());
            Ok(())
        }
        fn choose_move(&mut self, _: &[Move], seconds_left: f64) -> Result<Option<Move>> {
            self.time.advance(self.think.pop_front().unwrap_or(0.0));
            self.log.push(format!("move {seconds_left}"));
            Ok(self.moves.pop_front().flatten())
        }
        fn handle_move_result(
            &mut self,
            requested: Option<Move>,
            taken: Option<Move>,
            capture: Option<Square>,
        ) -> Result<()> {
            self.log
                .push(format!("result {requested:?} {taken:?} {capture:?}"));
            Ok(())
        }
        fn handle_game_end(
            &mut self,
            winner: Option<Color>,
            reason: Option<WinReason>,
            _: &GameHistory,
        ) -> Result<()> {
            self.log.push(format!("end {winner:?} {reason:?}"));
            Ok(())
        }
    }

    fn settings(seconds: f64, increment: f64) -> GameSettings {
        GameSettings {
            seconds,
            increment,
            move_limit: 100,
        }
    }

    fn run(white: &mut Scripted, black: &mut Scripted, s: GameSettings) -> GameOutcome {
        let time = white.time.clone();
        play_game(white, black, s, &time, &mut |_| {}).unwrap()
    }

    /// Scholar's-mate-like king capture: white takes the king on its third turn.
    const WHITE_ATTACK: [&str; 3] = ["e2e3", "d1h5", "h5e8"];
    const BLACK_OPENS: [&str; 2] = ["f7f6", "pass"];

    #[test]
    fn king_capture_ends_the_game_and_the_loser_sees_no_final_move() {
        let time = ManualTime::default();
        let mut w = Scripted::new("w", &WHITE_ATTACK, &[], &time);
        let mut b = Scripted::new("b", &BLACK_OPENS, &[], &time);
        let out = run(&mut w, &mut b, settings(900.0, 5.0));
        assert_eq!(out.winner, Some(Color::White));
        assert_eq!(out.reason, Some(WinReason::KingCapture));
        assert_eq!(out.history.num_turns(Color::White), 3);
        assert_eq!(out.history.num_turns(Color::Black), 2);
        assert_eq!(out.history.capture_squares[0][2], Some(Square::E8));
        // White's first notification is the null one; black never hears of the
        // capture of its king, only of the end.
        assert_eq!(w.log[1], "opponent None");
        let black_notes = b.log.iter().filter(|l| l.starts_with("opponent")).count();
        assert_eq!(black_notes, 2);
        assert_eq!(b.log.last().unwrap(), "end Some(White) Some(KingCapture)");
        assert_eq!(b.log[b.log.len() - 2], "result None None None");
        assert_eq!(
            out.history.fens_after_move[0][2],
            "rnbqQbnr/ppppp1pp/5p2/8/8/4P3/PPPP1PPP/RNB1KBNR b KQ - 0 3"
        );
    }

    #[test]
    fn callbacks_come_in_play_local_game_order() {
        let time = ManualTime::default();
        let mut w = Scripted::new("w", &WHITE_ATTACK, &[], &time);
        let mut b = Scripted::new("b", &BLACK_OPENS, &[], &time);
        run(&mut w, &mut b, settings(900.0, 5.0));
        assert_eq!(
            &w.log[..6],
            &[
                "start white vs b",
                "opponent None",
                "sense",
                "sense_result",
                "move 900",
                "result Some(Move { from: E2, to: E3, promotion: None }) \
                 Some(Move { from: E2, to: E3, promotion: None }) None",
            ]
        );
        assert_eq!(b.log[0], "start black vs w");
    }

    #[test]
    fn an_overrun_within_the_increment_survives() {
        let time = ManualTime::default();
        // White has 10 s and spends 12 s on its first turn: 10 - 12 + 5 = 3 s left.
        let mut w = Scripted::new("w", &WHITE_ATTACK, &[12.0, 2.0, 0.5], &time);
        let mut b = Scripted::new("b", &BLACK_OPENS, &[1.0, 1.0], &time);
        let out = run(&mut w, &mut b, settings(10.0, 5.0));
        assert_eq!(out.reason, Some(WinReason::KingCapture));
        assert_eq!(out.winner, Some(Color::White));
        // 10 - 12 + 5 - 2 + 5 - 0.5 + 5
        assert!(
            (out.seconds_left[0] - 10.5).abs() < 1e-9,
            "{:?}",
            out.seconds_left
        );
        assert!((out.seconds_used[0] - 14.5).abs() < 1e-9);
        assert!((out.seconds_left[1] - 18.0).abs() < 1e-9);
    }

    #[test]
    fn an_overrun_beyond_the_increment_loses_on_time() {
        let time = ManualTime::default();
        let mut w = Scripted::new("w", &WHITE_ATTACK, &[15.5], &time);
        let mut b = Scripted::new("b", &BLACK_OPENS, &[], &time);
        let out = run(&mut w, &mut b, settings(10.0, 5.0));
        assert_eq!(out.winner, Some(Color::Black));
        assert_eq!(out.reason, Some(WinReason::Timeout));
        assert_eq!(out.history.num_turns(Color::White), 1);
        assert_eq!(out.history.num_turns(Color::Black), 0);
        // Black never played: it only hears of the end.
        assert_eq!(
            b.log,
            vec!["start black vs w", "end Some(Black) Some(Timeout)"]
        );
    }

    #[test]
    fn a_timeout_outranks_a_king_capture_in_the_same_turn() {
        let time = ManualTime::default();
        // White takes the king on its third turn but overruns its clock doing it.
        let mut w = Scripted::new("w", &WHITE_ATTACK, &[1.0, 1.0, 30.0], &time);
        let mut b = Scripted::new("b", &BLACK_OPENS, &[], &time);
        let out = run(&mut w, &mut b, settings(10.0, 5.0));
        assert!(out.history.capture_squares[0][2] == Some(Square::E8));
        assert_eq!(out.winner, Some(Color::Black));
        assert_eq!(out.reason, Some(WinReason::Timeout));
        assert_eq!(out.history.winner_color, Some(Color::Black));
        assert_eq!(out.history.win_reason, Some(WinReason::Timeout));
    }

    #[test]
    fn one_hundred_reversible_half_moves_draw() {
        let time = ManualTime::default();
        let shuffle_w: Vec<&str> = ["g1f3", "f3g1"].iter().copied().cycle().take(60).collect();
        let shuffle_b: Vec<&str> = ["g8f6", "f6g8"].iter().copied().cycle().take(60).collect();
        let mut w = Scripted::new("w", &shuffle_w, &[], &time);
        let mut b = Scripted::new("b", &shuffle_b, &[], &time);
        let out = run(&mut w, &mut b, settings(900.0, 5.0));
        assert_eq!(out.winner, None);
        assert_eq!(out.reason, Some(WinReason::MoveLimit));
        assert_eq!(out.turns(), 100);
        assert!(out.history.fens_after_move[1][49].contains(" 100 51"));

        // A pawn move on half-move 99 resets the count: the game goes on
        // until half-move 199.
        let mut ws = vec!["pass"; 49];
        ws.push("e2e3");
        let mut w = Scripted::new("w", &ws, &[], &time);
        let mut b = Scripted::new("b", &[], &[], &time);
        let out = run(&mut w, &mut b, settings(900.0, 5.0));
        assert_eq!(out.reason, Some(WinReason::MoveLimit));
        assert_eq!(out.turns(), 199);
        assert_eq!(out.winner, None);

        // Passes count too (a null move is reversible).
        let mut w = Scripted::new("w", &[], &[], &time);
        let mut b = Scripted::new("b", &[], &[], &time);
        let out = run(&mut w, &mut b, settings(900.0, 5.0));
        assert_eq!((out.winner, out.reason), (None, Some(WinReason::MoveLimit)));
        assert_eq!(out.turns(), 100);
    }

    #[test]
    fn an_illegal_request_is_an_error() {
        let time = ManualTime::default();
        let mut w = Scripted::new("w", &["e2e5"], &[], &time);
        let mut b = Scripted::new("b", &[], &[], &time);
        let err = play_game(&mut w, &mut b, settings(900.0, 5.0), &time, &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(err.contains("illegal") && err.contains("e2e5"), "{err}");
    }

    #[test]
    fn sense_windows_are_clipped_and_ordered_like_reconchess() {
        let time = ManualTime::default();
        let mut g = LocalGame::new(GameSettings::default(), &time);
        let r = g.sense(Some(Square::A1));
        let squares: Vec<Square> = r.iter().map(|p| p.0).collect();
        assert_eq!(
            squares,
            vec![Square::A2, Square::B2, Square::A1, Square::B1]
        );
        let r = g.sense(Some(Square::E7));
        assert_eq!(r[0].0, Square::D8);
        assert_eq!(r[8].0, Square::F6);
        assert_eq!(r[1].1, Some("k".parse().unwrap()));
        assert!(g.sense(None).is_empty());
        assert_eq!(
            g.history().senses[0],
            vec![Some(Square::A1), Some(Square::E7), None]
        );
    }
}
