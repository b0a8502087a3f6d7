//! Belief updates on the self-play fixtures (fixtures/data): expansion with
//! deduplication, the sense filter, the move-result filter, and choosing a
//! sense. Each iteration starts from the same belief, restored outside the
//! timed region; each asserts its result so a fast wrong answer fails.

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};
use rbc_core::belief::{Belief, Hypothesis, Own};
use rbc_core::rng::Rng;
use rbc_core::sense::{self, Chooser};
use rbc_fixtures::{BELIEFS, Fixture, Memory, apply};
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
    let fixture = Fixture::parse(text).expect("fixture parses");
    let mut mem = Memory::new(48 << 20);
    let mut b = fixture.replay(mem.storage(), 48 << 20).expect("replays");
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

criterion_group!(benches, belief);
criterion_main!(benches);
