//! The players `rbc play` can seat: our bot and reconchess's three baselines.
//!
//! - `rbc`: the [`Agent`] (belief, sensing and move choice).
//! - `random`: reconchess's `RandomBot`: senses a uniformly random square of
//!   the 64 and requests a uniformly random entry of the move actions plus a
//!   pass.
//! - `attacker`: reconchess's `AttackerBot`: at the start of a game picks one
//!   of four scripted quick attacks on the king (mirrored for black), senses at
//!   random, and each turn requests the next move of its script that is still
//!   among the move actions, dropping those that are not; once the script is
//!   used up it passes for the rest of the game, as the original does.
//! - `trout`: reconchess's `TroutBot`: keeps one board (the start, minus our
//!   pieces the opponent captured, plus whatever each sense showed, plus our
//!   taken moves); takes the king when a piece of ours attacks it on that
//!   board, otherwise asks Stockfish for 0.5 s on it. It senses where it was
//!   just captured, else where the move it would make now captures on its
//!   board, else on a random square without one of its own pieces. Needs
//!   Stockfish (`--stockfish`, `$STOCKFISH_EXECUTABLE`, `PATH`).
//!
//! The baselines draw from [`rbc_core::rng::Rng`] instead of Python's
//! `random`, so their games are reproducible from `--seed` but not the same
//! games reconchess would play.

use crate::agent::{Agent, AgentConfig, Sizing};
use crate::arbiter::{GameSettings, Player, WinReason};
use crate::history::GameHistory;
use crate::scorer::ScorerKind;
use crate::uci::{self, Engine, EngineOptions, Limit};
use anyhow::{Context, Result, bail};
use rbc_core::belief::Stats;
use rbc_core::rng::Rng;
use rbc_core::{Board, Color, Move, Piece, PieceKind, Square, eval};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The kinds of player.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Kind {
    /// Our bot.
    Rbc,
    /// reconchess's RandomBot.
    Random,
    /// reconchess's AttackerBot.
    Attacker,
    /// reconchess's TroutBot (needs Stockfish).
    Trout,
}

impl Kind {
    /// Every kind.
    #[cfg(test)]
    pub const ALL: [Kind; 4] = [Kind::Rbc, Kind::Random, Kind::Attacker, Kind::Trout];

    /// The name used on the command line.
    pub fn cli_name(self) -> &'static str {
        match self {
            Kind::Rbc => "rbc",
            Kind::Random => "random",
            Kind::Attacker => "attacker",
            Kind::Trout => "trout",
        }
    }

    /// The name written into game histories (reconchess writes the class name).
    pub fn history_name(self) -> &'static str {
        match self {
            Kind::Rbc => "rbc",
            Kind::Random => "RandomBot",
            Kind::Attacker => "AttackerBot",
            Kind::Trout => "TroutBot",
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.cli_name())
    }
}

/// What the players of a match are built from.
#[derive(Clone, Debug)]
pub struct PlayerOptions {
    /// rbc's belief sizing.
    pub sizing: Sizing,
    /// rbc's evaluator.
    pub scorer: ScorerKind,
    /// Where Stockfish is, if given (for `trout`).
    pub stockfish: Option<PathBuf>,
}

/// Builds a player of `kind` whose random choices all follow from `seed`.
/// A player is reusable: every game starts with `handle_game_start`.
pub fn create(kind: Kind, options: &PlayerOptions, seed: u64) -> Result<Box<dyn Player>> {
    Ok(match kind {
        Kind::Rbc => Box::new(RbcPlayer::from_options(options, seed)?),
        Kind::Random => Box::new(RandomBot::new(seed)),
        Kind::Attacker => Box::new(AttackerBot::new(seed)),
        Kind::Trout => Box::new(TroutBot::new(
            stockfish_best_move(options.stockfish.as_deref())?,
            seed,
        )),
    })
}

/// Checks that a player of `kind` can be built, without building it.
pub fn check_available(kind: Kind, options: &PlayerOptions) -> Result<()> {
    if kind == Kind::Trout {
        find_trout_engine(options.stockfish.as_deref())?;
    }
    Ok(())
}

