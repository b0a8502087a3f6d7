//! The belief: every opponent position consistent with what we observed.
//!
//! Hypotheses live in caller-provided storage ([`Storage`]): the active set
//! grows from the front of the slice, the stash from the back. Each
//! observation is one update ([`Belief::opponent_move`], [`Belief::sense`],
//! [`Belief::move_result`]) that keeps only consistent hypotheses and removes
//! duplicates.
//!
//! When an expansion would overflow the active capacity, the parents are
//! shuffled (a seeded, uniform sample), expanded in that order until the
//! active region is full, and the unexpanded rest is stashed, tagged with the
//! log position it has not yet absorbed. Every observation is logged with our
//! own state at the time. When an update contradicts every active
//! hypothesis, the **earliest** stash is taken first and re-simulated through
//! the log. Recovering from the earliest rather than the latest costs more on
//! one recovery but amortises the worst case: each recovery pushes the oldest
//! unexplored boards forward, so the stash never keeps an ever-longer replay
//! waiting behind cheap recent ones.

mod expand;
mod hyp;
mod own;
mod table;

pub use expand::MAX_CHILDREN;
pub use hyp::{Hypothesis, Unpacked};
pub use own::Own;

use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::piece::Piece;
use crate::prefetch::prefetch;
use crate::rng::Rng;
use crate::rules::{self, Move};
use crate::square::{Color, Square};
use core::fmt;
pub use table::MAX_SLOTS;
use table::Table;

/// What one sense showed, prepared for filtering.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SenseWindow {
    /// The squares that were seen.
    pub mask: Bitboard,
    /// The opponent's pieces seen there, as visible codes in three planes.
    pub expect: [u64; 3],
}

/// One observation, as logged for re-simulation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Observation {
    /// The opponent moved; `capture` is where it took one of our pieces.
    OpponentMove {
        /// The capture square, if any.
        capture: Option<Square>,
    },
    /// We sensed.
    Sense(SenseWindow),
    /// Our move: what we requested, what was taken, what it captured.
    MoveResult {
        /// The request as sent (`None`: pass).
        requested: Option<Move>,
        /// The move played (`None`: pass or failed).
        taken: Option<Move>,
        /// Where we captured, if we did.
        capture: Option<Square>,
    },
}

/// A logged observation with our own state just before it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    /// What was observed.
    pub obs: Observation,
    /// Our side before the observation.
    pub own: Own,
}

impl LogEntry {
    /// A placeholder for filling storage.
    pub const EMPTY: LogEntry = LogEntry {
        obs: Observation::OpponentMove { capture: None },
        own: Own::EMPTY,
    };
}

/// Why an update was refused. The belief is unchanged unless noted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UpdateError {
    /// No hypothesis (active, stashed or rebuilt) is consistent with it.
    Contradiction,
    /// The observation came at the wrong point of the turn.
    OutOfOrder(&'static str),
    /// The observation disagrees with our own pieces or is malformed.
    Invalid(&'static str),
}

impl fmt::Display for UpdateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UpdateError::Contradiction => f.write_str("observation contradicts every hypothesis"),
            UpdateError::OutOfOrder(m) => write!(f, "observation out of order: {m}"),
            UpdateError::Invalid(m) => write!(f, "invalid observation: {m}"),
        }
    }
}

impl core::error::Error for UpdateError {}

/// Caller-provided memory for a [`Belief`].
pub struct Storage<'s> {
    /// Hypothesis slots: active capacity plus stash space.
    pub hypotheses: &'s mut [Hypothesis],
    /// The deduplication index: at least twice the active capacity
    /// (rounded down to a power of two when used); four times is faster
    /// (fewer collisions). Slots beyond [`MAX_SLOTS`] are not used.
    pub table: &'s mut [u32],
    /// The observation log (one entry per observation; a game needs a few
    /// hundred).
    pub log: &'s mut [LogEntry],
}

impl Storage<'_> {
    /// Bytes per active hypothesis, table included, for sizing from a memory budget
    /// with `stash_ratio` stash slots per active slot.
    pub const fn bytes_per_active(stash_ratio: f64) -> f64 {
        (1.0 + stash_ratio) * core::mem::size_of::<Hypothesis>() as f64 + 4.0 * 4.0
    }
}

/// Counters for reports.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Active hypotheses.
    pub active: usize,
    /// Hypotheses held in the stash.
    pub stashed: usize,
    /// Hypotheses dropped for lack of space (the belief may no longer be exact).
    pub dropped: u64,
    /// Recoveries from the stash.
    pub recoveries: u64,
    /// Opponent-move expansions.
    pub expansions: u64,
    /// Children generated in all expansions (before deduplication).
    pub children: u64,
    /// Times an expansion overflowed and sampled.
    pub overflows: u64,
    /// Bytes of caller storage in use.
    pub bytes: usize,
    /// Active capacity.
    pub capacity: usize,
    /// Observations logged.
    pub logged: usize,
    /// Rebuilds by search over the log (after everything stashed was contradicted).
    pub rebuilds: u64,
}

#[derive(Copy, Clone, Debug, Default)]
struct Segment {
    /// The first log entry these hypotheses have not absorbed.
    time: u32,
    start: usize,
    len: usize,
    /// During a recovery: how many from `start` have been taken out to replay.
    /// They are removed for good only when the recovery succeeds.
    taken: usize,
}

const MAX_SEGMENTS: usize = 1024;

/// The time of the segment that holds a contradicted active set during a
/// recovery; it is never replayed.
const PARKED: u32 = u32::MAX;

/// The set of opponent positions consistent with every observation so far.
pub struct Belief<'s> {
    own: Own,
    slots: &'s mut [Hypothesis],
    table: Table<'s>,
    log: &'s mut [LogEntry],
    log_len: usize,
    len: usize,
    max_active: usize,
    stash_start: usize,
    segments: [Segment; MAX_SEGMENTS],
    nseg: usize,
    rng: Rng,
    /// Parents from which an expansion that may overflow shuffles them
    /// lazily ([`LAZY_SHUFFLE_MIN`]; tests lower it).
    lazy_min: usize,
    our_turn: bool,
    opening_pass: bool,
    stats: Stats,
    /// The opponent's starting position, the root of a rebuild.
    initial: Hypothesis,
    /// Whether the log holds every observation since the start.
    log_complete: bool,
    /// During a rebuild the active region may exceed the dedup table, so
    /// updates deduplicate by sorting instead.
    wide: bool,
    /// Children expanded ahead of the opponent's report, by every move
    /// whatever it captures: `slots[len..len + ahead]` (see
    /// [`Belief::expand_ahead`]).
    ahead: Option<usize>,
}

/// A hypothesis that was never written (returned when storage is too small).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StorageTooSmall;

impl fmt::Display for StorageTooSmall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("belief storage too small: need at least one hypothesis slot, a table of two entries per active slot and one log entry")
    }
}

impl core::error::Error for StorageTooSmall {}

impl<'s> Belief<'s> {
    /// A belief for `color` starting from `board` (whose opponent half is the
    /// single initial hypothesis), with `max_active` active slots (the rest of
    /// `storage.hypotheses` is stash) and a seeded sampler.
    ///
    /// # Errors
    /// [`StorageTooSmall`] if the slots, table or log cannot hold `max_active`.
    pub fn new(
        storage: Storage<'s>,
        max_active: usize,
        board: &Board,
        color: Color,
        seed: u64,
    ) -> Result<Self, StorageTooSmall> {
        let slots = storage.hypotheses;
        let usable = slots.len().min(table::MAX_SLOTS);
        let slots = &mut slots[..usable];
        let table = Table::new(storage.table);
        let max_active = max_active
            .min(slots.len())
            .min(table.len() / 2)
            .min(u32::MAX as usize);
        if max_active == 0 || storage.log.is_empty() {
            return Err(StorageTooSmall);
        }
        let stash_start = slots.len();
        let initial = Hypothesis::from_board(board, color.flip());
        slots[0] = initial;
        let mut b = Belief {
            own: Own::from_board(board, color),
            slots,
            table,
            log: storage.log,
            log_len: 0,
            len: 1,
            max_active,
            stash_start,
            segments: [Segment::default(); MAX_SEGMENTS],
            nseg: 0,
            rng: Rng::new(seed),
            lazy_min: LAZY_SHUFFLE_MIN,
            our_turn: board.turn() == color,
            opening_pass: board.turn() == color,
            stats: Stats::default(),
            initial,
            log_complete: true,
            wide: false,
            ahead: None,
        };
        b.stats.capacity = max_active;
        Ok(b)
    }

    /// A belief over the given hypotheses and our side, as if they were the
    /// result of earlier observations that were not logged (so recovery can
    /// only use what is stashed from now on). `our_turn` tells whose move
    /// comes next. For benchmarks and for restoring a saved belief.
    /// `hyps` must hold no repeats: every update keeps the set free of them
    /// and relies on it (a sense or a quiet move of ours, for example, only
    /// deduplicates the boards whose en-passant mark it drops).
    ///
    /// # Errors
    /// [`StorageTooSmall`] as for [`Belief::new`], or if `hyps` exceeds the capacity.
    pub fn with_hypotheses(
        storage: Storage<'s>,
        max_active: usize,
        own: Own,
        our_turn: bool,
        hyps: &[Hypothesis],
        seed: u64,
    ) -> Result<Self, StorageTooSmall> {
        let mut b = Belief::new(storage, max_active, &Board::EMPTY, own.color, seed)?;
        if hyps.is_empty() || hyps.len() > b.max_active {
            return Err(StorageTooSmall);
        }
        b.slots[..hyps.len()].copy_from_slice(hyps);
        b.len = hyps.len();
        b.initial = hyps[0];
        b.own = own;
        b.our_turn = our_turn;
        b.opening_pass = false;
        b.log_complete = false;
        Ok(b)
    }

