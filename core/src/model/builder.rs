//! [`TraceBuilder`]: the only write path into the model. Importers add groups, tracks, slices,
//! instants, counters and flows in any order; [`TraceBuilder::finish`] sorts, assigns depths,
//! spills improperly nested slices to an overlap track, binds flows to slices, builds the LOD
//! indexes and returns the immutable [`Trace`].

use super::*;
use crate::import::error::ImportError;
use crate::limits::{Budget, Item};
use crate::strings::Interner;

/// A slice as added to the builder (insertion index within its track). Valid until `finish`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SliceHandle {
    pub track: TrackId,
    pub index: u32,
}

/// A domain shape of one track's table ([`TraceBuilder::domain_shape`]). Valid until `finish`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DomainShapeRef {
    track: TrackId,
    shape: u32,
}

/// One end of a flow, to be bound to a slice by `finish`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowEnd {
    /// A slice added through the builder.
    Slice(SliceHandle),
    /// The deepest slice on `track` enclosing `ts_ns`.
    Enclosing { track: TrackId, ts_ns: i64 },
    /// The enclosing slice, or else the next slice that begins at or after `ts_ns`.
    EnclosingOrNext { track: TrackId, ts_ns: i64 },
}

#[derive(Debug, Default)]
struct TrackBuild {
    start_ns: Vec<i64>,
    dur_ns: Vec<i64>,
    name: Vec<StrId>,
    category: Vec<StrId>,
    args: Vec<ArgsId>,
    instants: InstantColumns,
    /// Typed domain fields by insertion index, as shapes and columns made when needed
    /// ([`DomainBuild`]); shorter than the slices when the tail has none. The finished track
    /// keeps them as [`DomainColumns`] (built by `DomainWriter`).
    domain: DomainBuild,
}

impl TrackBuild {
    fn domain_of(&self, i: usize) -> SliceDomain {
        self.domain.get(i)
    }
}

/// One track after `finish`'s per-track work.
struct LaidTrack {
    track: Track,
    /// insertion index -> final (track, index)
    map: TrackMap,
    /// Slices that could not be laid out here (improperly nested, or past the lane limit), as a
    /// build of their own and their insertion indices.
    spill: Option<(TrackBuild, Vec<u32>)>,
}

/// Where `finish` put one track's slices, by insertion index (for binding flows).
enum TrackMap {
    /// Every slice kept its insertion index on its track (a track whose slices came in order,
    /// at one depth: most tracks of a device capture), so no table is held.
    Identity(TrackId, u32),
    /// The final index on the track, `u32::MAX` for slices moved to a spill track (`moved`).
    Index { track: TrackId, index: Vec<u32>, moved: crate::strings::FxHashMap<u32, SliceRef> },
}

impl TrackMap {
    fn get(&self, i: usize) -> Option<SliceRef> {
        match self {
            TrackMap::Identity(track, n) => {
                (i < *n as usize).then_some(SliceRef { track: *track, index: i as u32 })
            }
            TrackMap::Index { track, index, moved } => match *index.get(i)? {
                u32::MAX => moved.get(&(i as u32)).copied(),
                k => Some(SliceRef { track: *track, index: k }),
            },
        }
    }
    /// Slice `i` was moved to `to` (a spill track).
    fn moved(&mut self, i: u32, to: SliceRef) {
        if let TrackMap::Index { moved, .. } = self {
            moved.insert(i, to);
        }
    }
}

/// Slices' depths (lanes), kept only once one of them is not 0.
struct Depths {
    v: Vec<u16>,
    n: usize,
}

impl Depths {
    fn new(n: usize) -> Depths {
        Depths { v: Vec::new(), n }
    }
    #[inline]
    fn get(&self, i: usize) -> u16 {
        self.v.get(i).copied().unwrap_or(0)
    }
    #[inline]
    fn set(&mut self, i: usize, d: u16) {
        if self.v.is_empty() {
            if d == 0 {
                return;
            }
            self.v = vec![0; self.n];
        }
        self.v[i] = d;
    }
    /// Whether every depth is 0.
    fn all_zero(&self) -> bool {
        self.v.is_empty()
    }
}

/// Slice indices `0..n` in `order`, or in insertion order when there is none.
fn in_order(order: &Option<Vec<u32>>, n: usize) -> impl Iterator<Item = u32> + '_ {
    let (a, b) = match order {
        Some(o) => (Some(o.iter().copied()), None),
        None => (None, Some(0..n as u32)),
    };
    a.into_iter().flatten().chain(b.into_iter().flatten())
}

/// `v` with no room beyond its length (as a column collected from an iterator has).
fn exact<T>(mut v: Vec<T>) -> Vec<T> {
    v.shrink_to_fit();
    v
}

