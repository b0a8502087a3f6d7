//! The bot: belief, sensing, move choice and the clock, behind one API that
//! `rbc track`, `rbc play` and `rbc connect` share.

use crate::clock::Clock;
use crate::scorer::{Scorer, ScorerKind};
use anyhow::{Result, bail};
use rbc_core::belief::{Belief, Hypothesis, LogEntry, MAX_SLOTS, Stats, Storage, UpdateError};
use rbc_core::rng::Rng;
use rbc_core::rules::{self, Move};
use rbc_core::sense::{self, Chooser};
use rbc_core::{Board, Color, Piece, PieceKind, Square, eval};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How the belief's memory is sized.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sizing {
    /// Active hypotheses.
    pub capacity: usize,
    /// Stash slots (boards set aside for recovery).
    pub stash: usize,
    /// Observation log entries.
    pub log: usize,
    /// Hypotheses scored per sense decision before sampling.
    pub sense_sample: usize,
}

/// What the process needs besides the belief storage (code, stacks, I/O
/// buffers, the move chooser's caches), counted against `--memory`.
pub const PROCESS_OVERHEAD: usize = 8 << 20;

/// Stash slots per active slot when sizing from a memory budget.
pub const STASH_RATIO: f64 = 0.5;

impl Sizing {
    /// The default: one million active hypotheses.
    pub const DEFAULT_CAPACITY: usize = 1_000_000;

    /// The most active hypotheses: with their stash, the belief indexes at
    /// most [`MAX_SLOTS`] slots.
    pub const MAX_CAPACITY: usize = (MAX_SLOTS as f64 / (1.0 + STASH_RATIO)) as usize;

    /// Sizing for `capacity` active hypotheses (at most
    /// [`Sizing::MAX_CAPACITY`]), with a stash half as large.
    pub fn with_capacity(capacity: usize) -> Sizing {
        let capacity = capacity.clamp(1, Self::MAX_CAPACITY);
        Sizing {
            capacity,
            stash: (capacity as f64 * STASH_RATIO) as usize,
            log: 4096,
            sense_sample: sense::DEFAULT_SAMPLE.min(capacity.max(1024)),
        }
    }

    /// The largest sizing whose storage, plus [`PROCESS_OVERHEAD`] for the
    /// rest of the process, fits in `bytes`.
    ///
    /// # Errors
    /// If not even a thousand boards fit.
    pub fn with_memory(bytes: usize) -> Result<Sizing> {
        let fits = |c: usize| Sizing::with_capacity(c).storage_bytes() + PROCESS_OVERHEAD <= bytes;
        if !fits(1024) {
            bail!(
                "memory budget of {bytes} bytes is too small: at least {} bytes are needed",
                Sizing::with_capacity(1024).storage_bytes() + PROCESS_OVERHEAD
            );
        }
        // The table rounds up to a power of two, so the bytes are not linear
        // in the capacity: search for the largest that fits.
        let (mut lo, mut hi) = (1024usize, bytes / std::mem::size_of::<Hypothesis>() + 1);
        while lo + 1 < hi {
            let mid = lo + (hi - lo) / 2;
            if fits(mid) { lo = mid } else { hi = mid }
        }
        Ok(Sizing::with_capacity(lo))
    }

    /// Table entries for the deduplication index: four per active slot, so
    /// that it is at most a quarter full.
    pub fn table_len(&self) -> usize {
        (4 * self.capacity).next_power_of_two()
    }

    /// Bytes of belief storage (slots, table, log, sense scratch).
    pub fn storage_bytes(&self) -> usize {
        (self.capacity + self.stash) * std::mem::size_of::<Hypothesis>()
            + self.table_len() * 4
            + self.log * std::mem::size_of::<LogEntry>()
            + sense::scratch_len(self.sense_sample) * 8
    }
}

/// Parses `64MiB`, `512KiB`, `2GiB`, `1000000` (bytes), also `MB`/`GB` (as powers of 1024).
pub fn parse_size(s: &str) -> Result<usize> {
    let t = s.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num
        .parse()
        .map_err(|_| anyhow::anyhow!("invalid size {s:?}: expected e.g. 64MiB"))?;
    let mult = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" | "kib" => 1024.0,
        "m" | "mb" | "mib" => 1024.0 * 1024.0,
        "g" | "gb" | "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => bail!("invalid size unit in {s:?}: use B, KiB, MiB or GiB"),
    };
    Ok((value * mult) as usize)
}