    /// Gives the storage back (to start another game in it).
    pub fn into_storage(self) -> Storage<'s> {
        Storage {
            hypotheses: self.slots,
            table: self.table.into_entries(),
            log: self.log,
        }
    }

    /// Our side as it stands.
    pub fn own(&self) -> &Own {
        &self.own
    }

    /// Our colour.
    pub fn color(&self) -> Color {
        self.own.color
    }

    /// Whether it is our turn (sense and move next).
    pub fn our_turn(&self) -> bool {
        self.our_turn
    }

    /// The active hypotheses.
    pub fn hypotheses(&self) -> &[Hypothesis] {
        &self.slots[..self.len]
    }

    /// The stashed hypotheses (in no particular order).
    pub fn stashed(&self) -> &[Hypothesis] {
        &self.slots[self.stash_start..]
    }

    /// Number of active hypotheses.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no hypothesis is active (only after a failed recovery).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Active capacity.
    pub fn capacity(&self) -> usize {
        self.max_active
    }

    /// Counters and memory.
    pub fn stats(&self) -> Stats {
        Stats {
            active: self.len,
            stashed: self.slots.len() - self.stash_start,
            bytes: core::mem::size_of_val(self.slots)
                + self.table.len() * 4
                + core::mem::size_of_val(self.log)
                + core::mem::size_of::<Self>(),
            logged: self.log_len,
            ..self.stats
        }
    }

    /// The full board of hypothesis `h` with `turn` to move.
    pub fn board(&self, h: &Hypothesis, turn: Color) -> Board {
        self.own.board_with(h, turn)
    }

    /// The side to move in the belief's current positions.
    pub fn side_to_move(&self) -> Color {
        if self.our_turn {
            self.own.color
        } else {
            self.own.color.flip()
        }
    }

    /// Whether `board` (compared as placement, castling rights and the X-FEN
    /// en-passant square; side to move and clocks ignored) is among the active
    /// or stashed hypotheses.
    pub fn contains(&self, board: &Board) -> bool {
        let us = self.own.color;
        if Own::from_board(board, us).pieces != self.own.pieces {
            return false;
        }
        let ours = Own::from_board(board, us);
        if ours.castling != self.own.castling {
            return false;
        }
        let mut b = *board;
        b.set_turn(self.side_to_move());
        // Our en-passant square (after our double step) is shared state: compare it in X-FEN terms.
        if !self.our_turn {
            let mut mine = b;
            mine.set_ep_square(self.own.ep);
            if b.capturable_ep_square() != mine.capturable_ep_square() {
                return false;
            }
        }
        let h = Hypothesis::from_board(&b, us.flip());
        self.hypotheses().contains(&h) || self.stashed().contains(&h)
    }

    /// Whether the truth waits in the stash: some stash segment holds the
    /// opponent's half of `history[t]`, where `t` is the segment's time and
    /// `history[t]` the true position before the `t`-th logged observation
    /// (those stashed boards have absorbed the observations before it, and a
    /// recovery would replay them through the rest). Segments of times past
    /// the end of `history` are not looked at.
    pub fn stash_holds(&self, history: &[Board]) -> bool {
        let them = self.own.color.flip();
        self.segments[..self.nseg].iter().any(|s| {
            history.get(s.time as usize).is_some_and(|then| {
                let h = Hypothesis::from_board(then, them);
                self.slots[s.start + s.taken..s.start + s.len].contains(&h)
            })
        })
    }

    // ---- updates ---------------------------------------------------------

    /// The opponent moved; `capture` is where it took one of our pieces.
    ///
    /// # Errors
    /// Out of order if it is our turn (except the null report reconchess
    /// gives white before its first move, which changes nothing); invalid if
    /// the capture square holds none of our pieces; a contradiction if no
    /// hypothesis allows it.
    pub fn opponent_move(&mut self, capture: Option<Square>) -> Result<(), UpdateError> {
        if self.our_turn {
            if self.opening_pass && capture.is_none() {
                return Ok(());
            }
            return Err(UpdateError::OutOfOrder("opponent_move during our turn"));
        }
        if let Some(sq) = capture
            && !self.own.occupied().contains(sq)
        {
            return Err(UpdateError::Invalid(
                "capture square holds none of our pieces",
            ));
        }
        let obs = Observation::OpponentMove { capture };
        if !self.take_ahead(capture) {
            self.observe(obs)?;
        }
        self.our_turn = true;
        self.opening_pass = false;
        Ok(())
    }

    /// Expands the belief ahead of the opponent's report, while the opponent
    /// thinks: every parent by every move it could make, whatever the move
    /// captures, into the free slots above the active set. The active set,
    /// the stash and every query stay as they were; [`Belief::opponent_move`]
    /// then only keeps the children whose capture matches the report (a
    /// child's capture square is a function of the child, since our pieces
    /// are the same in every hypothesis), which is a fast filter instead of
    /// an expansion. Returns whether it succeeded: it gives up, changing
    /// nothing, when it is not the opponent's turn, when the children would
    /// not fit in the free slots below the stash or in the active capacity,
    /// or during a rebuild.
    pub fn expand_ahead(&mut self) -> bool {
        if self.our_turn || self.ahead.is_some() || self.wide || self.log_len >= self.log.len() {
            return false;
        }
        let own = self.own;
        let quiet = expand::Context::new(&own, None);
        let captures = expand::Context::any_capture(&own);
        let base = self.len;
        let end = self.stash_start.min(base + self.max_active);
        if end - base < 2 * base {
            // Every board has a pass and nearly always many moves: no room.
            return false;
        }
        self.table.clear();
        // Children are queued over many parents and inserted in one loop,
        // as in an expansion (see `Pending`).
        let mut pending = Pending::new();
        let mut w = base;
        let mut children = 0u64;
        for i in 0..base {
            if pending.len > PENDING {
                w = pending.flush(self, w);
            }
            let parent = self.slots[i];
            let start = pending.len;
            pending.generate(&parent, &quiet);
            pending.generate(&parent, &captures);
            let k = pending.len - start;
            children += k as u64;
            if w + pending.len > end {
                // Insert the queue before this parent's children, then see
                // whether they fit. They may still fit after deduplication,
                // but an overflow needs sampling, which the report's own
                // expansion does properly.
                let len = pending.len;
                pending.len = start;
                w = pending.flush(self, w);
                if w + k > end {
                    return false;
                }
                pending.hyps.copy_within(start..len, 0);
                pending.hashes.copy_within(start..len, 0);
                pending.len = k;
            }
        }
        w = pending.flush(self, w);
        self.stats.children += children;
        self.ahead = Some(w - base);
        true
    }

    /// Whether the belief holds children expanded ahead (see
    /// [`Belief::expand_ahead`]).
    pub fn is_ahead(&self) -> bool {
        self.ahead.is_some()
    }

    /// The report arrived after [`Belief::expand_ahead`]: keeps the children
    /// whose capture square is `capture` as the new active set, and logs the
    /// observation. Returns false (changing nothing but forgetting the
    /// children) if there were none ahead or none matches; the caller then
    /// expands the usual way, which also recovers.
    fn take_ahead(&mut self, capture: Option<Square>) -> bool {
        let Some(n) = self.ahead.take() else {
            return false;
        };
        let own = self.own;
        let base = self.len;
        let mut w = base;
        for i in base..base + n {
            let c = self.slots[i];
            if expand::capture_square(&c, &own) == capture {
                self.slots[w] = c;
                w += 1;
            }
        }
        if w == base {
            return false;
        }
        self.slots.copy_within(base..w, 0);
        self.len = w - base;
        self.stats.expansions += 1;
        let obs = Observation::OpponentMove { capture };
        self.own = next_own(&own, &obs);
        self.log[self.log_len] = LogEntry { obs, own };
        self.log_len += 1;
        true
    }

    /// We sensed: `result` lists every square of the window with its piece.
    ///
    /// # Errors
    /// Out of order outside our turn; invalid if it disagrees with our own
    /// pieces or repeats a square; a contradiction if no hypothesis matches.
    pub fn sense(&mut self, result: &[(Square, Option<Piece>)]) -> Result<(), UpdateError> {
        if !self.our_turn {
            return Err(UpdateError::OutOfOrder("sense_result outside our turn"));
        }
        let window = self.sense_window(result)?;
        self.observe(Observation::Sense(window))?;
        self.opening_pass = false;
        Ok(())
    }

    /// Prepares a sense result for filtering, checking it against our pieces.
    ///
    /// # Errors
    /// Invalid if a square repeats or our own pieces are misreported.
    pub fn sense_window(
        &self,
        result: &[(Square, Option<Piece>)],
    ) -> Result<SenseWindow, UpdateError> {
        let us = self.own.color;
        let ours = self.own.occupied();
        let mut mask = Bitboard::EMPTY;
        let mut expect = [0u64; 3];
        for &(sq, piece) in result {
            if mask.contains(sq) {
                return Err(UpdateError::Invalid(
                    "a square appears twice in the sense result",
                ));
            }
            mask.insert(sq);
            match piece {
                Some(p) if p.color == us => {
                    if self.own.kind_at(sq) != Some(p.kind) {
                        return Err(UpdateError::Invalid(
                            "sense result shows one of our pieces where we have none of that kind",
                        ));
                    }
                }
                Some(p) => {
                    if ours.contains(sq) {
                        return Err(UpdateError::Invalid(
                            "sense result shows an opponent piece on our own piece",
                        ));
                    }
                    let code = p.kind as u8 + 1;
                    for (i, plane) in expect.iter_mut().enumerate() {
                        if code >> i & 1 != 0 {
                            *plane |= 1 << sq as u32;
                        }
                    }
                }
                None => {
                    if ours.contains(sq) {
                        return Err(UpdateError::Invalid(
                            "sense result shows empty a square holding our piece",
                        ));
                    }
                }
            }
        }
        Ok(SenseWindow { mask, expect })
    }

    /// Our move's result: the request as sent, the move taken and our capture.
    ///
    /// # Errors
    /// Out of order outside our turn; invalid if the request is not one we
    /// may make or the taken move is not a possible revision of it; a
    /// contradiction if no hypothesis gives this result.
    pub fn move_result(
        &mut self,
        requested: Option<Move>,
        taken: Option<Move>,
        capture: Option<Square>,
    ) -> Result<(), UpdateError> {
        if !self.our_turn {
            return Err(UpdateError::OutOfOrder("move_result outside our turn"));
        }
        if let Some(r) = requested {
            let template = self.own.board_with(&Hypothesis::EMPTY, self.own.color);
            if !rules::is_requestable(&template, r) {
                return Err(UpdateError::Invalid(
                    "requested move is not one we may request",
                ));
            }
        } else if taken.is_some() || capture.is_some() {
            return Err(UpdateError::Invalid("a pass cannot take a move or capture"));
        }
        if let Some(t) = taken
            && !self.own.occupied().contains(t.from)
        {
            return Err(UpdateError::Invalid(
                "taken move does not start on one of our pieces",
            ));
        }
        self.observe(Observation::MoveResult {
            requested,
            taken,
            capture,
        })?;
        self.our_turn = false;
        self.opening_pass = false;
        Ok(())
    }

    /// Applies and logs one observation, recovering from the stash if it
    /// contradicts every active hypothesis.
    fn observe(&mut self, obs: Observation) -> Result<(), UpdateError> {
        let own = self.own;
        let time = self.log_len as u32;
        match self.apply(&obs, &own, time) {
            Ok(()) => {}
            Err(Empty) => self.recover(&obs, &own)?,
        }
        self.own = next_own(&own, &obs);
        let logged = self.log_len < self.log.len();
        if logged {
            self.log[self.log_len] = LogEntry { obs, own };
            self.log_len += 1;
        } else {
            self.log_complete = false;
        }
        if !logged && self.nseg > 0 {
            // The log is full: stashed boards can no longer be replayed.
            self.stats.dropped += (self.slots.len() - self.stash_start) as u64;
            self.stash_start = self.slots.len();
            self.nseg = 0;
        }
        Ok(())
    }

    /// Applies one observation to the active set. On `Err(Empty)` nothing
    /// changed (no hypothesis survived).
    fn apply(&mut self, obs: &Observation, own: &Own, time: u32) -> Result<(), Empty> {
        match *obs {
            Observation::OpponentMove { capture } => self.expand(own, capture, time),
            Observation::Sense(w) => self.retain_matching(&w),
            Observation::MoveResult {
                requested,
                taken,
                capture,
            } => {
                // Only a capture or a dropped en-passant mark can make two
                // hypotheses equal.
                if capture.is_none()
                    && let Some(result) =
                        self.retain_merging_marks(&OurMove::new(own, requested, taken, capture))
                {
                    return result;
                }
                let f = our_move_filter(own, requested, taken, capture);
                let dedup =
                    capture.is_some() || self.slots[..self.len].iter().any(Hypothesis::has_ep);
                self.retain(f, dedup)
            }
        }
    }

    /// [`Belief::retain`] with deduplication, for a move result that
    /// captured nothing: `None` if it does not apply here.
    ///
    /// Such a move changes no opponent piece; it only drops en-passant
    /// marks. Hypotheses were distinct before, so two can become equal only
    /// if one of them had a mark, and then both end up equal to a marked
    /// hypothesis with its mark dropped. A first pass collects those
    /// results, each once, in free slots, indexes them in a part of the
    /// table sized for them (a few MB at most, so it stays in cache), and
    /// puts them in a bit filter (64 KiB). The second pass looks up only
    /// the results the filter may contain, typically a few percent, and
    /// keeps each of the collected results the first time it comes, and
    /// everything else as it is. Which hypotheses are kept, and their
    /// order, are exactly those of a full deduplication: a result outside
    /// the collected ones equals no other.
    fn retain_merging_marks(&mut self, our: &OurMove) -> Option<Result<(), Empty>> {
        const WORDS: usize = FILTER_BITS / 64;
        const SLOTS: usize = WORDS.div_ceil(3);
        let len = self.len;
        let filter_at = len + self.ahead.unwrap_or(0);
        if self.wide || filter_at + SLOTS > self.stash_start {
            return None;
        }
        let (low, high) = self.slots.split_at_mut(filter_at);
        let (filter, scratch) = high.split_at_mut(SLOTS);
        // The filter's own hash: one multiply, where the table's takes five
        // (only what hits the filter is hashed for the table).
        let bit = |r: &Hypothesis| {
            let [p0, p1, p2] = r.planes;
            let x =
                (p0 ^ p1.rotate_left(21) ^ p2.rotate_left(42)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let b = (x >> (64 - FILTER_BITS.trailing_zeros())) as usize;
            (b / 64 / 3, b / 64 % 3, 1u64 << (b % 64))
        };
        // A result that equals a marked hypothesis with its mark dropped
        // has a plain pawn where that mark was: most fail this first test.
        let plain_pawns = |h: &Hypothesis| h.planes[0] & !h.planes[1] & !h.planes[2];
        // The first pass: the marked hypotheses' results go to
        // `scratch[..marked]`, and then into the table, sized for them
        // alone. Equal results are indexed once, at the first of them.
        let room = scratch.len().min(FILTER_BITS / 4);
        let mut marked = 0;
        let mut mark_squares = 0u64;
        // A tight scan for the next mark: most hypotheses have none, and
        // often none has one.
        let mut next = 0;
        while let Some(at) = low[next..len].iter().position(Hypothesis::has_ep) {
            let h = &low[next + at];
            next += at + 1;
            if our.test(h) {
                if marked == room {
                    // No room to hold them, or too many marks for the
                    // filter to single out a few.
                    return None;
                }
                if marked == 0 {
                    filter.fill(Hypothesis::EMPTY);
                }
                let r = our.apply(h);
                scratch[marked] = r;
                marked += 1;
                let (s, p, m) = bit(&r);
                filter[s].planes[p] |= m;
                mark_squares |= h.specials().0 & !hyp::CORNERS;
            }
        }
        if marked == 0 {
            return Some(self.retain(|h| our.test(h).then(|| our.apply(h)), false));
        }
        self.table.clear_for(marked);
        // Each result is hashed once, AHEAD places before its insert, when
        // its entry is prefetched.
        const AHEAD: usize = 16;
        let mut ahead = [0u64; AHEAD];
        for (j, r) in scratch[..marked.min(AHEAD)].iter().enumerate() {
            ahead[j] = r.hash64();
            self.table.prefetch(ahead[j]);
        }
        for j in 0..marked {
            let hash = ahead[j % AHEAD];
            if let Some(r) = scratch[..marked].get(j + AHEAD) {
                ahead[j % AHEAD] = r.hash64();
                self.table.prefetch(ahead[j % AHEAD]);
            }
            let r = scratch[j];
            self.table.insert_hashed(&r, hash, j, scratch);
        }
        // Which results of marked hypotheses the second pass has kept once:
        // bits after them in the scratch slots.
        let (results, rest) = scratch.split_at_mut(marked);
        let taken = &mut rest[..marked.div_ceil(64 * 3)];
        taken.fill(Hypothesis::EMPTY);
        // The second pass: a result is kept unless it is one of those and
        // an earlier hypothesis already gave it. Only results that pass the
        // mark-square test and hit the filter are looked up.
        const BATCH: usize = 64;
        let mut buf = [Hypothesis::EMPTY; BATCH];
        let mut hashes = [0u64; BATCH];
        let (mut i, mut w) = (0, 0);
        while i < len {
            let end = (i + BATCH).min(len);
            let (mut k, mut maybe) = (0, 0u64);
            for h in &low[i..end] {
                if !our.test(h) {
                    continue;
                }
                let r = our.apply(h);
                if plain_pawns(&r) & mark_squares != 0 {
                    let (s, p, m) = bit(&r);
                    if filter[s].planes[p] & m != 0 {
                        let h = r.hash64();
                        maybe |= 1 << k;
                        self.table.prefetch(h);
                        hashes[k] = h;
                    }
                }
                buf[k] = r;
                k += 1;
            }
            for t in 0..k {
                let keep = maybe >> t & 1 == 0
                    || match self.table.find(&buf[t], hashes[t], results) {
                        None => true,
                        Some(j) => {
                            let (word, bit) = (j / 64, 1u64 << (j % 64));
                            let plane = &mut taken[word / 3].planes[word % 3];
                            let first = *plane & bit == 0;
                            *plane |= bit;
                            first
                        }
                    };
                if keep {
                    low[w] = buf[t];
                    w += 1;
                }
            }
            i = end;
        }
        if w == 0 {
            return Some(Err(Empty));
        }
        self.len = w;
        Some(Ok(()))
    }

    /// Keeps the hypotheses that match a sense, in order. Changes nothing and
    /// returns `Err(Empty)` if none does.
    fn retain_matching(&mut self, window: &SenseWindow) -> Result<(), Empty> {
        let raw = RawWindow::new(window);
        // A branch per board is cheapest when it goes the same way nearly
        // every time; a sense that keeps a fair share of the boards makes
        // it a coin toss. The first boards tell which case this is.
        let probe = &self.slots[..self.len.min(64)];
        let kept = probe.iter().filter(|h| window.matches(h)).count();
        let dense = kept * 4 > probe.len() * 3;
        match (raw.pawns != 0, raw.rooks != 0) {
            (false, false) => self.retain_raw::<false, false>(&raw, dense),
            (true, false) => self.retain_raw::<true, false>(&raw, dense),
            (_, true) => self.retain_raw::<true, true>(&raw, dense),
        }
    }

    /// [`Belief::retain_matching`] with the window compiled; `PAWNS` and
    /// `ROOKS` say whether it shows a pawn or a rook that may carry a
    /// special code (most windows show neither, and the test is then
    /// three masked comparisons); `dense` whether most boards match (a
    /// branch per board then), otherwise a block's matches are found
    /// without a branch and then visited.
    fn retain_raw<const PAWNS: bool, const ROOKS: bool>(
        &mut self,
        raw: &RawWindow,
        dense: bool,
    ) -> Result<(), Empty> {
        const BLOCK: usize = 64;
        let len = self.len;
        let slots = &mut self.slots[..len];
        let mut w = 0;
        if dense {
            for i in 0..len {
                let h = slots[i];
                if raw.matches::<PAWNS, ROOKS>(&h) {
                    slots[w] = h;
                    w += 1;
                }
            }
        } else {
            // In blocks: a branch-free pass makes the block's mask of
            // matches, then only the matches are visited.
            let mut i = 0;
            while i < len {
                let end = (i + BLOCK).min(len);
                let mut keep = 0u64;
                for (j, h) in slots[i..end].iter().enumerate() {
                    keep |= u64::from(raw.matches::<PAWNS, ROOKS>(h)) << j;
                }
                while keep != 0 {
                    slots[w] = slots[i + keep.trailing_zeros() as usize];
                    w += 1;
                    keep &= keep - 1;
                }
                i = end;
            }
        }
        if w == 0 {
            return Err(Empty);
        }
        self.len = w;
        Ok(())
    }

    /// Keeps the hypotheses `f` maps to `Some`, replacing them with the
    /// result, in order; with `dedup`, drops repeats. Changes nothing and
    /// returns `Err(Empty)` if none survives.
    fn retain(
        &mut self,
        mut f: impl FnMut(&Hypothesis) -> Option<Hypothesis>,
        dedup: bool,
    ) -> Result<(), Empty> {
        let mut w = 0;
        if !dedup || self.wide {
            for i in 0..self.len {
                if let Some(new) = f(&self.slots[i]) {
                    self.slots[w] = new;
                    w += 1;
                }
            }
        } else {
            // In batches: map, hash and touch the table for a batch first so
            // the cache misses overlap, then insert.
            const BATCH: usize = 64;
            self.table.clear();
            let mut buf = [Hypothesis::EMPTY; BATCH];
            let mut hashes = [0u64; BATCH];
            let mut i = 0;
            while i < self.len {
                let end = (i + BATCH).min(self.len);
                let mut k = 0;
                for j in i..end {
                    if let Some(new) = f(&self.slots[j]) {
                        buf[k] = new;
                        hashes[k] = new.hash64();
                        self.table.prefetch(hashes[k]);
                        k += 1;
                    }
                }
                w = self.insert_hashed(&buf[..k], &hashes[..k], w);
                i = end;
            }
        }
        if w == 0 {
            return Err(Empty);
        }
        self.len = if dedup && self.wide {
            sort_dedup(&mut self.slots[..w])
        } else {
            w
        };
        Ok(())
    }

    /// Expands every active hypothesis by every opponent move allowed by the
    /// capture report, in place, sampling and stashing on overflow.
    fn expand(&mut self, own: &Own, capture: Option<Square>, time: u32) -> Result<(), Empty> {
        self.stats.expansions += 1;
        let cx = expand::Context::new(own, capture);
        let n = self.len;
        // Parents move to the top of the free region; children grow from 0.
        let base = self.stash_start - n;
        let may_overflow = n.saturating_mul(MAX_CHILDREN) > self.max_active;
        let likely = n.saturating_mul(64) > self.max_active;
        let lazy = n >= self.lazy_min;
        // A large set that will likely overflow draws the sample it would
        // stash while it moves (see `presample`).
        let stash_room = self.stash_start.saturating_sub(self.max_active);
        let sampled = n.min(stash_room);
        if may_overflow
            && likely
            && lazy
            && !self.wide
            && sampled > 0
            && sampled <= base
            && base >= MAX_CHILDREN
            && self.max_active >= MAX_CHILDREN
            && self.may_stash()
        {
            self.presample(n, base, sampled);
            let (w, children) = self
                .expand_pass(&cx, base, n, time, true, false, sampled)
                .expect("a pass that may overflow always finishes");
            return self.finish_expansion(w, children, base, n);
        }
        self.slots.copy_within(0..n, base);
        // An expansion that may overflow takes its parents in a uniformly
        // random order, or the parents expanded and those stashed would be
        // the first and the last in memory. Any set may overflow whose
        // parents could have MAX_CHILDREN children each; most such sets are
        // far from it, so those with fewer than one parent per 64 slots are
        // first expanded in memory order (children of like parents stay
        // together, and their duplicates are found in cache), with the
        // children kept below the parents: if they do not all fit, that
        // pass is thrown away and the parents are shuffled. (A recovery's
        // replays, whose room is set otherwise, shuffle whenever a set may
        // overflow.)
        let done = if !likely && !self.wide {
            self.expand_pass(&cx, base, n, time, false, true, 0)
        } else if !may_overflow {
            self.expand_pass(&cx, base, n, time, false, false, 0)
        } else {
            None
        };
        let (w, children) = match done {
            Some(pass) => pass,
            None => {
                // A small set is shuffled whole, in cache. A large one is
                // shuffled lazily (a forward Fisher-Yates, one swap just
                // before each parent is expanded): one that fills up after a
                // few thousand parents, as wide expansions of large beliefs
                // do, then does not pay a cache miss for each of the hundreds
                // of thousands it stashes.
                if !lazy {
                    shuffle(&mut self.slots[base..base + n], &mut self.rng);
                }
                self.expand_pass(&cx, base, n, time, lazy, false, 0)
                    .expect("a pass that may overflow always finishes")
            }
        };
        self.finish_expansion(w, children, base, n)
    }

    /// Moves the parents at `slots[0..n]` to `slots[base..base + n]`, a
    /// uniform sample of `sampled` of them on top and the rest below, in one
    /// pass (selection sampling from the top down: each is taken with
    /// probability still needed / still left).
    ///
    /// A large expansion that overflows expands a few of its parents, in
    /// random order, and stashes a uniform sample of the rest. Drawing that
    /// sample first and expanding from the others is the same in
    /// distribution (the parents expanded are still drawn without
    /// replacement from all of them: once the others run out, the sample is
    /// drawn from in turn), and each parent is moved once instead of twice
    /// (up out of the children's way, then into the stash).
    ///
    /// Needs `sampled <= base`: a write never reaches a parent not yet read.
    fn presample(&mut self, n: usize, base: usize, sampled: usize) {
        debug_assert!(sampled <= base && sampled <= n);
        debug_assert!(n <= u32::MAX as usize);
        let (mut need, mut top, mut low) = (sampled, base + n, base + n - sampled);
        // Two draws from each 64 random bits: the generator is a third of
        // this pass's work otherwise.
        let (mut bits, mut left) = (0u64, 0);
        for r in (0..n).rev() {
            if left == 0 {
                bits = self.rng.next_u64();
                left = 2;
            }
            let range = r as u64 + 1;
            let mut m = (bits as u32 as u64) * range;
            bits >>= 32;
            left -= 1;
            if (m as u32 as u64) < range {
                // Lemire's rejection, rarely reached: exactly uniform.
                let threshold = (1u64 << 32).wrapping_sub(range) % range;
                while (m as u32 as u64) < threshold {
                    m = (self.rng.next_u64() as u32 as u64) * range;
                }
            }
            // Without a branch on the draw, which no predictor can learn.
            let take = ((m >> 32) as usize) < need;
            let at = if take { top - 1 } else { low - 1 };
            self.slots[at] = self.slots[r];
            top -= usize::from(take);
            low -= usize::from(!take);
            need -= usize::from(take);
        }
        debug_assert!(need == 0 && top == base + n - sampled && low == base);
    }

    /// The end of [`Belief::expand`]: `w` children were kept from the
    /// parents at `slots[base..base + n]`.
    fn finish_expansion(
        &mut self,
        w: usize,
        children: u64,
        base: usize,
        n: usize,
    ) -> Result<(), Empty> {
        self.stats.children += children;
        if w == 0 {
            // Nothing possible: put the parents back where they were.
            self.slots.copy_within(base..base + n, 0);
            self.len = n;
            return Err(Empty);
        }
        self.len = if self.wide {
            sort_dedup(&mut self.slots[..w])
        } else {
            w
        };
        Ok(())
    }

    /// Expands the parents at `slots[base..base + n]` into `slots[0..]`;
    /// returns the end of the children and how many were made. With `lazy`
    /// the parents are shuffled as they are taken. With `trial` the
    /// children must all fit below the parents, or nothing is kept and
    /// `None` comes back (the parents are untouched). The last `sampled`
    /// parents are a sample drawn for the stash ([`Belief::presample`]),
    /// taken only once the others are all expanded.
    #[allow(clippy::too_many_arguments)]
    fn expand_pass(
        &mut self,
        cx: &expand::Context,
        base: usize,
        n: usize,
        time: u32,
        lazy: bool,
        trial: bool,
        sampled: usize,
    ) -> Option<(usize, u64)> {
        let mut partners = Partners::new(n - sampled);
        if !self.wide {
            self.table.clear();
        }
        let mut buf = [Hypothesis::EMPTY; MAX_CHILDREN];
        let mut hashes = [0u64; MAX_CHILDREN];
        // Children waiting to be inserted, from several parents: a parent
        // often has one or two children that survive the capture mask, and
        // its table misses only overlap with those of its neighbours if
        // they are inserted together. They are inserted in the order they
        // were made, so the result is exactly that of inserting each
        // parent's children at once.
        let mut pending = Pending::new();
        let mut w = 0usize;
        let mut children = 0u64;
        for i in 0..n {
            if lazy {
                let j = partners.next(i, base, n, self.slots, &mut self.rng);
                self.slots.swap(base + i, j);
            }
            let parent = self.slots[base + i];
            let room = if trial {
                self.max_active.min(base)
            } else {
                self.max_active.min(base + i + 1)
            };
            let mut k;
            if self.wide {
                debug_assert!(!trial, "a wide pass has no trial");
                k = 0;
                expand::children(&parent, cx, |c| {
                    buf[k] = c;
                    k += 1;
                });
                children += k as u64;
            } else {
                // The children go straight to the queue.
                if pending.len > PENDING {
                    w = pending.flush(self, w);
                }
                let start = pending.len;
                k = pending.generate(&parent, cx);
                children += k as u64;
                if trial && w + pending.len > room {
                    return None;
                }
                if w + pending.len <= room {
                    continue;
                }
                // They do not fit with the queue: insert the queue, then
                // see whether they fit alone.
                buf[..k].copy_from_slice(&pending.hyps[start..start + k]);
                hashes[..k].copy_from_slice(&pending.hashes[start..start + k]);
                pending.len = start;
                w = pending.flush(self, w);
                if w + k <= room {
                    pending.push(&buf[..k], &hashes[..k]);
                    continue;
                }
            }
            let mut stash_from_here = false;
            if w + k > room {
                if w == 0 {
                    debug_assert_eq!(sampled, 0, "a presampled pass has room for a parent");
                    // Not even one parent's children fit: keep a uniform
                    // sample of them, and stash this parent with the rest so
                    // that the children left out can be regenerated. The
                    // sample must not overwrite the parent's own slot.
                    for j in (1..k).rev() {
                        let r = self.rng.below(j as u64 + 1) as usize;
                        buf.swap(j, r);
                    }
                    let below_parent = self.max_active.min(base + i);
                    if below_parent > 0 && self.may_stash() {
                        k = below_parent;
                        stash_from_here = true;
                    } else {
                        self.stats.dropped += (k - room) as u64;
                        k = room;
                    }
                } else {
                    self.stats.overflows += 1;
                    let unsampled = n - sampled;
                    if sampled > 0 && i < unsampled {
                        // The sample drawn for the stash waits on top; the
                        // other parents not expanded are the ones dropped.
                        self.stats.dropped += (unsampled - i) as u64;
                        self.stash_parents(base + unsampled, sampled, time, true);
                    } else {
                        self.stash_parents(base + i, n - i, time, !lazy);
                    }
                    break;
                }
            }
            if self.wide {
                self.slots[w..w + k].copy_from_slice(&buf[..k]);
                w += k;
                if stash_from_here {
                    self.stats.overflows += 1;
                    self.stash_parents(base + i, n - i, time, !lazy);
                    break;
                }
                continue;
            }
            w = self.insert_batch(&buf[..k], &mut hashes, w);
            if stash_from_here {
                self.stats.overflows += 1;
                self.stash_parents(base + i, n - i, time, !lazy);
                break;
            }
        }
        w = pending.flush(self, w);
        Some((w, children))
    }

    /// Appends the children in `batch` that are new to the table at
    /// `slots[w..]`; returns the new end (see [`Belief::insert_hashed`]).
    fn insert_batch(&mut self, batch: &[Hypothesis], hashes: &mut [u64], w: usize) -> usize {
        for (h, c) in hashes.iter_mut().zip(batch) {
            *h = c.hash64();
        }
        self.insert_hashed(batch, &hashes[..batch.len()], w)
    }

    /// Appends the hypotheses in `batch` (hashed in `hashes`) that are new
    /// to the table at `slots[w..]`, in order; returns the new end.
    ///
    /// Nearly every insert misses the cache, once for its table entry and,
    /// if that holds a matching fingerprint, once more for the slot it
    /// points to. Software pipelining keeps the misses overlapping: the
    /// entry of the hypothesis [`INSERT_AHEAD`] places ahead is prefetched,
    /// and the slot matching the entry of the one [`MATCH_AHEAD`] ahead
    /// (which has arrived by then).
    fn insert_hashed(&mut self, batch: &[Hypothesis], hashes: &[u64], mut w: usize) -> usize {
        const AHEAD: usize = INSERT_AHEAD;
        let n = batch.len();
        for &h in &hashes[..n.min(AHEAD)] {
            self.table.prefetch(h);
        }
        for &h in &hashes[..n.min(MATCH_AHEAD)] {
            self.table.prefetch_match(h, self.slots);
        }
        for (k, (c, &hash)) in batch.iter().zip(hashes).enumerate() {
            if let Some(&h) = hashes.get(k + AHEAD) {
                self.table.prefetch(h);
            }
            if let Some(&h) = hashes.get(k + MATCH_AHEAD) {
                self.table.prefetch_match(h, self.slots);
            }
            if self.table.insert_hashed(c, hash, w, self.slots) {
                self.slots[w] = *c;
                w += 1;
            }
        }
        w
    }

    /// Whether [`Belief::stash_parents`] can keep anything now (or may, once
    /// it has coalesced the stash).
    fn may_stash(&self) -> bool {
        self.stash_start > self.max_active
            && (self.nseg < MAX_SEGMENTS
                || !self.wide
                || self.segments[..self.nseg]
                    .iter()
                    .any(|s| s.start == self.stash_start && s.taken == 0))
            && self.log_len < self.log.len()
    }

    /// Merges stash segments of equal time into one, in place, so that a
    /// long game with many recoveries does not run out of segments (each
    /// recovery and each overflow opens one, but there are only as many
    /// distinct times as logged observations). Segments keep their order of
    /// first appearance in memory; a later one of the same time is rotated
    /// down to sit beside its group. Only outside a recovery, when every
    /// segment is whole and the stash is packed against the end.
    fn coalesce_stash(&mut self) {
        let n = self.nseg;
        self.segments[..n].sort_unstable_by_key(|s| s.start);
        debug_assert!(
            self.segments[..n]
                .iter()
                .all(|s| s.taken == 0 && s.time != PARKED)
        );
        debug_assert!(n == 0 || self.segments[0].start == self.stash_start);
        let mut groups = 0;
        for i in 0..n {
            let seg = self.segments[i];
            debug_assert!(
                groups == 0
                    || self.segments[groups - 1].start + self.segments[groups - 1].len == seg.start
            );
            match (0..groups).find(|&g| self.segments[g].time == seg.time) {
                Some(g) => {
                    let group_end = self.segments[g].start + self.segments[g].len;
                    self.slots[group_end..seg.start + seg.len].rotate_right(seg.len);
                    self.segments[g].len += seg.len;
                    for h in g + 1..groups {
                        self.segments[h].start += seg.len;
                    }
                }
                None => {
                    self.segments[groups] = seg;
                    groups += 1;
                }
            }
        }
        self.nseg = groups;
    }

    /// Moves `slots[start..start + len]`, which sits directly below the
    /// stash, into the stash as one segment (subsampled if the stash is
    /// full). `shuffled` says that they are in uniformly random order, so
    /// that any part of them is a uniform sample; otherwise one is drawn.
    fn stash_parents(&mut self, start: usize, len: usize, time: u32, shuffled: bool) {
        debug_assert_eq!(start + len, self.stash_start);
        if self.nseg == MAX_SEGMENTS && !self.wide {
            self.coalesce_stash();
        }
        let stash_room = self.slots.len() - self.max_active - (self.slots.len() - self.stash_start);
        let keep = len.min(stash_room);
        // The newest segment sits at the bottom of the stash; one of the same
        // time simply grows downwards (replays stash at the same times over
        // and over).
        let below = self.segments[..self.nseg]
            .iter()
            .position(|s| s.start == self.stash_start && s.time == time && s.taken == 0);
        if keep == 0
            || (self.nseg == MAX_SEGMENTS && below.is_none())
            || self.log_len >= self.log.len()
        {
            self.stats.dropped += len as u64;
            return;
        }
        if !shuffled && keep < len {
            select_top(&mut self.slots[start..start + len], keep, &mut self.rng);
        }
        // The top `keep` parents are now a uniform sample.
        self.stats.dropped += (len - keep) as u64;
        let seg_start = start + len - keep;
        match below {
            Some(j) => {
                self.segments[j].start = seg_start;
                self.segments[j].len += keep;
            }
            None => {
                self.segments[self.nseg] = Segment {
                    taken: 0,
                    time,
                    start: seg_start,
                    len: keep,
                };
                self.nseg += 1;
            }
        }
        self.stash_start = seg_start;
    }

    /// Every active hypothesis contradicts `obs`: replay stashed boards, the
    /// earliest first, through the log and then `obs`.
    ///
    /// The contradicted active set is parked in the stash as a segment that
    /// is never replayed. A first pass only marks stashed boards as taken;
    /// if it finds nothing without dropping anything, the observation
    /// contradicts everything we hold, so everything is put back as it was
    /// and the observation is refused. The first pass stops as soon as it
    /// would drop a board (it proves nothing then); it is rolled back and a
    /// second pass frees what it takes as it goes (more room, so nothing is
    /// lost that need not be). If even that fails, the active set comes back
    /// and only the consumed stash is gone.
    fn recover(&mut self, obs: &Observation, own_now: &Own) -> Result<(), UpdateError> {
        if self.nseg == 0 && self.stats.dropped == 0 {
            // Exact so far: the observation itself is impossible.
            return Err(UpdateError::Contradiction);
        }
        if self.nseg == MAX_SEGMENTS {
            self.coalesce_stash();
        }
        if self.nseg == MAX_SEGMENTS {
            // No segment left to park the active set in: drop the oldest stash.
            self.stats.dropped += self.segments[0].len as u64;
            self.segments[0].taken = self.segments[0].len;
            self.compact_stash();
        }
        let (saved_nseg, saved_stash, saved_stats, saved_rng) =
            (self.nseg, self.stash_start, self.stats, self.rng.clone());
        let parked = self.len;
        let park_start = self.stash_start - parked;
        self.slots.copy_within(0..parked, park_start);
        self.segments[self.nseg] = Segment {
            time: PARKED,
            start: park_start,
            len: parked,
            taken: 0,
        };
        self.nseg += 1;
        self.stash_start = park_start;
        self.len = 0;

        let first = self.replay_stash(obs, own_now, false);
        if first.is_ok() {
            self.finish_recovery();
            return Ok(());
        }
        let exhaustive = self.stats.dropped == saved_stats.dropped;
        // Roll the first pass back. What it dropped were its own working
        // copies: the boards it took are all still in the stash.
        self.stats.dropped = saved_stats.dropped;
        self.nseg = saved_nseg + 1;
        self.stash_start = park_start;
        for s in &mut self.segments[..self.nseg] {
            s.taken = 0;
        }
        if exhaustive {
            self.nseg = saved_nseg;
            self.stash_start = saved_stash;
            self.slots.copy_within(park_start..park_start + parked, 0);
            self.len = parked;
            self.stats = saved_stats;
            self.rng = saved_rng;
            return Err(UpdateError::Contradiction);
        }
        match self.replay_stash(obs, own_now, true) {
            Ok(()) => {
                self.finish_recovery();
                Ok(())
            }
            Err(e) => {
                let i = (0..self.nseg)
                    .find(|&i| self.segments[i].time == PARKED)
                    .expect("parked segment");
                let seg = self.segments[i];
                self.slots.copy_within(seg.start..seg.start + seg.len, 0);
                self.len = seg.len;
                self.segments[i].taken = seg.len;
                self.compact_stash();
                Err(e)
            }
        }
    }

    /// A recovery succeeded: the parked set and the taken boards go.
    fn finish_recovery(&mut self) {
        for s in &mut self.segments[..self.nseg] {
            if s.time == PARKED {
                s.taken = s.len;
            }
        }
        self.compact_stash();
        self.shrink_to_capacity(self.log_len as u32 + 1);
    }

    /// The search behind [`Belief::recover`]. The active region is empty and
    /// all memory below the stash serves as one wide working pool (half of
    /// it; the other half takes what a replay must stash again). When the
    /// stash runs dry after drops, the initial position is replayed the same
    /// way, and a bounded depth-first search is the last resort.
    fn replay_stash(
        &mut self,
        obs: &Observation,
        own_now: &Own,
        free_as_taken: bool,
    ) -> Result<(), UpdateError> {
        let mut from_root = false;
        let dropped_before = self.stats.dropped;
        loop {
            let pending = (0..self.nseg)
                .filter(|&i| {
                    self.segments[i].taken < self.segments[i].len && self.segments[i].time != PARKED
                })
                .min_by_key(|&i| self.segments[i].time);
            let idx = match pending {
                Some(i) => i,
                None => {
                    let room = self.slots.len() - self.max_active;
                    if from_root
                        || !self.log_complete
                        || room == 0
                        || self.nseg == MAX_SEGMENTS
                        || self.stats.dropped == 0
                    {
                        break;
                    }
                    from_root = true;
                    self.stats.rebuilds += 1;
                    let at = self.stash_start - 1;
                    self.slots[at] = self.initial;
                    self.segments[self.nseg] = Segment {
                        time: 0,
                        start: at,
                        len: 1,
                        taken: 0,
                    };
                    self.nseg += 1;
                    self.stash_start = at;
                    self.nseg - 1
                }
            };
            self.stats.recoveries += 1;
            let seg = self.segments[idx];
            let left = seg.len - seg.taken;
            let work = self.stash_start / 2;
            let take = left.min(work.max(self.max_active)).min(self.stash_start);
            let from = seg.start + seg.taken;
            self.slots.copy_within(from..from + take, 0);
            self.segments[idx].taken += take;
            self.len = take;
            if free_as_taken {
                self.compact_stash();
            }
            let saved_max = self.max_active;
            self.max_active = (self.stash_start / 2).max(saved_max).max(take);
            self.wide = true;
            let mut alive = true;
            for t in seg.time as usize..self.log_len {
                let entry = self.log[t];
                if self.apply(&entry.obs, &entry.own, t as u32).is_err() {
                    alive = false;
                    break;
                }
            }
            if alive && (seg.time as usize) <= self.log_len {
                alive = self.apply(obs, own_now, self.log_len as u32).is_ok();
            }
            self.wide = false;
            self.max_active = saved_max;
            if !free_as_taken && self.stats.dropped != dropped_before {
                // The first pass keeps everything it took; once it has to
                // drop, the second pass (which frees as it goes) does better.
                return Err(UpdateError::Contradiction);
            }
            if alive {
                return Ok(());
            }
        }
        self.len = 0;
        if self.stats.dropped == 0 {
            // Nothing was ever lost, and nothing stashed explains it.
            return Err(UpdateError::Contradiction);
        }
        if !free_as_taken {
            // The search is the last resort, for the second pass.
            return Err(UpdateError::Contradiction);
        }
        self.search_rebuild(obs, own_now)
    }

    /// Removes what a successful recovery took out of the stash (and the
    /// parked active set, which is not a segment), packing what is left
    /// against the end of the slots.
    fn compact_stash(&mut self) {
        let segs = &mut self.segments[..self.nseg];
        segs.sort_unstable_by_key(|s| core::cmp::Reverse(s.start));
        let mut top = self.slots.len();
        let mut kept = 0;
        for i in 0..self.nseg {
            let s = self.segments[i];
            let live = s.len - s.taken;
            if live == 0 {
                continue;
            }
            let new_start = top - live;
            self.slots
                .copy_within(s.start + s.taken..s.start + s.len, new_start);
            self.segments[kept] = Segment {
                time: s.time,
                start: new_start,
                len: live,
                taken: 0,
            };
            kept += 1;
            top = new_start;
        }
        self.nseg = kept;
        self.stash_start = top;
    }

    /// Keeps a uniform sample of `max_active` hypotheses active and stashes
    /// the rest, tagged `time`.
    fn shrink_to_capacity(&mut self, time: u32) {
        let n = self.len;
        if n <= self.max_active {
            return;
        }
        for i in 0..self.max_active {
            let j = i + self.rng.below((n - i) as u64) as usize;
            self.slots.swap(i, j);
        }
        let rest = n - self.max_active;
        let start = self.stash_start - rest;
        self.slots.copy_within(self.max_active..n, start);
        self.len = self.max_active;
        // The rest is a uniform sample as a set, but not in random order.
        self.stash_parents(start, rest, time, false);
    }

    /// Depth-first search over the log in random child order, bounded by
    /// [`REBUILD_BUDGET`] expansions; works in the free slots.
    fn search_rebuild(&mut self, obs: &Observation, own_now: &Own) -> Result<(), UpdateError> {
        if !self.log_complete {
            return Err(UpdateError::Contradiction);
        }
        self.stats.rebuilds += 1;
        let depth = self.log_len + 1;
        // Frames (state, cursor) grow down from the end; results up from `lo`.
        let mut lo = self.len;
        let frames_needed = 2 * (depth + 1);
        if self.stash_start < lo + frames_needed + 1 {
            // No room beside the (contradicted) active set: give it up.
            lo = 0;
            if self.stash_start < frames_needed + 1 {
                return Err(UpdateError::Contradiction);
            }
        }
        let top = self.stash_start;
        let frame = |d: usize| top - 2 * (d + 1);
        let results_cap = (frame(depth) - lo).min(self.max_active);
        let entry = |b: &Self, d: usize| {
            if d < b.log_len {
                (b.log[d].obs, b.log[d].own)
            } else {
                (*obs, *own_now)
            }
        };

        self.table.clear();
        let mut found = 0usize;
        let mut budget = REBUILD_BUDGET;
        let mut buf = [Hypothesis::EMPTY; MAX_CHILDREN];
        let mut d = 0usize;
        self.slots[frame(0)] = self.initial;
        self.slots[frame(0) + 1] = Hypothesis {
            planes: [0, 0, u64::MAX],
        };
        'search: loop {
            if d == depth {
                let h = self.slots[frame(d)];
                let at = lo + found;
                if self.table.insert(&h, at, self.slots) {
                    self.slots[at] = h;
                    found += 1;
                    if found == results_cap {
                        break 'search;
                    }
                }
            } else {
                let state = self.slots[frame(d)];
                let (o, own) = entry(self, d);
                let next = match o {
                    Observation::OpponentMove { capture } => {
                        let cx = expand::Context::new(&own, capture);
                        let mut k = 0;
                        expand::children(&state, &cx, |c| {
                            buf[k] = c;
                            k += 1;
                        });
                        budget = budget.saturating_sub(1);
                        let cur = &mut self.slots[frame(d) + 1].planes;
                        if cur[2] == u64::MAX {
                            cur[1] = self.rng.below(k.max(1) as u64);
                            cur[2] = k as u64;
                        }
                        if (cur[0] as usize) < k {
                            let i = ((cur[0] + cur[1]) % k as u64) as usize;
                            cur[0] += 1;
                            Some(buf[i])
                        } else {
                            None
                        }
                    }
                    Observation::Sense(w) => {
                        let done = &mut self.slots[frame(d) + 1].planes;
                        if done[0] == 0 && w.matches(&state) {
                            done[0] = 1;
                            Some(state)
                        } else {
                            None
                        }
                    }
                    Observation::MoveResult {
                        requested,
                        taken,
                        capture,
                    } => {
                        let done = &mut self.slots[frame(d) + 1].planes;
                        if done[0] == 0 {
                            done[0] = 1;
                            our_move_filter(&own, requested, taken, capture)(&state)
                        } else {
                            None
                        }
                    }
                };
                if let Some(child) = next {
                    d += 1;
                    self.slots[frame(d)] = child;
                    self.slots[frame(d) + 1] = Hypothesis {
                        planes: [0, 0, u64::MAX],
                    };
                    continue;
                }
                if budget == 0 {
                    break 'search;
                }
            }
            // Backtrack.
            if d == 0 {
                break;
            }
            d -= 1;
        }
        if found == 0 {
            return Err(UpdateError::Contradiction);
        }
        self.slots.copy_within(lo..lo + found, 0);
        self.len = found;
        Ok(())
    }

    /// Checks internal invariants (for tests).
    ///
    /// # Panics
    /// If the active set has duplicates or overlaps the stash, or segments
    /// do not tile the stash.
    pub fn debug_check(&self) {
        assert!(self.len <= self.max_active);
        assert!(self.len <= self.stash_start);
        let mut total = 0;
        for s in &self.segments[..self.nseg] {
            assert_eq!(s.taken, 0, "no recovery in progress");
            assert!(s.start >= self.stash_start && s.start + s.len <= self.slots.len());
            total += s.len;
        }
        assert_eq!(
            total,
            self.slots.len() - self.stash_start,
            "segments must tile the stash"
        );
        assert!(self.slots.len() - self.stash_start <= self.slots.len() - self.max_active);
    }
}