/// Sort track `ti`'s slices, assign depths, split off the spill, write the depth-major columns
/// and build the LOD index. Pure: runs on any thread. A track whose slices were added in the
/// final order at one depth (the sort's order, nothing nested or spilled) keeps the builder's
/// columns as they are; otherwise the columns are permuted one at a time, each builder column
/// freed once copied, so the track is held about once and a column beside it, not twice.
fn lay_out_track(ti: usize, mut track: Track, mut tb: TrackBuild) -> LaidTrack {
    let n = tb.start_ns.len();
    let tid = TrackId(ti as u32);
    // (start, longer first, insertion index): a total order, so slices already in it need no sort
    let sorted = {
        let (s, d) = (&tb.start_ns, &tb.dur_ns);
        (1..n).all(|i| s[i - 1] < s[i] || (s[i - 1] == s[i] && d[i - 1] >= d[i]))
    };
    let order: Option<Vec<u32>> = (!sorted).then(|| {
        let mut order: Vec<u32> = (0..n as u32).collect();
        let s = &tb.start_ns;
        let d = &tb.dur_ns;
        crate::par::sort_unstable_by(&mut order, |&a, &b| {
            let (a, b) = (a as usize, b as usize);
            s[a].cmp(&s[b]).then(d[b].cmp(&d[a])).then(a.cmp(&b))
        });
        order
    });
    let mut depth = Depths::new(n);
    let mut spilled: Vec<u32> = Vec::new();
    match track.layout {
        Layout::Nested => {
            let mut stack: Vec<i64> = Vec::new();
            for i in in_order(&order, n) {
                let i = i as usize;
                let s = tb.start_ns[i];
                let e = s.saturating_add(tb.dur_ns[i]);
                while let Some(&top) = stack.last() {
                    if top <= s {
                        stack.pop();
                    } else {
                        break;
                    }
                }
                if let Some(&top) = stack.last() {
                    if e > top {
                        spilled.push(i as u32);
                        continue;
                    }
                }
                if stack.len() >= u16::MAX as usize {
                    spilled.push(i as u32);
                    continue;
                }
                depth.set(i, stack.len() as u16);
                stack.push(e);
            }
        }
        Layout::Lanes => {
            assign_lanes(in_order(&order, n), &tb.start_ns, &tb.dur_ns, &mut depth, &mut spilled)
        }
    }
    let inst = std::mem::take(&mut tb.instants);
    track.instants = sort_instants(inst);
    if order.is_none() && spilled.is_empty() && depth.all_zero() {
        // already laid out: the builder's columns are the track's
        let domain = (!tb.domain.is_empty()).then(|| {
            let mut dc = domain::DomainWriter::for_build(&tb.domain, n);
            for i in 0..n {
                dc.push(&tb.domain, i);
            }
            dc.finish()
        });
        drop(tb.domain);
        let cols = SliceColumns {
            start_ns: exact(tb.start_ns),
            dur_ns: DurColumn::from(tb.dur_ns),
            name: IdColumn::from(exact(tb.name)),
            category: IdColumn::from(exact(tb.category)),
            args: exact(tb.args),
            depth_starts: if n == 0 { Vec::new() } else { vec![0, n as u32] },
            domain,
        };
        track.lod = LodIndex::build(&cols);
        track.slices = cols;
        return LaidTrack { track, map: TrackMap::Identity(tid, n as u32), spill: None };
    }
    let mut order = order.unwrap_or_else(|| (0..n as u32).collect());
    let mut index = vec![u32::MAX; n];
    let mut spill = None;
    if !spilled.is_empty() {
        let mut is_spilled = vec![false; n];
        for &i in &spilled {
            is_spilled[i as usize] = true;
        }
        order.retain(|&i| !is_spilled[i as usize]);
        let mut stb = TrackBuild::default();
        for &i in &spilled {
            let i = i as usize;
            stb.start_ns.push(tb.start_ns[i]);
            stb.dur_ns.push(tb.dur_ns[i]);
            stb.name.push(tb.name[i]);
            stb.category.push(tb.category[i]);
            stb.args.push(tb.args[i]);
            if !tb.domain.is_empty() {
                let d = tb.domain_of(i);
                let k = stb.start_ns.len() - 1;
                stb.domain.resize_default(k);
                stb.domain.push(d);
            }
        }
        spill = Some((stb, spilled));
    }
    // depth-major, start order within a depth (stable counting sort)
    let max_depth = order.iter().map(|&i| depth.get(i as usize) as usize).max().map_or(0, |d| d + 1);
    let mut counts = vec![0u32; max_depth + 1];
    for &i in &order {
        counts[depth.get(i as usize) as usize + 1] += 1;
    }
    for d in 1..counts.len() {
        counts[d] += counts[d - 1];
    }
    let depth_starts = counts.clone();
    let m = order.len();
    let mut final_order = vec![0u32; m];
    let mut cursor = counts;
    for &i in &order {
        let d = depth.get(i as usize) as usize;
        final_order[cursor[d] as usize] = i;
        cursor[d] += 1;
    }
    drop(order);
    drop(depth);
    for (k, &i) in final_order.iter().enumerate() {
        index[i as usize] = k as u32;
    }
    // one column at a time, each of the builder's freed once copied
    let at = |i: &u32| *i as usize;
    let start_ns: Vec<i64> = final_order.iter().map(|i| tb.start_ns[at(i)]).collect();
    drop(tb.start_ns);
    let mut dur_ns = DurColumn { narrow: Vec::with_capacity(m), wide: Vec::new() };
    for i in &final_order {
        dur_ns.push(tb.dur_ns[at(i)]);
    }
    drop(tb.dur_ns);
    let args: Vec<ArgsId> = final_order.iter().map(|i| tb.args[at(i)]).collect();
    drop(tb.args);
    let name = IdColumn::from(final_order.iter().map(|i| tb.name[at(i)]).collect::<Vec<_>>());
    drop(tb.name);
    let category = IdColumn::from(final_order.iter().map(|i| tb.category[at(i)]).collect::<Vec<_>>());
    drop(tb.category);
    let domain = (!tb.domain.is_empty()).then(|| {
        let mut dc = domain::DomainWriter::for_build(&tb.domain, m);
        for &i in &final_order {
            dc.push(&tb.domain, i as usize);
        }
        dc.finish()
    });
    drop(tb.domain);
    let cols = SliceColumns {
        start_ns,
        dur_ns,
        name,
        category,
        args,
        depth_starts: if m == 0 { Vec::new() } else { depth_starts },
        domain,
    };
    track.lod = LodIndex::build(&cols);
    track.slices = cols;
    LaidTrack { track, map: TrackMap::Index { track: tid, index, moved: Default::default() }, spill }
}

#[derive(Debug)]
struct FlowBuild {
    from: FlowEnd,
    to: FlowEnd,
    name: StrId,
    category: StrId,
}

mod device_counters;
pub(crate) mod op_timeline;

pub use device_counters::{tensor_engine_peak_flops, HFU_COUNTER, PE_BUSY_COUNTER};

/// The budget errors are plain data: a copy for the builder to keep and one to return.
fn copy_over_budget(e: &ImportError) -> ImportError {
    match e {
        ImportError::OverBudget { count, what, limit } => {
            ImportError::OverBudget { count: *count, what: what.clone(), limit: limit.clone() }
        }
        other => ImportError::Invalid { format: "import", message: other.to_string() },
    }
}

/// An importer's per-instruction Tensor FLOPs of one device group: `(start, end, FLOPs)`.
type DeviceFlops = (GroupId, Vec<(i64, i64, u64)>);

pub struct TraceBuilder {
    format: String,
    strings: Interner,
    groups: Vec<Group>,
    tracks: Vec<(Track, TrackBuild)>,
    counters: Vec<CounterTrack>,
    flows: Vec<FlowBuild>,
    args: ArgStore,
    iterations: Vec<Iteration>,
    /// What each host category is (`set_host_work`), sorted by category at the end.
    host_work: Vec<(StrId, HostWork)>,
    pub metadata: Metadata,
    pub warnings: Warnings,
    /// The program (e.g. NEFF) this trace ran, if known.
    pub program: Option<Program>,
    pub correlation: Option<CorrelationReport>,
    operators: OperatorTree,
    operator_index: crate::strings::FxHashMap<(OpId, OpLevel, StrId), OpId>,
    sources: Vec<SourceLoc>,
    source_index: crate::strings::FxHashMap<SourceLoc, SourceId>,
    tables: Vec<DataTable>,
    /// The import's memory budget ([`Budget`]): slices, instants, counter samples, flows,
    /// arguments and interned text are charged here, so every importer is covered. Unlimited
    /// unless the registry sets it ([`Self::set_budget`]).
    budget: Budget,
    /// The first charge that crossed the budget: from then on the builder drops what it is
    /// given (returning inert handles), and the registry fails the import with this error.
    over_budget: Option<ImportError>,
    /// Per-instruction Tensor FLOPs an importer computed for a device group
    /// ([`TraceBuilder::set_device_flops`]), read by [`TraceBuilder::add_device_counters`].
    device_flops: Vec<DeviceFlops>,
}