/// Storage leaked once per process and handed from game to game.
struct Memory {
    storage: Option<Storage<'static>>,
    sense: &'static mut [u64],
}

/// Where the time of a decision went.
#[derive(Clone, Debug, Default)]
pub struct Timing {
    /// Seconds spent on the last update.
    pub last_update: f64,
    /// Seconds spent on the last expansion ahead of the opponent's report.
    pub last_ahead: f64,
    /// Seconds spent on the last sense decision.
    pub last_sense: f64,
    /// Seconds spent on the last move decision.
    pub last_move: f64,
    /// Boards scored in the last move decision.
    pub last_move_boards: usize,
    /// Hypotheses scored in the last sense decision.
    pub last_sense_scored: usize,
}

/// Configuration of an [`Agent`].
#[derive(Clone, Debug)]
pub struct AgentConfig {
    /// Memory sizing.
    pub sizing: Sizing,
    /// Seed for every random choice.
    pub seed: u64,
    /// Which evaluator scores positions.
    pub scorer: ScorerKind,
    /// Weight of the mean against the minimum in the move aggregate (0: pure worst case).
    pub mean_weight: f64,
    /// Moves within this many centipawns of the best are picked at random.
    pub margin: i32,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            sizing: Sizing::with_capacity(Sizing::DEFAULT_CAPACITY),
            seed: 0,
            scorer: ScorerKind::Builtin,
            mean_weight: 0.3,
            margin: 15,
        }
    }
}

/// A player: what it believes, and how it senses and moves.
pub struct Agent {
    config: AgentConfig,
    memory: Option<Memory>,
    belief: Option<Belief<'static>>,
    sense_scratch: Option<&'static mut [u64]>,
    rng: Rng,
    scorer: Scorer,
    clock: Clock,
    /// Timings of the last decisions.
    pub timing: Timing,
    game_over: bool,
    /// Half-moves since the last capture or pawn move that we know of (the
    /// opponent's pawn moves are unseen, so this may run ahead of the
    /// arbiter's clock, never behind it).
    quiet_plies: u32,
}