/// Children an expansion collects before inserting them (see [`Pending`]).
const PENDING: usize = 1024;

/// How far ahead [`Belief::insert_hashed`] prefetches table entries, and
/// the slots their fingerprints match. On the reference machine 16-64 and
/// 8-32 all measured within noise of each other.
const INSERT_AHEAD: usize = 32;
const MATCH_AHEAD: usize = 16;

/// Children of several parents waiting to be inserted, with their hashes.
///
/// Making children is work for the processor and inserting them is work for
/// the memory system (nearly every insert misses the cache). Done child by
/// child, with each table entry prefetched as its child was made, the
/// prefetches filled the miss buffers and stalled the making; a thousand
/// children are now made first, then inserted in one loop that keeps a
/// steady number of misses in flight ([`Belief::insert_hashed`]).
struct Pending {
    hyps: [Hypothesis; PENDING + MAX_CHILDREN],
    hashes: [u64; PENDING + MAX_CHILDREN],
    len: usize,
}

impl Pending {
    fn new() -> Pending {
        Pending {
            hyps: [Hypothesis::EMPTY; PENDING + MAX_CHILDREN],
            hashes: [0; PENDING + MAX_CHILDREN],
            len: 0,
        }
    }

    /// Queues the children of `parent` with their hashes; returns how
    /// many. At most [`PENDING`] may be queued before.
    #[inline]
    fn generate(&mut self, parent: &Hypothesis, cx: &expand::Context) -> usize {
        let start = self.len;
        let mut len = start;
        let (hyps, hashes) = (&mut self.hyps, &mut self.hashes);
        expand::children(parent, cx, |c| {
            hyps[len] = c;
            hashes[len] = c.hash64();
            len += 1;
        });
        self.len = len;
        len - start
    }

