//! Resource limits for hostile or unlucky input (issue 7 §2), in one place. The browser's parser
//! worker is a wasm32 instance: at most 4 GiB of linear memory, and the input, the model and its
//! encoded copy are alive at once, so every budget stays well below that.

use crate::import::error::ImportError;

/// Total bytes that containers (gzip, zip, and the NEFF's own tar.gz) may expand to, all members
/// of one input together. Beyond it the import fails with a typed "expands to more than" error.
pub const MAX_EXPANDED_BYTES: u64 = 1536 << 20;

/// JSON input larger than this is refused up front: the JSON importers hold the text, the model
/// and (in the browser) its encoded copy at once, about 2.5 bytes per input byte.
pub const MAX_JSON_INPUT_BYTES: u64 = 1_500_000_000;

/// Bytes of JSON text a NEFF's members may parse into trees, all members together (a member
/// parsed twice counts twice). A parsed tree takes up to ~16× its text, so this keeps the trees
/// under ~256 MiB; the sample NEFFs hold about 110 KB of JSON.
pub const NEFF_JSON_BUDGET_BYTES: u64 = 16 << 20;

/// Refuse JSON text above `limit` bytes up front, before any parsing: the browser worker would
/// die holding it (until streaming import lands). Binary formats pass; JSON is recognised by its
/// first non-blank byte (after a UTF-8 byte-order mark).
pub fn check_json_size(bytes: &[u8], limit: u64) -> Result<(), crate::import::error::ImportError> {
    if bytes.len() as u64 <= limit {
        return Ok(());
    }
    let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let first = b.iter().take(4096).find(|c| !c.is_ascii_whitespace());
    if matches!(first, Some(b'{') | Some(b'[')) {
        return Err(crate::import::error::ImportError::TooLarge { what: "this JSON file is".into(), limit });
    }
    Ok(())
}

pub use crate::units::{human_bytes, thousands};

/// The memory budget of one import (issue 37 §2): what the importers build from their input,
/// charged as they build it, against one limit in bytes. The limit is
/// `max(`[`BUDGET_MIN_BYTES`]`, `[`BUDGET_BYTES_PER_INPUT_BYTE`]` × input bytes)`, where the input
/// is the files as given (before any decompression), so that the peak of any import stays under
/// `max(1.5 GiB, 12 × input)`: the charges below are *peak* costs (the builder's columns with
/// their growth slack, and `finish`'s sort and layout copies), the input itself is the twelfth
/// byte, and what is charged is freed or turned into the model before anything else is built.
/// The charges are estimates of peak costs, mostly above what is really allocated: real peaks
/// measured in `core/tests/memory_budget.rs` stay under `max(1.5 GiB, 12 × input)` with a
/// 1.5 GiB floor. The floor was 768 MiB at first; that refused a 70 MB gzip of a 600 MB Kineto
/// trace whose real import peaks at 1.05–1.15 GB (the expansion is charged in full, and the
/// per-item charges run ~2× real for JSON traces), so it is the bound itself. A JSON tree
/// (rocprof, TensorBoard-Neuron ops, XProf tools) is charged 44 bytes per byte of text: an
/// 80 MB rocprof file's tree peaked at 3.3 GB (41.7× its text). Valid uncompressed sample
/// files charge 1.5–4× their size (gzip-compressed ones ~30–50× their compressed size, the
/// expansion included), well under the 10× of large inputs.
///
/// Who charges: [`crate::model::TraceBuilder`] charges every slice, instant, counter sample,
/// flow, argument and interned string it is given (so every importer is covered); the registry
/// charges what containers expanded; Perfetto its events before the time sort and its
/// decompressed `compressed_packets` while held, and checks each packet's wire bytes before
/// decoding it; DLProf CSV its fields and cells; TensorBoard-Neuron ops and XProf tools their
/// JSON tree and each table's cells before making them; rocprof its JSON tree up front.
///
/// Crossing the limit is [`ImportError::OverBudget`], which names what was too large. Besides
/// bytes, a few counts have limits of their own where one item of a file could otherwise make a
/// huge amount of work (flows on one slice: [`MAX_FLOWS_PER_EVENT`]).
#[derive(Debug, Clone)]
pub struct Budget {
    limit: u64,
    used: u64,
    /// Items charged per kind (for the message), by [`Item`] index.
    counts: [u64; ITEM_KINDS],
}

