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

/// Run `f` over the bytes of `reader`, reading ahead. With feature `rayon`, `f` runs on the pool
/// while the calling thread reads `reader` in `chunk`-byte pieces into a queue of two: reading
/// (in the browser, `FileReaderSync` on the worker's own thread, which `reader` is tied to: it
/// need not be `Send`) overlaps the parse. `f`'s progress reports are relayed to `progress` on
/// the calling thread between reads (a `false` from it cancels `f` at its next report). Without
/// the feature: `f(reader, progress)`. The bytes `f` sees are the same either way.
pub fn with_read_ahead<T: Send>(
    reader: &mut dyn std::io::Read,
    chunk: usize,
    progress: &mut dyn crate::import::Progress,
    f: impl FnOnce(&mut dyn std::io::Read, &mut dyn crate::import::Progress) -> T + Send,
) -> T {
    // on a pool thread the reading loop could block the very thread the consumer needs
    #[cfg(feature = "rayon")]
    if rayon::current_thread_index().is_none() {
        return read_ahead::run(reader, chunk.max(1), progress, f);
    }
    let _ = chunk;
    f(reader, progress)
}

#[cfg(feature = "rayon")]
mod read_ahead {
    use crate::import::Progress;
    use std::io::{self, Read};
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::mpsc::{sync_channel, Receiver};

    /// The consumer's end: a `Read` over the chunks in the queue.
    struct ChannelReader {
        rx: Receiver<io::Result<Vec<u8>>>,
        cur: Vec<u8>,
        pos: usize,
    }

    impl Read for ChannelReader {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            while self.pos == self.cur.len() {
                match self.rx.recv() {
                    Ok(Ok(v)) => {
                        self.cur = v;
                        self.pos = 0;
                    }
                    Ok(Err(e)) => return Err(e),
                    // the reading side is done: end of input
                    Err(_) => return Ok(0),
                }
            }
            let n = out.len().min(self.cur.len() - self.pos);
            out[..n].copy_from_slice(&self.cur[self.pos..self.pos + n]);
            self.pos += n;
            Ok(n)
        }
    }

    /// The consumer's progress: kept for the reading thread to pass on.
    struct Relay<'a> {
        done: &'a AtomicU64,
        total: &'a AtomicU64,
        cancel: &'a AtomicBool,
    }

    impl Progress for Relay<'_> {
        fn report(&mut self, done: u64, total: u64) -> bool {
            self.total.store(total, Ordering::Relaxed);
            self.done.store(done, Ordering::Relaxed);
            !self.cancel.load(Ordering::Relaxed)
        }
    }

    /// Fill `buf` from `r` as far as it goes (short only at the end of input).
    fn fill(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
        let mut got = 0;
        while got < buf.len() {
            match r.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(got)
    }

    pub fn run<T: Send>(
        reader: &mut dyn Read,
        chunk: usize,
        progress: &mut dyn Progress,
        f: impl FnOnce(&mut dyn Read, &mut dyn Progress) -> T + Send,
    ) -> T {
        let (tx, rx) = sync_channel::<io::Result<Vec<u8>>>(2);
        let done = AtomicU64::new(0);
        let total = AtomicU64::new(0);
        let cancel = AtomicBool::new(false);
        let mut result: Option<T> = None;
        rayon::in_place_scope(|s| {
            let out = &mut result;
            let relay = Relay { done: &done, total: &total, cancel: &cancel };
            s.spawn(move |_| {
                let mut r = ChannelReader { rx, cur: Vec::new(), pos: 0 };
                let mut relay = relay;
                *out = Some(f(&mut r, &mut relay));
                // dropping `r` closes the queue: the reading loop below stops at its next send
            });
            let mut last = (u64::MAX, u64::MAX);
            loop {
                let mut buf = vec![0u8; chunk];
                let item = match fill(reader, &mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        buf.truncate(n);
                        Ok(buf)
                    }
                    Err(e) => Err(e),
                };
                let failed = item.is_err();
                if tx.send(item).is_err() || failed {
                    break;
                }
                let now = (done.load(Ordering::Relaxed), total.load(Ordering::Relaxed));
                if now != last && now.1 > 0 {
                    last = now;
                    if !progress.report(now.0, now.1) {
                        cancel.store(true, Ordering::Relaxed);
                    }
                }
            }
            drop(tx);
        });
        match result {
            Some(r) => r,
            // the spawned job always stores its result before the scope ends (a panic in it
            // would have propagated out of the scope)
            None => unreachable!("read-ahead consumer finished without a result"),
        }
    }
}