    /// Queues `batch`, hashed in `hashes`.
    #[inline]
    fn push(&mut self, batch: &[Hypothesis], hashes: &[u64]) {
        let n = batch.len();
        self.hyps[self.len..self.len + n].copy_from_slice(batch);
        self.hashes[self.len..self.len + n].copy_from_slice(&hashes[..n]);
        self.len += n;
    }

    /// Inserts what is queued into `belief` from `slots[w]` on, in order;
    /// returns the new end.
    #[inline]
    fn flush(&mut self, belief: &mut Belief<'_>, w: usize) -> usize {
        let n = core::mem::take(&mut self.len);
        belief.insert_hashed(&self.hyps[..n], &self.hashes[..n], w)
    }
}

/// A Fisher-Yates shuffle of `hyps`, drawing exactly what a plain one
/// draws, in the same order (so results do not depend on this being fast).
/// Over a pool of tens of MB every swap is a cache miss; the partners of a
/// batch of swaps are drawn and loaded first, in a loop short enough for the
/// misses to overlap, and then swapped.
fn shuffle(hyps: &mut [Hypothesis], rng: &mut Rng) {
    const BATCH: usize = 32;
    let n = hyps.len();
    let mut js = [0usize; BATCH];
    let mut i = n;
    while i > 1 {
        // Swaps for positions i-1 down to `low`.
        let low = i.saturating_sub(BATCH).max(1);
        let m = i - low;
        for (k, j) in js[..m].iter_mut().enumerate() {
            *j = rng.below((i - k) as u64) as usize;
        }
        for &j in &js[..m] {
            prefetch(hyps, j);
        }
        for (k, &j) in js[..m].iter().enumerate() {
            hyps.swap(i - 1 - k, j);
        }
        i = low;
    }
}