impl Agent {
    /// Allocates the belief storage once; games reuse it.
    pub fn new(config: AgentConfig) -> Result<Agent> {
        let s = config.sizing;
        let slots: &'static mut [Hypothesis] = Box::leak(
            crate::hugepages::filled(s.capacity + s.stash, Hypothesis::EMPTY).into_boxed_slice(),
        );
        let table: &'static mut [u32] =
            Box::leak(crate::hugepages::filled(s.table_len(), 0u32).into_boxed_slice());
        let log: &'static mut [LogEntry] =
            Box::leak(vec![LogEntry::EMPTY; s.log].into_boxed_slice());
        let sense: &'static mut [u64] =
            Box::leak(vec![0u64; sense::scratch_len(s.sense_sample)].into_boxed_slice());
        let scorer = Scorer::new(config.scorer.clone())?;
        Ok(Agent {
            rng: Rng::new(config.seed),
            memory: Some(Memory {
                storage: Some(Storage {
                    hypotheses: slots,
                    table,
                    log,
                }),
                sense,
            }),
            belief: None,
            sense_scratch: None,
            scorer,
            clock: Clock::new(900.0, 5.0),
            timing: Timing::default(),
            config,
            game_over: false,
            quiet_plies: 0,
        })
    }

    /// Starts a game as `color` from `board` (the true starting position).
    pub fn start_game(
        &mut self,
        color: Color,
        board: &Board,
        seconds: f64,
        increment: f64,
    ) -> Result<()> {
        let storage = match self.belief.take() {
            Some(b) => b.into_storage(),
            None => self
                .memory
                .as_mut()
                .and_then(|m| m.storage.take())
                .expect("storage is always somewhere"),
        };
        if self.sense_scratch.is_none() {
            self.sense_scratch = self.memory.as_mut().map(|m| std::mem::take(&mut m.sense));
        }
        let seed = self.rng.next_u64();
        let belief = Belief::new(storage, self.config.sizing.capacity, board, color, seed)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        self.belief = Some(belief);
        self.clock = Clock::new(seconds, increment);
        self.scorer.new_game();
        self.game_over = false;
        self.quiet_plies = board.halfmove_clock();
        Ok(())
    }

    /// The belief, if a game was started.
    pub fn belief(&self) -> Option<&Belief<'static>> {
        self.belief.as_ref()
    }

    fn belief_mut(&mut self) -> Result<&mut Belief<'static>, UpdateError> {
        self.belief
            .as_mut()
            .ok_or(UpdateError::OutOfOrder("no game_start yet"))
    }

    /// Whether the current game has ended.
    pub fn game_over(&self) -> bool {
        self.game_over
    }

    /// Marks the game as ended (only queries are answered afterwards).
    pub fn end_game(&mut self) {
        self.game_over = true;
    }

    fn timed<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, UpdateError>,
    ) -> Result<T, UpdateError> {
        if self.game_over {
            return Err(UpdateError::OutOfOrder("the game has ended"));
        }
        let t = Instant::now();
        let r = f(self);
        self.timing.last_update = t.elapsed().as_secs_f64();
        r
    }

    /// The opponent moved (see [`Belief::opponent_move`]).
    pub fn opponent_move(&mut self, capture: Option<Square>) -> Result<(), UpdateError> {
        self.timed(|a| {
            let belief = a.belief_mut()?;
            // White's report before its first move is not a move.
            let moved = !belief.our_turn();
            belief.opponent_move(capture)?;
            a.quiet_plies = if capture.is_some() {
                0
            } else {
                a.quiet_plies + u32::from(moved)
            };
            Ok(())
        })
    }

    /// Our sense result.
    pub fn sense_result(&mut self, result: &[(Square, Option<Piece>)]) -> Result<(), UpdateError> {
        self.timed(|a| a.belief_mut()?.sense(result))
    }

    /// Our move's result.
    pub fn move_result(
        &mut self,
        requested: Option<Move>,
        taken: Option<Move>,
        capture: Option<Square>,
    ) -> Result<(), UpdateError> {
        self.timed(|a| {
            let belief = a.belief_mut()?;
            let pawn = taken.is_some_and(|m| belief.own().kind_at(m.from) == Some(PieceKind::Pawn));
            belief.move_result(requested, taken, capture)?;
            a.quiet_plies = if pawn || capture.is_some() {
                0
            } else {
                a.quiet_plies + 1
            };
            a.clock.turn_done();
            Ok(())
        })
    }

    /// Expands the belief ahead of the opponent's report (see
    /// [`Belief::expand_ahead`]); call it once our move's result is in,
    /// while the opponent thinks. Queries and the belief's answers are
    /// unchanged by it; the next [`Agent::opponent_move`] becomes a filter.
    /// Returns whether the expansion fitted.
    pub fn think_ahead(&mut self) -> bool {
        if self.game_over {
            return false;
        }
        let t = Instant::now();
        let done = self.belief.as_mut().is_some_and(|b| b.expand_ahead());
        self.timing.last_ahead = t.elapsed().as_secs_f64();
        done
    }

    /// Where to sense, or `None` where it would reveal nothing (one board left).
    pub fn choose_sense(&mut self, _seconds_left: f64) -> Result<Option<Square>, UpdateError> {
        let t = Instant::now();
        let belief = self
            .belief
            .as_ref()
            .ok_or(UpdateError::OutOfOrder("no game_start yet"))?;
        if self.game_over {
            return Err(UpdateError::OutOfOrder("the game has ended"));
        }
        let hyps = belief.hypotheses();
        let own = *belief.own();
        let us = own.color;
        let scratch = self.sense_scratch.as_deref_mut().expect("sense scratch");
        let mut chooser = Chooser::new(scratch, self.config.sizing.sense_sample);
        // Positions with our king attacked weigh more, and the sense is asked
        // to tell them apart (labelled by where the attacker stands): knowing
        // whether and from where the king is attacked is what keeps it alive.
        let weigh = |i: usize| board_label(&own.board_with(&hyps[i], us), us);
        let choice = chooser.choose_labeled(hyps, weigh, KING_DANGER_SENSE, &mut self.rng);
        self.timing.last_sense = t.elapsed().as_secs_f64();
        self.timing.last_sense_scored = choice.map_or(0, |c| c.scored);
        Ok(match choice {
            // One board (or all identical windows): sensing cannot help; sense the
            // centre anyway, where a sense at least confirms the most squares.
            // (In weight: with danger weights the expected weight left can
            // exceed the number of boards and still be a split.)
            Some(c) if c.best.expected < c.best.weight * (1.0 - 1e-9) => Some(c.best.center),
            Some(_) | None => Some(Square::E6.relative_sense(belief.color())),
        })
    }

    /// The move to request (`None`: pass).
    pub fn choose_move(&mut self, seconds_left: f64) -> Result<Option<Move>, UpdateError> {
        let t = Instant::now();
        if self.game_over {
            return Err(UpdateError::OutOfOrder("the game has ended"));
        }
        let budget = self
            .clock
            .budget(seconds_left, self.belief.as_ref().map_or(1, |b| b.len()));
        let belief = self
            .belief
            .as_ref()
            .ok_or(UpdateError::OutOfOrder("no game_start yet"))?;
        let chosen = choose_move(
            belief,
            &mut self.scorer,
            &mut self.rng,
            &self.config,
            budget,
            self.quiet_plies,
        );
        self.timing.last_move = t.elapsed().as_secs_f64();
        self.timing.last_move_boards = chosen.1;
        Ok(chosen.0)
    }

    /// Counters of the belief.
    pub fn stats(&self) -> Option<Stats> {
        self.belief.as_ref().map(|b| b.stats())
    }

    /// The name of the evaluator in use.
    pub fn scorer_name(&self) -> &str {
        self.scorer.name()
    }
}