// ---- rbc ------------------------------------------------------------------

/// Our bot: the [`Agent`] behind the [`Player`] callbacks.
pub struct RbcPlayer {
    agent: Agent,
}

impl RbcPlayer {
    /// Allocates the agent (its belief storage is reused from game to game).
    pub fn new(config: AgentConfig) -> Result<RbcPlayer> {
        Ok(RbcPlayer {
            agent: Agent::new(config)?,
        })
    }

    /// The rbc player [`create`] seats for `options` and `seed`.
    pub fn from_options(options: &PlayerOptions, seed: u64) -> Result<RbcPlayer> {
        RbcPlayer::new(AgentConfig {
            sizing: options.sizing,
            seed,
            scorer: options.scorer.clone(),
            ..AgentConfig::default()
        })
    }

    /// The belief's counters, once a game has started.
    pub fn stats(&self) -> Option<Stats> {
        self.agent.stats()
    }
}

impl Player for RbcPlayer {
    fn name(&self) -> &str {
        Kind::Rbc.history_name()
    }

    fn handle_game_start(
        &mut self,
        color: Color,
        board: &Board,
        _opponent_name: &str,
        settings: &GameSettings,
    ) -> Result<()> {
        self.agent
            .start_game(color, board, settings.seconds, settings.increment)
    }

    fn handle_opponent_move_result(&mut self, capture: Option<Square>) -> Result<()> {
        Ok(self.agent.opponent_move(capture)?)
    }

    fn choose_sense(&mut self, _: &[Move], seconds_left: f64) -> Result<Option<Square>> {
        Ok(self.agent.choose_sense(seconds_left)?)
    }

    fn handle_sense_result(&mut self, result: &[(Square, Option<Piece>)]) -> Result<()> {
        Ok(self.agent.sense_result(result)?)
    }

    fn choose_move(&mut self, _: &[Move], seconds_left: f64) -> Result<Option<Move>> {
        Ok(self.agent.choose_move(seconds_left)?)
    }

    fn handle_move_result(
        &mut self,
        requested: Option<Move>,
        taken: Option<Move>,
        capture: Option<Square>,
    ) -> Result<()> {
        Ok(self.agent.move_result(requested, taken, capture)?)
    }

    fn handle_game_end(
        &mut self,
        _: Option<Color>,
        _: Option<WinReason>,
        _: &GameHistory,
    ) -> Result<()> {
        self.agent.end_game();
        Ok(())
    }

    fn belief_size(&self) -> Option<usize> {
        self.agent.belief().map(|b| b.len())
    }

    fn think_ahead(&mut self) {
        self.agent.think_ahead();
    }
}

// ---- random ---------------------------------------------------------------

fn random_square(rng: &mut Rng) -> Square {
    Square::ALL[rng.below(64) as usize]
}

/// reconchess's `RandomBot`.
pub struct RandomBot {
    rng: Rng,
}

impl RandomBot {
    /// A random bot drawing from `seed`.
    pub fn new(seed: u64) -> RandomBot {
        RandomBot {
            rng: Rng::new(seed),
        }
    }
}

impl Player for RandomBot {
    fn name(&self) -> &str {
        Kind::Random.history_name()
    }

    fn handle_game_start(&mut self, _: Color, _: &Board, _: &str, _: &GameSettings) -> Result<()> {
        Ok(())
    }

    fn handle_opponent_move_result(&mut self, _: Option<Square>) -> Result<()> {
        Ok(())
    }

    fn choose_sense(&mut self, _: &[Move], _: f64) -> Result<Option<Square>> {
        Ok(Some(random_square(&mut self.rng)))
    }

    fn handle_sense_result(&mut self, _: &[(Square, Option<Piece>)]) -> Result<()> {
        Ok(())
    }

    fn choose_move(&mut self, move_actions: &[Move], _: f64) -> Result<Option<Move>> {
        // random.choice(move_actions + [None])
        let i = self.rng.below(move_actions.len() as u64 + 1) as usize;
        Ok(move_actions.get(i).copied())
    }

