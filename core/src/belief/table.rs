//! The deduplication index: open addressing over caller-provided `u64` slots.
//!
//! An entry packs a 24-bit fingerprint, an 8-bit generation and a 32-bit slot
//! index. Entries from an older generation count as empty, so starting a new
//! deduplication pass is O(1); the table is only wiped when the generation
//! counter wraps (every 255 passes).

use super::hyp::Hypothesis;
use crate::prefetch::prefetch;

/// Deduplicates hypotheses stored elsewhere, by index.
pub struct Table<'s> {
    entries: &'s mut [u64],
    mask: usize,
    generation: u8,
}

const GEN_SHIFT: u32 = 32;
const FP_SHIFT: u32 = 40;

impl<'s> Table<'s> {
    /// A table over `entries`; only the largest power-of-two prefix is used.
    pub fn new(entries: &'s mut [u64]) -> Table<'s> {
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
    pub fn into_entries(self) -> &'s mut [u64] {
        self.entries
    }

    /// How many entries are in use for indexing.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Starts a new pass: every entry becomes empty.
    pub fn clear(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.entries.fill(0);
            self.generation = 1;
        }
    }

    /// If an equal hypothesis is already indexed, returns `false`. Otherwise
    /// records that `h` will live at `slots[index]` and returns `true`.
    /// The caller keeps the load at or under one half.
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
        let fp = hash >> FP_SHIFT;
        let gen_bits = (self.generation as u64) << GEN_SHIFT;
        let mut pos = hash as usize & self.mask;
        loop {
            let e = self.entries[pos];
            if (e >> GEN_SHIFT) as u8 != self.generation {
                self.entries[pos] = fp << FP_SHIFT | gen_bits | index as u32 as u64;
                return true;
            }
            if e >> FP_SHIFT == fp && slots[e as u32 as usize] == *h {
                return false;
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
        if (e >> GEN_SHIFT) as u8 == self.generation && e >> FP_SHIFT == hash >> FP_SHIFT {
            prefetch(slots, e as u32 as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_duplicates_across_generations() {
        let mut mem = [0u64; 64];
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
    }
}
