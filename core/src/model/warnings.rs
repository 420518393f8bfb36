//! Structured, counted warnings: one entry per kind with a count and the first example, never
//! one line per event.

#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct Warning {
    /// Stable machine-readable kind, e.g. "unmatched_end".
    pub kind: String,
    /// How often it happened.
    pub count: u64,
    /// Human-readable description of the first occurrence.
    pub example: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct Warnings {
    pub entries: Vec<Warning>,
}

impl Warnings {
    /// Count one occurrence of `kind`; `example` is only evaluated for the first one.
    pub fn add(&mut self, kind: &str, example: impl FnOnce() -> String) {
        self.add_n(kind, 1, example)
    }
    pub fn add_n(&mut self, kind: &str, n: u64, example: impl FnOnce() -> String) {
        if n == 0 {
            return;
        }
        if let Some(w) = self.entries.iter_mut().find(|w| w.kind == kind) {
            w.count += n;
        } else {
            self.entries.push(Warning { kind: kind.to_string(), count: n, example: example() });
        }
    }
    /// Total number of occurrences.
    pub fn total(&self) -> u64 {
        self.entries.iter().map(|w| w.count).sum()
    }
    pub fn count_of(&self, kind: &str) -> u64 {
        self.entries.iter().find(|w| w.kind == kind).map_or(0, |w| w.count)
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    pub fn merge(&mut self, other: &Warnings) {
        for w in &other.entries {
            let ex = w.example.clone();
            self.add_n(&w.kind, w.count, || ex);
        }
    }
}