impl TraceBuilder {
    pub fn new(format: &str) -> Self {
        let mut args = ArgStore::default();
        args.offsets.push(0);
        TraceBuilder {
            format: format.to_string(),
            strings: Interner::new(),
            groups: Vec::new(),
            tracks: Vec::new(),
            counters: Vec::new(),
            flows: Vec::new(),
            args,
            iterations: Vec::new(),
            host_work: Vec::new(),
            metadata: Metadata::default(),
            warnings: Warnings::default(),
            program: None,
            correlation: None,
            operators: OperatorTree::default(),
            operator_index: Default::default(),
            sources: Vec::new(),
            source_index: Default::default(),
            tables: Vec::new(),
            budget: Budget::default(),
            over_budget: None,
            device_flops: Vec::new(),
        }
    }

    // ---- memory budget ----

    /// Import under `budget` (the registry sets [`Budget::for_input`]).
    pub fn set_budget(&mut self, budget: Budget) {
        self.budget = budget;
    }
    pub fn budget(&self) -> &Budget {
        &self.budget
    }
    /// Charge what an importer holds besides the builder (its own event lists, decompressed
    /// buffers, tables): `n` of `item` at their [`Item::cost`].
    pub fn charge(&mut self, item: Item, n: u64) -> Result<(), ImportError> {
        self.charge_bytes(item, n, n.saturating_mul(item.cost()))
    }
    /// [`Self::charge`] of `n` items costing `bytes` in all.
    pub fn charge_bytes(&mut self, item: Item, n: u64, bytes: u64) -> Result<(), ImportError> {
        if let Some(e) = self.budget_error() {
            return Err(e);
        }
        self.budget.charge_bytes(item, n, bytes).inspect_err(|e| {
            self.over_budget = Some(copy_over_budget(e));
        })
    }
    /// Give back a charge for something freed.
    pub fn release(&mut self, item: Item, n: u64, bytes: u64) {
        self.budget.release(item, n, bytes);
    }
    /// Whether `n` of `item` would fit now ([`Budget::check`]), charging nothing.
    pub fn check_budget(&self, item: Item, n: u64) -> Result<(), ImportError> {
        self.budget.check(item, n)
    }
    /// [`Self::check_budget`] of `n` items costing `bytes` in all.
    pub fn check_budget_bytes(&self, item: Item, n: u64, bytes: u64) -> Result<(), ImportError> {
        self.budget.check_bytes(item, n, bytes)
    }
    /// Whether a charge crossed the budget (what is added since is dropped).
    pub fn over_budget(&self) -> bool {
        self.over_budget.is_some()
    }
    /// The error of the charge that crossed the budget, if one did.
    pub fn budget_error(&self) -> Option<ImportError> {
        self.over_budget.as_ref().map(copy_over_budget)
    }
    /// Charge from the builder's own adders: false (and the error kept) when over.
    #[inline]
    fn spend(&mut self, item: Item, n: u64) -> bool {
        if self.over_budget.is_some() {
            return false;
        }
        match self.budget.charge(item, n) {
            Ok(()) => true,
            Err(e) => {
                self.over_budget = Some(e);
                false
            }
        }
    }

    pub fn set_format(&mut self, format: &str) {
        self.format = format.to_string();
    }
    pub fn format(&self) -> &str {
        &self.format
    }

    #[inline]
    pub fn intern(&mut self, s: &str) -> StrId {
        let before = self.strings.len();
        let id = self.strings.intern(s);
        if self.strings.len() != before {
            // the table's copy, the map's key and its entry
            self.spend(Item::StringBytes, s.len() as u64 + 24);
        }
        id
    }
    pub fn string(&self, id: StrId) -> &str {
        self.strings.get(id)
    }

    pub fn warn(&mut self, kind: WarningKind, example: impl FnOnce() -> String) {
        self.warnings.add(kind, example)
    }

    /// `n` occurrences of one kind of damage at once.
    pub fn warn_n(&mut self, kind: WarningKind, n: u64, example: impl FnOnce() -> String) {
        self.warnings.add_n(kind, n, example)
    }

    pub fn add_metadata(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.metadata.entries.push((key.into(), value.into()));
    }

    // ---- groups and tracks ----

    pub fn add_group(&mut self, name: &str, kind: GroupKind) -> GroupId {
        let id = GroupId(self.groups.len() as u32);
        let name = self.intern(name);
        self.groups.push(Group {
            name,
            kind,
            sort_index: id.0 as i64,
            tracks: Vec::new(),
            counters: Vec::new(),
            device: None,
            source_file: None,
            tensor_flops: Vec::new(),
        });
        id
    }
    /// The input file a group was read from ([`Group::source_file`]).
    pub fn set_group_source_file(&mut self, g: GroupId, file_name: &str) {
        let file = self.intern(file_name);
        if let Some(gr) = self.groups.get_mut(g.idx()) {
            gr.source_file = Some(file);
        }
    }
    pub fn group_source_file(&self, g: GroupId) -> Option<StrId> {
        self.groups.get(g.idx()).and_then(|gr| gr.source_file)
    }
    pub fn group_name(&self, g: GroupId) -> StrId {
        self.groups.get(g.idx()).map_or(StrId::EMPTY, |gr| gr.name)
    }
    pub fn set_group_name(&mut self, g: GroupId, name: &str) {
        let name = self.intern(name);
        if let Some(gr) = self.groups.get_mut(g.idx()) {
            gr.name = name;
        }
    }
    /// A group's device facts, when set ([`TraceBuilder::set_group_device`]).
    pub fn group_device(&self, g: GroupId) -> Option<&DeviceInfo> {
        self.groups.get(g.idx()).and_then(|gr| gr.device.as_ref())
    }
    /// Device facts of a device group (execution time, instance type, …).
    pub fn set_group_device(&mut self, g: GroupId, info: DeviceInfo) {
        if let Some(gr) = self.groups.get_mut(g.idx()) {
            gr.device = Some(info);
        }
    }
    pub fn set_group_sort(&mut self, g: GroupId, sort_index: i64) {
        if let Some(gr) = self.groups.get_mut(g.idx()) {
            gr.sort_index = sort_index;
        }
    }
    pub fn set_group_kind(&mut self, g: GroupId, kind: GroupKind) {
        if let Some(gr) = self.groups.get_mut(g.idx()) {
            gr.kind = kind;
        }
    }
    pub fn group_count(&self) -> usize {
        self.groups.len()
    }