/// Bits in the filter of [`Belief::retain_merging_marks`].
const FILTER_BITS: usize = 1 << 19;

/// Parents from which an expansion that may overflow shuffles them lazily
/// (see [`Belief::expand`]); below, they are shuffled whole, in cache.
const LAZY_SHUFFLE_MIN: usize = 1 << 15;

/// How many swaps ahead [`Partners`] draws and prefetches.
const PARTNERS_AHEAD: usize = 16;

/// The partners of a forward Fisher-Yates shuffle of `slots[base..base +
/// n]`, drawn a few swaps ahead so that their cache misses overlap. The
/// partner of swap `i` is drawn from `i..n` exactly as a plain shuffle
/// would; only the drawing happens earlier.
struct Partners {
    js: [usize; PARTNERS_AHEAD],
    drawn: usize,
    split: usize,
}

impl Partners {
    /// Partners for a shuffle whose first `split` places take partners from
    /// below `split` only, and the rest from what is left above them (see
    /// [`Belief::presample`]); `split` = n makes a plain shuffle.
    fn new(split: usize) -> Partners {
        Partners {
            js: [0; PARTNERS_AHEAD],
            drawn: 0,
            split,
        }
    }

    /// The slot to swap with `base + i`; called for `i` = 0, 1, 2, ...
    #[inline]
    fn next(
        &mut self,
        i: usize,
        base: usize,
        n: usize,
        slots: &[Hypothesis],
        rng: &mut Rng,
    ) -> usize {
        while self.drawn < n && self.drawn < i + PARTNERS_AHEAD {
            let t = self.drawn;
            let end = if t < self.split { self.split } else { n };
            let j = base + t + rng.below((end - t) as u64) as usize;
            prefetch(slots, j);
            self.js[t % PARTNERS_AHEAD] = j;
            self.drawn += 1;
        }
        self.js[i % PARTNERS_AHEAD]
    }
}

