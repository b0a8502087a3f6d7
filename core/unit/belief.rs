//! Unit tests of `belief`: the belief against a brute-force reference built
//! from the rules core, and the "true board is never lost" property under
//! small capacities. They need private items, so they are a module of the
//! crate, kept out of core/src, where everything is no_std and allocates
//! nothing; std is for the tests only.

extern crate std;

use super::*;
use crate::piece::PieceKind;
use crate::rules::{Move, arbitrate};
use std::collections::HashSet;
use std::vec::Vec;

/// The 3x3 window around `center`, clipped, as reconchess lists it.
pub(crate) fn window(center: Square) -> Vec<Square> {
    let mut v = Vec::new();
    for dr in [1i8, 0, -1] {
        for df in [-1i8, 0, 1] {
            if let Some(sq) = center.offset(df, dr) {
                v.push(sq);
            }
        }
    }
    v
}

fn sense_result(board: &Board, center: Square) -> Vec<(Square, Option<Piece>)> {
    window(center)
        .into_iter()
        .map(|sq| (sq, board.piece_at(sq)))
        .collect()
}

fn random_request(board: &Board, rng: &mut Rng) -> Option<Move> {
    let mut moves = Vec::new();
    rules::move_actions(board, |m| {
        moves.push(m);
        false
    });
    if moves.is_empty() || rng.below(12) == 0 {
        return None;
    }
    // Favour captures of the king when possible, so games also end that way.
    Some(moves[rng.below(moves.len() as u64) as usize])
}

/// The opponent half of `board` (with `turn` to move), in the belief's encoding.
fn key(board: &Board, us: Color) -> Hypothesis {
    Hypothesis::from_board(board, us.flip())
}

/// Brute force: the exact set of full boards consistent with the observations.
struct Reference {
    boards: Vec<Board>,
    us: Color,
}

impl Reference {
    fn keys(&self) -> HashSet<Hypothesis> {
        self.boards.iter().map(|b| key(b, self.us)).collect()
    }

    fn dedup(&mut self) {
        let mut seen = HashSet::new();
        let us = self.us;
        self.boards.retain(|b| seen.insert(key(b, us)));
    }

    fn opponent_move(&mut self, capture: Option<Square>) {
        let mut next = Vec::new();
        for b in &self.boards {
            let mut requests: Vec<Option<Move>> = std::vec![None];
            rules::move_actions(b, |m| {
                requests.push(Some(m));
                false
            });
            for r in requests {
                let res = arbitrate(b, r).unwrap();
                if res.capture == capture {
                    let mut c = *b;
                    c.play(res.taken);
                    c.set_counters(0, 1);
                    next.push(c);
                }
            }
        }
        self.boards = next;
        self.dedup();
    }

    fn sense(&mut self, result: &[(Square, Option<Piece>)]) {
        self.boards
            .retain(|b| result.iter().all(|&(sq, p)| b.piece_at(sq) == p));
    }

    fn move_result(
        &mut self,
        requested: Option<Move>,
        taken: Option<Move>,
        capture: Option<Square>,
    ) {
        let mut next = Vec::new();
        for b in &self.boards {
            let res = arbitrate(b, requested).unwrap();
            if res.taken == taken && res.capture == capture {
                let mut c = *b;
                c.play(taken);
                c.set_counters(0, 1);
                next.push(c);
            }
        }
        self.boards = next;
        self.dedup();
    }
}

struct Mem {
    slots: Vec<Hypothesis>,
    table: Vec<u32>,
    log: Vec<LogEntry>,
}

impl Mem {
    fn new(active: usize, stash: usize) -> Mem {
        Mem {
            slots: std::vec![Hypothesis::EMPTY; active + stash],
            table: std::vec![0; (2 * active).next_power_of_two()],
            log: std::vec![LogEntry::EMPTY; 2048],
        }
    }
    fn storage(&mut self) -> Storage<'_> {
        Storage {
            hypotheses: &mut self.slots,
            table: &mut self.table,
            log: &mut self.log,
        }
    }
    fn belief(&mut self, active: usize, color: Color, seed: u64) -> Belief<'_> {
        Belief::new(self.storage(), active, &Board::start(), color, seed).unwrap()
    }
}