    pub fn add_track(&mut self, group: GroupId, name: &str, kind: TrackKind, source_id: &str) -> TrackId {
        let id = TrackId(self.tracks.len() as u32);
        let name = self.intern(name);
        let source_id = self.intern(source_id);
        let layout = if kind == TrackKind::Async || kind == TrackKind::Overlap {
            Layout::Lanes
        } else {
            Layout::Nested
        };
        let sort_index = self.groups.get(group.idx()).map_or(0, |g| g.tracks.len() as i64);
        if let Some(g) = self.groups.get_mut(group.idx()) {
            g.tracks.push(id);
        }
        self.tracks.push((
            Track {
                name,
                group,
                kind,
                role: default_role(kind),
                dma_queue_type: None,
                layout,
                sort_index,
                source_id,
                slices: SliceColumns::default(),
                instants: InstantColumns::default(),
                lod: LodIndex::default(),
            },
            TrackBuild::default(),
        ));
        id
    }
    pub fn set_track_name(&mut self, t: TrackId, name: &str) {
        let name = self.intern(name);
        if let Some(tr) = self.tracks.get_mut(t.idx()) {
            tr.0.name = name;
        }
    }
    pub fn set_track_sort(&mut self, t: TrackId, sort_index: i64) {
        if let Some(tr) = self.tracks.get_mut(t.idx()) {
            tr.0.sort_index = sort_index;
        }
    }
    /// Change a track's kind (an importer may learn it late, e.g. a GPU stream); the layout
    /// follows the kind (lanes for async/overlap tracks, nesting otherwise).
    pub fn set_track_kind(&mut self, t: TrackId, kind: TrackKind) {
        if let Some(tr) = self.tracks.get_mut(t.idx()) {
            if tr.0.role == default_role(tr.0.kind) {
                tr.0.role = default_role(kind);
            }
            tr.0.kind = kind;
            tr.0.layout = if kind == TrackKind::Async || kind == TrackKind::Overlap {
                Layout::Lanes
            } else {
                Layout::Nested
            };
        }
    }
    pub fn set_track_layout(&mut self, t: TrackId, layout: Layout) {
        if let Some(tr) = self.tracks.get_mut(t.idx()) {
            tr.0.layout = layout;
        }
    }
    pub fn track_count(&self) -> usize {
        self.tracks.len()
    }
    pub fn track_slice_count(&self, t: TrackId) -> usize {
        self.tracks.get(t.idx()).map_or(0, |t| t.1.start_ns.len())
    }

    // ---- events ----

    /// Add an argument set; returns [`ArgsId::NONE`] for an empty set.
    pub fn add_args(&mut self, entries: impl IntoIterator<Item = (StrId, ArgValue)>) -> ArgsId {
        if self.over_budget() {
            return ArgsId::NONE;
        }
        let before = self.args.keys.len();
        for (k, v) in entries {
            self.args.push_entry(k, v);
        }
        if self.args.keys.len() == before {
            return ArgsId::NONE;
        }
        self.close_args_set(u32::MAX)
    }
    /// [`Self::add_args`] from a slice (one reservation; for importers that parse into a buffer).
    pub fn add_args_slice(&mut self, entries: &[(StrId, ArgValue)]) -> ArgsId {
        if entries.is_empty() || self.over_budget() {
            return ArgsId::NONE;
        }
        self.args.keys.reserve(entries.len());
        self.args.tags.reserve(entries.len());
        self.args.vals.reserve(entries.len());
        for &(k, v) in entries {
            self.args.push_entry(k, v);
        }
        self.close_args_set(u32::MAX)
    }
    /// An argument set that reads as `base` with `entries` overriding it (see [`ArgStore`]'s
    /// "Based sets"): entries whose value equals the base's are not stored, and when none is
    /// left the set *is* `base` (sets are shared, never edited). `base` must be an eager set
    /// without a base of its own, else the entries are stored as a plain set over it merged.
    pub fn add_args_over(&mut self, base: ArgsId, entries: &[(StrId, ArgValue)]) -> ArgsId {
        let usable = base != ArgsId::NONE
            && !base.is_lazy()
            && base.idx() < self.args.len()
            && self.args.base_of(base) == ArgsId::NONE;
        if !usable {
            let mut all: Vec<(StrId, ArgValue)> = self.args.get(base).collect();
            for &(k, v) in entries {
                match all.iter_mut().find(|e| e.0 == k) {
                    Some(e) => e.1 = v,
                    None => all.push((k, v)),
                }
            }
            return self.add_args_slice(&all);
        }
        let before = self.args.keys.len();
        let b = self.args.own(base);
        for &(k, v) in entries {
            let same = self.args.keys[b.clone()].iter().position(|&x| x == k);
            if same.is_some_and(|j| self.args.value(b.start + j) == v) {
                continue;
            }
            self.args.push_entry(k, v);
        }
        if self.args.keys.len() == before {
            return base;
        }
        if self.args.bases.is_empty() {
            self.args.bases = Vec::with_capacity(self.args.offsets.capacity());
            self.args.bases.resize(self.args.len(), u32::MAX);
        }
        self.close_args_set(base.0)
    }
    /// A row form over `base` for argument sets that each set the same `keys` to unsigned
    /// 32-bit values of their own (see [`ArgStore`]'s "Row sets": 4 bytes a set and 4 a value,
    /// where [`Self::add_args_over`] costs 8 a set and 9 a value). `None` when `base` cannot
    /// be a form's base (not a plain set without a base): use [`Self::add_args_over`] then.
    pub fn add_args_form(&mut self, base: ArgsId, keys: &[StrId]) -> Option<u32> {
        let keys: Vec<(StrId, u8)> = keys.iter().map(|&k| (k, ArgStore::TAG_UINT32)).collect();
        self.args.push_form(base, &keys)
    }
    /// An argument set that reads as form `form`'s base with the form's keys set to `values`
    /// (one per key). A based set when the rows are full; [`ArgsId::NONE`] for a form that
    /// does not exist or a count that differs.
    pub fn add_args_row(&mut self, form: u32, values: &[u32]) -> ArgsId {
        if !self.spend(Item::Args, values.len() as u64) {
            return ArgsId::NONE;
        }
        if let Some(id) = self.args.push_row(form, values) {
            return id;
        }
        let k = self.args.form_keys_range(form as usize);
        let Some(&base) = self.args.form_base.get(form as usize) else { return ArgsId::NONE };
        if k.len() != values.len() {
            return ArgsId::NONE;
        }
        let own: Vec<(StrId, ArgValue)> =
            k.zip(values).map(|(e, &v)| (self.args.form_keys[e], ArgValue::UInt(u64::from(v)))).collect();
        self.add_args_over(ArgsId(base), &own)
    }
    /// End the set whose entries were just pushed, with `base` (`u32::MAX` = none). Plain sets
    /// are numbered below [`ArgsId::ROW_BIT`]: past that the entries are dropped (never on a
    /// 32-bit target, whose memory ends first).
    fn close_args_set(&mut self, base: u32) -> ArgsId {
        let id = ArgsId((self.args.offsets.len() - 1) as u32);
        let start = *self.args.offsets.last().unwrap_or(&0) as usize;
        if !self.spend(Item::Args, (self.args.keys.len() - start) as u64 + 1) {
            self.args.keys.truncate(start);
            self.args.tags.truncate(start);
            self.args.vals.truncate(start);
            return ArgsId::NONE;
        }
        if id.0 >= ArgsId::ROW_BIT {
            let start = *self.args.offsets.last().unwrap_or(&0) as usize;
            self.args.keys.truncate(start);
            self.args.tags.truncate(start);
            self.args.vals.truncate(start);
            self.warnings.add(WarningKind::TooManyArgumentSets, || "argument sets past 2^30 dropped".into());
            return ArgsId::NONE;
        }
        self.args.offsets.push(self.args.keys.len() as u32);
        if !self.args.bases.is_empty() {
            self.args.bases.push(base);
        }
        id
    }
    /// Add a lazy argument set: the `args` object at `offset..offset + len` of input file
    /// `file`, with the typed ids read from it now. [`ArgsId::NONE`] when the range cannot be
    /// kept lazily (too long, beyond 1 TiB): the caller then adds the set eagerly.
    pub fn add_lazy_args(&mut self, file: u8, offset: u64, len: usize, ids: GpuIds) -> ArgsId {
        let Ok(len) = u32::try_from(len) else { return ArgsId::NONE };
        self.args.push_lazy(LazyArgs { file, offset, len }, ids).unwrap_or(ArgsId::NONE)
    }
    /// Entries of an argument set added so far.
    pub fn args_of(&self, id: ArgsId) -> Vec<(StrId, ArgValue)> {
        self.args.get(id).collect()
    }