/// Moves a uniform random sample of `keep` of `hyps` into its top `keep`
/// places, in one pass from the top down: selection sampling, where each
/// element is taken with probability (still needed) / (still left). Reads
/// and writes run in sequence, where a shuffle would miss the cache on
/// every swap.
fn select_top(hyps: &mut [Hypothesis], keep: usize, rng: &mut Rng) {
    let mut need = keep;
    let mut w = hyps.len();
    for r in (0..hyps.len()).rev() {
        if need == 0 {
            break;
        }
        // Without a branch: a sample keeps a large share, so whether this
        // one is taken is as good as a coin toss to the branch predictor.
        // The copy is always made; at least as many have been read as
        // written (w > r), so `w - 1` is either `r` itself or a place
        // already read, and it is only kept when taken.
        let take = usize::from((rng.below(r as u64 + 1) as usize) < need);
        hyps[w - 1] = hyps[r];
        w -= take;
        need -= take;
    }
}

/// Sorts and removes repeats; returns the new length.
fn sort_dedup(hyps: &mut [Hypothesis]) -> usize {
    hyps.sort_unstable();
    let mut w = 0;
    for i in 0..hyps.len() {
        if w == 0 || hyps[i] != hyps[w - 1] {
            hyps[w] = hyps[i];
            w += 1;
        }
    }
    w
}

