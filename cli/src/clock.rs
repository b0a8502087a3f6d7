//! The clock manager: how long each decision may take.
//!
//! reconchess gives each side `seconds` plus `increment` per turn and checks
//! the clock between turns, after adding the increment. The budget spreads
//! what is left over an estimate of the turns to come, spends more when the
//! belief is large (each board costs evaluations) and little when it is one
//! board, keeps a reserve, and drops to a panic budget when time is short.

use std::time::Duration;

/// Tracks our turns and hands out per-decision budgets.
#[derive(Clone, Debug)]
pub struct Clock {
    increment: f64,
    turns: u32,
}

impl Clock {
    /// A clock for a game of `seconds` plus `increment` per turn.
    pub fn new(_seconds: f64, increment: f64) -> Clock {
        Clock {
            increment: increment.max(0.0),
            turns: 0,
        }
    }

    /// One of our turns ended.
    pub fn turn_done(&mut self) {
        self.turns += 1;
    }

    /// The time a move decision may take with `seconds_left` on our clock and
    /// a belief of `boards` hypotheses.
    pub fn budget(&self, seconds_left: f64, boards: usize) -> Duration {
        let left = if seconds_left.is_finite() {
            seconds_left.max(0.0)
        } else {
            3600.0
        };
        let reserve = (0.05 * left).clamp(1.0, 10.0);
        // Panic mode: a small slice of what is left, never more than the increment.
        if left < (2.0 * self.increment).max(10.0) {
            return Duration::from_secs_f64((left / 20.0).min(0.25 * self.increment).max(0.005));
        }
        let turns_left = (40.0 - self.turns as f64 / 2.0).max(15.0);
        let mut base = (left - reserve) / turns_left + 0.8 * self.increment;
        base *= match boards {
            0 | 1 => 0.25,
            2..=16 => 0.6,
            17..=1000 => 1.0,
            _ => 1.4,
        };
        // Never more than a sixth of what is left beyond the reserve.
        let cap = ((left - reserve) / 6.0).max(0.01);
        Duration::from_secs_f64(base.min(cap).max(0.005))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_shrink_with_time_and_never_exceed_what_is_left() {
        let c = Clock::new(900.0, 5.0);
        let full = c.budget(900.0, 100);
        let low = c.budget(60.0, 100);
        let panic = c.budget(8.0, 100);
        assert!(full > low && low > panic, "{full:?} {low:?} {panic:?}");
        assert!(panic.as_secs_f64() <= 8.0 / 20.0);
        assert!(c.budget(900.0, 1) < c.budget(900.0, 100_000));
        for left in [0.0, 0.5, 3.0, 30.0, 300.0, 900.0] {
            for boards in [1, 50, 5000, 1_000_000] {
                let b = c.budget(left, boards).as_secs_f64();
                assert!(b <= (left / 6.0).max(0.4), "{left} {boards} {b}");
            }
        }
    }

    #[test]
    fn a_full_game_of_budgets_fits_the_clock() {
        // Spend every budget in full for 200 turns: the clock must never run out.
        let mut c = Clock::new(900.0, 5.0);
        let mut left = 900.0;
        for turn in 0..200 {
            let b = c.budget(left, 100_000).as_secs_f64();
            left -= b * 1.2 + 0.05; // overruns and overheads
            assert!(left > 0.0, "ran out at turn {turn}");
            left += 5.0;
            c.turn_done();
        }
    }
}
