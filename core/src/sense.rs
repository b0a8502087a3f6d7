//! Choosing where to sense.
//!
//! A sense reveals the 3x3 window around its centre. Hypotheses that would
//! show the same window form one part; after sensing, only the true part is
//! left. The best centre minimises the expected number of hypotheses left,
//! `sum(n_k^2) / N` over the parts `k` (ties: the smaller largest part). With
//! weights (for example from the move chooser: boards on which our best move
//! differs count more), `n_k` is the weight of part `k`.
//!
//! Only the 36 interior centres are scored: an edge or corner window is a
//! subset of an interior window, so it can never split the belief better.
//! Our own pieces look the same in every hypothesis and do not split it.
//!
//! A window's content is a 27-bit key: three bits (one per plane) for each of
//! its nine squares, gathered three squares at a time with shifts. The keys
//! of all scored hypotheses are radix-sorted in caller-provided storage and
//! the parts are the runs of equal keys.

use crate::belief::Hypothesis;
use crate::rng::Rng;
use crate::square::{File, Rank, Square};

/// Default number of hypotheses scored; larger beliefs are sampled uniformly.
pub const DEFAULT_SAMPLE: usize = 100_000;

/// The scratch entries a [`Chooser`] needs for a given sample size: per
/// scored hypothesis its visible planes and weight, and two (key, weight)
/// words for the radix sort.
pub const fn scratch_len(sample: usize) -> usize {
    sample * 6
}

/// The 36 interior centres, b2..g7.
pub fn interior_centers() -> impl Iterator<Item = Square> {
    (1..7)
        .flat_map(|r| (1..7).map(move |f| Square::new(File::index_const(f), Rank::index_const(r))))
}

/// The window key of `h` around an interior `center`.
#[inline(always)]
pub fn window_key(h: &Hypothesis, center: Square) -> u32 {
    window_key_of(&h.visible_planes(), center as u32 - 9)
}

/// The window key of visible planes, for the window whose lower-left square
/// has index `low`.
#[inline(always)]
fn window_key_of(v: &[u64; 3], low: u32) -> u32 {
    let mut key = 0u32;
    for (i, plane) in v.iter().enumerate() {
        let bits = plane >> low;
        let rows = (bits & 7) | ((bits >> 8) & 7) << 3 | ((bits >> 16) & 7) << 6;
        key |= (rows as u32) << (9 * i);
    }
    key
}

/// How good one centre is.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Score {
    /// The centre.
    pub center: Square,
    /// Expected weight left after sensing there.
    pub expected: f64,
    /// The weight of the largest part.
    pub largest: f64,
    /// How mixed the labels stay after sensing there: the Gini impurity of
    /// the labels within each part, averaged over the parts by weight. 0 when
    /// every part holds one label (the sense settles the label), up to the
    /// impurity of the whole belief when the window cannot tell them apart.
    pub mixed: f64,
    /// The total weight scored (the same for every centre): `expected` is
    /// this much when the window cannot split the belief at all.
    pub weight: f64,
    /// Weighted share of hypotheses left, `expected / total weight`, plus
    /// the label cost times `mixed`: what [`Chooser::choose_labeled`]
    /// minimises.
    pub cost: f64,
}

/// The chosen sense and how it was found.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Choice {
    /// The best centre.
    pub best: Score,
    /// How many hypotheses were scored (all, or a uniform sample).
    pub scored: usize,
    /// How many there were.
    pub total: usize,
}

/// Scores sense windows using caller-provided scratch memory.
pub struct Chooser<'s> {
    table: &'s mut [u64],
    sample: usize,
}