/// Smallest byte limit of a [`Budget`] (inputs under ~160 MB get this much): the peak bound's
/// own floor.
pub const BUDGET_MIN_BYTES: u64 = 1536 << 20;
/// Bytes of budget per input byte for large inputs (a valid trace's model is 1–8× its file).
pub const BUDGET_BYTES_PER_INPUT_BYTE: u64 = 10;
/// Flows that may start or end on one event: real traces have a handful (a hostile Perfetto
/// packet carried 21 M flow ids on one slice, 1.5 GB of flows).
pub const MAX_FLOWS_PER_EVENT: u64 = 65_536;

const ITEM_KINDS: usize = 13;

/// What the budget charges for, with its peak cost in bytes per item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// A slice: 28 bytes of builder columns (×2 growth slack) and `finish`'s order, depth, map,
    /// final columns and LOD entries.
    Slices,
    /// An instant: 20 bytes of columns, ×2 slack, and its sorted copy.
    Instants,
    /// A counter sample: 16 bytes, ×2 slack.
    CounterSamples,
    /// A flow: the builder's 56-byte record ×2 slack, and its bound copy.
    Flows,
    /// One argument entry (key, tag, value: 13 bytes) ×2 slack, and its index share.
    Args,
    /// Bytes of interned text, and a string's table entry.
    StringBytes,
    /// An event an importer holds before the builder gets it (Perfetto sorts its events by time
    /// first): charged by the importer at its own size, with growth slack and the sort's buffer.
    Events,
    /// Repeated messages of one protobuf record, as decoded (charged by the importer at their
    /// size; checked, not held: the record is dropped once read).
    Messages,
    /// A typed table cell (report tables: DLProf CSV, TensorBoard-Neuron ops, XProf tools): 32
    /// bytes, with slack for the row vectors; their text is charged besides.
    TableCells,
    /// Decompressed bytes held while they are read (e.g. Perfetto `compressed_packets`).
    ExpandedBytes,
    /// Values in a packed protobuf field, as decoded (8 bytes each, ×2 growth slack).
    PackedValues,
    /// A byte of JSON text parsed whole into a `serde_json::Value` tree, which takes up to ~20
    /// bytes per byte of text (numbers and short strings; XProf tools, TensorBoard
    /// ops). Charged before parsing.
    JsonText,
    /// Typed records an importer reads and holds until the part of the file they belong to is
    /// read (rocprof holds a tool node's records: its API calls are built before the dispatches
    /// they launch, whatever the order in the file). Charged at their real size, capacity
    /// included, and released once built.
    HeldRecords,
}

