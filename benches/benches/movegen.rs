//! Move generation: rbc-core's pseudo-legal perft against cozy-chess's legal
//! perft on the same positions, in the same run. Both bulk-count the last ply.

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};
use rbc_core::{Board, movegen};

/// (name, FEN, depth)
const POSITIONS: &[(&str, &str, u32)] = &[
    (
        "start",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        4,
    ),
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        3,
    ),
    ("endgame", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5),
    (
        "midgame",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2QKB1R w KQ - 0 8",
        3,
    ),
];

fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    let mut n = 0u64;
    if depth == 1 {
        board.generate_moves(|moves| {
            n += moves.len() as u64;
            false
        });
    } else {
        board.generate_moves(|moves| {
            for mv in moves {
                let mut child = board.clone();
                child.play_unchecked(mv);
                n += cozy_perft(&child, depth - 1);
            }
            false
        });
    }
    n
}

fn perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    for &(name, fen, depth) in POSITIONS {
        let ours: Board = fen.parse().unwrap();
        let theirs: cozy_chess::Board = fen.parse().unwrap();
        let n_ours = movegen::perft(&ours, depth);
        let n_theirs = cozy_perft(&theirs, depth);
        // Node counts for scripts/perf.py, which turns times into nodes/s.
        eprintln!("nodes perft/rbc_pseudo_legal/{name} {n_ours}");
        eprintln!("nodes perft/cozy_legal/{name} {n_theirs}");
        group.throughput(Throughput::Elements(n_ours));
        group.bench_with_input(
            BenchmarkId::new("rbc_pseudo_legal", name),
            &ours,
            |b, board| {
                b.iter(|| assert_eq!(movegen::perft(black_box(board), black_box(depth)), n_ours))
            },
        );
        group.throughput(Throughput::Elements(n_theirs));
        group.bench_with_input(BenchmarkId::new("cozy_legal", name), &theirs, |b, board| {
            b.iter(|| assert_eq!(cozy_perft(black_box(board), black_box(depth)), n_theirs))
        });
    }
    group.finish();
}

criterion_group!(benches, perft);
criterion_main!(benches);
