//! The sense chooser against brute force: expected boards left and label
//! impurity by comparing windows directly, and the choices they lead to.

use rbc_core::belief::Hypothesis;
use rbc_core::board::Board;
use rbc_core::rng::Rng;
use rbc_core::rules;
use rbc_core::sense::{Chooser, expected_left_slow, scratch_len, single_tile_minmax, window_key};
use rbc_core::square::{Color, Rank, Square};

/// A spread of hypotheses: the black half of positions after random moves.
fn sample_hyps(n: usize, seed: u64) -> Vec<Hypothesis> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for _ in 0..n {
        let mut b = Board::start();
        for _ in 0..(2 + rng.below(10)) {
            let mut moves = Vec::new();
            rules::move_actions(&b, |m| {
                moves.push(m);
                false
            });
            let m = moves[rng.below(moves.len() as u64) as usize];
            let r = rules::arbitrate(&b, Some(m)).unwrap();
            b.play(r.taken);
        }
        out.push(Hypothesis::from_board(&b, Color::Black));
    }
    out
}

#[test]
fn scores_match_brute_force_partition() {
    for seed in 0..5 {
        let hyps = sample_hyps(150, seed);
        let mut table = vec![0u64; scratch_len(1000)];
        let mut chooser = Chooser::new(&mut table, 1000);
        let mut rng = Rng::new(1);
        let mut seen = 0;
        chooser.each_score(&hyps, &|_| 1.0, &mut rng, |s| {
            let slow = expected_left_slow(&hyps, s.center);
            assert!(
                (s.expected - slow).abs() < 1e-6,
                "{}: {} vs {}",
                s.center,
                s.expected,
                slow
            );
            seen += 1;
        });
        assert_eq!(seen, 36);
    }
}

#[test]
fn picks_the_window_that_separates() {
    // Two hypotheses that differ only on e7: a centre next to e7 wins.
    let a = Hypothesis::from_board(&Board::start(), Color::Black);
    let mut b = a;
    b.set_code(Square::E7, 0);
    let mut table = vec![0u64; scratch_len(16)];
    let mut chooser = Chooser::new(&mut table, 16);
    let c = chooser.choose(&[a, b], |_| 1.0, &mut Rng::new(3)).unwrap();
    assert_eq!(c.best.expected, 1.0);
    let (df, dr) = (
        c.best.center.file() as i8 - 4,
        c.best.center.rank() as i8 - 6,
    );
    assert!(df.abs() <= 1 && dr.abs() <= 1, "{}", c.best.center);
    assert_eq!(
        single_tile_minmax(&[a, b]).map(|s| s.rank()),
        Some(Rank::Seventh).map(|_| Rank::Seventh)
    );
}

/// Expected weight left and label impurity by comparing windows directly.
fn labeled_slow(hyps: &[Hypothesis], w: &[f32], l: &[u8], center: Square) -> (f64, f64) {
    let total: f64 = w.iter().map(|&x| x as f64).sum();
    let (mut sum_sq, mut impurity) = (0.0, 0.0);
    let mut done = vec![false; hyps.len()];
    for i in 0..hyps.len() {
        if done[i] {
            continue;
        }
        let mut by_label = [0.0f64; 32];
        for j in i..hyps.len() {
            if !done[j] && window_key(&hyps[j], center) == window_key(&hyps[i], center) {
                done[j] = true;
                by_label[l[j] as usize] += w[j] as f64;
            }
        }
        let part: f64 = by_label.iter().sum();
        sum_sq += part * part;
        impurity += part - by_label.iter().map(|x| x * x).sum::<f64>() / part;
    }
    (sum_sq / total, impurity / total)
}

