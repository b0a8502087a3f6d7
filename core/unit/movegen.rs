//! Unit tests of `movegen` (std is for the tests only: see core/src/lib.rs).

extern crate std;

use super::*;
use crate::rules;
use std::collections::BTreeSet;

/// Every taken move the arbiter can produce is pseudo-legal and vice versa.
#[test]
fn pseudo_legal_equals_revised_requests() {
    let mut rng = crate::rng::Rng::new(11);
    for _ in 0..60 {
        let mut b = Board::start();
        for _ in 0..120 {
            let mut revised = BTreeSet::new();
            let mut requests = std::vec::Vec::new();
            rules::move_actions(&b, |m| {
                requests.push(m);
                false
            });
            for &m in &requests {
                if let Some(t) = rules::revise(&b, rules::add_queen_promotion(&b, m)) {
                    revised.insert(t);
                }
            }
            let mut generated = BTreeSet::new();
            let mut n = 0;
            pseudo_legal(&b, |m| {
                generated.insert(m);
                n += 1;
            });
            assert_eq!(generated.len(), n, "duplicates on {b}");
            assert_eq!(generated, revised, "on {b}");
            assert_eq!(count(&b), n as u64, "count on {b}");
            if b.king_captured().is_some() || requests.is_empty() {
                break;
            }
            let m = requests[rng.below(requests.len() as u64) as usize];
            let r = rules::arbitrate(&b, Some(m)).unwrap();
            b.play(r.taken);
        }
    }
}

#[test]
fn perft_start_position() {
    // Without check rules the start position's first plies equal chess perft.
    let b = Board::start();
    assert_eq!(perft(&b, 1), 20);
    assert_eq!(perft(&b, 2), 400);
    assert_eq!(perft(&b, 3), 8_902);
    // Depth 4 differs from chess (197,281): moves that leave the king in
    // check are pseudo-legal here.
    assert!(perft(&b, 4) > 197_281);
}