    /// Room for `words` more 32-bit words of row sets (a form index and the values per row;
    /// importers that know their event count: the store then grows once instead of doubling
    /// through copies).
    pub fn reserve_arg_rows(&mut self, words: usize) {
        // reservations from counts a file declares: only what the budget could hold
        if !self.budget.fits(Item::Args, words as u64) {
            return;
        }
        self.args.rows.reserve(words);
    }
    /// Room for `n` more slices on `track`, with their domain when `domain`.
    pub fn reserve_slices(&mut self, track: TrackId, n: usize, domain: bool) {
        if !self.budget.fits(Item::Slices, n as u64) {
            return;
        }
        let Some((_, t)) = self.tracks.get_mut(track.idx()) else { return };
        t.start_ns.reserve(n);
        t.dur_ns.reserve(n);
        t.name.reserve(n);
        t.category.reserve(n);
        t.args.reserve(n);
        if domain {
            t.domain.reserve(n);
        }
    }

    /// Add a slice. A negative duration is a damaged event: it is counted and clamped to 0.
    #[inline]
    pub fn add_slice(
        &mut self,
        track: TrackId,
        start_ns: i64,
        dur_ns: i64,
        name: StrId,
        category: StrId,
        args: ArgsId,
    ) -> SliceHandle {
        let dur_ns = if dur_ns < 0 {
            self.warnings.add(WarningKind::NegativeDuration, || {
                format!("slice at {start_ns} ns has duration {dur_ns} ns; clamped to 0")
            });
            0
        } else {
            dur_ns
        };
        if !self.spend(Item::Slices, 1) {
            return SliceHandle { track, index: u32::MAX };
        }
        let t = &mut self.tracks[track.idx()].1;
        let index = t.start_ns.len() as u32;
        t.start_ns.push(start_ns);
        t.dur_ns.push(dur_ns);
        t.name.push(name);
        t.category.push(category);
        t.args.push(args);
        SliceHandle { track, index }
    }
    /// Set the typed domain fields (opcode, operator, program slot, source, bytes) of a slice.
    pub fn set_slice_domain(&mut self, h: SliceHandle, domain: SliceDomain) {
        if let Some((d, i)) = self.domain_slot(h) {
            d.set(i, domain);
        }
    }
    /// The domain fields of slice `h` (grown to hold it) and its index; `None` for a slice that
    /// was never added.
    fn domain_slot(&mut self, h: SliceHandle) -> Option<(&mut DomainBuild, usize)> {
        let (_, t) = self.tracks.get_mut(h.track.idx())?;
        let i = h.index as usize;
        if i >= t.start_ns.len() {
            return None;
        }
        if t.domain.len() <= i {
            t.domain.resize_default(i + 1);
        }
        Some((&mut t.domain, i))
    }
    /// The shared part of `domain` (all but the bytes and the sub-ns picoseconds) as a shape of
    /// `track`'s table, for [`TraceBuilder::set_slice_domain_shaped`]: an importer that gives many
    /// slices of one track the same shape (every execution of one instruction) interns it once.
    pub fn domain_shape(&mut self, track: TrackId, domain: &SliceDomain) -> DomainShapeRef {
        let shape = self.tracks.get_mut(track.idx()).map_or(0, |(_, t)| t.domain.shape_of(domain));
        DomainShapeRef { track, shape }
    }
    /// [`TraceBuilder::set_slice_domain`] with the shared fields as a shape of the slice's track
    /// (ignored when `shape` is another track's) and the per-slice ones.
    pub fn set_slice_domain_shaped(
        &mut self,
        h: SliceHandle,
        shape: DomainShapeRef,
        bytes: u64,
        start_sub_ps: u16,
        dur_sub_ps: u16,
    ) {
        if shape.track != h.track {
            return;
        }
        if let Some((d, i)) = self.domain_slot(h) {
            d.set_shaped(i, shape.shape, bytes, start_sub_ps, dur_sub_ps);
        }
    }
    /// Type every slice of `track` as GPU work from its category, as the importer's format
    /// defines it (`class` is asked once per distinct category). Slices whose category gives
    /// `None` stay untyped; other domain fields are kept.
    pub fn set_gpu_work_by_category(
        &mut self,
        track: TrackId,
        mut class: impl FnMut(&str) -> Option<GpuWork>,
    ) {
        let Some((_, t)) = self.tracks.get_mut(track.idx()) else { return };
        let strings = &self.strings;
        let mut of: crate::strings::FxHashMap<StrId, Option<GpuWork>> = Default::default();
        let n = t.start_ns.len();
        for i in 0..n {
            let cat = t.category[i];
            let w = *of.entry(cat).or_insert_with(|| class(strings.get(cat)));
            if w.is_none() {
                continue;
            }
            if t.domain.len() < n {
                t.domain.reserve(n - t.domain.len());
                t.domain.resize_default(n);
            }
            let d = t.domain.get(i);
            t.domain.set(i, SliceDomain { gpu_work: w, ..d });
        }
    }
    /// What a counter measures (see [`CounterRole`]).
    pub fn set_counter_role(&mut self, c: CounterId, role: CounterRole) {
        if let Some(c) = self.counters.get_mut(c.idx()) {
            c.role = role;
        }
    }
    /// The number the source gives a counter ([`CounterTrack::number`]).
    pub fn set_counter_number(&mut self, c: CounterId, number: i64) {
        if let Some(c) = self.counters.get_mut(c.idx()) {
            c.number = Some(number);
        }
    }
    /// What a track is for analyses (an engine, a DMA queue, …).
    pub fn set_track_role(&mut self, t: TrackId, role: TrackRole) {
        if let Some(t) = self.tracks.get_mut(t.idx()) {
            t.0.role = role;
        }
    }
    /// The DMA queue type of a DMA track (static / software / hardware dynamic).
    pub fn set_track_dma_queue_type(&mut self, t: TrackId, q: DmaQueueType) {
        if let Some(t) = self.tracks.get_mut(t.idx()) {
            t.0.dma_queue_type = Some(q);
        }
    }
    pub fn track_role(&self, t: TrackId) -> TrackRole {
        self.tracks.get(t.idx()).map_or(TrackRole::Generic, |t| t.0.role)
    }
    /// The operator node `name` at `level` under `parent` (`OpId::NONE` = a root), created once.
    pub fn add_operator(&mut self, parent: OpId, level: OpLevel, name: &str) -> OpId {
        let name = self.strings.intern(name);
        let parent = if parent.idx() < self.operators.nodes.len() { parent } else { OpId::NONE };
        if let Some(&id) = self.operator_index.get(&(parent, level, name)) {
            return id;
        }
        let id = OpId(self.operators.nodes.len() as u32);
        self.operators.nodes.push(OpNodeRow { name, level, parent });
        self.operator_index.insert((parent, level, name), id);
        id
    }
    /// A source location (interned).
    pub fn add_source(&mut self, file: &str, line: u32) -> SourceId {
        let loc = SourceLoc { file: self.strings.intern(file), line };
        if let Some(&id) = self.source_index.get(&loc) {
            return id;
        }
        let id = SourceId(self.sources.len() as u32);
        self.sources.push(loc);
        self.source_index.insert(loc, id);
        id
    }
    pub fn set_slice_args(&mut self, h: SliceHandle, args: ArgsId) {
        if let Some(a) = self.tracks.get_mut(h.track.idx()).and_then(|t| t.1.args.get_mut(h.index as usize)) {
            *a = args;
        }
    }
    pub fn slice_args(&self, h: SliceHandle) -> ArgsId {
        self.tracks
            .get(h.track.idx())
            .and_then(|t| t.1.args.get(h.index as usize))
            .copied()
            .unwrap_or(ArgsId::NONE)
    }
    pub fn slice_start(&self, h: SliceHandle) -> Option<i64> {
        self.tracks.get(h.track.idx()).and_then(|t| t.1.start_ns.get(h.index as usize)).copied()
    }