/// How many expansions a rebuild may spend before it gives up.
pub const REBUILD_BUDGET: usize = 2_000_000;

impl SenseWindow {
    /// Whether `h` shows exactly what was sensed.
    #[inline]
    pub fn matches(&self, h: &Hypothesis) -> bool {
        let v = h.visible_planes();
        let m = self.mask.0;
        // One test, not three: which plane differs first is unpredictable,
        // while a sense keeps few boards, so the one branch left is taken
        // rarely and predicted well.
        ((v[0] & m) ^ self.expect[0])
            | ((v[1] & m) ^ self.expect[1])
            | ((v[2] & m) ^ self.expect[2])
            == 0
    }
}

/// A [`SenseWindow`] compiled to test the raw planes, without first
/// turning special codes into what a sense shows.
///
/// A special code (7) shows as a pawn off the corners and as a rook on them,
/// and can only stand where an en-passant pawn or a castling rook stands.
/// Everywhere else the raw code must equal the code seen. Where a pawn is
/// seen on a square that may hold a marked pawn, plane 0 must be set and
/// planes 1 and 2 equal (codes 1 and 7); where a rook is seen on a corner,
/// plane 2 must be set and planes 0 and 1 equal (codes 4 and 7).
#[derive(Copy, Clone)]
struct RawWindow {
    mask: [u64; 3],
    expect: [u64; 3],
    /// Seen pawns that may be marked.
    pawns: u64,
    /// Seen rooks that may carry a castling right.
    rooks: u64,
}

