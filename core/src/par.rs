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
/// while the calling thread reads `reader` in `chunk`-byte pieces into a queue of two ([`Feed`]):
/// reading (`reader` is tied to the calling thread: it need not be `Send`) overlaps the parse.
/// `f`'s progress reports are relayed to `progress` on the calling thread between reads (a
/// `false` from it cancels `f` at its next report). Without the feature: `f(reader, progress)`.
/// The bytes `f` sees are the same either way.
pub fn with_read_ahead<T: Send + 'static>(
    reader: &mut dyn std::io::Read,
    chunk: usize,
    progress: &mut dyn crate::import::error::Progress,
    f: impl FnOnce(&mut dyn std::io::Read, &mut dyn crate::import::error::Progress) -> T + Send + 'static,
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
pub use read_ahead::Feed;

#[cfg(feature = "rayon")]
mod read_ahead {
    use crate::import::error::Progress;
    use std::io::{self, Read};
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
    use std::sync::Arc;

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

    /// The consumer's progress, kept for the sending thread to pass on, and its cancel flag.
    #[derive(Default)]
    struct Relay {
        done: AtomicU64,
        total: AtomicU64,
        cancel: AtomicBool,
    }

    impl Progress for &Relay {
        fn report(&mut self, done: u64, total: u64) -> bool {
            self.total.store(total, Ordering::Relaxed);
            self.done.store(done, Ordering::Relaxed);
            !self.cancel.load(Ordering::Relaxed)
        }
    }

    /// A consumer running on the pool over the bytes this thread sends it: the read-ahead of
    /// [`super::with_read_ahead`], and of the browser worker's asynchronous reads (which cannot
    /// be a blocking `Read`). At most two pieces wait in the queue; [`Feed::send`] blocks while
    /// it is full.
    pub struct Feed<T> {
        tx: Option<SyncSender<io::Result<Vec<u8>>>>,
        result: Receiver<std::thread::Result<T>>,
        relay: Arc<Relay>,
        last: (u64, u64),
    }

    impl<T: Send + 'static> Feed<T> {
        /// Start `f` on the pool, reading what is sent.
        pub fn spawn(f: impl FnOnce(&mut dyn Read, &mut dyn Progress) -> T + Send + 'static) -> Feed<T> {
            let (tx, rx) = sync_channel::<io::Result<Vec<u8>>>(2);
            let (result_tx, result) = sync_channel(1);
            let relay = Arc::new(Relay::default());
            let theirs = Arc::clone(&relay);
            rayon::spawn(move || {
                let mut r = ChannelReader { rx, cur: Vec::new(), pos: 0 };
                let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut r, &mut &*theirs)));
                // dropping `r` closes the queue: the sending side's next send fails
                drop(r);
                let _ = result_tx.send(out);
            });
            Feed { tx: Some(tx), result, relay, last: (u64::MAX, u64::MAX) }
        }

        /// Send the next piece (or a read error), then pass the consumer's progress on to
        /// `progress`. False when the consumer has stopped reading (it failed, or refused the
        /// input): send no more, [`Feed::finish`] says why.
        pub fn send(&mut self, piece: io::Result<Vec<u8>>, progress: &mut dyn Progress) -> bool {
            let sent = self.tx.as_ref().is_some_and(|tx| tx.send(piece).is_ok());
            let now = (self.relay.done.load(Ordering::Relaxed), self.relay.total.load(Ordering::Relaxed));
            if now != self.last && now.1 > 0 {
                self.last = now;
                if !progress.report(now.0, now.1) {
                    self.relay.cancel.store(true, Ordering::Relaxed);
                }
            }
            sent
        }

        /// End of input: wait for the consumer's result (a panic in it resumes here).
        pub fn finish(mut self) -> T {
            drop(self.tx.take());
            match self.result.recv() {
                Ok(Ok(t)) => t,
                Ok(Err(panic)) => std::panic::resume_unwind(panic),
                // the job always sends its result (a panic is caught and sent too)
                Err(_) => unreachable!("read-ahead consumer finished without a result"),
            }
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

    pub fn run<T: Send + 'static>(
        reader: &mut dyn Read,
        chunk: usize,
        progress: &mut dyn Progress,
        f: impl FnOnce(&mut dyn Read, &mut dyn Progress) -> T + Send + 'static,
    ) -> T {
        let mut feed = Feed::spawn(f);
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
            if !feed.send(item, progress) || failed {
                break;
            }
        }
        feed.finish()
    }
}