    pub fn add_instant(&mut self, track: TrackId, ts_ns: i64, name: StrId, category: StrId, args: ArgsId) {
        if !self.spend(Item::Instants, 1) {
            return;
        }
        let i = &mut self.tracks[track.idx()].1.instants;
        i.ts_ns.push(ts_ns);
        i.name.push(name);
        i.category.push(category);
        i.args.push(args);
    }

    pub fn add_counter(&mut self, group: GroupId, name: &str, unit: &str) -> CounterId {
        let id = CounterId(self.counters.len() as u32);
        let name = self.intern(name);
        let unit = self.intern(unit);
        let sort_index = self.groups.get(group.idx()).map_or(0, |g| g.counters.len() as i64);
        if let Some(g) = self.groups.get_mut(group.idx()) {
            g.counters.push(id);
        }
        self.counters.push(CounterTrack {
            name,
            group,
            unit,
            role: CounterRole::Generic,
            number: None,
            sort_index,
            ts_ns: Vec::new(),
            value: Vec::new(),
        });
        id
    }
    #[inline]
    /// Room for `n` more samples of `counter`.
    pub fn reserve_counter_samples(&mut self, counter: CounterId, n: usize) {
        if !self.budget.fits(Item::CounterSamples, n as u64) {
            return;
        }
        if let Some(c) = self.counters.get_mut(counter.idx()) {
            c.ts_ns.reserve_exact(n);
            c.value.reserve_exact(n);
        }
    }
    pub fn add_counter_sample(&mut self, counter: CounterId, ts_ns: i64, value: f64) {
        if !self.spend(Item::CounterSamples, 1) {
            return;
        }
        let c = &mut self.counters[counter.idx()];
        c.ts_ns.push(ts_ns);
        c.value.push(value);
    }

    pub fn add_flow(&mut self, from: FlowEnd, to: FlowEnd, name: StrId, category: StrId) {
        if !self.spend(Item::Flows, 1) {
            return;
        }
        self.flows.push(FlowBuild { from, to, name, category });
    }

    /// Type the host slices of category `category` as `work` (see [`HostWork`]); the last call
    /// for a category wins.
    pub fn set_host_work(&mut self, category: StrId, work: HostWork) {
        self.host_work.retain(|&(c, _)| c != category);
        self.host_work.push((category, work));
    }