    fn handle_move_result(
        &mut self,
        _: Option<Move>,
        _: Option<Move>,
        _: Option<Square>,
    ) -> Result<()> {
        Ok(())
    }

    fn handle_game_end(
        &mut self,
        _: Option<Color>,
        _: Option<WinReason>,
        _: &GameHistory,
    ) -> Result<()> {
        Ok(())
    }
}

// ---- attacker -------------------------------------------------------------

/// reconchess's `QUICK_ATTACKS`, from white's side.
const QUICK_ATTACKS: [&[(Square, Square)]; 4] = {
    use Square::*;
    [
        // Queen-side knight attacks.
        &[(B1, C3), (C3, B5), (B5, D6), (D6, E8)],
        &[(B1, C3), (C3, E4), (E4, F6), (F6, E8)],
        // King-side knight attack.
        &[(G1, H3), (H3, F4), (F4, H5), (H5, F6), (F6, E8)],
        // Four-move mate.
        &[(E2, E4), (F1, C4), (D1, H5), (C4, F7), (F7, E8), (H5, E8)],
    ]
};

/// reconchess's `AttackerBot`.
pub struct AttackerBot {
    rng: Rng,
    script: std::collections::VecDeque<Move>,
}

impl AttackerBot {
    /// An attacker drawing from `seed`.
    pub fn new(seed: u64) -> AttackerBot {
        AttackerBot {
            rng: Rng::new(seed),
            script: Default::default(),
        }
    }

    /// The moves left in this game's script.
    #[cfg(test)]
    pub fn script(&self) -> impl Iterator<Item = &Move> {
        self.script.iter()
    }
}

impl Player for AttackerBot {
    fn name(&self) -> &str {
        Kind::Attacker.history_name()
    }

    fn handle_game_start(
        &mut self,
        color: Color,
        _: &Board,
        _: &str,
        _: &GameSettings,
    ) -> Result<()> {
        let pick = QUICK_ATTACKS[self.rng.below(QUICK_ATTACKS.len() as u64) as usize];
        self.script = pick
            .iter()
            .map(|&(from, to)| match color {
                Color::White => Move::new(from, to),
                Color::Black => Move::new(from.flip_rank(), to.flip_rank()),
            })
            .collect();
        Ok(())
    }

    fn handle_opponent_move_result(&mut self, _: Option<Square>) -> Result<()> {
        Ok(())
    }

    fn choose_sense(&mut self, _: &[Move], _: f64) -> Result<Option<Square>> {
        Ok(Some(random_square(&mut self.rng)))
    }

    fn handle_sense_result(&mut self, _: &[(Square, Option<Piece>)]) -> Result<()> {
        Ok(())
    }

    fn choose_move(&mut self, move_actions: &[Move], _: f64) -> Result<Option<Move>> {
        while self
            .script
            .front()
            .is_some_and(|m| !move_actions.contains(m))
        {
            self.script.pop_front();
        }
        // An empty script: the attack failed, pass from now on.
        Ok(self.script.pop_front())
    }

    fn handle_move_result(
        &mut self,
        _: Option<Move>,
        _: Option<Move>,
        _: Option<Square>,
    ) -> Result<()> {
        Ok(())
    }

    fn handle_game_end(
        &mut self,
        _: Option<Color>,
        _: Option<WinReason>,
        _: &GameHistory,
    ) -> Result<()> {
        Ok(())
    }
}

// ---- trout ----------------------------------------------------------------

/// A chess engine that proposes a move for a FEN within a time limit.
pub trait BestMove {
    /// A new game starts (reconchess gives every game a fresh TroutBot and
    /// engine).
    fn new_game(&mut self) -> Result<()> {
        Ok(())
    }

    /// The engine's move for the side to move in `fen`, or `None` when it has
    /// none or failed (the caller passes then, as TroutBot does).
    fn best_move(&mut self, fen: &str, movetime: Duration) -> Option<Move>;
}

/// The time TroutBot gives Stockfish per call.
pub const TROUT_MOVETIME: Duration = Duration::from_millis(500);