impl Item {
    const ALL: [Item; ITEM_KINDS] = [
        Item::Slices,
        Item::Instants,
        Item::CounterSamples,
        Item::Flows,
        Item::Args,
        Item::StringBytes,
        Item::Events,
        Item::Messages,
        Item::TableCells,
        Item::ExpandedBytes,
        Item::PackedValues,
        Item::JsonText,
        Item::HeldRecords,
    ];
    /// Peak bytes per item (nominal for [`Item::Events`] and [`Item::Messages`]: the importer
    /// passes their real size).
    pub const fn cost(self) -> u64 {
        match self {
            Item::Slices => 128,
            Item::Instants => 64,
            Item::CounterSamples => 32,
            Item::Flows => 160,
            Item::Args => 32,
            Item::StringBytes => 2,
            Item::Events => 256,
            Item::Messages => 256,
            Item::TableCells => 48,
            Item::ExpandedBytes => 1,
            Item::PackedValues => 16,
            Item::JsonText => 44,
            Item::HeldRecords => 1,
        }
    }
    /// The plural noun of the message.
    pub const fn noun(self) -> &'static str {
        match self {
            Item::Slices => "slices",
            Item::Instants => "instants",
            Item::CounterSamples => "counter samples",
            Item::Flows => "flows",
            Item::Args => "arguments",
            Item::StringBytes => "bytes of names and text",
            Item::Events => "events held for sorting",
            Item::Messages => "repeated protobuf messages in one record",
            Item::TableCells => "table cells",
            Item::ExpandedBytes => "decompressed bytes",
            Item::PackedValues => "packed protobuf values",
            Item::JsonText => "bytes of JSON read whole into a tree (~44 bytes of memory each)",
            Item::HeldRecords => "records read and held until their part of the file is read",
        }
    }
    fn index(self) -> usize {
        Item::ALL.iter().position(|&i| i == self).unwrap_or(0)
    }
}

impl Default for Budget {
    /// No limit (a builder made outside the registry: tests, tools).
    fn default() -> Self {
        Budget::with_limit(u64::MAX)
    }
}

impl Budget {
    /// The budget of an import of `input_bytes` (the files as given).
    pub fn for_input(input_bytes: u64) -> Budget {
        Budget::with_limit(BUDGET_MIN_BYTES.max(input_bytes.saturating_mul(BUDGET_BYTES_PER_INPUT_BYTE)))
    }
    pub fn with_limit(limit: u64) -> Budget {
        Budget { limit, used: 0, counts: [0; ITEM_KINDS] }
    }
    pub fn limit(&self) -> u64 {
        self.limit
    }
    pub fn used(&self) -> u64 {
        self.used
    }
    /// Bytes that may still be charged.
    pub fn left(&self) -> u64 {
        self.limit.saturating_sub(self.used)
    }
    /// How many of `item` were charged so far.
    pub fn count(&self, item: Item) -> u64 {
        self.counts[item.index()]
    }
    /// Whether `n` more of `item` would fit (charges nothing).
    pub fn fits(&self, item: Item, n: u64) -> bool {
        n.saturating_mul(item.cost()) <= self.left()
    }
    /// Charge `n` of `item` at its [`Item::cost`], or fail naming what did not fit.
    pub fn charge(&mut self, item: Item, n: u64) -> Result<(), ImportError> {
        self.charge_bytes(item, n, n.saturating_mul(item.cost()))
    }
    /// Charge `n` of `item` costing `bytes` in all.
    pub fn charge_bytes(&mut self, item: Item, n: u64, bytes: u64) -> Result<(), ImportError> {
        let k = item.index();
        self.counts[k] = self.counts[k].saturating_add(n);
        self.used = self.used.saturating_add(bytes);
        if self.used > self.limit {
            return Err(self.exceeded(item));
        }
        Ok(())
    }
    /// Give back bytes charged for something that is freed (decompressed buffers once read).
    pub fn release(&mut self, item: Item, n: u64, bytes: u64) {
        let k = item.index();
        self.counts[k] = self.counts[k].saturating_sub(n);
        self.used = self.used.saturating_sub(bytes);
    }
    /// Check that `n` of `item` would fit right now, without charging them (for something built
    /// and dropped at once, e.g. a decoded protobuf message): the error says how many there are.
    pub fn check(&self, item: Item, n: u64) -> Result<(), ImportError> {
        self.check_bytes(item, n, n.saturating_mul(item.cost()))
    }
    /// [`Self::check`] of `n` items costing `bytes` in all.
    pub fn check_bytes(&self, item: Item, n: u64, bytes: u64) -> Result<(), ImportError> {
        if bytes <= self.left() {
            return Ok(());
        }
        Err(ImportError::OverBudget {
            count: n,
            what: item.noun().to_string(),
            limit: format!("{} of memory for one import", human_bytes(self.limit)),
        })
    }
    /// The error for crossing the limit while charging `item`.
    fn exceeded(&self, item: Item) -> ImportError {
        ImportError::OverBudget {
            count: self.count(item),
            what: item.noun().to_string(),
            limit: format!(
                "{} of memory for one import, with everything built before them (record a shorter \
                 profile, or fewer events)",
                human_bytes(self.limit)
            ),
        }
    }
}

