//! The deduplication index: open addressing over caller-provided `u32` slots.
//!
//! An entry packs, from the top bit down, a 5-bit fingerprint of the hash, a
//! 3-bit generation and a 24-bit slot index. Entries from an older generation
//! count as empty, so starting a deduplication pass is O(1); the table is only
//! wiped when the generation wraps, every seventh pass.
//!
//! Four bytes an entry, not eight: callers give the table four entries per
//! active hypothesis in the bytes that used to hold two, so that it is at
//! most a quarter full and nearly every insert finds its place at the first
//! probe (a probe that finds its entry taken costs a mispredicted branch).
//! The layout is fixed at compile time; with shifts read from the table it
//! took 8% longer on the 1M fixture (docs/PERF.md).

use super::hyp::Hypothesis;
use crate::prefetch::prefetch;

/// Bits of slot index in an entry.
const INDEX_BITS: u32 = 24;
/// Bits of generation, above the index.
const GEN_BITS: u32 = 3;
/// Where the fingerprint starts; it runs to the top bit.
const FP_SHIFT: u32 = INDEX_BITS + GEN_BITS;
const INDEX_MASK: u32 = (1 << INDEX_BITS) - 1;
const GEN_MASK: u32 = (1 << GEN_BITS) - 1;
const FP_MASK: u32 = u32::MAX << FP_SHIFT;

/// The most hypothesis slots a table can index (16,777,216).
pub const MAX_SLOTS: usize = 1 << INDEX_BITS;

/// Deduplicates hypotheses stored elsewhere, by index.
pub struct Table<'s> {
    entries: &'s mut [u32],
    /// Entries this pass uses, less one: all of them, or a prefix for a
    /// small pass ([`Table::clear_for`]).
    mask: usize,
    generation: u32,
}

impl<'s> Table<'s> {
    /// A table over `entries`; only the largest power-of-two prefix is used.
    /// It indexes slots below [`MAX_SLOTS`].
    pub fn new(entries: &'s mut [u32]) -> Table<'s> {
        let len = if entries.is_empty() {
            0
        } else {
            1usize << (usize::BITS - 1 - entries.len().leading_zeros())
        };
        let entries = &mut entries[..len];
        entries.fill(0);
        Table {
            entries,
            mask: len.saturating_sub(1),
            generation: 1,
        }
    }

    /// The entries given back.
    pub fn into_entries(self) -> &'s mut [u32] {
        self.entries
    }

    /// How many entries are in use for indexing.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Starts a new pass: every entry becomes empty.
    pub fn clear(&mut self) {
        self.clear_for(usize::MAX);
    }

    /// Starts a new pass that inserts at most `n` hypotheses: it uses only
    /// the entries it needs to stay a quarter full, so that a small pass
    /// works in cache instead of all over a table of tens of MB.
    pub fn clear_for(&mut self, n: usize) {
        self.generation = (self.generation + 1) & GEN_MASK;
        if self.generation == 0 {
            self.entries.fill(0);
            self.generation = 1;
        }
        let want = n.saturating_mul(4).max(64).checked_next_power_of_two();
        self.mask = want
            .unwrap_or(usize::MAX)
            .min(self.entries.len())
            .saturating_sub(1);
    }

    /// The fingerprint of `hash`, in place: its top bits (the position
    /// takes the bottom ones).
    #[inline]
    fn fingerprint(hash: u64) -> u32 {
        (hash >> 32) as u32 & FP_MASK
    }

    #[inline]
    fn is_current(&self, e: u32) -> bool {
        (e >> INDEX_BITS) & GEN_MASK == self.generation
    }

    /// If an equal hypothesis is already indexed, returns `false`. Otherwise
    /// records that `h` will live at `slots[index]` and returns `true`.
    /// The caller keeps the load at or under one half, and `index` below
    /// [`MAX_SLOTS`].
    #[inline]
    pub fn insert(&mut self, h: &Hypothesis, index: usize, slots: &[Hypothesis]) -> bool {
        self.insert_hashed(h, h.hash64(), index, slots)
    }

    /// [`Table::insert`] with the hash already computed.
    #[inline]
    pub fn insert_hashed(
        &mut self,
        h: &Hypothesis,
        hash: u64,
        index: usize,
        slots: &[Hypothesis],
    ) -> bool {
        debug_assert!(index < MAX_SLOTS);
        let fp = Self::fingerprint(hash);
        let mut pos = hash as usize & self.mask;
        loop {
            let e = self.entries[pos];
            if !self.is_current(e) {
                self.entries[pos] = fp | self.generation << INDEX_BITS | index as u32;
                return true;
            }
            if e & FP_MASK == fp && slots[(e & INDEX_MASK) as usize] == *h {
                return false;
            }
            pos = (pos + 1) & self.mask;
        }
    }