/// Stockfish behind [`BestMove`], for `trout`: found at `path`, or where
/// [`uci::find_stockfish`] looks (`$STOCKFISH_EXECUTABLE`, `PATH`,
/// `/usr/games/stockfish`), and started.
///
/// # Errors
/// If no Stockfish is found or it does not start.
pub fn stockfish_best_move(path: Option<&Path>) -> Result<Box<dyn BestMove>> {
    let path = find_trout_engine(path)?;
    let engine = Engine::start(&path, &EngineOptions::default()).with_context(|| {
        format!(
            "the trout player cannot start Stockfish at {}",
            path.display()
        )
    })?;
    Ok(Box::new(Stockfish {
        path,
        engine: Some(engine),
    }))
}

fn find_trout_engine(path: Option<&Path>) -> Result<PathBuf> {
    match uci::find_stockfish(path) {
        Some(p) => Ok(p),
        None => match path {
            Some(p) => bail!(
                "the trout player needs Stockfish: {} is not an executable",
                p.display()
            ),
            None => bail!(
                "the trout player needs Stockfish: none found (give --stockfish PATH, set \
                 STOCKFISH_EXECUTABLE or install the stockfish package)"
            ),
        },
    }
}

/// A Stockfish process used as TroutBot uses it: once it fails (dies, hangs)
/// every later call of the game gets no move, as python-chess's engine raises
/// for a terminated engine; the next game starts a fresh one.
struct Stockfish {
    path: PathBuf,
    engine: Option<Engine>,
}

impl BestMove for Stockfish {
    fn new_game(&mut self) -> Result<()> {
        if let Some(engine) = self.engine.as_mut()
            && (engine.is_broken() || engine.new_game().is_err())
        {
            self.engine = None;
        }
        if self.engine.is_none() {
            self.engine = Some(Engine::start(&self.path, &EngineOptions::default())?);
        }
        Ok(())
    }

    fn best_move(&mut self, fen: &str, movetime: Duration) -> Option<Move> {
        let engine = self.engine.as_mut()?;
        match engine.evaluate(fen, Limit::MoveTime(movetime)) {
            Ok(evaluation) => evaluation.best.and_then(|m| m.parse().ok()),
            Err(_) => {
                // Dropping the engine kills and reaps it.
                self.engine = None;
                None
            }
        }
    }
}

/// reconchess's `TroutBot`, on any [`BestMove`] engine.
pub struct TroutBot {
    engine: Box<dyn BestMove>,
    rng: Rng,
    board: Board,
    color: Color,
    captured: Option<Square>,
}

impl TroutBot {
    /// A trout asking `engine` for moves and drawing its random senses from `seed`.
    pub fn new(engine: Box<dyn BestMove>, seed: u64) -> TroutBot {
        TroutBot {
            engine,
            rng: Rng::new(seed),
            board: Board::start(),
            color: Color::White,
            captured: None,
        }
    }

    /// The one board it tracks.
    #[cfg(test)]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The move it would make now (TroutBot's `choose_move`).
    fn next_move(&mut self) -> Option<Move> {
        // python-chess's board.king() is the highest king square; TroutBot
        // tests it for truth, so a king on a1 (square 0) counts as not found.
        let king = self.board.pieces(self.color.flip(), PieceKind::King).last();
        if let Some(king) = king.filter(|&k| k != Square::A1) {
            // SquareSet.pop() gives the lowest attacker.
            if let Some(attacker) = eval::attackers(&self.board, king, self.color).first() {
                return Some(Move::new(attacker, king));
            }
        }
        self.board.set_turn(self.color);
        self.engine
            .best_move(&self.board.to_string(), TROUT_MOVETIME)
    }
}

impl Player for TroutBot {
    fn name(&self) -> &str {
        Kind::Trout.history_name()
    }

    fn handle_game_start(
        &mut self,
        color: Color,
        board: &Board,
        _: &str,
        _: &GameSettings,
    ) -> Result<()> {
        self.board = *board;
        self.color = color;
        self.captured = None;
        self.engine.new_game()
    }

    fn handle_opponent_move_result(&mut self, capture: Option<Square>) -> Result<()> {
        self.captured = capture;
        if let Some(sq) = capture {
            self.board.remove_piece(sq);
        }
        Ok(())
    }