trait RelativeSense {
    fn relative_sense(self, color: Color) -> Square;
}

impl RelativeSense for Square {
    /// `self` as seen from white; mirrored for black.
    fn relative_sense(self, color: Color) -> Square {
        if color == Color::White {
            self
        } else {
            self.flip_rank()
        }
    }
}

/// A candidate's results across the sampled boards, each board counted with
/// its weight (see [`board_weight`]).
#[derive(Clone, Debug)]
struct Tally {
    mv: Option<Move>,
    /// Total weight of the boards seen.
    weight: f64,
    /// Weight of the boards on which the move takes the opponent's king.
    takes_king: f64,
    /// Weight of the boards on which the opponent can take our king after it.
    loses_king: f64,
    /// Weight of the boards on which the move resets the half-move clock.
    progress: f64,
    /// The boards where the game goes on: their weight, weighted score sum
    /// and worst score.
    live_weight: f64,
    live_sum: f64,
    live_min: i32,
}

/// How a candidate's aggregate is formed.
#[derive(Copy, Clone, Debug)]
struct Aggregate {
    /// Weight of the mean against the worst case among the live boards.
    mean_weight: f64,
    /// Centipawns added per unit of the progress share (the half-move clock
    /// runs towards a draw and we are ahead).
    progress_bonus: f64,
}

/// What a king capture is worth in the aggregate, either way: taking the king
/// ends the game, and so does losing it, so both count like a won or lost
/// game on that share of the boards.
const KING_VALUE: f64 = 20_000.0;

impl Tally {
    fn new(mv: Option<Move>) -> Tally {
        Tally {
            mv,
            weight: 0.0,
            takes_king: 0.0,
            loses_king: 0.0,
            progress: 0.0,
            live_weight: 0.0,
            live_sum: 0.0,
            live_min: i32::MAX,
        }
    }

    /// Keeps the terminal shares of `self` and the live scores of `fresh`
    /// (scored on fewer boards, by a better evaluator), if it has any.
    fn refine(&mut self, fresh: &Tally) {
        if fresh.live_weight > 0.0 {
            self.live_weight = fresh.live_weight;
            self.live_sum = fresh.live_sum;
            self.live_min = fresh.live_min;
        }
    }

