//! Belief updates on the self-play fixtures (fixtures/data): expansion with
//! deduplication, the sense filter, the move-result filter, and choosing a
//! sense. Each iteration starts from the same belief, restored outside the
//! timed region; each asserts its result so a fast wrong answer fails.
//!
//! Beside rbc's expansion, two trackers built on cozy-chess expand the same
//! parents in the same run, as the baseline issue 3 names: a plain one
//! (boards cloned into a `HashSet<Board>`) and a tuned one (the set sized up
//! front, keyed by cozy-chess's own Zobrist hash, compared by position).
//! They play legal chess moves, not RBC's, and skip parents that legal chess
//! cannot hold (the side not to move in check); they are there for scale.

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};
use rbc_core::belief::{Belief, Hypothesis, LogEntry, Own, Storage};
use rbc_core::rng::Rng;
use rbc_core::sense::{self, Chooser};
use rbc_fixtures::{BELIEFS, Fixture, Memory, apply};
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::time::{Duration, Instant};

/// A fixture's belief at our turn, and the counts each workload yields.
struct Loaded {
    name: &'static str,
    fixture: Fixture,
    own: Own,
    hyps: Vec<Hypothesis>,
    /// Own and hypotheses after our move (the expansion's parents).
    own_after: Own,
    parents: Vec<Hypothesis>,
    sensed: usize,
    moved: usize,
    expanded: usize,
    children: u64,
}

fn load(name: &'static str, text: &str) -> Loaded {
    let mut mem = Memory::new(48 << 20);
    load_in(name, text, mem.storage(), 48 << 20)
}

/// A fixture replayed in `storage` with `capacity` active slots.
fn load_in(name: &'static str, text: &str, storage: Storage<'_>, capacity: usize) -> Loaded {
    let fixture = Fixture::parse(text).expect("fixture parses");
    let mut b = fixture.replay(storage, capacity).expect("replays");
    let (own, hyps) = (*b.own(), b.hypotheses().to_vec());
    let sensed = {
        let mut m = Memory::new(hyps.len());
        let mut s = Belief::with_hypotheses(m.storage(), hyps.len(), own, true, &hyps, 1).unwrap();
        apply(&mut s, &fixture.sense).unwrap();
        s.len()
    };
    apply(&mut b, &fixture.move_result).expect("move result");
    let (own_after, parents) = (*b.own(), b.hypotheses().to_vec());
    let moved = parents.len();
    let before = b.stats().children;
    apply(&mut b, &fixture.opponent_move).expect("expansion");
    let (expanded, children) = (b.len(), b.stats().children - before);
    eprintln!(
        "fixture {name}: {} boards; sense leaves {sensed}; move result leaves {moved}; expansion makes {children} children, {expanded} unique",
        hyps.len()
    );
    Loaded {
        name,
        fixture,
        own,
        hyps,
        own_after,
        parents,
        sensed,
        moved,
        expanded,
        children,
    }
}

/// Times `op` on a fresh belief over `hyps` for each iteration.
fn timed(
    iters: u64,
    mem: &mut Memory,
    cap: usize,
    own: Own,
    our_turn: bool,
    hyps: &[Hypothesis],
    mut op: impl FnMut(&mut Belief<'_>),
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let mut b = Belief::with_hypotheses(mem.storage(), cap, own, our_turn, hyps, 1).unwrap();
        let t = Instant::now();
        op(&mut b);
        total += t.elapsed();
    }
    total
}