    fn choose_sense(&mut self, _: &[Move], _: f64) -> Result<Option<Square>> {
        // `if self.my_piece_captured_square:` is false for a1 (square 0) too.
        if let Some(sq) = self.captured.filter(|&s| s != Square::A1) {
            return Ok(Some(sq));
        }
        if let Some(mv) = self.next_move()
            && self.board.piece_at(mv.to).is_some()
        {
            return Ok(Some(mv.to));
        }
        let candidates: Vec<Square> = Square::ALL
            .into_iter()
            .filter(|&sq| self.board.color_at(sq) != Some(self.color))
            .collect();
        Ok(Some(
            candidates[self.rng.below(candidates.len() as u64) as usize],
        ))
    }

    fn handle_sense_result(&mut self, result: &[(Square, Option<Piece>)]) -> Result<()> {
        for &(sq, piece) in result {
            self.board.set_piece(sq, piece);
        }
        Ok(())
    }

    fn choose_move(&mut self, _: &[Move], _: f64) -> Result<Option<Move>> {
        Ok(self.next_move())
    }

    fn handle_move_result(
        &mut self,
        _: Option<Move>,
        taken: Option<Move>,
        _: Option<Square>,
    ) -> Result<()> {
        if taken.is_some() {
            // python-chess's push, with whatever side to move the board has.
            self.board.play(taken);
        }
        Ok(())
    }

    fn handle_game_end(
        &mut self,
        _: Option<Color>,
        _: Option<WinReason>,
        _: &GameHistory,
    ) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arbiter::{RealTime, play_game};

    fn moves(list: &[&str]) -> Vec<Move> {
        list.iter().map(|m| m.parse().unwrap()).collect()
    }

    #[test]
    fn kinds_parse_from_their_cli_names() {
        use clap::ValueEnum;
        for k in Kind::ALL {
            assert_eq!(Kind::from_str(k.cli_name(), false).unwrap(), k);
        }
        assert!(Kind::from_str("stockfish", true).is_err());
    }

    #[test]
    fn random_bot_passes_sometimes_and_requests_only_move_actions() {
        let mut bot = RandomBot::new(7);
        let actions = moves(&["e2e4", "d2d4", "g1f3"]);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..400 {
            let m = bot.choose_move(&actions, 900.0).unwrap();
            assert!(m.is_none_or(|m| actions.contains(&m)));
            seen.insert(m);
        }
        assert_eq!(seen.len(), 4, "every move and the pass come up");
    }

    #[test]
    fn attacker_follows_its_script_then_passes() {
        let mut bot = AttackerBot::new(3);
        let board = Board::start();
        bot.handle_game_start(Color::Black, &board, "x", &GameSettings::default())
            .unwrap();
        let script: Vec<Move> = bot.script().copied().collect();
        assert!(
            QUICK_ATTACKS.iter().any(|s| s.len() == script.len()
                && s.iter()
                    .zip(&script)
                    .all(|(&(f, t), m)| m.from == f.flip_rank() && m.to == t.flip_rank())),
            "a mirrored quick attack: {script:?}"
        );
        // Only the second move is available: the first is dropped.
        let actions = vec![script[1]];
        assert_eq!(bot.choose_move(&actions, 1.0).unwrap(), Some(script[1]));
        // Nothing available: the script is emptied and the bot passes for good.
        assert_eq!(bot.choose_move(&[], 1.0).unwrap(), None);
        let all = script.clone();
        assert_eq!(bot.choose_move(&all, 1.0).unwrap(), None);
    }

    #[test]
    fn baselines_play_complete_games() {
        for (w, b) in [
            (Kind::Random, Kind::Attacker),
            (Kind::Attacker, Kind::Random),
        ] {
            let opts = PlayerOptions {
                sizing: Sizing::with_capacity(1000),
                scorer: ScorerKind::Builtin,
                stockfish: None,
            };
            let mut white = create(w, &opts, 1).unwrap();
            let mut black = create(b, &opts, 2).unwrap();
            for _ in 0..3 {
                let out = play_game(
                    white.as_mut(),
                    black.as_mut(),
                    GameSettings::default(),
                    &RealTime::default(),
                    &mut |_| {},
                )
                .unwrap();
                assert!(out.reason.is_some());
            }
        }
    }