    /// The mean-and-worst blend over the boards where the game goes on.
    fn live_value(&self, mean_weight: f64) -> f64 {
        if self.live_weight <= 0.0 {
            return 0.0;
        }
        mean_weight * self.live_sum / self.live_weight + (1.0 - mean_weight) * self.live_min as f64
    }

    /// The expected value: the live blend on the live share of the boards, a
    /// won game where the move takes the king and a lost one where it leaves
    /// ours capturable (counted as lost whether or not the opponent sees it),
    /// plus the progress bonus.
    fn value(&self, agg: Aggregate) -> f64 {
        let w = self.weight.max(f64::MIN_POSITIVE);
        let live = self.live_weight / w;
        live * self.live_value(agg.mean_weight)
            + KING_VALUE * (self.takes_king - self.loses_king) / w
            + agg.progress_bonus * self.progress / w
    }
}

/// Our requestable moves and the pass, each listed once (a plain pawn move
/// to the last rank is the queen promotion).
fn candidates(template: &Board) -> Vec<Option<Move>> {
    let mut out = vec![None];
    rules::move_actions(template, |m| {
        if !(m.promotion.is_none() && rules::add_queen_promotion(template, m) != m) {
            out.push(Some(m));
        }
        false
    });
    out
}

/// How much a hypothesis counts in sensing and move choice: more where the
/// opponent's last move left our king attacked. The belief is uniform over
/// what is possible, but opponents that aim at the king (every engine-driven
/// bot, and AttackerBot by design) make those positions far likelier than one
/// in N, and they are the ones that lose the game when missed.
pub fn board_weight(board: &Board, us: Color) -> f32 {
    board_label(board, us).0
}

/// The weight of a hypothesis in which our king is attacked.
pub const KING_DANGER_WEIGHT: f32 = 4.0;

/// [`board_weight`] and a sense label: 0 where our king is safe, otherwise
/// 1 plus the square of its lowest attacker (folded into 1..32), so a sense
/// that settles the label tells whether the king is attacked and from where.
pub fn board_label(board: &Board, us: Color) -> (f32, u8) {
    match board.king(us) {
        Some(k) => match eval::attackers(board, k, us.flip()).first() {
            Some(from) => (KING_DANGER_WEIGHT, 1 + from as u8 % 31),
            None => (1.0, 0),
        },
        None => (1.0, 0),
    }
}

/// What an unsettled king-danger label costs in the sense choice, against
/// the weighted share of the belief a sense leaves (see
/// [`rbc_core::sense::Score::cost`]). At 2, settling a danger share of 20%
/// of the boards (half the weight at 4x, Gini impurity 0.5) is worth as much
/// as leaving none of the belief instead of all of it; settling a 1% share
/// (impurity 0.075) is worth 15% of the belief.
pub const KING_DANGER_SENSE: f64 = 2.0;

/// Scores every candidate on boards in `order` until `deadline` (at least
/// `min_boards` boards): a king capture wins, leaving our king capturable
/// loses, anything else is `score` of the position from the opponent's side,
/// negated, cached by position within a board (requests that one board
/// revises into the same move share a score). Boards on which a candidate's
/// outcome is decided are not scored. Returns the boards used.
fn tally(
    belief: &Belief<'_>,
    order: &[usize],
    tallies: &mut [Tally],
    deadline: Instant,
    min_boards: usize,
    mut score: impl FnMut(&Board) -> i32,
) -> usize {
    let own = *belief.own();
    let us = own.color;
    let hyps = belief.hypotheses();
    let mut cache: HashMap<Board, i32> = HashMap::new();
    let mut boards = 0;
    for (done, &i) in order.iter().enumerate() {
        if done >= min_boards && Instant::now() >= deadline {
            break;
        }
        let board = own.board_with(&hyps[i], us);
        let w = board_weight(&board, us) as f64;
        boards += 1;
        cache.clear();
        for t in tallies.iter_mut() {
            let taken =
                t.mv.and_then(|m| rules::revise(&board, rules::add_queen_promotion(&board, m)));
            let mut after = board;
            after.play(taken);
            t.weight += w;
            let pawn_move = taken.is_some_and(|m| board.kind_at(m.from) == Some(PieceKind::Pawn));
            if pawn_move || after.by_color(us.flip()).len() < board.by_color(us.flip()).len() {
                t.progress += w;
            }
            if after.king(us.flip()).is_none() {
                t.takes_king += w;
                continue;
            }
            if eval::can_take_king(&after) {
                t.loses_king += w;
                continue;
            }
            let mut key = after;
            key.set_counters(0, 1);
            let s = *cache.entry(key).or_insert_with(|| -score(&after));
            t.live_min = t.live_min.min(s);
            t.live_sum += w * s as f64;
            t.live_weight += w;
        }
    }
    boards
}