fn belief(c: &mut Criterion) {
    let loaded: Vec<Loaded> = BELIEFS
        .iter()
        .filter(|(name, _)| *name == "10k" || *name == "1m")
        .map(|(name, text)| load(name, text))
        .collect();
    let mut group = c.benchmark_group("belief");
    group.sample_size(10);
    for l in &loaded {
        let cap = l.expanded.max(l.hyps.len()).max(l.parents.len()) + 1024;
        let mut mem = Memory::new(cap);
        eprintln!("elems belief/expand/{} {}", l.name, l.expanded);
        group.throughput(Throughput::Elements(l.expanded as u64));
        group.bench_function(BenchmarkId::new("expand", l.name), |b| {
            b.iter_custom(|iters| {
                timed(
                    iters,
                    &mut mem,
                    cap,
                    l.own_after,
                    false,
                    &l.parents,
                    |bel| {
                        apply(bel, black_box(&l.fixture.opponent_move)).unwrap();
                        assert_eq!(bel.len(), l.expanded);
                        assert_eq!(bel.stats().children, l.children);
                    },
                )
            })
        });
        eprintln!("elems belief/sense_filter/{} {}", l.name, l.hyps.len());
        group.throughput(Throughput::Elements(l.hyps.len() as u64));
        group.bench_function(BenchmarkId::new("sense_filter", l.name), |b| {
            b.iter_custom(|iters| {
                timed(iters, &mut mem, cap, l.own, true, &l.hyps, |bel| {
                    apply(bel, black_box(&l.fixture.sense)).unwrap();
                    assert_eq!(bel.len(), l.sensed);
                })
            })
        });
        eprintln!("elems belief/move_filter/{} {}", l.name, l.hyps.len());
        group.bench_function(BenchmarkId::new("move_filter", l.name), |b| {
            b.iter_custom(|iters| {
                timed(iters, &mut mem, cap, l.own, true, &l.hyps, |bel| {
                    apply(bel, black_box(&l.fixture.move_result)).unwrap();
                    assert_eq!(bel.len(), l.moved);
                })
            })
        });
        let sample = sense::DEFAULT_SAMPLE;
        let mut scratch = vec![0u64; sense::scratch_len(sample)];
        eprintln!("elems belief/choose_sense/{} {}", l.name, l.hyps.len());
        group.bench_function(BenchmarkId::new("choose_sense", l.name), |b| {
            let mut chooser = Chooser::new(&mut scratch, sample);
            let mut rng = Rng::new(3);
            b.iter(|| {
                let choice = chooser
                    .choose(black_box(&l.hyps), |_| 1.0, &mut rng)
                    .unwrap();
                assert_eq!(choice.total, l.hyps.len());
                assert!(choice.best.expected >= 1.0);
                choice
            })
        });
    }
    group.finish();
}

/// A cozy-chess position keyed by its Zobrist hash and compared by
/// position alone (not the move clocks).
#[derive(Clone)]
struct Pos(cozy_chess::Board);

impl PartialEq for Pos {
    fn eq(&self, other: &Pos) -> bool {
        // The hash too, so that equal positions always hash alike.
        self.0.hash() == other.0.hash() && self.0.same_position(&other.0)
    }
}

impl Eq for Pos {}

impl Hash for Pos {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0.hash());
    }
}

/// Passes a Zobrist hash through unchanged.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

/// Every child of `board` (a pass, if legal, and every legal move), given
/// to `out`.
fn cozy_children(board: &cozy_chess::Board, mut out: impl FnMut(cozy_chess::Board)) {
    if let Some(pass) = board.null_move() {
        out(pass);
    }
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            out(child);
        }
        false
    });
}

/// The parents of a fixture's expansion as cozy-chess boards (those legal
/// chess can hold), as many as it takes, in order, to make `want` distinct
/// children; and how many distinct children they make.
fn cozy_parents(l: &Loaded, want: usize) -> (Vec<cozy_chess::Board>, usize, usize) {
    let them = l.own_after.color.flip();
    let mut boards = Vec::new();
    let mut skipped = 0;
    let mut seen: HashSet<Pos> = HashSet::new();
    for h in &l.parents {
        if seen.len() >= want {
            break;
        }
        let fen = l.own_after.board_with(h, them).to_string();
        match cozy_chess::Board::from_fen(&fen, false) {
            Ok(b) => {
                cozy_children(&b, |c| {
                    seen.insert(Pos(c));
                });
                boards.push(b);
            }
            Err(_) => skipped += 1,
        }
    }
    (boards, seen.len(), skipped)
}

