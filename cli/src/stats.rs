//! Match statistics: the Elo difference and its confidence interval.
//!
//! With `n` games of which `w` won, `d` drawn and `l` lost, the score is
//! `s = (w + d/2) / n`. The logistic model gives the Elo difference
//!
//! ```text
//! D(s) = -400 · log10(1/s - 1)
//! ```
//!
//! (s = 0.5 → 0, s = 0.75 → +190.85). The score's standard error comes from
//! the per-game results x ∈ {1, ½, 0} (normal approximation):
//!
//! ```text
//! σ² = (w + d/4)/n - s²        SE = sqrt(σ² / n)
//! ```
//!
//! and the 95% interval is `[D(s - z·SE), D(s + z·SE)]` with z = 1.95996;
//! a bound at or beyond score 0 or 1 is infinite. When every game was won
//! (s = 1) the estimate and upper bound are +∞ and the lower bound is the
//! exact one-sided binomial bound at the same 2.5% tail: the score p with
//! p^n = 0.025, i.e. `D(0.025^(1/n))`; symmetrically for s = 0 the upper bound
//! is `D(1 - 0.025^(1/n))`. (All draws give σ² = 0 and a zero-width interval
//! at 0: the normal approximation has nothing to go on.)

/// The two-sided 95% normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The tail beyond each bound of the 95% interval.
pub const TAIL95: f64 = 0.025;

/// The Elo difference of a score fraction (±∞ at 1 and 0).
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// An Elo estimate with its 95% interval.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct EloEstimate {
    /// Games.
    pub games: u32,
    /// The score fraction.
    pub score: f64,
    /// The standard error of the score.
    pub stderr: f64,
    /// The Elo difference (may be infinite).
    pub elo: f64,
    /// The lower bound (may be -∞).
    pub lower: f64,
    /// The upper bound (may be +∞).
    pub upper: f64,
}

/// The Elo difference and 95% interval from wins, losses and draws; `None`
/// without games.
pub fn elo_estimate(wins: u32, losses: u32, draws: u32) -> Option<EloEstimate> {
    let n = wins + losses + draws;
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let score = (wins as f64 + 0.5 * draws as f64) / nf;
    let second_moment = (wins as f64 + 0.25 * draws as f64) / nf;
    let variance = (second_moment - score * score).max(0.0);
    let stderr = (variance / nf).sqrt();
    let (lower, upper) = if wins == n {
        (elo_from_score(TAIL95.powf(1.0 / nf)), f64::INFINITY)
    } else if losses == n {
        (
            f64::NEG_INFINITY,
            elo_from_score(1.0 - TAIL95.powf(1.0 / nf)),
        )
    } else {
        (
            elo_from_score(score - Z95 * stderr),
            elo_from_score(score + Z95 * stderr),
        )
    };
    Some(EloEstimate {
        games: n,
        score,
        stderr,
        elo: elo_from_score(score),
        lower,
        upper,
    })
}

/// The mean and maximum of a sample (0 for an empty one).
pub fn mean_max(xs: &[f64]) -> (f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (mean, max)
}

/// Formats an Elo value: `+70.4`, `-12.0`, `+inf`, `-inf`.
pub fn format_elo(x: f64) -> String {
    if x == f64::INFINITY {
        "+inf".into()
    } else if x == f64::NEG_INFINITY {
        "-inf".into()
    } else {
        format!("{x:+.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn elo_of_known_scores() {
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!(close(elo_from_score(0.75), 190.85, 0.005));
        assert!(close(elo_from_score(0.25), -190.85, 0.005));
        assert!(close(elo_from_score(0.6), 70.44, 0.005));
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn sixty_wins_forty_losses() {
        let e = elo_estimate(60, 40, 0).unwrap();
        assert_eq!(e.games, 100);
        assert!(close(e.score, 0.6, 1e-12));
        assert!(close(e.elo, 70.4, 0.05));
        // By hand: σ² = 0.6 - 0.36 = 0.24, SE = sqrt(0.24/100) = 0.0489898,
        // bounds 0.6 ∓ 1.959964·0.0489898 = 0.503983 and 0.696017, i.e.
        // -400·log10(1/0.503983 - 1) = +2.77 and -400·log10(1/0.696017 - 1) = +143.91.
        assert!(close(e.stderr, 0.048_989_8, 1e-7));
        let lo = 0.6 - 1.959_964 * (0.24f64 / 100.0).sqrt();
        let hi = 0.6 + 1.959_964 * (0.24f64 / 100.0).sqrt();
        assert!(close(e.lower, -400.0 * (1.0 / lo - 1.0).log10(), 1e-3));
        assert!(close(e.upper, -400.0 * (1.0 / hi - 1.0).log10(), 1e-3));
        assert!(close(e.lower, 2.77, 0.01), "{}", e.lower);
        assert!(close(e.upper, 143.91, 0.01), "{}", e.upper);
    }

    #[test]
    fn draws_count_half_and_shrink_the_error() {
        let e = elo_estimate(30, 10, 20).unwrap();
        assert!(close(e.score, 40.0 / 60.0, 1e-12));
        // σ² = (30 + 20/4)/60 - (2/3)² = 0.583333 - 0.444444 = 0.138889
        assert!(close(e.stderr, (0.138_888_9f64 / 60.0).sqrt(), 1e-7));
        let even = elo_estimate(5, 5, 0).unwrap();
        assert_eq!(even.elo, 0.0);
        assert!(close(even.lower, -even.upper, 1e-9));
    }

    #[test]
    fn perfect_scores_get_one_sided_bounds() {
        let e = elo_estimate(10, 0, 0).unwrap();
        assert_eq!(e.elo, f64::INFINITY);
        assert_eq!(e.upper, f64::INFINITY);
        // 0.025^(1/10) = 0.691503 → +140.22
        assert!(close(e.lower, 140.22, 0.01), "{}", e.lower);
        let e = elo_estimate(0, 10, 0).unwrap();
        assert_eq!(e.elo, f64::NEG_INFINITY);
        assert_eq!(e.lower, f64::NEG_INFINITY);
        assert!(close(e.upper, -140.22, 0.01));
        // A wide interval leaves the score range: an infinite bound.
        let e = elo_estimate(1, 1, 0).unwrap();
        assert_eq!((e.lower, e.upper), (f64::NEG_INFINITY, f64::INFINITY));
        assert!(elo_estimate(0, 0, 0).is_none());
    }

    #[test]
    fn helpers() {
        assert_eq!(mean_max(&[1.0, 3.0, 2.0]), (2.0, 3.0));
        assert_eq!(mean_max(&[]), (0.0, 0.0));
        assert_eq!(format_elo(70.436), "+70.4");
        assert_eq!(format_elo(f64::NEG_INFINITY), "-inf");
    }
}