/// Chooses a move over a sample of the belief; returns it and the boards used.
///
/// The built-in evaluator scores every candidate on as many boards as the
/// first part of the budget allows (at least [`MIN_BOARDS`]); that pass also
/// fixes each candidate's share of boards on which it takes the king or
/// leaves ours capturable. With an engine, the best few candidates are then
/// scored again by the engine, on the boards where the game goes on, for the
/// rest of the budget; their king shares stay those of the wider first pass.
/// A move that takes the king on every board is played at once; otherwise
/// the best expected value wins (see [`Tally::value`]), picked at random
/// among the candidates within `margin` of it, so the bot is hard to predict.
fn choose_move(
    belief: &Belief<'_>,
    scorer: &mut Scorer,
    rng: &mut Rng,
    config: &AgentConfig,
    budget: Duration,
    quiet_plies: u32,
) -> (Option<Move>, usize) {
    let own = *belief.own();
    let template = own.board_with(&Hypothesis::EMPTY, own.color);
    let cands = candidates(&template);
    let n = belief.len();
    if n == 0 {
        // Nothing is consistent (only after a failed recovery): any legal request.
        return (cands.get(1).copied().flatten(), 0);
    }
    let start = Instant::now();
    // Boards in random order: all of them if few, else a uniform sample.
    let order: Vec<usize> = if n <= 4096 {
        let mut v: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            v.swap(i, rng.below(i as u64 + 1) as usize);
        }
        v
    } else {
        (0..4096).map(|_| rng.below(n as u64) as usize).collect()
    };

    let engine = scorer.uses_engine();
    let quick_deadline = start + if engine { budget / 3 } else { budget };
    let mut tallies: Vec<Tally> = cands.iter().map(|&mv| Tally::new(mv)).collect();
    let mut boards = tally(
        belief,
        &order,
        &mut tallies,
        quick_deadline,
        MIN_BOARDS,
        |b| scorer.quick(b),
    );

    if let Some(t) = tallies
        .iter()
        .find(|t| t.weight > 0.0 && t.takes_king >= t.weight)
    {
        return (t.mv, boards);
    }

    // Near the reversible-move limit, unless behind, moves that capture or
    // push a pawn are worth more: a draw throws away an advantage, and from
    // an even position it throws away the chance of one (run 5 drew a game
    // against a bot that never moved, shuffling a knight for 30 moves).
    let mut agg = Aggregate {
        mean_weight: config.mean_weight,
        progress_bonus: 0.0,
    };
    // Judged by the mean alone: the worst board is nearly always bad, and a
    // blend with it called a level game lost (run 7, game 41: rbc shuffled
    // its bishop for 30 moves against a bot that never moved).
    let ahead = tallies
        .iter()
        .map(|t| t.live_value(1.0))
        .fold(f64::NEG_INFINITY, f64::max);
    if quiet_plies >= PROGRESS_FROM && ahead > -PROGRESS_UNLESS_BEHIND {
        agg.progress_bonus = progress_bonus(quiet_plies);
    }

    if engine && tallies.len() > 1 {
        tallies.sort_by(|a, b| b.value(agg).total_cmp(&a.value(agg)));
        tallies.truncate(ENGINE_CANDIDATES);
        let mut fresh: Vec<Tally> = tallies.iter().map(|t| Tally::new(t.mv)).collect();
        boards = tally(belief, &order, &mut fresh, start + budget, 3, |b| {
            scorer.score(b)
        })
        .max(boards);
        for (t, f) in tallies.iter_mut().zip(&fresh) {
            t.refine(f);
        }
    }

    let best = tallies
        .iter()
        .map(|t| t.value(agg))
        .fold(f64::NEG_INFINITY, f64::max);
    let near: Vec<&Tally> = tallies
        .iter()
        .filter(|t| t.value(agg) >= best - config.margin as f64)
        .collect();
    let pick = near[rng.below(near.len() as u64) as usize];
    (pick.mv, boards)
}

