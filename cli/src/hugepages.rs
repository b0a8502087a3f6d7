//! Large buffers backed by 2 MiB pages where the system allows it.
//!
//! The belief's slots and deduplication table are tens of MB read at
//! random; with 4 KiB pages nearly every access also misses the TLB (about
//! 11% of the belief updates' time on the 1M fixture, docs/PERF.md). Linux backs memory with transparent huge pages when asked
//! (`madvise(MADV_HUGEPAGE)`, the default "madvise" mode); elsewhere, or if
//! the kernel declines, the buffer is an ordinary one.

/// A vector of `n` copies of `value`, asking for huge pages before any of it
/// is touched.
pub fn filled<T: Clone>(n: usize, value: T) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(n);
    advise_huge(v.as_ptr().cast(), n * std::mem::size_of::<T>());
    v.resize(n, value);
    v
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn advise_huge(ptr: *const u8, len: usize) {
    const HUGE: usize = 2 << 20;
    // Only whole 2 MiB pages inside the allocation.
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + len) & !(HUGE - 1);
    if end <= start {
        return;
    }
    // SAFETY: `start..end` lies inside an allocation this process owns (the
    // vector's capacity) and is page-aligned. MADV_HUGEPAGE changes only how
    // the kernel backs those pages, never their contents or whether they are
    // mapped, so no Rust value or reference is affected. A failure (THP
    // disabled, an old kernel) leaves ordinary pages, which is fine.
    unsafe {
        libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_ptr: *const u8, _len: usize) {}

#[cfg(test)]
mod tests {
    #[test]
    fn filled_is_filled() {
        let v = super::filled(3 << 20, 7u64);
        assert_eq!(v.len(), 3 << 20);
        assert_eq!(v.capacity(), 3 << 20);
        assert!(v.iter().all(|&x| x == 7));
        assert!(super::filled(0, 1u8).is_empty());
    }
}