    /// An engine that always answers the same move, and counts its calls.
    struct Fixed(Option<Move>, std::rc::Rc<std::cell::Cell<u32>>);

    impl BestMove for Fixed {
        fn best_move(&mut self, fen: &str, movetime: Duration) -> Option<Move> {
            assert_eq!(movetime, TROUT_MOVETIME);
            assert!(fen.parse::<Board>().is_ok());
            self.1.set(self.1.get() + 1);
            self.0
        }
    }

    #[test]
    fn trout_senses_captures_takes_the_king_and_asks_the_engine() {
        let calls = std::rc::Rc::new(std::cell::Cell::new(0));
        let engine = Fixed(Some("e2e4".parse().unwrap()), calls.clone());
        let mut t = TroutBot::new(Box::new(engine), 5);
        let start = Board::start();
        t.handle_game_start(Color::White, &start, "x", &GameSettings::default())
            .unwrap();
        t.handle_opponent_move_result(None).unwrap();
        // No capture, and the engine's move captures nothing on its board:
        // a random square without one of its own pieces.
        let s = t.choose_sense(&[], 900.0).unwrap().unwrap();
        assert_ne!(start.color_at(s), Some(Color::White));
        assert_eq!(calls.get(), 1);
        assert_eq!(
            t.choose_move(&[], 900.0).unwrap(),
            Some("e2e4".parse().unwrap())
        );
        t.handle_move_result(None, Some("e2e4".parse().unwrap()), None)
            .unwrap();
        assert_eq!(t.board().piece_at(Square::E4), Some("P".parse().unwrap()));

        // Captured on d2: sense there, and the piece is gone from its board.
        t.handle_opponent_move_result(Some(Square::D2)).unwrap();
        assert_eq!(t.board().piece_at(Square::D2), None);
        assert_eq!(t.choose_sense(&[], 900.0).unwrap(), Some(Square::D2));

        // A sense shows the black king on f3 (and none on e8): the queen on d1
        // (through e2), the knight on g1 and the pawn on g2 attack it; the
        // lowest square (d1) takes it.
        t.handle_sense_result(&[(Square::F3, Some("k".parse().unwrap())), (Square::E8, None)])
            .unwrap();
        let before = calls.get();
        assert_eq!(
            t.choose_move(&[], 900.0).unwrap(),
            Some(Move::new(Square::D1, Square::F3))
        );
        assert_eq!(calls.get(), before, "a king capture needs no engine");
    }

    #[test]
    fn trout_asks_a_real_stockfish_when_there_is_one() {
        let Some(path) = uci::find_stockfish(None) else {
            eprintln!("no Stockfish found: skipping the real-engine trout test");
            return;
        };
        let mut engine = stockfish_best_move(Some(&path)).unwrap();
        engine.new_game().unwrap();
        let start = Board::start();
        let mv = engine
            .best_move(&start.to_string(), Duration::from_millis(50))
            .expect("a move from the start");
        let mut legal = Vec::new();
        rbc_core::rules::move_actions(&start, |m| {
            legal.push(m);
            false
        });
        assert!(legal.contains(&mv), "{mv}");
        // A position without legal moves: no move, and no failure.
        let mated: Board = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
            .parse()
            .unwrap();
        assert_eq!(
            engine.best_move(&mated.to_string(), Duration::from_millis(50)),
            None
        );
        engine.new_game().unwrap();
        assert!(
            engine
                .best_move(&start.to_string(), Duration::from_millis(50))
                .is_some()
        );
        assert!(
            check_available(
                Kind::Trout,
                &PlayerOptions {
                    sizing: Sizing::with_capacity(10),
                    scorer: ScorerKind::Builtin,
                    stockfish: Some(PathBuf::from("/nonexistent/stockfish")),
                }
            )
            .unwrap_err()
            .to_string()
            .contains("needs Stockfish")
        );
    }
}