/// Boards the first pass always scores, whatever the budget: the king shares
/// must not rest on a handful of boards.
const MIN_BOARDS: usize = 64;

/// Half-moves without a capture or pawn move (reconchess draws at 100) from
/// which progress earns a bonus.
const PROGRESS_FROM: u32 = 60;

/// What progress is worth, `quiet_plies` half-moves after the last capture
/// or pawn move: a slow rise from [`PROGRESS_FROM`], then, in the last few
/// of our turns before the draw, a steep one. By then a draw is all but
/// certain without progress, while the king danger that makes rbc shuffle
/// is spread over boards the opponent had some twenty moves to reach each
/// turn (run 7, game 41: against a bot that never moved, rbc's king-safe
/// bishop move beat every pawn move by over 2,000 cp of king danger, and the
/// game was drawn at half-move 100).
fn progress_bonus(quiet_plies: u32) -> f64 {
    let slow = 60.0 * quiet_plies.saturating_sub(PROGRESS_FROM - 1) as f64;
    let steep = 400.0 * quiet_plies.saturating_sub(PROGRESS_URGENT) as f64;
    slow.min(1500.0) + steep.min(6000.0)
}

/// Half-moves from which the progress bonus rises steeply: some eight of
/// our turns before the 100 half-move draw.
const PROGRESS_URGENT: u32 = 84;

/// How far behind (centipawns, best live mean) rbc must be to prefer the
/// draw the reversible-move limit would bring.
const PROGRESS_UNLESS_BEHIND: f64 = 150.0;

/// Candidates the engine re-scores after the built-in evaluator's first pass.
const ENGINE_CANDIDATES: usize = 6;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_budgets_are_respected_and_used() {
        for mib in [16usize, 32, 48, 64, 256] {
            let bytes = mib << 20;
            let s = Sizing::with_memory(bytes).unwrap();
            assert!(s.storage_bytes() + PROCESS_OVERHEAD <= bytes, "{mib} MiB");
            // Nearly all of it: one more board would not fit.
            let next = Sizing::with_capacity(s.capacity + 1);
            assert!(next.storage_bytes() + PROCESS_OVERHEAD > bytes, "{mib} MiB");
        }
        assert!(Sizing::with_memory(1 << 20).is_err());
    }

    /// Near the reversible-move limit in an even position, rbc makes
    /// progress (a pawn move or a capture) rather than shuffle into a draw.
    #[test]
    fn an_even_position_near_the_move_limit_makes_progress() {
        // Run 5, AttackerBot game 31: white never moved; black, 90 quiet
        // half-moves in, with all its pieces.
        let board: Board = "rnbqkb1r/p3n2p/1p1pp1p1/2p2p2/8/8/PPPPPPPP/RNBQKBNR b KQkq - 90 72"
            .parse()
            .unwrap();
        for seed in 0..8 {
            let mut agent = Agent::new(AgentConfig {
                sizing: Sizing::with_capacity(1000),
                seed,
                ..AgentConfig::default()
            })
            .unwrap();
            agent.start_game(Color::Black, &board, 100.0, 2.0).unwrap();
            let mv = agent
                .choose_move(100.0)
                .unwrap()
                .expect("a move, not a pass");
            let pawn = board.kind_at(mv.from) == Some(PieceKind::Pawn);
            let capture = board.piece_at(mv.to).is_some();
            assert!(
                pawn || capture,
                "seed {seed}: {mv} neither pushes a pawn nor captures"
            );
        }
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("64MiB").unwrap(), 64 << 20);
        assert_eq!(parse_size("512KiB").unwrap(), 512 << 10);
        assert_eq!(parse_size("2g").unwrap(), 2 << 30);
        assert_eq!(parse_size("1000").unwrap(), 1000);
        assert!(parse_size("12 parsecs").is_err());
        assert!(parse_size("MiB").is_err());
    }
}