    /// Type every category the slices of thread tracks use, as the importer's format defines it
    /// (`class` is asked once per distinct category; `None` leaves it untyped).
    pub fn set_host_work_by_category(&mut self, mut class: impl FnMut(&str) -> Option<HostWork>) {
        let mut seen: crate::strings::FxHashMap<StrId, ()> = Default::default();
        for (track, t) in &self.tracks {
            if track.kind != TrackKind::Thread {
                continue;
            }
            let mut last = None;
            for &c in &t.category {
                if last != Some(c) {
                    seen.insert(c, ());
                    last = Some(c);
                }
            }
        }
        let mut cats: Vec<StrId> = seen.into_keys().collect();
        cats.sort_unstable();
        for cat in cats {
            if let Some(w) = class(self.strings.get(cat)) {
                self.set_host_work(cat, w);
            }
        }
    }

    pub fn add_iteration(&mut self, number: i64, start_ns: i64, end_ns: i64) {
        self.iterations.push(Iteration { number, start_ns, end_ns });
    }

    pub fn slice_count(&self) -> usize {
        self.tracks.iter().map(|t| t.1.start_ns.len()).sum()
    }

    /// Add a report table (e.g. a DLProf CSV export). Rows are padded with empty cells or cut
    /// to the column count, so that every row has one cell per column.
    pub fn add_table(&mut self, mut table: DataTable) {
        let n = table.columns.len();
        for r in &mut table.rows {
            r.resize(n, Cell::Empty);
        }
        self.tables.push(table);
    }
    pub fn table_count(&self) -> usize {
        self.tables.len()
    }

    // ---- finish ----

    /// Sort, assign depths, bind flows, build indexes. Never fails: problems become warnings.
    pub fn finish(mut self) -> Trace {
        let mut warnings = std::mem::take(&mut self.warnings);
        let track_count = self.tracks.len();
        // insertion index -> final (track, index), per track
        let mut remap: Vec<TrackMap> = Vec::with_capacity(track_count);
        let mut out_tracks: Vec<Track> = Vec::with_capacity(track_count);
        let mut spills: Vec<(usize, Track, TrackBuild, Vec<u32>)> = Vec::new();

        let built: Vec<(Track, TrackBuild)> = std::mem::take(&mut self.tracks);
        // The per-track work (sort, depths, columns, LOD) shares nothing: in parallel with feature
        // `rayon`. Warnings and the spill tracks (which intern names) follow in track order, so
        // the model is the same for any number of threads.
        let laid = crate::par::map_vec(built.into_iter().enumerate().collect(), |(ti, (track, tb))| {
            lay_out_track(ti, track, tb)
        });
        for (ti, LaidTrack { track, map, spill }) in laid.into_iter().enumerate() {
            if let Some((stb, spilled)) = spill {
                let name = self.strings.get(track.name).to_string();
                let count = spilled.len();
                if track.layout == Layout::Lanes {
                    warnings.add(WarningKind::LaneLimit, || {
                        format!("{count} slice(s) on track '{name}' need more than {MAX_LANES} lanes; moved to an '(overlapping)' track")
                    });
                } else {
                    warnings.add(WarningKind::OverlappingSlices, || {
                        format!("{count} slice(s) on track '{name}' overlap a neighbour without nesting; moved to an '(overlapping)' track")
                    });
                }
                let st = Track {
                    name: self.strings.intern(&format!("{name} (overlapping)")),
                    group: track.group,
                    kind: TrackKind::Overlap,
                    role: track.role,
                    dma_queue_type: track.dma_queue_type,
                    layout: Layout::Lanes,
                    sort_index: track.sort_index,
                    source_id: track.source_id,
                    slices: SliceColumns::default(),
                    instants: InstantColumns::default(),
                    lod: LodIndex::default(),
                };
                spills.push((ti, st, stb, spilled));
            }
            out_tracks.push(track);
            remap.push(map);
        }
        // spill tracks: laid out in lanes, appended after the regular tracks
        for (src, mut st, stb, origin) in spills {
            let tid = TrackId(out_tracks.len() as u32);
            let n = stb.start_ns.len();
            let mut order: Vec<u32> = (0..n as u32).collect();
            order.sort_unstable_by_key(|&i| (stb.start_ns[i as usize], -stb.dur_ns[i as usize]));
            let mut depth = Depths::new(n);
            let mut dropped: Vec<u32> = Vec::new();
            assign_lanes(order.iter().copied(), &stb.start_ns, &stb.dur_ns, &mut depth, &mut dropped);
            if !dropped.is_empty() {
                let name = self.strings.get(st.name).to_string();
                let count = dropped.len();
                warnings.add(WarningKind::LaneLimit, || {
                    format!("{count} slice(s) on track '{name}' need more than {MAX_LANES} lanes; not shown")
                });
                let mut is_dropped = vec![false; n];
                for &i in &dropped {
                    is_dropped[i as usize] = true;
                }
                order.retain(|&i| !is_dropped[i as usize]);
            }
            let mut idx: Vec<u32> = order.clone();
            idx.sort_by_key(|&i| (depth.get(i as usize), stb.start_ns[i as usize]));
            let mut cols = SliceColumns::default();
            let (mut names, mut categories) = (Vec::with_capacity(idx.len()), Vec::with_capacity(idx.len()));
            let mut domain = None;
            let mut cur_depth = None;
            for (k, &i) in idx.iter().enumerate() {
                let i = i as usize;
                while cur_depth != Some(depth.get(i)) {
                    cols.depth_starts.push(k as u32);
                    cur_depth = Some(cur_depth.map_or(0, |d| d + 1));
                }
                cols.start_ns.push(stb.start_ns[i]);
                cols.dur_ns.push(stb.dur_ns[i]);
                names.push(stb.name[i]);
                categories.push(stb.category[i]);
                cols.args.push(stb.args[i]);
                if !stb.domain.is_empty() {
                    domain
                        .get_or_insert_with(|| domain::DomainWriter::with_capacity(idx.len()))
                        .push(&stb.domain, i);
                }
                remap[src].moved(origin[i], SliceRef { track: tid, index: k as u32 });
            }
            if !cols.start_ns.is_empty() {
                cols.depth_starts.push(cols.start_ns.len() as u32);
            }
            cols.name = IdColumn::from(names);
            cols.category = IdColumn::from(categories);
            cols.domain = domain.map(domain::DomainWriter::finish);
            st.lod = LodIndex::build(&cols);
            st.slices = cols;
            if let Some(g) = self.groups.get_mut(st.group.idx()) {
                g.tracks.push(tid);
            }
            out_tracks.push(st);
        }

        // counters: sorted by time (stable)
        for c in &mut self.counters {
            if !c.ts_ns.windows(2).all(|w| w[0] <= w[1]) {
                let mut idx: Vec<usize> = (0..c.ts_ns.len()).collect();
                idx.sort_by_key(|&i| c.ts_ns[i]);
                c.ts_ns = idx.iter().map(|&i| c.ts_ns[i]).collect();
                c.value = idx.iter().map(|&i| c.value[i]).collect();
            }
        }

        // flows
        let mut flows = Vec::with_capacity(self.flows.len());
        let mut unbound = 0u64;
        let resolve = |end: FlowEnd, tracks: &[Track]| -> Option<SliceRef> {
            match end {
                FlowEnd::Slice(h) => remap.get(h.track.idx())?.get(h.index as usize),
                FlowEnd::Enclosing { track, ts_ns } => {
                    let t = tracks.get(track.idx())?;
                    t.slices.deepest_at(ts_ns).map(|i| SliceRef { track, index: i as u32 })
                }
                FlowEnd::EnclosingOrNext { track, ts_ns } => {
                    let t = tracks.get(track.idx())?;
                    if let Some(i) = t.slices.deepest_at(ts_ns) {
                        return Some(SliceRef { track, index: i as u32 });
                    }
                    // next slice beginning at or after ts: the earliest start among depths
                    let mut best: Option<usize> = None;
                    for d in 0..t.slices.depth_count() {
                        let r = t.slices.depth_range(d);
                        let k = r.start + t.slices.start_ns[r.clone()].partition_point(|&s| s < ts_ns);
                        if k < r.end && best.is_none_or(|b| t.slices.start_ns[k] < t.slices.start_ns[b]) {
                            best = Some(k);
                        }
                    }
                    best.map(|i| SliceRef { track, index: i as u32 })
                }
            }
        };
        for f in &self.flows {
            match (resolve(f.from, &out_tracks), resolve(f.to, &out_tracks)) {
                (Some(from), Some(to)) => flows.push(Flow { from, to, name: f.name, category: f.category }),
                _ => unbound += 1,
            }
        }
        warnings.add_n(WarningKind::FlowUnbound, unbound, || {
            "a flow end did not fall inside any slice on its thread; flow dropped".into()
        });

        // time bounds
        let mut lo = i64::MAX;
        let mut hi = i64::MIN;
        for t in &out_tracks {
            for d in 0..t.slices.depth_count() {
                let r = t.slices.depth_range(d);
                if !r.is_empty() {
                    lo = lo.min(t.slices.start_ns[r.start]);
                    hi = hi.max(t.slices.end_ns(r.end - 1));
                }
            }
            if let (Some(&a), Some(&b)) = (t.instants.ts_ns.first(), t.instants.ts_ns.last()) {
                lo = lo.min(a);
                hi = hi.max(b);
            }
        }
        for c in &self.counters {
            if let (Some(&a), Some(&b)) = (c.ts_ns.first(), c.ts_ns.last()) {
                lo = lo.min(a);
                hi = hi.max(b);
            }
        }
        if lo > hi {
            lo = 0;
            hi = 0;
        }
        self.iterations.sort_by_key(|i| (i.start_ns, i.number));
        let mut host_work = self.host_work;
        host_work.sort_unstable();
        let mut args = self.args;
        args.keys.shrink_to_fit();
        args.tags.shrink_to_fit();
        args.vals.shrink_to_fit();
        args.wide.shrink_to_fit();
        args.offsets.shrink_to_fit();
        args.lazy.shrink_to_fit();
        args.bases.shrink_to_fit();
        Trace {
            format: self.format,
            strings: self.strings.finish(),
            groups: self.groups,
            tracks: out_tracks,
            counters: self.counters,
            flows,
            args,
            iterations: self.iterations,
            host_work,
            metadata: self.metadata,
            warnings,
            program: self.program,
            correlation: self.correlation,
            operators: self.operators,
            sources: self.sources,
            tables: self.tables,
            start_ns: lo,
            end_ns: hi,
        }
    }
}