/// What a test does after each observation.
trait Check {
    /// `history[t]` is the true position before log entry `t`.
    fn check(&mut self, belief: &Belief<'_>, truth: &Board, what: &str, history: &[Board]);
}

/// Plays one random game from `color`'s side, feeding the belief, calling
/// `check` after each observation. Returns the number of observations.
fn play_game(
    belief: &mut Belief<'_>,
    color: Color,
    rng: &mut Rng,
    max_plies: usize,
    check: &mut dyn Check,
) -> usize {
    let mut truth = Board::start();
    let mut observations = 0;
    let mut last_capture: Option<Square> = None;
    let mut turn_started = false;
    let mut history = Vec::new();
    let mut before_opponent = truth;
    for _ in 0..max_plies {
        if truth.king_captured().is_some() || truth.halfmove_clock() >= 100 {
            break;
        }
        if truth.turn() == color {
            // Our turn: opponent report, sense, move.
            if turn_started || color == Color::White {
                let logged = belief.log_len;
                // Every other report finds the belief expanded ahead.
                if history.len() % 2 == 0 {
                    belief.expand_ahead();
                }
                belief.opponent_move(last_capture).unwrap();
                if belief.log_len > logged {
                    history.push(before_opponent);
                }
                observations += 1;
                check.check(belief, &truth, "opponent_move", &history);
            }
            turn_started = true;
            // Sense as the bot would (a random centre now and then).
            let center = if rng.below(4) == 0 {
                Square::index_const(rng.below(64) as usize)
            } else {
                let mut scratch = std::vec![0u64; crate::sense::scratch_len(4096)];
                let mut chooser = crate::sense::Chooser::new(&mut scratch, 4096);
                chooser
                    .choose(belief.hypotheses(), |_| 1.0, rng)
                    .map_or(Square::E4, |c| c.best.center)
            };
            history.push(truth);
            if let Err(e) = belief.sense(&sense_result(&truth, center)) {
                std::eprintln!(
                    "sense failed: {e}; stats {:?}; truth {truth}",
                    belief.stats()
                );
                return usize::MAX;
            }
            observations += 1;
            check.check(belief, &truth, "sense", &history);
            let req = random_request(&truth, rng);
            let res = arbitrate(&truth, req).unwrap();
            history.push(truth);
            truth.play(res.taken);
            belief.move_result(req, res.taken, res.capture).unwrap();
            observations += 1;
            check.check(belief, &truth, "move_result", &history);
        } else {
            let req = random_request(&truth, rng);
            let res = arbitrate(&truth, req).unwrap();
            before_opponent = truth;
            truth.play(res.taken);
            last_capture = res.capture;
            turn_started = true;
            if truth.king_captured().is_some() {
                break;
            }
        }
    }
    observations
}

struct Exact {
    reference: Reference,
}

impl Check for Exact {
    fn check(&mut self, belief: &Belief<'_>, truth: &Board, what: &str, _history: &[Board]) {
        belief.debug_check();
        let got: HashSet<Hypothesis> = belief.hypotheses().iter().copied().collect();
        assert_eq!(got.len(), belief.len(), "duplicates after {what}");
        assert!(
            got.contains(&key(truth, belief.color())),
            "true board lost after {what}: {truth}"
        );
        assert!(belief.contains(truth));
        let want = self.reference.keys();
        if got != want {
            let turn = belief.side_to_move();
            let extra: Vec<_> = got
                .difference(&want)
                .take(3)
                .map(|h| std::format!("{}", belief.board(h, turn)))
                .collect();
            let missing: Vec<_> = want
                .difference(&got)
                .take(3)
                .map(|h| std::format!("{}", belief.board(h, turn)))
                .collect();
            panic!(
                "belief ({}) differs from brute force ({}) after {what} on {truth}\nextra: {extra:#?}\nmissing: {missing:#?}",
                got.len(),
                want.len()
            );
        }
    }
}

/// Our move's test (a masked comparison where the passing combinations
/// allow it, a table otherwise) passes exactly the hypotheses under which
/// the arbiter reports the result: every request we may make, every result
/// it has over opponent placements taken from other random games.
#[test]
fn our_move_test_agrees_with_the_arbiter_on_every_request() {
    let mut rng = Rng::new(11);
    let games: Vec<Vec<Board>> = (0..40)
        .map(|_| {
            let mut board = Board::start();
            let mut plies = std::vec![board];
            while plies.len() < 70 && board.king_captured().is_none() {
                let res = arbitrate(&board, random_request(&board, &mut rng)).unwrap();
                board.play(res.taken);
                plies.push(board);
            }
            plies
        })
        .collect();
    let (mut checked, mut cubes, mut tables) = (0u64, 0u64, 0u64);
    for game in &games {
        for (ply, truth) in game.iter().enumerate().step_by(3) {
            let us = truth.turn();
            let own = Own::from_board(truth, us);
            // Placements from every game at this ply and the next of the same
            // side to move, where they fit beside our pieces.
            let hyps: Vec<Hypothesis> = games
                .iter()
                .flat_map(|g| g.get(ply).into_iter().chain(g.get(ply + 2)))
                .filter(|b| b.king_captured().is_none())
                .map(|b| Hypothesis::from_board(b, us.flip()))
                .filter(|h| (h.occupied() & own.occupied()).is_empty())
                .collect::<HashSet<_>>()
                .into_iter()
                .collect();
            let template = own.board_with(&Hypothesis::EMPTY, us);
            let mut requests = std::vec![None];
            rules::move_actions(&template, |m| {
                requests.push(Some(m));
                false
            });
            for &req in &requests {
                let results: Vec<rules::MoveResult> = hyps
                    .iter()
                    .map(|h| arbitrate(&own.board_with(h, us), req).unwrap())
                    .collect();
                let distinct: HashSet<(Option<Move>, Option<Square>)> =
                    results.iter().map(|r| (r.taken, r.capture)).collect();
                for &(taken, capture) in &distinct {
                    let our = OurMove::new(&own, req, taken, capture);
                    if our.cube {
                        cubes += 1;
                    } else {
                        tables += 1;
                    }
                    for (h, r) in hyps.iter().zip(&results) {
                        let want = r.taken == taken && r.capture == capture;
                        assert_eq!(
                            our.test(h),
                            want,
                            "{req:?} reported as {taken:?} capturing {capture:?} on {}",
                            own.board_with(h, us)
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(
        checked > 100_000 && cubes > 1000 && tables > 10,
        "{checked} checks, {cubes} cubes, {tables} tables"
    );
}

/// Every position of random games, with the opponent to move: the children
/// the expansion generates for each capture report it could get are exactly
/// the distinct results of every request the arbiter could be given, each
/// once.
#[test]
fn children_are_the_arbiter_results() {
    let mut rng = Rng::new(11);
    let (mut positions, mut captures, mut promotions, mut castles, mut marks) = (0, 0, 0, 0, 0);
    for _ in 0..300 {
        let mut board = Board::start();
        for _ in 0..rng.below(120) {
            if board.king_captured().is_some() {
                break;
            }
            let them = board.turn();
            let us = them.flip();
            let own = Own::from_board(&board, us);
            let parent = key(&board, us);
            // Every result, by capture report.
            let mut by_capture: std::collections::HashMap<Option<Square>, HashSet<Hypothesis>> =
                std::collections::HashMap::new();
            let mut requests: Vec<Option<Move>> = std::vec![None];
            rules::move_actions(&board, |m| {
                requests.push(Some(m));
                false
            });
            for &r in &requests {
                let res = arbitrate(&board, r).unwrap();
                let mut c = board;
                c.play(res.taken);
                let child = key(&c, us);
                if res.taken.is_some_and(|m| m.promotion.is_some()) {
                    promotions += 1;
                }
                if child.has_ep() {
                    marks += 1;
                }
                by_capture.entry(res.capture).or_default().insert(child);
            }
            let mut reports: Vec<Option<Square>> = std::vec![None];
            reports.extend(own.occupied().iter().map(Some));
            reports.extend(own.ep.and_then(|ep| ep.forward(us)).map(Some));
            for report in reports {
                let cx = expand::Context::new(&own, report);
                let mut got = Vec::new();
                expand::children(&parent, &cx, |c| got.push(c));
                let set: HashSet<Hypothesis> = got.iter().copied().collect();
                assert_eq!(
                    set.len(),
                    got.len(),
                    "repeated child of {board} ({report:?})"
                );
                let want = by_capture.get(&report).cloned().unwrap_or_default();
                assert_eq!(set, want, "children of {board} with capture {report:?}");
                if report.is_some() && !want.is_empty() {
                    captures += 1;
                }
            }
            if requests.iter().flatten().any(|m| {
                board
                    .piece_at(m.from)
                    .is_some_and(|p| p.kind == PieceKind::King)
                    && (m.from.file() as i8 - m.to.file() as i8).abs() == 2
            }) {
                castles += 1;
            }
            positions += 1;
            let r = random_request(&board, &mut rng);
            let res = arbitrate(&board, r).unwrap();
            board.play(res.taken);
        }
    }
    // The games reach the cases that need care.
    assert!(
        positions > 10_000 && captures > 1000 && promotions > 10 && castles > 100 && marks > 100,
        "{positions} positions, {captures} capture reports, {promotions} promotions, \
         {castles} castling positions, {marks} en-passant marks"
    );
}

#[test]
fn belief_equals_brute_force_in_random_games() {
    let mut rng = Rng::new(42);
    let mut total = 0;
    for game in 0..60 {
        let color = if game % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let mut mem = Mem::new(1 << 20, 0);
        let mut belief = mem.belief(1 << 20, color, game);
        // The reference follows the same observations through its own updates.
        let reference = Reference {
            boards: std::vec![Board::start()],
            us: color,
        };
        let mut exact = ExactDriver {
            inner: Exact { reference },
            last: None,
        };
        total += play_game(&mut belief, color, &mut rng, 24, &mut exact);
    }
    assert!(total > 500, "{total} observations");
}

/// Drives the reference from the belief's own log so both see the same
/// observations, then compares.
struct ExactDriver {
    inner: Exact,
    last: Option<usize>,
}

impl Check for ExactDriver {
    fn check(&mut self, belief: &Belief<'_>, truth: &Board, what: &str, history: &[Board]) {
        let n = belief.log_len;
        if self.inner.reference.boards.len() > 20_000 {
            // Too large to follow by brute force; the true-board check still runs.
            assert!(
                belief.contains(truth) || belief.stats().dropped > 0,
                "true board lost after {what}"
            );
            return;
        }
        if n > 0 && self.last != Some(n) {
            let entry = belief.log[n - 1];
            let r = &mut self.inner.reference;
            match entry.obs {
                Observation::OpponentMove { capture } => r.opponent_move(capture),
                Observation::Sense(w) => {
                    let result: Vec<(Square, Option<Piece>)> =
                        w.mask.iter().map(|sq| (sq, truth.piece_at(sq))).collect();
                    r.sense(&result);
                }
                Observation::MoveResult {
                    requested,
                    taken,
                    capture,
                } => r.move_result(requested, taken, capture),
            }
            self.last = Some(n);
        }
        self.inner.check(belief, truth, what, history);
    }
}

struct TruthKept {
    worst: usize,
    lost: usize,
}

impl Check for TruthKept {
    fn check(&mut self, belief: &Belief<'_>, truth: &Board, what: &str, history: &[Board]) {
        belief.debug_check();
        assert!(belief.len() <= belief.capacity());
        assert_eq!(history.len(), belief.log_len);
        let us = belief.color();
        let active = belief.hypotheses().contains(&key(truth, us));
        // Otherwise an ancestor of the truth must wait in a stash segment,
        // as it was at the segment's time.
        let mut then = history.to_vec();
        then.push(*truth);
        let stashed = belief.stash_holds(&then);
        assert!(
            active || stashed || belief.stats().dropped > 0,
            "true board lost after {what} without any drop: {truth}"
        );
        if !active && !stashed {
            self.lost += 1;
        }
        if !active {
            self.worst += 1;
        }
    }
}

fn small_capacity_games(capacity: usize, games: u64) {
    small_capacity_games_with(capacity, games, false);
}

/// With `lazy`, every expansion that may overflow shuffles its parents
/// lazily, as only large ones do in play.
fn small_capacity_games_with(capacity: usize, games: u64, lazy: bool) {
    let mut rng = Rng::new(capacity as u64);
    // The stash is sized generously: it is what keeps the truth recoverable.
    let mut mem = Mem::new(capacity, 200_000);
    let (mut recoveries, mut rebuilds, mut lost, mut dropped_games, mut fails) = (0, 0, 0, 0, 0);
    let mut observations = 0usize;
    for game in 0..games {
        let color = if game % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let mut belief = mem.belief(capacity, color, game);
        if lazy {
            belief.lazy_min = 0;
        }
        let mut check = TruthKept { worst: 0, lost: 0 };
        let n = play_game(&mut belief, color, &mut rng, 60, &mut check);
        fails += (n == usize::MAX) as u64;
        observations += if n == usize::MAX { 0 } else { n };
        let st = belief.stats();
        recoveries += st.recoveries;
        rebuilds += st.rebuilds;
        lost += check.lost;
        dropped_games += (st.dropped > 0) as u64;
    }
    std::eprintln!(
        "capacity {capacity}{}: {games} games, {observations} observations, {recoveries} recoveries, {rebuilds} rebuilds, {dropped_games} games with drops, truth lost {lost} times, {fails} failed updates",
        if lazy { " (lazy shuffle)" } else { "" }
    );
    assert!(recoveries > 0, "the test never exercised recovery");
    assert_eq!(fails, 0, "an update found no consistent board");
    // Every check already asserts that the truth is never lost unless the
    // stash itself overflowed (a drop). After drops, the truth may be
    // missing for a while until recovery brings it back. The drops come
    // from the second pass of a recovery, whose replays of old stash can
    // outgrow even a 200k stash. How often depends on the random stream
    // (the games themselves follow the senses chosen from the belief): at
    // capacity 64 over 500 games (about 43,400 observations) the truth was
    // missing after 28, 5, 33, 49 and 37 observations as the code changed;
    // at capacity 1000 after none, except with one stream (while every set
    // that might overflow was shuffled) after 2. The bounds keep it rare;
    // see issue 3.
    assert!(
        lost * 200 <= observations,
        "the true board was neither active nor waiting in the stash after {lost} of {observations} observations"
    );
    if capacity >= 1000 {
        assert!(
            lost * 10_000 <= observations,
            "the true board was neither active nor waiting in the stash after {lost} of {observations} observations"
        );
    }
}

/// Games per capacity: 500 by default, `RBC_BELIEF_GAMES` to change it.
fn games() -> u64 {
    std::env::var("RBC_BELIEF_GAMES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(500)
}

#[test]
fn true_board_survives_capacity_64() {
    small_capacity_games(64, games());
}

#[test]
fn true_board_survives_capacity_1000() {
    small_capacity_games(1000, games());
}

/// The lazy shuffle and the selection-sampled stash, which only beliefs of
/// 32k boards or more use in play, forced on at capacity 1000.
#[test]
fn true_board_survives_capacity_1000_shuffled_lazily() {
    small_capacity_games_with(1000, games() * 2 / 5, true);
}

#[test]
fn impossible_observation_changes_nothing() {
    let mut mem = Mem::new(1024, 0);
    let mut b = mem.belief(1024, Color::White, 1);
    b.opponent_move(None).unwrap();
    let before: Vec<Hypothesis> = b.hypotheses().to_vec();
    // The opponent cannot have a queen on e4 at the start.
    let err = b.sense(&[(Square::E4, Some(Piece::new(PieceKind::Queen, Color::Black)))]);
    assert_eq!(err, Err(UpdateError::Contradiction));
    assert_eq!(b.hypotheses(), &before[..]);
    b.move_result(
        Some("e2e4".parse().unwrap()),
        Some("e2e4".parse().unwrap()),
        None,
    )
    .unwrap();
    assert_eq!(
        b.opponent_move(Some(Square::A1)),
        Err(UpdateError::Contradiction)
    );
    assert_eq!(b.len(), 1);
    b.opponent_move(None).unwrap();
    assert_eq!(b.len(), 1 + 20, "pass plus twenty opening moves");
}

/// Expanding ahead and then filtering by the report gives the same set as
/// expanding on the report, for every report that is possible (en passant
/// included), and an impossible one changes nothing.
#[test]
fn expanding_ahead_equals_expanding_on_the_report() {
    fn sorted(b: &Belief<'_>) -> Vec<Hypothesis> {
        let mut v = b.hypotheses().to_vec();
        v.sort_unstable();
        v
    }
    let mut rng = Rng::new(7);
    let (mut compared, mut captures, mut ep) = (0, 0, 0);
    for game in 0..100u64 {
        let color = if game % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        // Replay one random game into two beliefs, one of them ahead.
        let mut a_mem = Mem::new(1 << 16, 0);
        let mut b_mem = Mem::new(1 << 16, 0);
        let mut a = a_mem.belief(1 << 16, color, game);
        let mut b = b_mem.belief(1 << 16, color, game);
        let mut truth = Board::start();
        if color == Color::White {
            a.opponent_move(None).unwrap();
            b.opponent_move(None).unwrap();
        }
        for _ in 0..12 {
            if truth.king_captured().is_some() {
                break;
            }
            if truth.turn() == color {
                let result = sense_result(&truth, Square::index_const(rng.below(64) as usize));
                a.sense(&result).unwrap();
                b.sense(&result).unwrap();
                // Our pawns double-step often, to meet en passant.
                let req = random_request(&truth, &mut rng);
                let res = arbitrate(&truth, req).unwrap();
                truth.play(res.taken);
                a.move_result(req, res.taken, res.capture).unwrap();
                b.move_result(req, res.taken, res.capture).unwrap();
                if a.len() > 2000 {
                    break;
                }
            } else {
                // The opponent captures when one of a few tries can.
                let mut req = random_request(&truth, &mut rng);
                for _ in 0..8 {
                    if arbitrate(&truth, req).unwrap().capture.is_some() {
                        break;
                    }
                    req = random_request(&truth, &mut rng);
                }
                let res = arbitrate(&truth, req).unwrap();
                truth.play(res.taken);
                let before = sorted(&b);
                assert!(b.expand_ahead());
                assert!(b.is_ahead());
                // Queries see the belief as it was.
                assert_eq!(sorted(&b), before);
                a.opponent_move(res.capture).unwrap();
                b.opponent_move(res.capture).unwrap();
                assert!(!b.is_ahead());
                assert_eq!(sorted(&a), sorted(&b), "game {game}");
                assert!(b.contains(&truth));
                compared += 1;
                captures += res.capture.is_some() as u32;
                ep += (res.capture.is_some()
                    && res.taken.is_some_and(|m| Some(m.to) != res.capture))
                    as u32;
            }
        }
    }
    assert!(
        compared > 400 && captures > 15,
        "{compared} {captures} {ep}"
    );

    // An en-passant capture of our pawn, and reports that cannot be.
    let board: Board = "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1".parse().unwrap();
    for ahead in [false, true] {
        let mut mem = Mem::new(1024, 0);
        let storage = mem.storage();
        let mut b = Belief::new(storage, 1024, &board, Color::White, 1).unwrap();
        b.opponent_move(None).unwrap();
        b.sense(&[(Square::D4, Some(Piece::new(PieceKind::Pawn, Color::Black)))])
            .unwrap();
        let e2e4 = Some("e2e4".parse().unwrap());
        b.move_result(e2e4, e2e4, None).unwrap();
        if ahead {
            assert!(b.expand_ahead());
        }
        assert_eq!(
            b.opponent_move(Some(Square::E1)),
            Err(UpdateError::Contradiction)
        );
        b.opponent_move(Some(Square::E4)).unwrap();
        assert_eq!(b.len(), 1, "only d4xe3 en passant");
        assert_eq!(
            b.hypotheses()[0].kind_at(Square::E3),
            Some(PieceKind::Pawn),
            "ahead: {ahead}"
        );
    }
}

mod props {
    //! The pool against a plain `Vec` model, and the truth under arbitrary
    //! capacities.
    use super::*;
    use crate::rng::Rng;
    use proptest::prelude::{
        ProptestConfig, any, prop_assert, prop_assert_eq, prop_assume, proptest,
    };
    use proptest::test_runner::FileFailurePersistence;

    /// `cases` cases, with failing seeds kept beside this file
    /// (belief.proptest-regressions) and replayed first.
    fn config(cases: u32) -> ProptestConfig {
        ProptestConfig {
            cases,
            failure_persistence: Some(std::boxed::Box::new(FileFailurePersistence::WithSource(
                "proptest-regressions",
            ))),
            ..ProptestConfig::default()
        }
    }

    /// A belief after a few random plies, plus the true board.
    fn grown(mem: &mut Mem, cap: usize, seed: u64, plies: usize) -> (Belief<'_>, Board) {
        let mut rng = Rng::new(seed);
        let color = if seed.is_multiple_of(2) {
            Color::White
        } else {
            Color::Black
        };
        let mut belief = mem.belief(cap, color, seed);
        let mut truth = Board::start();
        let mut last_capture = None;
        for ply in 0..plies {
            if truth.king_captured().is_some() {
                break;
            }
            let req = random_request(&truth, &mut rng);
            let res = arbitrate(&truth, req).unwrap();
            if truth.turn() == color {
                if ply > 0 || color == Color::White {
                    belief.opponent_move(last_capture.take()).unwrap();
                }
                truth.play(res.taken);
                belief.move_result(req, res.taken, res.capture).unwrap();
            } else {
                truth.play(res.taken);
                last_capture = res.capture;
            }
        }
        if truth.turn() == color && truth.king_captured().is_none() {
            belief.opponent_move(last_capture).unwrap();
        }
        (belief, truth)
    }

    proptest! {
        #![proptest_config(config(4096))]

        /// The compiled sense test agrees with the one on visible codes, on
        /// arbitrary placements with special codes wherever they may stand
        /// and windows that show the same board with a few squares changed.
        #[test]
        fn raw_window_agrees_with_visible_codes(
            codes in proptest::collection::vec(0u8..16, 64),
            center in 0usize..64,
            changes in proptest::collection::vec((0usize..9, 0u8..8), 0..3),
        ) {
            let code_at = |sq: usize, c: u8| -> u8 {
                // Castling rooks on the corners; pawns that have just
                // double-stepped on the fourth and fifth ranks.
                let special_here = matches!(sq, 0 | 7 | 56 | 63) || (24..40).contains(&sq);
                match c {
                    0..=6 => c,
                    7 if special_here => 7,
                    _ => 0,
                }
            };
            let planes_of = |codes: &dyn Fn(usize) -> u8| {
                let mut planes = [0u64; 3];
                for sq in 0..64 {
                    for (k, plane) in planes.iter_mut().enumerate() {
                        *plane |= u64::from(codes(sq) >> k & 1) << sq;
                    }
                }
                Hypothesis { planes }
            };
            let h = planes_of(&|sq| code_at(sq, codes[sq]));
            let squares = window(Square::index_const(center));
            let mut seen = codes.clone();
            for &(i, c) in &changes {
                if let Some(&sq) = squares.get(i) {
                    seen[sq as usize] = c;
                }
            }
            let shown = planes_of(&|sq| code_at(sq, seen[sq])).visible_planes();
            let mask = squares.iter().fold(Bitboard::EMPTY, |m, &sq| m.with(sq));
            let w = SenseWindow {
                mask,
                expect: shown.map(|p| p & mask.0),
            };
            let raw = RawWindow::new(&w);
            let want = w.matches(&h);
            prop_assert_eq!(raw.matches::<true, true>(&h), want);
            if raw.rooks == 0 {
                prop_assert_eq!(raw.matches::<true, false>(&h), want);
            }
            if raw.pawns == 0 && raw.rooks == 0 {
                prop_assert_eq!(raw.matches::<false, false>(&h), want);
            }
        }
    }

    proptest! {
        #![proptest_config(config(48))]

        /// Both sense loops, with every set of special terms the window
        /// allows, keep exactly what `Vec::retain` keeps, in order.
        #[test]
        fn sense_loops_are_vec_retain(seed in any::<u64>(), plies in 1usize..9, center in 0usize..64, dense in any::<bool>()) {
            let mut mem = Mem::new(1 << 16, 0);
            let (belief, truth) = grown(&mut mem, 1 << 16, seed, plies);
            prop_assume!(belief.our_turn());
            let start: Vec<Hypothesis> = belief.hypotheses().to_vec();
            let result = sense_result(&truth, Square::index_const(center));
            let window = belief.sense_window(&result).unwrap();
            let mut model = start.clone();
            model.retain(|h| window.matches(h));
            let raw = RawWindow::new(&window);
            let (own, color) = (*belief.own(), belief.color());
            for (pawns, rooks) in [(false, false), (true, false), (true, true)] {
                if (raw.pawns != 0 && !pawns) || (raw.rooks != 0 && !rooks) {
                    continue;
                }
                let mut b = Belief::with_hypotheses(mem.storage(), 1 << 16, own, true, &start, seed).unwrap();
                prop_assert_eq!(b.color(), color);
                let _ = match (pawns, rooks) {
                    (false, false) => b.retain_raw::<false, false>(&raw, dense),
                    (true, false) => b.retain_raw::<true, false>(&raw, dense),
                    _ => b.retain_raw::<true, true>(&raw, dense),
                };
                prop_assert_eq!(b.hypotheses(), &model[..]);
            }
        }

        /// A sense filter keeps exactly what `Vec::retain` keeps, in order.
        #[test]
        fn sense_is_vec_retain(seed in any::<u64>(), plies in 1usize..7, center in 0usize..64) {
            let mut mem = Mem::new(1 << 16, 0);
            let (mut belief, truth) = grown(&mut mem, 1 << 16, seed, plies);
            prop_assume!(belief.our_turn());
            let mut model: Vec<Hypothesis> = belief.hypotheses().to_vec();
            let result = sense_result(&truth, Square::index_const(center));
            let window = belief.sense_window(&result).unwrap();
            model.retain(|h| window.matches(h));
            belief.sense(&result).unwrap();
            prop_assert_eq!(belief.hypotheses(), &model[..]);
        }

        /// A move result maps and filters like `filter_map` followed by
        /// keeping the first of each repeat.
        #[test]
        fn move_result_is_vec_filter_map_dedup(seed in any::<u64>(), plies in 1usize..7, pick in any::<u64>()) {
            let mut mem = Mem::new(1 << 16, 0);
            let (mut belief, mut truth) = grown(&mut mem, 1 << 16, seed, plies);
            prop_assume!(belief.our_turn());
            let mut rng = Rng::new(pick);
            let req = random_request(&truth, &mut rng);
            let res = arbitrate(&truth, req).unwrap();
            let own = *belief.own();
            let f = our_move_filter(&own, req, res.taken, res.capture);
            let mut seen = HashSet::new();
            let model: Vec<Hypothesis> =
                belief.hypotheses().iter().filter_map(f).filter(|h| seen.insert(*h)).collect();
            truth.play(res.taken);
            belief.move_result(req, res.taken, res.capture).unwrap();
            prop_assert_eq!(belief.hypotheses(), &model[..]);
            prop_assert!(belief.contains(&truth));
        }

        /// The same with a capture: outputs that differ only in what we
        /// captured (or in an en-passant mark) merge into the first of them.
        #[test]
        fn capture_result_is_vec_filter_map_dedup(seed in any::<u64>(), plies in 4usize..10, pick in any::<u64>()) {
            let mut mem = Mem::new(1 << 18, 0);
            let (mut belief, mut truth) = grown(&mut mem, 1 << 18, seed, plies);
            // (Without a stash, an overflow drops boards, the truth perhaps.)
            prop_assume!(belief.our_turn() && truth.king_captured().is_none() && belief.stats().dropped == 0);
            let mut rng = Rng::new(pick);
            let res = (0..64).find_map(|_| {
                let req = random_request(&truth, &mut rng);
                let res = arbitrate(&truth, req).unwrap();
                res.capture.map(|_| (req, res))
            });
            prop_assume!(res.is_some());
            let (req, res) = res.unwrap();
            let own = *belief.own();
            let f = our_move_filter(&own, req, res.taken, res.capture);
            let mut seen = HashSet::new();
            let model: Vec<Hypothesis> =
                belief.hypotheses().iter().filter_map(&f).filter(|h| seen.insert(*h)).collect();
            truth.play(res.taken);
            belief.move_result(req, res.taken, res.capture).unwrap();
            prop_assert_eq!(belief.hypotheses(), &model[..]);
            // (A taken king leaves castling rights on the board that the
            // belief has dropped: the game is over then.)
            prop_assert!(truth.king_captured().is_some() || belief.contains(&truth));
        }

        /// Any capacity: never over capacity, and the truth is active or
        /// recoverable (every update succeeds).
        #[test]
        fn any_capacity_keeps_the_truth(seed in any::<u64>(), cap in 1usize..200, plies in 1usize..24) {
            let mut mem = Mem::new(cap, 50_000);
            let (belief, truth) = grown(&mut mem, cap, seed, plies);
            belief.debug_check();
            prop_assert!(belief.len() <= cap);
            let _ = truth;
        }
    }
}

#[test]
fn impossible_observation_after_overflow_changes_nothing() {
    // Black with 30 active slots: the second expansion overflows and stashes.
    let mut mem = Mem::new(30, 1000);
    let mut b = mem.belief(30, Color::Black, 5);
    b.opponent_move(None).unwrap();
    let e5: Move = "e7e5".parse().unwrap();
    b.move_result(Some(e5), Some(e5), None).unwrap();
    b.opponent_move(None).unwrap();
    assert!(!b.stashed().is_empty(), "the test needs a stash");
    let (active, stashed, stats) = (b.hypotheses().to_vec(), b.stashed().to_vec(), b.stats());
    // Nothing white has reaches h6 in two moves.
    let queen = Some(Piece::new(PieceKind::Queen, Color::White));
    assert_eq!(
        b.sense(&[(Square::H6, queen)]),
        Err(UpdateError::Contradiction)
    );
    assert_eq!(b.hypotheses(), &active[..]);
    assert_eq!(b.stashed(), &stashed[..]);
    assert_eq!(b.stats(), stats);
    b.debug_check();
    // And a possible observation still works, recovering if it must.
    let result: Vec<(Square, Option<Piece>)> = window(Square::E2)
        .into_iter()
        .map(|sq| (sq, Board::start().piece_at(sq)))
        .collect();
    b.sense(&result).unwrap();
    b.debug_check();
    assert!(!b.is_empty());
}

/// Captures merge boards that differed only in what we took, or in an
/// en-passant mark: beliefs padded with such variants (other kinds on the
/// capture square, marked and unmarked twins) merge exactly like `filter_map` followed
/// by keeping the first of each repeat, whichever group is the largest.
#[test]
fn capture_merges_keep_the_first_of_each_repeat() {
    let mut rng = Rng::new(11);
    let (mut merged, mut marked, mut trials) = (0, 0, 0);
    for seed in 0..400u64 {
        let mut mem = Mem::new(1 << 16, 0);
        let color = if seed % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let mut belief = mem.belief(1 << 16, color, seed);
        let mut truth = Board::start();
        if color == Color::White {
            belief.opponent_move(None).unwrap();
        }
        // A few plies with senses (to keep the belief small).
        let mut alive = true;
        for _ in 0..8 {
            let req = random_request(&truth, &mut rng);
            let res = arbitrate(&truth, req).unwrap();
            truth.play(res.taken);
            if truth.king_captured().is_some() {
                alive = false;
                break;
            }
            if truth.turn() == color {
                belief.opponent_move(res.capture).unwrap();
                let c = Square::index_const(rng.below(64) as usize);
                belief.sense(&sense_result(&truth, c)).unwrap();
            } else {
                belief.move_result(req, res.taken, res.capture).unwrap();
            }
        }
        if !alive || truth.turn() != color || belief.len() > 4000 {
            continue;
        }
        let Some((req, res)) = (0..64).find_map(|_| {
            let req = random_request(&truth, &mut rng);
            let res = arbitrate(&truth, req).unwrap();
            res.capture.map(|_| (req, res))
        }) else {
            continue;
        };
        let c = res.capture.unwrap();
        // Pad: every other piece kind on the capture square, for some boards,
        // and the unmarked twin of every marked board.
        let mut hyps: Vec<Hypothesis> = belief.hypotheses().to_vec();
        let mut seen: HashSet<Hypothesis> = hyps.iter().copied().collect();
        for h in belief.hypotheses() {
            if h.has_ep() {
                let twin = h.without_ep();
                if seen.insert(twin) {
                    hyps.insert(rng.below(hyps.len() as u64 + 1) as usize, twin);
                }
            }
            // A marked twin: a pawn on its double-step rank that has just
            // arrived (the filter does not ask whether a capture could follow).
            let rank = if color == Color::White { 4 } else { 3 };
            for f in 0..8 {
                let sq = Square::index_const(rank * 8 + f);
                if h.code(sq) == 1 && rng.below(4) == 0 {
                    let mut v = *h;
                    v.set_code(sq, 7);
                    if seen.insert(v) {
                        hyps.insert(rng.below(hyps.len() as u64 + 1) as usize, v);
                    }
                    break;
                }
            }
            if h.code(c) != 0 && rng.below(2) == 0 {
                for code in 1..=5 {
                    let mut v = *h;
                    v.set_code(c, code);
                    if rng.below(3) == 0 && seen.insert(v) {
                        hyps.insert(rng.below(hyps.len() as u64 + 1) as usize, v);
                    }
                }
            }
        }
        marked += hyps.iter().any(Hypothesis::has_ep) as usize;
        let own = *belief.own();
        // The capture, and a move without one (only marks merge then).
        let quiet = (0..64)
            .map(|_| random_request(&truth, &mut rng))
            .map(|req| (req, arbitrate(&truth, req).unwrap()))
            .find(|(_, res)| res.capture.is_none());
        for (req, res) in core::iter::once((req, res)).chain(quiet) {
            let f = our_move_filter(&own, req, res.taken, res.capture);
            let mut first = HashSet::new();
            let model: Vec<Hypothesis> = hyps
                .iter()
                .filter_map(&f)
                .filter(|h| first.insert(*h))
                .collect();
            let survivors = hyps.iter().filter_map(&f).count();
            let mut mem2 = Mem::new(1 << 16, 0);
            let storage = mem2.storage();
            let mut padded =
                Belief::with_hypotheses(storage, 1 << 16, own, true, &hyps, seed).unwrap();
            padded.move_result(req, res.taken, res.capture).unwrap();
            assert_eq!(padded.hypotheses(), &model[..], "seed {seed} {req:?}");
            merged += (model.len() < survivors) as usize;
            trials += 1;
        }
    }
    std::eprintln!("{trials} move results, {merged} with merges, {marked} beliefs with marks");
    assert!(
        merged >= 20 && marked >= 3,
        "{trials} move results, {merged} merged, {marked} marked"
    );
}

/// An overflowing expansion stashes a uniform sample of the parents it did
/// not expand: 32 parents (black's queen on each square of ranks 3 to 6), room
/// for one parent's children, and a stash of 16. Over 1,000 seeds each parent
/// is stashed with probability 31/32 x 16/31 = 1/2, 500 times on average
/// (sd 16); a sample biased by the order of the parents in memory lands far
/// outside 500 +- 80 for some of them.
#[test]
fn an_overflow_stashes_a_uniform_sample_of_parents() {
    overflow_stashes_a_uniform_sample(false);
}

/// Large beliefs are shuffled lazily, and the parents left over are
/// sampled by selection: the stash must be just as uniform.
#[test]
fn a_lazily_shuffled_overflow_stashes_a_uniform_sample_of_parents() {
    overflow_stashes_a_uniform_sample(true);
}

/// Large enough for the stash's sample to be drawn as the parents move
/// (`Belief::presample`): the parents expanded come from the other half,
/// and the rest of it is dropped.
#[test]
fn a_presampled_overflow_stashes_a_uniform_sample_of_parents() {
    overflow_stashes_a_uniform_sample_with(300, true);
}

fn overflow_stashes_a_uniform_sample(lazy: bool) {
    overflow_stashes_a_uniform_sample_with(64, lazy);
}

/// 32 parents, an active capacity of `active` and a stash of 16: each
/// parent must be stashed about half the time.
fn overflow_stashes_a_uniform_sample_with(active: usize, lazy: bool) {
    let parents: Vec<Hypothesis> = (16..48u8)
        .map(|i| {
            let mut board = Board::start();
            let queen = board.remove_piece(Square::D8);
            board.set_piece(Square::index_const(i as usize), queen);
            Hypothesis::from_board(&board, Color::Black)
        })
        .collect();
    for (i, &n) in stash_counts(&parents, active, 16, lazy).iter().enumerate() {
        assert!(
            (420..=580).contains(&n),
            "parent {i} stashed {n} times of 1000"
        );
    }
}

/// How often each of `parents` is stashed by one quiet expansion (from the
/// start position's white pieces) over 1,000 seeds, with room for `active`
/// children and a stash of `stash`, which every seed must fill.
fn stash_counts(parents: &[Hypothesis], active: usize, stash: usize, lazy: bool) -> Vec<u32> {
    let own = Own::from_board(&Board::start(), Color::White);
    let mut stashed = std::vec![0u32; parents.len()];
    for seed in 0..1000 {
        let mut mem = Mem::new(active, stash);
        let mut b =
            Belief::with_hypotheses(mem.storage(), active, own, false, parents, seed).unwrap();
        if lazy {
            b.lazy_min = 0;
        }
        b.opponent_move(None).unwrap();
        assert_eq!(b.stashed().len(), stash, "seed {seed}: {:?}", b.stats());
        for h in b.stashed() {
            stashed[parents.iter().position(|p| p == h).expect("a parent")] += 1;
        }
    }
    stashed
}

/// Parents with many children each can overflow even when there are few of
/// them (fewer than one per 64 slots): the parents expanded must still be
/// a uniform sample, and so must the stash. Sixteen parents of about 100
/// children (four queens, a rook, a king and a knight that differs from one
/// parent to the next, on an open board), room for 1,024 children and a
/// stash of 2: each parent is stashed with
/// probability 2/16 when the sample is uniform, 125 times in 1,000 seeds
/// (sd 10); parents taken in memory order would never be stashed.
#[test]
fn few_wide_parents_overflow_into_a_uniform_sample() {
    let mut base = Board::start();
    for sq in Square::ALL {
        if sq as usize >= 48 {
            base.remove_piece(sq);
        }
    }
    let queen = Some(Piece::new(PieceKind::Queen, Color::Black));
    base.set_piece(Square::H8, Some(Piece::new(PieceKind::King, Color::Black)));
    base.set_piece(Square::A8, Some(Piece::new(PieceKind::Rook, Color::Black)));
    base.set_piece(Square::C6, queen);
    base.set_piece(Square::F6, queen);
    base.set_piece(Square::B3, queen);
    base.set_piece(Square::G3, queen);
    let knight = Some(Piece::new(PieceKind::Knight, Color::Black));
    let parents: Vec<Hypothesis> = (24..40u8)
        .map(|i| {
            let mut board = base;
            board.set_piece(Square::index_const(i as usize), knight);
            Hypothesis::from_board(&board, Color::Black)
        })
        .collect();
    // A full stash of 2 in every seed shows that each expansion overflowed.
    let stashed = stash_counts(&parents, 1024, 2, false);
    for (i, &n) in stashed.iter().enumerate() {
        assert!(
            (85..=165).contains(&n),
            "parent {i} stashed {n} times of 1000"
        );
    }
}

/// The batched shuffle draws and swaps exactly as a plain Fisher-Yates
/// shuffle does, so results stay those of the plain one.
#[test]
fn the_batched_shuffle_is_the_plain_one() {
    for n in [0usize, 1, 2, 3, 31, 32, 33, 64, 65, 1000] {
        for seed in 0..4 {
            let mut a: Vec<Hypothesis> = (0..n as u64)
                .map(|i| Hypothesis { planes: [i, 0, 0] })
                .collect();
            let mut b = a.clone();
            let mut ra = crate::rng::Rng::new(seed);
            let mut rb = crate::rng::Rng::new(seed);
            super::shuffle(&mut a, &mut ra);
            for i in (1..n).rev() {
                let j = rb.below(i as u64 + 1) as usize;
                b.swap(i, j);
            }
            assert_eq!(a, b, "n {n} seed {seed}");
            assert_eq!(ra.next_u64(), rb.next_u64(), "n {n} seed {seed}");
        }
    }
}

/// The lazy shuffle's partners, drawn ahead, are those of a plain forward
/// Fisher-Yates shuffle, in the same order.
#[test]
fn lazy_partners_are_a_plain_forward_shuffle() {
    for n in [1usize, 2, 15, 16, 17, 100] {
        for seed in 0..4 {
            let slots = std::vec![Hypothesis::EMPTY; n + 5];
            let mut ra = crate::rng::Rng::new(seed);
            let mut rb = crate::rng::Rng::new(seed);
            let mut p = super::Partners::new(n);
            for i in 0..n {
                let j = p.next(i, 5, n, &slots, &mut ra);
                assert_eq!(j, 5 + i + rb.below((n - i) as u64) as usize, "n {n} i {i}");
            }
            // Split: the first places draw from below the split only.
            let split = n / 3;
            let mut p = super::Partners::new(split);
            for i in 0..n {
                let j = p.next(i, 5, n, &slots, &mut ra);
                let end = if i < split { split } else { n };
                assert_eq!(
                    j,
                    5 + i + rb.below((end - i) as u64) as usize,
                    "n {n} split {split} i {i}"
                );
            }
        }
    }
}

/// Selection sampling keeps a uniform sample: every subset as likely, every
/// element once.
#[test]
fn select_top_keeps_a_uniform_sample() {
    let mut rng = crate::rng::Rng::new(3);
    let mut counts = std::collections::HashMap::new();
    let trials = 60_000;
    for _ in 0..trials {
        let mut h: Vec<Hypothesis> = (0..6u64)
            .map(|i| Hypothesis { planes: [i, 0, 0] })
            .collect();
        super::select_top(&mut h, 3, &mut rng);
        let mut top: Vec<u64> = h[3..].iter().map(|x| x.planes[0]).collect();
        top.sort_unstable();
        top.dedup();
        assert_eq!(top.len(), 3, "an element kept twice");
        *counts.entry(top).or_insert(0u32) += 1;
    }
    // 20 subsets, 3000 each expected; the bounds are over 5 standard deviations.
    assert_eq!(counts.len(), 20);
    for (subset, &n) in &counts {
        assert!(
            (2700..=3300).contains(&n),
            "{subset:?} kept {n} times of {trials}"
        );
    }
}

/// A quiet move of ours drops every en-passant mark, so a marked board can
/// become equal to its unmarked twin. With room for its filter (a large
/// capacity) the move-result update sends only possible repeats through the
/// table; without (a small one) it deduplicates everything. Both must keep
/// the first of each repeat, in order, like a plain filter-map-dedup.
#[test]
fn dropped_marks_merge_like_a_full_deduplication() {
    let marked: Board = "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2"
        .parse()
        .unwrap();
    let own = Own::from_board(&marked, Color::White);
    let mut rng = Rng::new(5);
    for trial in 0..50 {
        // Twins and loners: the g8 knight on different empty squares, each
        // with the d5 pawn marked, unmarked or both, in random order.
        let mut hyps = Vec::new();
        for sq in Bitboard(0x0000_ffff_ffff_0000 & !marked.occupied().0) {
            let mut b = marked;
            let knight = b.remove_piece(Square::G8);
            b.set_piece(sq, knight);
            let with = Hypothesis::from_board(&b, Color::Black);
            let without = with.without_ep();
            if with == without {
                // A knight on d6 blocks the en-passant capture: no mark.
                continue;
            }
            match rng.below(3) {
                0 => hyps.push(with),
                1 => hyps.push(without),
                _ if rng.below(2) == 0 => hyps.extend([with, without]),
                _ => hyps.extend([without, with]),
            }
        }
        assert!(hyps.iter().any(Hypothesis::has_ep), "trial {trial}");
        quiet_move_merges_like_a_full_deduplication(&own, &mut hyps, &mut rng, trial);
    }
}

/// Shuffles `hyps`, plays a quiet move of ours (a2-a3) on them, and checks
/// that something merged and that the belief keeps exactly the first of each
/// result, in order: with room for the merge filter and without.
fn quiet_move_merges_like_a_full_deduplication(
    own: &Own,
    hyps: &mut [Hypothesis],
    rng: &mut Rng,
    trial: u64,
) {
    for i in (1..hyps.len()).rev() {
        hyps.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let req = Some(Move::new(Square::A2, Square::A3));
    let f = our_move_filter(own, req, req, None);
    let mut seen = HashSet::new();
    let model: Vec<Hypothesis> = hyps
        .iter()
        .filter_map(&f)
        .filter(|h| seen.insert(*h))
        .collect();
    assert!(model.len() < hyps.len(), "trial {trial}: nothing merged");
    for cap in [64, 1 << 14] {
        let mut mem = Mem::new(cap, 0);
        let storage = mem.storage();
        let mut b = Belief::with_hypotheses(storage, cap, *own, true, hyps, trial).unwrap();
        b.move_result(req, req, None).unwrap();
        assert_eq!(b.hypotheses(), &model[..], "trial {trial}, capacity {cap}");
    }
}

#[test]
fn marks_on_two_pawns_merge_like_a_full_deduplication() {
    // Black's last move was d7-d5 or e7-e5; both pawns stand beside one of
    // ours, so either may carry the mark. With a knight moved about, each
    // position comes marked on d5, on e5, or not at all: up to three
    // hypotheses with one result after our quiet move.
    let fens = [
        "rnbqkbnr/ppp2ppp/8/2PppP2/8/8/PP1PP1PP/RNBQKBNR w KQkq d6 0 3",
        "rnbqkbnr/ppp2ppp/8/2PppP2/8/8/PP1PP1PP/RNBQKBNR w KQkq e6 0 3",
        "rnbqkbnr/ppp2ppp/8/2PppP2/8/8/PP1PP1PP/RNBQKBNR w KQkq - 0 3",
    ];
    let boards: Vec<Board> = fens.iter().map(|f| f.parse().unwrap()).collect();
    let own = Own::from_board(&boards[0], Color::White);
    let mut rng = Rng::new(11);
    for trial in 0..50 {
        let mut hyps = Vec::new();
        for sq in Bitboard(0x0000_ffff_ffff_0000 & !boards[0].occupied().0) {
            let variants: Vec<Hypothesis> = boards
                .iter()
                .map(|b| {
                    let mut b = *b;
                    let knight = b.remove_piece(Square::G8);
                    b.set_piece(sq, knight);
                    Hypothesis::from_board(&b, Color::Black)
                })
                .collect();
            let mut picked: Vec<Hypothesis> = Vec::new();
            for v in variants {
                if rng.below(2) == 0 && !picked.contains(&v) {
                    picked.push(v);
                }
            }
            hyps.extend(picked);
        }
        quiet_move_merges_like_a_full_deduplication(&own, &mut hyps, &mut rng, trial);
    }
}