    /// The index of the hypothesis equal to `h` (whose hash is `hash`) if
    /// one is indexed in `slots`.
    #[inline]
    pub fn find(&self, h: &Hypothesis, hash: u64, slots: &[Hypothesis]) -> Option<usize> {
        let fp = Self::fingerprint(hash);
        let mut pos = hash as usize & self.mask;
        loop {
            let e = self.entries[pos];
            if !self.is_current(e) {
                return None;
            }
            let index = (e & INDEX_MASK) as usize;
            if e & FP_MASK == fp && slots[index] == *h {
                return Some(index);
            }
            pos = (pos + 1) & self.mask;
        }
    }

    /// Asks the cache for the entry [`Table::insert_hashed`] looks at first
    /// for `hash`. Done for a batch of keys some time before they are
    /// inserted, the misses overlap instead of stalling one insert at a time.
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        prefetch(self.entries, hash as usize & self.mask);
    }

    /// Once the entry for `hash` is cached: if its fingerprint matches, asks
    /// the cache for the slot it points to, which the insert will compare.
    #[inline]
    pub fn prefetch_match(&self, hash: u64, slots: &[Hypothesis]) {
        let e = self.entries[hash as usize & self.mask];
        if self.is_current(e) && e & FP_MASK == Self::fingerprint(hash) {
            prefetch(slots, (e & INDEX_MASK) as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_duplicates_across_generations() {
        let mut mem = [0u32; 64];
        let mut t = Table::new(&mut mem);
        let mut slots = [Hypothesis::EMPTY; 32];
        for i in 0..16 {
            slots[i].planes[0] = i as u64 * 7919;
            assert!(t.insert(&slots[i], i, &slots));
        }
        for i in 0..16 {
            assert!(!t.insert(&slots[i], 31, &slots), "duplicate {i}");
        }
        for _ in 0..600 {
            t.clear();
        }
        assert!(t.insert(&slots[3], 3, &slots));
        assert!(!t.insert(&slots[3], 3, &slots));
        assert_eq!(t.find(&slots[3], slots[3].hash64(), &slots), Some(3));
        assert_eq!(t.find(&slots[4], slots[4].hash64(), &slots), None);
    }

    #[test]
    fn a_small_pass_uses_a_prefix_and_a_full_one_all() {
        let mut mem = [0u32; 1 << 12];
        let mut t = Table::new(&mut mem);
        let mut slots = [Hypothesis::EMPTY; 40];
        for (i, s) in slots.iter_mut().enumerate() {
            s.planes[2] = (i as u64 + 1) * 0x1234_5678_9abc;
        }
        for n in [40, 100, usize::MAX] {
            t.clear_for(n);
            let used = t.mask + 1;
            assert!(
                used == t.len() || (used >= 4 * n && used >= 64),
                "{n}: {used}"
            );
            for i in 0..40 {
                assert!(t.insert(&slots[i], i, &slots), "{n}: {i} is new");
            }
            for i in 0..40 {
                assert_eq!(t.find(&slots[i], slots[i].hash64(), &slots), Some(i));
                assert!(!t.insert(&slots[i], 0, &slots));
            }
        }
        t.clear();
        assert_eq!(t.mask + 1, t.len());
    }

    #[test]
    fn tells_apart_hypotheses_with_one_position_and_fingerprint() {
        // Two hypotheses whose hashes agree on the position in a 64-entry
        // table and on the fingerprint: only the slots tell them apart.
        let key = |h: &Hypothesis| {
            let x = h.hash64();
            (x & 63, Table::fingerprint(x))
        };
        let mut slots = [Hypothesis::EMPTY; 4];
        slots[0].planes[1] = 1 << 20;
        let mut x = 1u64;
        loop {
            x += 1;
            slots[1].planes[1] = x << 20;
            if key(&slots[1]) == key(&slots[0]) {
                break;
            }
        }
        let mut mem = [0u32; 64];
        let mut t = Table::new(&mut mem);
        for _ in 0..9 {
            t.clear();
            assert!(t.insert(&slots[0], 0, &slots));
            assert!(t.insert(&slots[1], 1, &slots));
            assert!(!t.insert(&slots[0], 2, &slots));
            assert!(!t.insert(&slots[1], 3, &slots));
        }
    }
}