/// The role a track of `kind` has until an importer says more.
fn default_role(kind: TrackKind) -> TrackRole {
    match kind {
        TrackKind::Thread => TrackRole::CpuThread,
        TrackKind::Stream => TrackRole::GpuStream,
        TrackKind::Dma => TrackRole::DmaQueue,
        TrackKind::Async | TrackKind::Overlap => TrackRole::Generic,
    }
}

/// Lanes one track can hold: depths are `u16`.
pub const MAX_LANES: usize = u16::MAX as usize + 1;

/// Greedy lanes: in start order, each slice goes to the lowest-numbered lane free at its start
/// (a zero-length slice still occupies 1 ns so that lanes stay disjoint). `order` must be sorted
/// by start. O(n log lanes): a min-heap of busy lanes keyed by end time and a min-heap of free
/// lane numbers; since starts only grow, a lane free at one start stays free for the next, so
/// this is exactly the "first free lane" rule. A slice that would need a lane beyond
/// [`MAX_LANES`] gets none: it is appended to `overflow` (the caller spills or drops it), so
/// slices never overlap at one depth.
fn assign_lanes(
    order: impl IntoIterator<Item = u32>,
    start_ns: &[i64],
    dur_ns: &[i64],
    depth: &mut Depths,
    overflow: &mut Vec<u32>,
) {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut busy: BinaryHeap<Reverse<(i64, u32)>> = BinaryHeap::new();
    let mut free: BinaryHeap<Reverse<u32>> = BinaryHeap::new();
    let mut lanes: u32 = 0;
    for i in order {
        let i = i as usize;
        let s = start_ns[i];
        while let Some(&Reverse((end, lane))) = busy.peek() {
            if end > s {
                break;
            }
            busy.pop();
            free.push(Reverse(lane));
        }
        let lane = match free.pop() {
            Some(Reverse(l)) => l,
            None if (lanes as usize) < MAX_LANES => {
                lanes += 1;
                lanes - 1
            }
            None => {
                overflow.push(i as u32);
                continue;
            }
        };
        busy.push(Reverse((s.saturating_add(dur_ns[i]).max(s.saturating_add(1)), lane)));
        depth.set(i, lane as u16);
    }
}

fn sort_instants(i: InstantColumns) -> InstantColumns {
    if i.ts_ns.windows(2).all(|w| w[0] <= w[1]) {
        return i;
    }
    let mut idx: Vec<usize> = (0..i.ts_ns.len()).collect();
    idx.sort_by_key(|&k| i.ts_ns[k]);
    InstantColumns {
        ts_ns: idx.iter().map(|&k| i.ts_ns[k]).collect(),
        name: idx.iter().map(|&k| i.name[k]).collect(),
        category: idx.iter().map(|&k| i.category[k]).collect(),
        args: idx.iter().map(|&k| i.args[k]).collect(),
    }
}