impl<'s> Chooser<'s> {
    /// A chooser scoring at most `sample` hypotheses (the rest is sampled),
    /// with `table` of at least [`scratch_len`]`(sample)` entries.
    ///
    /// # Panics
    /// If `table` is smaller than that.
    pub fn new(table: &'s mut [u64], sample: usize) -> Chooser<'s> {
        let need = scratch_len(sample.max(1));
        assert!(table.len() >= need, "sense scratch needs {need} entries");
        Chooser {
            table: &mut table[..need],
            sample: sample.max(1),
        }
    }

    /// The best interior centre for `hyps`, each weighing `weight(i)` (use
    /// `|_| 1.0` for plain counts). `None` if there are no hypotheses.
    pub fn choose(
        &mut self,
        hyps: &[Hypothesis],
        weight: impl Fn(usize) -> f32,
        rng: &mut Rng,
    ) -> Option<Choice> {
        self.choose_labeled(hyps, |i| (weight(i), 0), 0.0, rng)
    }

    /// The best interior centre when the hypotheses also carry a label (a
    /// question the sense should answer, for example "is our king attacked,
    /// and from where"): `weigh(i)` gives the weight and label (0..32) of
    /// hypothesis `i`, and the chosen centre minimises the share of weight
    /// left plus `label_cost` times how mixed the labels stay ([`Score::cost`]).
    /// With one label, or `label_cost` 0, this is [`Chooser::choose`].
    pub fn choose_labeled(
        &mut self,
        hyps: &[Hypothesis],
        weigh: impl Fn(usize) -> (f32, u8),
        label_cost: f64,
        rng: &mut Rng,
    ) -> Option<Choice> {
        let mut best: Option<Score> = None;
        self.each_score_labeled(hyps, &weigh, label_cost, rng, |s| {
            let better = match best {
                None => true,
                Some(b) => {
                    s.cost < b.cost - 1e-12 || (s.cost <= b.cost + 1e-12 && s.largest < b.largest)
                }
            };
            if better {
                best = Some(s);
            }
        })
        .map(|(scored, total)| Choice {
            best: best.expect("scored at least one centre"),
            scored,
            total,
        })
    }

    /// Calls `f` with the score of every interior centre; returns (scored, total).
    ///
    /// For each centre the (key, weight) pairs of the scored hypotheses are
    /// sorted by key with a three-pass radix sort (9 bits a pass, so the
    /// counts stay in L1), and the parts are the runs of equal keys.
    pub fn each_score(
        &mut self,
        hyps: &[Hypothesis],
        weight: &impl Fn(usize) -> f32,
        rng: &mut Rng,
        f: impl FnMut(Score),
    ) -> Option<(usize, usize)> {
        self.each_score_labeled(hyps, &|i| (weight(i), 0), 0.0, rng, f)
    }

    /// [`Chooser::each_score`] with labels (see [`Chooser::choose_labeled`]).
    /// The label rides in the top five bits of the sort word, above the
    /// 27-bit key, so the sort is unchanged; within each part the label
    /// weights are summed in a 32-entry array.
    ///
    /// # Panics
    /// If a label is 32 or more.
    pub fn each_score_labeled(
        &mut self,
        hyps: &[Hypothesis],
        weigh: &impl Fn(usize) -> (f32, u8),
        label_cost: f64,
        rng: &mut Rng,
        mut f: impl FnMut(Score),
    ) -> Option<(usize, usize)> {
        if hyps.is_empty() {
            return None;
        }
        let n = hyps.len();
        let sampled = n > self.sample;
        let count = if sampled { self.sample } else { n };
        // Indices of the scored hypotheses: all of them, or a uniform sample
        // (with replacement) drawn by hashing the position in the sample, so
        // the same sample serves every centre without storing it.
        let seed = rng.next_u64();
        let pick = |i: usize| -> usize {
            if sampled {
                ((mix(seed ^ i as u64) as u128 * n as u128) >> 64) as usize
            } else {
                i
            }
        };
        // Gather the scored hypotheses once: their visible planes and weights,
        // contiguous, so the 36 passes below read memory in order.
        let (vis, rest) = self.table.split_at_mut(4 * count);
        let (a, rest) = rest.split_at_mut(count);
        let b = &mut rest[..count];
        let mut total_w = 0.0f64;
        let mut m = 0;
        let mut labels_seen = 0u32;
        for i in 0..count {
            let idx = pick(i);
            let (w, label) = weigh(idx);
            assert!(label < 32, "sense labels are 0..32, got {label}");
            if w > 0.0 {
                let v = hyps[idx].visible_planes();
                let tag = (label as u64) << LABEL_SHIFT | w.to_bits() as u64;
                vis[4 * m..4 * m + 4].copy_from_slice(&[v[0], v[1], v[2], tag]);
                total_w += w as f64;
                labels_seen |= 1 << label;
                m += 1;
            }
        }
        if total_w <= 0.0 {
            return None;
        }
        let labeled = labels_seen.count_ones() > 1;
        let mut label_w = [0.0f64; 32];
        for center in interior_centers() {
            let low = center as u32 - 9;
            for (slot, g) in a[..m].iter_mut().zip(vis.chunks_exact(4)) {
                *slot = (window_key_of(&[g[0], g[1], g[2]], low) as u64) << 32 | g[3];
            }
            radix_pass(&a[..m], &mut b[..m], 32);
            radix_pass(&b[..m], &mut a[..m], 41);
            radix_pass(&a[..m], &mut b[..m], 50);
            let (mut sum_sq, mut largest, mut impurity) = (0.0f64, 0.0f64, 0.0f64);
            let mut i = 0;
            while i < m {
                let key = b[i] >> 32 & KEY_MASK;
                let mut part = 0.0f64;
                let mut touched = 0u32;
                while i < m && b[i] >> 32 & KEY_MASK == key {
                    let w = f32::from_bits(b[i] as u32) as f64;
                    part += w;
                    if labeled {
                        let l = (b[i] >> LABEL_SHIFT) as usize;
                        label_w[l] += w;
                        touched |= 1 << l;
                    }
                    i += 1;
                }
                sum_sq += part * part;
                largest = largest.max(part);
                if touched.count_ones() > 1 {
                    // Gini impurity of the part times its weight:
                    // part - sum(w_l^2) / part.
                    let mut same = 0.0;
                    while touched != 0 {
                        let l = touched.trailing_zeros() as usize;
                        same += label_w[l] * label_w[l];
                        label_w[l] = 0.0;
                        touched &= touched - 1;
                    }
                    impurity += part - same / part;
                } else if touched != 0 {
                    label_w[touched.trailing_zeros() as usize] = 0.0;
                }
            }
            let mixed = impurity / total_w;
            f(Score {
                center,
                expected: sum_sq / total_w,
                largest,
                mixed,
                weight: total_w,
                cost: sum_sq / (total_w * total_w) + label_cost * mixed,
            });
        }
        Some((count, n))
    }
}

/// Where the label sits in a sort word: above the 27-bit window key, which
/// starts at bit 32.
const LABEL_SHIFT: u32 = 59;
/// The window key's bits, once shifted down by 32.
const KEY_MASK: u64 = (1 << 27) - 1;

/// One stable counting-sort pass on the 9 bits at `shift`.
fn radix_pass(from: &[u64], to: &mut [u64], shift: u32) {
    let mut counts = [0u32; 512];
    for &x in from {
        counts[(x >> shift) as usize & 511] += 1;
    }
    let mut sum = 0u32;
    for c in counts.iter_mut() {
        let here = *c;
        *c = sum;
        sum += here;
    }
    for &x in from {
        let d = (x >> shift) as usize & 511;
        to[counts[d] as usize] = x;
        counts[d] += 1;
    }
}

/// A 64-bit mixer (the murmur3 finaliser).
#[inline(always)]
fn mix(x: u64) -> u64 {
    let mut h = x;
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The seed design's heuristic: for every single square, partition by what
/// it shows, take the square whose largest part is smallest, and move the
/// window inward if it is on the edge.
pub fn single_tile_minmax(hyps: &[Hypothesis]) -> Option<Square> {
    if hyps.is_empty() {
        return None;
    }
    let mut counts = [[0u32; 8]; 64];
    for h in hyps {
        let v = h.visible_planes();
        for (sq, row) in counts.iter_mut().enumerate() {
            let code = (v[0] >> sq & 1) | (v[1] >> sq & 1) << 1 | (v[2] >> sq & 1) << 2;
            row[code as usize] += 1;
        }
    }
    let best = (0..64).min_by_key(|&sq| (counts[sq].iter().max().copied().unwrap_or(0), sq))?;
    let sq = Square::index_const(best);
    let f = (sq.file() as usize).clamp(1, 6);
    let r = (sq.rank() as usize).clamp(1, 6);
    Some(Square::new(File::index_const(f), Rank::index_const(r)))
}

/// A uniformly random interior centre.
pub fn random_interior(rng: &mut Rng) -> Square {
    let i = rng.below(36) as usize;
    Square::new(File::index_const(1 + i % 6), Rank::index_const(1 + i / 6))
}

/// The expected number left after sensing `center`, computed exactly by
/// comparing visible windows pairwise (for tests; quadratic).
pub fn expected_left_slow(hyps: &[Hypothesis], center: Square) -> f64 {
    let window = |h: &Hypothesis| {
        let mut w = [0u8; 9];
        let mut i = 0;
        for dr in [-1i8, 0, 1] {
            for df in [-1i8, 0, 1] {
                let sq = center.offset(df, dr).expect("interior centre");
                w[i] = h.kind_at(sq).map_or(0, |k| k as u8 + 1);
                i += 1;
            }
        }
        w
    };
    let n = hyps.len() as f64;
    let mut same = 0u64;
    for a in hyps {
        let wa = window(a);
        for b in hyps {
            if window(b) == wa {
                same += 1;
            }
        }
    }
    same as f64 / n
}