/// Storage sized as `rbc` sizes it by default: a million active slots, a
/// stash of half as many, four table entries per active slot.
struct Sized {
    slots: Vec<Hypothesis>,
    table: Vec<u32>,
    log: Vec<LogEntry>,
}

const CAPACITY: usize = 1_000_000;

impl Sized {
    fn new() -> Sized {
        Sized {
            slots: vec![Hypothesis::EMPTY; CAPACITY + CAPACITY / 2],
            table: vec![0; (4 * CAPACITY).next_power_of_two()],
            log: vec![LogEntry::EMPTY; 4096],
        }
    }

    fn storage(&mut self) -> Storage<'_> {
        Storage {
            hypotheses: &mut self.slots,
            table: &mut self.table,
            log: &mut self.log,
        }
    }

    /// A fixture replayed at this capacity, as `rbc bench` replays it.
    fn load(&mut self, name: &'static str, text: &str) -> Loaded {
        load_in(name, text, self.storage(), CAPACITY)
    }

    /// Expands `l`'s parents in a fresh belief over this storage; returns
    /// the time and how many distinct children were kept.
    fn expand(&mut self, l: &Loaded) -> (Duration, usize) {
        let mut b =
            Belief::with_hypotheses(self.storage(), CAPACITY, l.own_after, false, &l.parents, 7)
                .unwrap();
        let t = Instant::now();
        apply(&mut b, black_box(&l.fixture.opponent_move)).unwrap();
        (t.elapsed(), b.len())
    }
}

/// rbc's expansion at the default capacity (on the 1M fixture it overflows
/// and keeps 785k distinct children, as in `rbc bench`) and the two
/// cozy-chess trackers expanding parents in order until they have as many
/// distinct children, in one run.
fn baselines(c: &mut Criterion) {
    let mut group = c.benchmark_group("baseline");
    group.sample_size(10);
    let mut mem = Sized::new();
    for (name, text) in BELIEFS.iter().filter(|(n, _)| *n == "10k" || *n == "1m") {
        let l = mem.load(name, text);
        let (_, kept) = mem.expand(&l);
        let (parents, distinct, skipped) = cozy_parents(&l, kept);
        eprintln!(
            "baseline {name}: rbc keeps {kept} distinct children at capacity {CAPACITY}; cozy-chess: {} parents make {distinct} ({skipped} skipped: illegal in chess)",
            parents.len()
        );
        eprintln!("elems baseline/expand_rbc/{name} {kept}");
        eprintln!("elems baseline/expand_cozy_plain/{name} {distinct}");
        eprintln!("elems baseline/expand_cozy_tuned/{name} {distinct}");
        group.throughput(Throughput::Elements(kept as u64));
        group.bench_function(BenchmarkId::new("expand_rbc", name), |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| {
                        let (t, n) = mem.expand(&l);
                        assert_eq!(n, kept);
                        t
                    })
                    .sum()
            })
        });
        group.throughput(Throughput::Elements(distinct as u64));
        group.bench_function(BenchmarkId::new("expand_cozy_plain", name), |b| {
            b.iter(|| {
                let mut set: HashSet<cozy_chess::Board> = HashSet::new();
                for p in black_box(&parents) {
                    cozy_children(p, |c| {
                        set.insert(c);
                    });
                }
                // Clocks are part of a plain board: a few more "distinct".
                assert!(set.len() >= distinct);
                set.len()
            })
        });
        group.bench_function(BenchmarkId::new("expand_cozy_tuned", name), |b| {
            b.iter(|| {
                let mut set: HashSet<Pos, BuildHasherDefault<PassThrough>> =
                    HashSet::with_capacity_and_hasher(distinct, BuildHasherDefault::default());
                for p in black_box(&parents) {
                    cozy_children(p, |c| {
                        set.insert(Pos(c));
                    });
                }
                assert_eq!(set.len(), distinct);
                set.len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, belief, baselines);
criterion_main!(benches);