/// Most bytes a `.loupe` file of `file_bytes` may declare for its model payload: a third of the
/// import budget ([`Budget::for_input`]), as the payload and the model decoded from it (~1.5×
/// the payload) are held at once. Checked on the header, before anything is inflated.
pub fn max_loupe_payload(file_bytes: u64) -> u64 {
    Budget::for_input(file_bytes).limit() / 3
}

/// A count limit of its own ("20,971,519 flows on one slice exceed the limit of 65,536").
pub fn check_count(count: u64, what: &str, limit: u64) -> Result<(), ImportError> {
    if count <= limit {
        return Ok(());
    }
    Err(ImportError::OverBudget { count, what: what.to_string(), limit: thousands(limit) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(human_bytes(MAX_EXPANDED_BYTES), "1.5 GiB");
        assert_eq!(human_bytes(NEFF_JSON_BUDGET_BYTES), "16 MiB");
        assert_eq!(human_bytes(100), "100 bytes");
        assert_eq!(human_bytes(1536), "1.5 KiB");
    }

    #[test]
    fn budget_charges_and_names_what_is_too_large() {
        assert_eq!(thousands(20_971_519), "20,971,519");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(Budget::for_input(1).limit(), BUDGET_MIN_BYTES);
        assert_eq!(Budget::for_input(1 << 30).limit(), 10 << 30);
        assert_eq!(human_bytes(BUDGET_MIN_BYTES), "1.5 GiB");
        let mut b = Budget::with_limit(1000);
        b.charge(Item::Slices, 7).unwrap();
        assert_eq!(b.used(), 896);
        let e = b.charge(Item::Flows, 1).unwrap_err().to_string();
        assert_eq!(
            e,
            "1 flows exceed the limit of 1000 bytes of memory for one import, with everything built \
             before them (record a shorter profile, or fewer events)"
        );
        b.release(Item::Flows, 1, 160);
        assert_eq!(b.used(), 896);
        assert!(b.check(Item::PackedValues, 100).is_err());
        let e = check_count(20_971_519, "flows on one slice", MAX_FLOWS_PER_EVENT).unwrap_err();
        assert_eq!(e.to_string(), "20,971,519 flows on one slice exceed the limit of 65,536");
        assert!(check_count(3, "x", 3).is_ok());
        assert!(Budget::default().charge(Item::Slices, u64::MAX / 256).is_ok());
    }

    #[test]
    fn json_size() {
        assert!(check_json_size(b"  [1,2,3]", 100).is_ok());
        let e = check_json_size(b"  [1,2,3]", 4).unwrap_err();
        assert_eq!(e.to_string(), "this JSON file is more than 4 bytes (the most Loupe can hold in memory)");
        assert!(check_json_size(b"\xEF\xBB\xBF{\"a\":1}", 4).is_err());
        assert!(check_json_size(b"\x05\x00\x00\x00binary", 4).is_ok());
        let e = check_json_size(b"{}", 0).unwrap_err().to_string();
        assert!(e.contains("more than 0 bytes"), "{e}");
        let msg = crate::import::error::ImportError::TooLarge {
            what: "this JSON file is".into(),
            limit: MAX_JSON_INPUT_BYTES,
        }
        .to_string();
        assert_eq!(msg, "this JSON file is more than 1.4 GiB (the most Loupe can hold in memory)");
    }
}
