//! `rbc bench`: memory and throughput on this machine, on the built-in
//! belief fixtures (fixtures/data, 100 to 1M boards).
//!
//! Every figure is the median of `--runs` runs. The belief is sized by
//! `--capacity`/`--memory` exactly as for a game, so on a small budget the
//! large fixtures overflow and sample, as they would in play.

use crate::agent::{Agent, AgentConfig, Sizing};
use crate::args::{EngineArgs, MemoryArgs};
use crate::scorer::ScorerKind;
use anyhow::{Context, Result, bail};
use rbc_core::belief::{Belief, Hypothesis, LogEntry, Own, Storage};
use rbc_core::rng::Rng;
use rbc_core::sense::{self, Chooser};
use rbc_fixtures::{BELIEFS, Fixture, Step, apply};
use serde::Serialize;
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `rbc bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    memory: MemoryArgs,
    #[command(flatten)]
    engine: EngineArgs,
    /// Runs per figure (the median is reported).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
    /// Only these fixtures (100, 10k, 100k, 1m), comma-separated.
    #[arg(long, value_delimiter = ',')]
    fixtures: Vec<String>,
    /// One JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// Instead: compare sense strategies on the sense corpus (every belief at
    /// a sense point of the self-play games in fixtures/data).
    #[arg(long)]
    sense_corpus: bool,
}

/// One figure.
#[derive(Serialize, Debug, Clone)]
struct Row {
    fixture: String,
    figure: &'static str,
    value: f64,
    unit: &'static str,
    /// What was measured, for the table.
    detail: String,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Peak resident set size of this process, from /proc (Linux).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Storage sized like a game's.
struct Memory {
    slots: Vec<Hypothesis>,
    table: Vec<u32>,
    log: Vec<LogEntry>,
    capacity: usize,
}

impl Memory {
    fn new(s: &Sizing) -> Memory {
        Memory {
            slots: crate::hugepages::filled(s.capacity + s.stash, Hypothesis::EMPTY),
            table: crate::hugepages::filled(s.table_len(), 0),
            log: vec![LogEntry::EMPTY; s.log],
            capacity: s.capacity,
        }
    }
    fn storage(&mut self) -> Storage<'_> {
        Storage {
            hypotheses: &mut self.slots,
            table: &mut self.table,
            log: &mut self.log,
        }
    }
    /// Times `op` on a fresh belief over `hyps`.
    fn time(
        &mut self,
        own: Own,
        our_turn: bool,
        hyps: &[Hypothesis],
        op: impl FnOnce(&mut Belief<'_>),
    ) -> f64 {
        let cap = self.capacity;
        let mut b =
            Belief::with_hypotheses(self.storage(), cap, own, our_turn, hyps, 7).expect("fits");
        let t = Instant::now();
        op(&mut b);
        t.elapsed().as_secs_f64()
    }
}

/// A fixture replayed: the belief at our turn and after our move.
struct Loaded {
    name: &'static str,
    fixture: Fixture,
    own: Own,
    hyps: Vec<Hypothesis>,
    own_after: Own,
    parents: Vec<Hypothesis>,
}

fn load(name: &'static str, text: &str, sizing: &Sizing) -> Result<Loaded> {
    let fixture = Fixture::parse(text)
        .map_err(anyhow::Error::msg)
        .context(name)?;
    let mut mem = Memory::new(sizing);
    let cap = mem.capacity;
    let mut b = fixture
        .replay(mem.storage(), cap)
        .map_err(anyhow::Error::msg)
        .context(name)?;
    let (own, hyps) = (*b.own(), b.hypotheses().to_vec());
    apply(&mut b, &fixture.move_result).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    let (own_after, parents) = (*b.own(), b.hypotheses().to_vec());
    Ok(Loaded {
        name,
        fixture,
        own,
        hyps,
        own_after,
        parents,
    })
}

/// Plays the fixture's observations into a fresh agent game.
fn agent_at(agent: &mut Agent, l: &Loaded) -> Result<()> {
    agent.start_game(l.fixture.color, &l.fixture.start, 900.0, 5.0)?;
    for step in &l.fixture.prefix {
        let r = match step {
            Step::OpponentMove(c) => agent.opponent_move(*c),
            Step::Sense(r) => agent.sense_result(r),
            Step::MoveResult {
                requested,
                taken,
                capture,
            } => agent.move_result(*requested, *taken, *capture),
            Step::Start { .. } | Step::End => continue,
        };
        r.map_err(|e| anyhow::anyhow!("{}: {e}", l.name))?;
    }
    Ok(())
}

/// Mean and median of a list.
fn mean_median(v: &mut [f64]) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    (
        v.iter().sum::<f64>() / v.len().max(1) as f64,
        v.get(v.len() / 2).copied().unwrap_or(0.0),
    )
}

/// Scores the three sense strategies on every belief of the sense corpus:
/// the expected number of boards left (sum of squared part sizes over the
/// total, the truth being any board alike) and the number actually left
/// given the true position recorded in the corpus.
fn sense_corpus(json: bool) -> Result<ExitCode> {
    const WORK: usize = 1 << 22;
    let mut mem = Memory::new(&Sizing {
        capacity: WORK,
        stash: 0,
        log: 4096,
        sense_sample: WORK,
    });
    let mut scratch = vec![0u64; sense::scratch_len(WORK)];
    let mut rng = Rng::new(11);
    let strategies = [
        "window partition (rbc)",
        "single-tile min-max (seed)",
        "random interior",
    ];
    let mut expected: [Vec<f64>; 3] = Default::default();
    let mut actual: [Vec<f64>; 3] = Default::default();
    let mut sizes = Vec::new();
    let mut belief: Option<Belief<'_>> = None;
    for line in rbc_fixtures::SENSE_GAMES
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        let (step, _) = rbc_fixtures::parse(line).map_err(anyhow::Error::msg)?;
        match step {
            Step::Start { color, board } => {
                let storage = match belief.take() {
                    Some(b) => b.into_storage(),
                    None => mem.storage(),
                };
                belief = Some(
                    Belief::new(storage, WORK, &board, color, 1)
                        .map_err(|e| anyhow::anyhow!("{e}"))?,
                );
            }
            Step::End => {}
            Step::Sense(_) => {
                let b = belief.as_mut().context("corpus: sense before game_start")?;
                let truth = rbc_fixtures::truth(line).context("corpus line without truth")?;
                let hyps = b.hypotheses();
                let mut chooser = Chooser::new(&mut scratch, WORK);
                let mut by_center = [0.0f64; 64];
                chooser
                    .each_score(hyps, &|_| 1.0, &mut rng, |sc| {
                        by_center[sc.center as usize] = sc.expected
                    })
                    .context("empty belief")?;
                let ours = Chooser::new(&mut scratch, WORK)
                    .choose(hyps, |_| 1.0, &mut rng)
                    .context("empty")?
                    .best
                    .center;
                let tile = sense::single_tile_minmax(hyps).context("empty")?;
                let random = sense::random_interior(&mut rng);
                for (k, center) in [ours, tile, random].into_iter().enumerate() {
                    expected[k].push(by_center[center as usize]);
                    let w = b
                        .sense_window(&rbc_fixtures::sense_result(&truth, center))
                        .map_err(|e| anyhow::anyhow!("{e}"))?;
                    actual[k].push(hyps.iter().filter(|h| w.matches(h)).count() as f64);
                }
                sizes.push(hyps.len() as f64);
                apply(b, &step).map_err(|e| anyhow::anyhow!("corpus: {e}"))?;
            }
            ref other => {
                let b = belief
                    .as_mut()
                    .context("corpus: observation before game_start")?;
                apply(b, other).map_err(|e| anyhow::anyhow!("corpus: {e}"))?;
            }
        }
    }
    let (size_mean, size_median) = mean_median(&mut sizes);
    let mut rows = Vec::new();
    for k in 0..3 {
        let (em, emed) = mean_median(&mut expected[k]);
        let (am, amed) = mean_median(&mut actual[k]);
        rows.push(serde_json::json!({"strategy": strategies[k], "expected_mean": em, "expected_median": emed, "actual_mean": am, "actual_median": amed}));
    }
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(
            &mut out,
            &serde_json::json!({"beliefs": sizes.len(), "size_mean": size_mean, "size_median": size_median, "strategies": rows}),
        )?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "{} beliefs (boards before sensing: mean {size_mean:.1}, median {size_median:.0})",
            sizes.len()
        )?;
        writeln!(
            out,
            "{:<28} {:>14} {:>16} {:>12} {:>14}",
            "strategy", "expected mean", "expected median", "actual mean", "actual median"
        )?;
        for r in &rows {
            writeln!(
                out,
                "{:<28} {:>14.2} {:>16.2} {:>12.2} {:>14.1}",
                r["strategy"].as_str().unwrap_or(""),
                r["expected_mean"].as_f64().unwrap_or(0.0),
                r["expected_median"].as_f64().unwrap_or(0.0),
                r["actual_mean"].as_f64().unwrap_or(0.0),
                r["actual_median"].as_f64().unwrap_or(0.0)
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs the benchmark.
pub fn run(args: Args) -> Result<ExitCode> {
    if args.sense_corpus {
        return sense_corpus(args.json);
    }
    let sizing = args.memory.sizing()?;
    let scorer = args.engine.scorer()?;
    let runs = args.runs as usize;
    let wanted = |name: &str| {
        args.fixtures.is_empty() || args.fixtures.iter().any(|f| f.eq_ignore_ascii_case(name))
    };
    if !args.fixtures.is_empty() && !BELIEFS.iter().any(|(n, _)| wanted(n)) {
        bail!(
            "no fixture named {:?} (there are 100, 10k, 100k, 1m)",
            args.fixtures
        );
    }
    let mut rows: Vec<Row> = Vec::new();
    let mut push = |fixture: &str, figure, value, unit, detail: String| {
        rows.push(Row {
            fixture: fixture.to_string(),
            figure,
            value,
            unit,
            detail,
        });
    };
    push(
        "-",
        "bytes per hypothesis",
        std::mem::size_of::<Hypothesis>() as f64,
        "B",
        "packed opponent half of a position".into(),
    );
    push(
        "-",
        "capacity",
        sizing.capacity as f64,
        "boards",
        format!("stash {} more", sizing.stash),
    );
    push(
        "-",
        "pool bytes",
        ((sizing.capacity + sizing.stash) * std::mem::size_of::<Hypothesis>()
            + sizing.table_len() * 4) as f64,
        "B",
        format!(
            "slots {} + dedup table {}",
            sizing.capacity + sizing.stash,
            sizing.table_len()
        ),
    );
    push(
        "-",
        "storage bytes",
        sizing.storage_bytes() as f64,
        "B",
        "slots, table, log, sense scratch".into(),
    );

    let mut mem = Memory::new(&sizing);
    let mut scratch = vec![0u64; sense::scratch_len(sizing.sense_sample)];
    let builtin = AgentConfig {
        sizing: Sizing::with_capacity(sizing.capacity),
        scorer: ScorerKind::Builtin,
        ..AgentConfig::default()
    };
    let mut agents = vec![("builtin", Agent::new(builtin)?)];
    if scorer != ScorerKind::Builtin {
        let cfg = AgentConfig {
            sizing: Sizing::with_capacity(sizing.capacity),
            scorer,
            ..AgentConfig::default()
        };
        agents.push(("stockfish", Agent::new(cfg)?));
    }
    for (name, text) in BELIEFS.iter().filter(|(n, _)| wanted(n)) {
        let l = load(name, text, &sizing)?;
        let n = l.hyps.len();
        // Expansion of the parents by the opponent's next move.
        let mut children = 0;
        let mut unique = 0;
        let mut b_overflowed = false;
        let t = median(
            (0..runs)
                .map(|_| {
                    mem.time(l.own_after, false, &l.parents, |b| {
                        let before = b.stats().children;
                        apply(b, &l.fixture.opponent_move).expect("expansion");
                        children = b.stats().children - before;
                        unique = b.len();
                        b_overflowed = b.stats().overflows > 0;
                    })
                })
                .collect(),
        );
        push(
            name,
            "expansion",
            children as f64 / t,
            "children/s",
            format!(
                "{} parents -> {children} children in {:.1} ms",
                l.parents.len(),
                t * 1e3
            ),
        );
        push(
            name,
            "expansion (unique)",
            unique as f64 / t,
            "children/s",
            format!(
                "{unique} distinct children kept{}",
                if b_overflowed {
                    " (capacity reached: sampled)"
                } else {
                    ""
                }
            ),
        );
        // The same expansion done ahead, while the opponent thinks, and what
        // is then left of it for our clock: the filter by the report.
        let expand_t = t;
        let (mut ahead_t, mut report_t) = (Vec::new(), Vec::new());
        let mut fitted = false;
        for _ in 0..runs {
            let cap = mem.capacity;
            let mut b =
                Belief::with_hypotheses(mem.storage(), cap, l.own_after, false, &l.parents, 7)
                    .expect("fits");
            let t = Instant::now();
            fitted = b.expand_ahead();
            ahead_t.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            apply(&mut b, &l.fixture.opponent_move).expect("report");
            report_t.push(t.elapsed().as_secs_f64());
            if fitted && !b_overflowed {
                assert_eq!(
                    b.len(),
                    unique,
                    "{name}: ahead and direct expansions differ"
                );
            }
        }
        let (ahead_t, report_t) = (median(ahead_t), median(report_t));
        push(
            name,
            "expansion ahead",
            ahead_t * 1e3,
            "ms",
            if fitted {
                "every opponent move, captures included, while the opponent thinks".into()
            } else {
                "did not fit beside the belief: the report expands as usual".into()
            },
        );
        push(
            name,
            "report after expansion ahead",
            report_t * 1e3,
            "ms",
            format!(
                "on our clock; {:.1} ms without expanding ahead ({:.1}x)",
                expand_t * 1e3,
                expand_t / report_t
            ),
        );
        let t = median(
            (0..runs)
                .map(|_| {
                    mem.time(l.own, true, &l.hyps, |b| {
                        apply(b, &l.fixture.sense).expect("sense")
                    })
                })
                .collect(),
        );
        push(
            name,
            "sense filter",
            n as f64 / t,
            "boards/s",
            format!("{n} boards in {:.2} ms", t * 1e3),
        );
        let t = median(
            (0..runs)
                .map(|_| {
                    mem.time(l.own, true, &l.hyps, |b| {
                        apply(b, &l.fixture.move_result).expect("move")
                    })
                })
                .collect(),
        );
        // Dropped en-passant marks are what can merge boards without a capture.
        let marked = l.hyps.iter().filter(|h| h.has_ep()).count();
        push(
            name,
            "move-result filter",
            n as f64 / t,
            "boards/s",
            format!(
                "{n} boards ({marked} with an en-passant mark) in {:.2} ms",
                t * 1e3
            ),
        );
        let mut chooser = Chooser::new(&mut scratch, sizing.sense_sample);
        let mut rng = Rng::new(5);
        let mut scored = 0;
        let t = median(
            (0..runs)
                .map(|_| {
                    let t = Instant::now();
                    scored = chooser
                        .choose(&l.hyps, |_| 1.0, &mut rng)
                        .map_or(0, |c| c.scored);
                    t.elapsed().as_secs_f64()
                })
                .collect(),
        );
        push(
            name,
            "sense decision",
            t * 1e3,
            "ms",
            format!(
                "{scored} of {n} boards scored (uniform sample above {})",
                sizing.sense_sample
            ),
        );
        for (label, agent) in agents.iter_mut() {
            agent_at(agent, &l)?;
            let mut boards = 0;
            let t = median(
                (0..runs.min(3))
                    .map(|_| {
                        let t = Instant::now();
                        agent.choose_move(900.0).expect("move");
                        boards = agent.timing.last_move_boards;
                        t.elapsed().as_secs_f64()
                    })
                    .collect(),
            );
            push(
                name,
                if *label == "builtin" {
                    "move decision (builtin)"
                } else {
                    "move decision (stockfish)"
                },
                t * 1e3,
                "ms",
                format!("{boards} boards scored, full-clock budget"),
            );
        }
    }
    if let Some(rss) = peak_rss() {
        push(
            "-",
            "peak RSS",
            rss as f64,
            "B",
            "whole process (VmHWM)".into(),
        );
    }

    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &serde_json::json!({"rows": rows, "runs": runs}))?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "{:<9} {:<28} {:>16} {:<11} detail",
            "fixture", "figure", "value", "unit"
        )?;
        for r in &rows {
            let v = if r.value >= 1e6 {
                format!("{:.2e}", r.value)
            } else {
                format!("{:.2}", r.value)
            };
            writeln!(
                out,
                "{:<9} {:<28} {:>16} {:<11} {}",
                r.fixture, r.figure, v, r.unit, r.detail
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