/// The ranks a pawn that has just double-stepped stands on.
const EP_RANKS: u64 = 0x0000_00ff_ff00_0000;

impl RawWindow {
    fn new(w: &SenseWindow) -> RawWindow {
        let m = w.mask.0;
        let [e0, e1, e2] = w.expect;
        let pawns = e0 & !e1 & !e2 & EP_RANKS & !hyp::CORNERS;
        let rooks = !e0 & !e1 & e2 & m & hyp::CORNERS;
        let mask = [m & !rooks, m & !pawns & !rooks, m & !pawns];
        RawWindow {
            mask,
            expect: [e0 & mask[0], e1 & mask[1], e2 & mask[2]],
            pawns,
            rooks,
        }
    }

    #[inline(always)]
    fn matches<const PAWNS: bool, const ROOKS: bool>(&self, h: &Hypothesis) -> bool {
        let [p0, p1, p2] = h.planes;
        let mut d = ((p0 & self.mask[0]) ^ self.expect[0])
            | ((p1 & self.mask[1]) ^ self.expect[1])
            | ((p2 & self.mask[2]) ^ self.expect[2]);
        if PAWNS {
            d |= (p1 ^ p2) & self.pawns;
        }
        if ROOKS {
            d |= (p0 ^ p1) & self.rooks;
        }
        d == 0
    }
}

/// The filter for our move's result: keeps hypotheses under which the
/// request is revised into `taken` with `capture`, and applies the move.
///
/// The revision depends only on the opponent's occupancy of a few squares
/// (the path, the destination, the square of a pawn that could be taken en
/// passant) and on that pawn's en-passant mark, so every combination of
/// those (at most nine bits) is decided once, up front, with the rules
/// themselves; each hypothesis then costs a lookup.
fn our_move_filter(
    own: &Own,
    requested: Option<Move>,
    taken: Option<Move>,
    capture: Option<Square>,
) -> impl Fn(&Hypothesis) -> Option<Hypothesis> {
    let m = OurMove::new(own, requested, taken, capture);
    #[inline(always)]
    move |h: &Hypothesis| m.test(h).then(|| m.apply(h))
}

/// [`our_move_filter`] as its two parts, the revision test and the update,
/// for [`Belief::retain_merging_marks`], which tests marked boards in one
/// pass and applies the move to every survivor in another.
#[derive(Copy, Clone)]
struct OurMove {
    /// The squares whose occupancy decides the revision.
    squares: [Square; 9],
    nr: usize,
    /// The square of a pawn we may have taken en passant.
    ep_square: Option<Square>,
    /// Which combinations of those bits give the reported result.
    table: [u64; 8],
    /// When those combinations are all the ones with some bits fixed (as
    /// they usually are: "these squares empty, that one occupied"), the
    /// test is one masked comparison: `(occupied & occ.0) == occ.1` and
    /// `(specials & marks.0) == marks.1`.
    cube: bool,
    occ: (u64, u64),
    marks: (u64, u64),
    capture: Option<Square>,
}

impl OurMove {
    fn new(
        own: &Own,
        requested: Option<Move>,
        taken: Option<Move>,
        capture: Option<Square>,
    ) -> OurMove {
        let template = own.board_with(&Hypothesis::EMPTY, own.color);
        let us = own.color;
        let them = us.flip();
        let mut squares = [Square::A1; 9];
        let mut nr = 0;
        let mut ep_square = None;
        let mut table = [0u64; 8];
        let req = requested.map(|r| rules::add_queen_promotion(&template, r));
        if let Some(r) = req {
            let mut relevant = crate::attacks::between(r.from, r.to).with(r.to);
            if let Some(king_side) = rules::castle_side(&template, r) {
                // Castling needs every square up to the rook empty: on the
                // queen side that includes the b-file, beyond the king's
                // destination.
                let rook = crate::board::Castling::rook_square(us, king_side);
                relevant |= crate::attacks::between(r.from, rook);
            }
            let diagonal = template
                .pieces(us, crate::piece::PieceKind::Pawn)
                .contains(r.from)
                && r.from.file() != r.to.file();
            if diagonal && let Some(behind) = r.to.forward(them) {
                relevant.insert(behind);
                ep_square = Some(behind);
            }
            for sq in relevant {
                squares[nr] = sq;
                nr += 1;
            }
            let bits = nr + ep_square.is_some() as usize;
            for idx in 0..1usize << bits {
                let mut b = template;
                let mut occ = Bitboard::EMPTY;
                for (i, &sq) in squares[..nr].iter().enumerate() {
                    if idx >> i & 1 != 0 {
                        occ.insert(sq);
                    }
                }
                b.colors[them as usize] = occ;
                b.ep = if ep_square.is_some() && idx >> nr & 1 != 0 {
                    Some(r.to)
                } else {
                    None
                };
                let t = rules::revise(&b, r);
                if t == taken && rules::capture_square(&b, t) == capture {
                    table[idx / 64] |= 1 << (idx % 64);
                }
            }
        }
        let bits = nr + ep_square.is_some() as usize;
        let (mut all, mut any, mut count) = (!0usize, 0usize, 0u32);
        for idx in 0..1usize << bits {
            if table[idx / 64] >> (idx % 64) & 1 != 0 {
                all &= idx;
                any |= idx;
                count += 1;
            }
        }
        let fixed = !(all ^ any) & ((1 << bits) - 1);
        // Without a request every hypothesis passes: the empty cube.
        let cube =
            req.is_none() || (count > 0 && count == 1 << (bits - fixed.count_ones() as usize));
        let (mut occ, mut marks) = ((0, 0), (0, 0));
        if req.is_some() && cube {
            for (i, &sq) in squares[..nr].iter().enumerate() {
                if fixed >> i & 1 != 0 {
                    occ.0 |= 1 << sq as u32;
                    occ.1 |= ((all >> i & 1) as u64) << sq as u32;
                }
            }
            if let Some(sq) = ep_square
                && fixed >> nr & 1 != 0
            {
                marks = (1 << sq as u32, ((all >> nr & 1) as u64) << sq as u32);
            }
        }
        OurMove {
            squares,
            nr,
            ep_square,
            table,
            cube,
            occ,
            marks,
            capture,
        }
    }

    /// Whether our request is revised into what was reported under `h`.
    #[inline(always)]
    fn test(&self, h: &Hypothesis) -> bool {
        if self.cube {
            return ((h.occupied().0 & self.occ.0) ^ self.occ.1)
                | ((h.specials().0 & self.marks.0) ^ self.marks.1)
                == 0;
        }
        let occ = h.occupied().0;
        let mut idx = 0usize;
        for (i, &sq) in self.squares[..self.nr].iter().enumerate() {
            idx |= (((occ >> sq as u32) & 1) as usize) << i;
        }
        if let Some(sq) = self.ep_square {
            idx |= (((h.specials().0 >> sq as u32) & 1) as usize) << self.nr;
        }
        self.table[idx / 64] >> (idx % 64) & 1 != 0
    }

    /// `h` after our move: marks dropped, our capture removed.
    #[inline(always)]
    fn apply(&self, h: &Hypothesis) -> Hypothesis {
        let mut child = h.without_ep();
        if let Some(c) = self.capture {
            if h.kind_at(c) == Some(crate::piece::PieceKind::King) {
                // A captured king takes its side's castling rights with it:
                // castle rooks become plain rooks.
                for corner in h.specials() & Bitboard(hyp::CORNERS) {
                    child.set_code(corner, 4);
                }
            }
            child.set_code(c, 0);
        }
        child
    }
}

/// Our side after an observation.
fn next_own(own: &Own, obs: &Observation) -> Own {
    let mut next = *own;
    match *obs {
        Observation::OpponentMove { capture: Some(sq) } => next.lose(sq),
        Observation::OpponentMove { capture: None } => next.opponent_moved(),
        Observation::Sense(_) => {}
        Observation::MoveResult { taken, .. } => next.play(taken),
    }
    next
}

/// No hypothesis survived (internal).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Empty;

#[cfg(test)]
#[path = "../../unit/belief.rs"]
mod tests;
