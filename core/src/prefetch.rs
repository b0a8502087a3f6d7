//! A hint to the memory system that a slice element will be read soon.
//!
//! The belief's updates make one or two random accesses per hypothesis into
//! tables of tens of MB, and spend most of their time waiting for them. A
//! load issued early overlaps its miss with others only while the processor
//! can look far enough ahead; a prefetch instruction retires at once, so a
//! loop of them puts as many misses in flight as the memory system allows.
//! On this crate's reference machine that took a random table insert from
//! about 21 ns to 13 ns (see docs/PERF.md).
//!
//! This module holds the only `unsafe` in the crate: the x86-64 prefetch
//! intrinsic is a `#[target_feature(enable = "sse")]` function, which Rust
//! only lets safe code call from functions with the same feature.
#![allow(unsafe_code)]

/// Asks for `slice[i]` to be brought into the cache; does nothing else
/// (an index past the end is harmless: nothing is read).
#[inline(always)]
pub(crate) fn prefetch<T: Copy>(slice: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let p = slice.as_ptr().wrapping_add(i).cast::<i8>();
        // SAFETY: every x86-64 processor has SSE, which is all
        // `_mm_prefetch` requires. A prefetch is only a hint: it never
        // faults, reads nothing into the program's state and writes nothing,
        // whatever the address (`wrapping_add` keeps forming it defined).
        unsafe { core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // Elsewhere, an ordinary load that the optimiser must keep.
        if let Some(&x) = slice.get(i) {
            core::hint::black_box(x);
        }
    }
}