#[test]
fn label_impurity_matches_brute_force() {
    for seed in 0..4 {
        let hyps = sample_hyps(150, 20 + seed);
        let mut rng = Rng::new(seed);
        let w: Vec<f32> = (0..hyps.len()).map(|_| 1.0 + rng.below(4) as f32).collect();
        // Labels from what the hypotheses hold (so windows can see them)
        // and some at random (so they cannot).
        let l: Vec<u8> = hyps
            .iter()
            .map(|h| match rng.below(3) {
                0 => rng.below(32) as u8,
                _ => h.kind_at(Square::D7).map_or(0, |k| 1 + k as u8),
            })
            .collect();
        let mut table = vec![0u64; scratch_len(1000)];
        let mut chooser = Chooser::new(&mut table, 1000);
        let mut seen = 0;
        chooser.each_score_labeled(&hyps, &|i| (w[i], l[i]), 3.0, &mut rng, |s| {
            let (expected, mixed) = labeled_slow(&hyps, &w, &l, s.center);
            assert!((s.expected - expected).abs() < 1e-6, "{}", s.center);
            assert!(
                (s.mixed - mixed).abs() < 1e-9,
                "{}: {} vs {mixed}",
                s.center,
                s.mixed
            );
            let total: f64 = w.iter().map(|&x| x as f64).sum();
            assert!((s.cost - (expected / total + 3.0 * mixed)).abs() < 1e-9);
            seen += 1;
        });
        assert_eq!(seen, 36);
    }
}

#[test]
fn labels_pull_the_sense_to_the_question() {
    let hyps = sample_hyps(300, 4);
    let mut table = vec![0u64; scratch_len(1000)];
    let mut chooser = Chooser::new(&mut table, 1000);
    let plain = chooser.choose(&hyps, |_| 1.0, &mut Rng::new(1)).unwrap();
    let near = |a: Square, b: Square| {
        (a.file() as i8 - b.file() as i8).abs() <= 1 && (a.rank() as i8 - b.rank() as i8).abs() <= 1
    };
    // The label is what stands on one square the best plain window does
    // not see, on which the sample disagrees.
    let target = (0..64)
        .map(Square::index_const)
        .filter(|&sq| !near(sq, plain.best.center))
        .find(|&sq| {
            let first = hyps[0].kind_at(sq);
            hyps.iter().filter(|h| h.kind_at(sq) != first).count() > 10
        })
        .expect("a square the sample disagrees on");
    let l: Vec<u8> = hyps
        .iter()
        .map(|h| h.kind_at(target).map_or(0, |k| 1 + k as u8))
        .collect();
    let unlabeled = chooser
        .choose_labeled(&hyps, |i| (1.0, l[i]), 0.0, &mut Rng::new(1))
        .unwrap();
    assert_eq!(plain.best.center, unlabeled.best.center);
    assert!(unlabeled.best.mixed > 0.0);
    let asked = chooser
        .choose_labeled(&hyps, |i| (1.0, l[i]), 100.0, &mut Rng::new(1))
        .unwrap();
    // A window next to the square settles it, so the choice must too (a
    // window elsewhere may settle it as well, through what it implies:
    // an a7 pawn still home cannot be on a5).
    assert_eq!(asked.best.mixed, 0.0, "{} for {target}", asked.best.center);
    assert_ne!(asked.best.center, plain.best.center);
}

#[test]
fn weights_shift_the_choice() {
    let hyps = sample_hyps(200, 9);
    let mut table = vec![0u64; scratch_len(1000)];
    let mut chooser = Chooser::new(&mut table, 1000);
    let plain = chooser.choose(&hyps, |_| 1.0, &mut Rng::new(1)).unwrap();
    // All weight on two hypotheses: the best centre must split those two.
    let (x, y) = (0, 1 + hyps[1..].iter().position(|h| *h != hyps[0]).unwrap());
    let w = |i: usize| if i == x || i == y { 1.0 } else { 0.0 };
    let weighted = chooser.choose(&hyps, w, &mut Rng::new(1)).unwrap();
    assert!((weighted.best.expected - 1.0).abs() < 1e-6, "{weighted:?}");
    assert!(
        window_key(&hyps[x], weighted.best.center) != window_key(&hyps[y], weighted.best.center)
    );
    assert_eq!(plain.scored, 200);
}
