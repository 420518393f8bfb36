//! Data parallelism for the import's independent stages: rayon with feature `rayon` (natively
//! its global pool; in the browser the pool the app's threaded worker starts), a plain loop
//! without. Every function gives the same result for any number of threads, so the model does
//! not depend on the pool (tested with 1 and 4 threads).

/// `items.map(f)`, in order.
pub fn map_vec<T: Send, U: Send>(items: Vec<T>, f: impl Fn(T) -> U + Sync + Send) -> Vec<U> {
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        // one task per item: the items here are tracks, few and uneven
        items.into_par_iter().with_max_len(1).map(f).collect()
    }
    #[cfg(not(feature = "rayon"))]
    {
        items.into_iter().map(f).collect()
    }
}

/// Below this many elements a sort stays on the calling thread.
#[cfg(feature = "rayon")]
const PAR_SORT_MIN: usize = 64 << 10;

/// `v.sort_unstable_by(cmp)`. `cmp` must be a total order without ties between distinct
/// elements (all callers break ties by index), so the unstable sort's result is unique and the
/// parallel sort gives the same order.
pub fn sort_unstable_by<T: Send>(v: &mut [T], cmp: impl Fn(&T, &T) -> std::cmp::Ordering + Sync) {
    #[cfg(feature = "rayon")]
    if v.len() >= PAR_SORT_MIN {
        use rayon::slice::ParallelSliceMut;
        v.par_sort_unstable_by(cmp);
        return;
    }
    v.sort_unstable_by(cmp)
}

/// The number of threads the parallel stages use (1 without feature `rayon`).
pub fn threads() -> usize {
    #[cfg(feature = "rayon")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "rayon"))]
    {
        1
    }
}

/// `(a(), b())`, the two at once with feature `rayon`.
pub fn join<RA: Send, RB: Send>(a: impl FnOnce() -> RA + Send, b: impl FnOnce() -> RB + Send) -> (RA, RB) {
    #[cfg(feature = "rayon")]
    {
        rayon::join(a, b)
    }
    #[cfg(not(feature = "rayon"))]
    {
        (a(), b())
    }
}
