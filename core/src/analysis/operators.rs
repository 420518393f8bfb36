//! The **Operator Table**: slices aggregated into a tree of rows, each with count, total and self
//! time, share of the total, time per engine (or on the device), FLOPs, MFU and DMA bytes, and
//! the events it stands for (for highlighting on the timeline). A pure function over [`Trace`],
//! so the same table serves the app's widget and any later view that wants "per operator:
//! occurrences, execution time, time %" (e.g. TensorBoard-Neuron's operator / HLO views).
//!
//! # Hierarchies ([`Hierarchy`])
//! - [`Hierarchy::Operators`] (device profiles, any trace with [`TrackRole::Engine`] tracks): rows
//!   follow the typed [`OperatorTree`](crate::model::OperatorTree) (layer → framework → HLO →
//!   penguin → BIR); under the innermost operator of an instruction, a leaf per instruction kind
//!   (its typed `opcode`, else its program slot, else its name). Instructions without an operator
//!   go under "(no operator)". Times are instruction time (durations summed over engines, so
//!   overlapping instructions on different engines both count). Semaphore waits
//!   (`EVENT_SEMAPHORE`) are waiting, not compute ([`super::measures::ENGINE_WAITING`]): left out
//!   by default (counted in [`OpTable::waits`]), as in neuron-profile's instruction time;
//!   [`Options::include_waits`] puts them back as rows. An operator row's count and total
//!   are the sums over its children; its self time is the time of the instructions whose
//!   innermost operator it is. DMA packets ([`TrackRole::DmaQueue`], else `DmaTransfers`) add
//!   their typed `bytes` to the operator they carry, if any; the rest is reported as not
//!   attributed ([`DmaAttribution`]).
//! - [`Hierarchy::CallTree`] (host traces, e.g. PyTorch / Kineto): the calling-context tree of the
//!   slices on [`TrackRole::CpuThread`] tracks (nesting by depth: module / python stack / cpu_op
//!   / runtime call), merged across threads by name path; the device activities
//!   ([`TrackRole::GpuStream`]) a CPU slice launched, found through the model's flows (a flow
//!   from a CPU-thread slice to a GPU-stream slice: Kineto's `cudaLaunchKernel` → kernel),
//!   become children of that slice's row. Device activity no flow reaches goes under "(device
//!   activity without a launch)", slices of other tracks under "(other tracks)", by name. A CPU
//!   row's total is the time of its own slices and its self time that minus the time of the
//!   slices nested in them; its device time is the device time of everything it launched.
//! - [`Hierarchy::Name`]: one row per slice name; [`Hierarchy::CategoryName`]: category → name.
//!   Self time subtracts nested slices (on tracks whose depth is nesting).
//!
//! # Memory
//! Rows are created once (one per distinct path, not per event). The events of all rows live in
//! one vector in depth-first order of the tree, so a row's own events and those of its whole
//! subtree are each one contiguous range of it; children lists are ranges of one index vector.
//! Per-lane times are one flat `rows × lanes` vector.

use std::borrow::Cow;

use crate::model::{Engine, Layout, OpId, SliceColumns, SliceRef, Trace, TrackId, TrackRole};
use crate::strings::{FxHashMap, StrId};

/// Parent of a root row.
pub const NO_ROW: u32 = u32::MAX;

/// How slices are grouped into rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hierarchy {
    Operators,
    CallTree,
    Name,
    CategoryName,
}

impl Hierarchy {
    pub const ALL: [Hierarchy; 4] =
        [Hierarchy::Operators, Hierarchy::CallTree, Hierarchy::Name, Hierarchy::CategoryName];
    pub fn label(self) -> &'static str {
        match self {
            Hierarchy::Operators => "Operators → instructions",
            Hierarchy::CallTree => "Call tree → launched kernels",
            Hierarchy::Name => "Name",
            Hierarchy::CategoryName => "Category → name",
        }
    }
    pub fn key(self) -> &'static str {
        match self {
            Hierarchy::Operators => "operators",
            Hierarchy::CallTree => "call-tree",
            Hierarchy::Name => "name",
            Hierarchy::CategoryName => "category",
        }
    }
    pub fn from_key(k: &str) -> Option<Hierarchy> {
        Hierarchy::ALL.into_iter().find(|h| h.key() == k)
    }
}

/// The hierarchies that make sense for `trace`, best first (the first is the default).
pub fn available(trace: &Trace) -> Vec<Hierarchy> {
    let engines = trace.tracks.iter().any(|t| t.role.engine().is_some() && !t.slices.is_empty());
    let cpu = trace.tracks.iter().any(|t| t.role == TrackRole::CpuThread && !t.slices.is_empty());
    let launches = trace.flows.iter().any(|f| is_launch(trace, f.from, f.to));
    let mut v = Vec::new();
    if engines {
        v.push(Hierarchy::Operators);
    }
    if cpu && (launches || !engines) {
        v.push(Hierarchy::CallTree);
    }
    v.extend([Hierarchy::Name, Hierarchy::CategoryName]);
    if cpu && !launches && !engines {
        // a host trace without launches: "by name" is the simpler first view
        v.swap(0, 1);
    }
    v
}

fn is_launch(trace: &Trace, from: SliceRef, to: SliceRef) -> bool {
    let role = |t: TrackId| trace.tracks.get(t.idx()).map(|t| t.role);
    role(from.track) == Some(TrackRole::CpuThread) && role(to.track) == Some(TrackRole::GpuStream)
}

/// Rows that are not a name from the trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupLabel {
    NoOperator,
    NotLaunched,
    OtherTracks,
    NoCategory,
}

impl GroupLabel {
    pub fn text(self) -> &'static str {
        match self {
            GroupLabel::NoOperator => "(no operator)",
            GroupLabel::NotLaunched => "(device activity without a launch)",
            GroupLabel::OtherTracks => "(other tracks)",
            GroupLabel::NoCategory => "(no category)",
        }
    }
}

/// What a row is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Label {
    Str(StrId),
    /// An instruction known only by its program slot.
    Slot(u32),
    Group(GroupLabel),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RowKind {
    /// A node of the operator tree (aggregate of its children).
    Operator(crate::model::OpLevel),
    /// Instructions of one kind under one operator.
    Instruction,
    /// Slices of one call path on CPU threads.
    HostOp,
    /// Device activities (kernels, copies) of one name under one launcher.
    DeviceOp,
    /// A synthetic group (aggregate of its children).
    Group,
    /// A category (aggregate of its children).
    Category,
    /// Slices of one name.
    Name,
}

impl RowKind {
    /// Rows whose count and times are the sums of their children's.
    pub fn is_aggregate(self) -> bool {
        matches!(self, RowKind::Operator(_) | RowKind::Group | RowKind::Category)
    }
    pub fn name(self) -> &'static str {
        match self {
            RowKind::Operator(l) => l.name(),
            RowKind::Instruction => "instruction",
            RowKind::HostOp => "cpu",
            RowKind::DeviceOp => "device",
            RowKind::Group => "group",
            RowKind::Category => "category",
            RowKind::Name => "name",
        }
    }
}

/// A time column besides total and self.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// Instruction time on one Neuron engine (`TensorMatrix` counts for `Tensor`).
    Engine(Engine),
    /// Time of device activities (GPU streams).
    Device,
}

impl Lane {
    pub fn name(self) -> &'static str {
        match self {
            Lane::Engine(e) => e.name(),
            Lane::Device => "Device",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Row {
    pub label: Label,
    pub kind: RowKind,
    pub parent: u32,
    pub depth: u16,
    /// Times are device time (compared with [`OpTable::device_total_ns`]), else host time.
    pub device: bool,
    pub count: u64,
    pub total_ns: i64,
    pub self_ns: i64,
    /// FLOPs of the subtree's instructions that state them.
    pub flops: u64,
    /// DMA bytes attributed to the subtree.
    pub dma_bytes: u64,
    children: (u32, u32),
    /// Own events `.0...1`, the subtree's `.0...2`, in [`OpTable::events`].
    events: (u32, u32, u32),
}

/// Where the DMA bytes went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DmaAttribution {
    pub attributed_bytes: u64,
    pub unattributed_bytes: u64,
    pub unattributed_packets: u64,
}

/// Semaphore-wait instructions left out of an [`Hierarchy::Operators`] table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WaitsLeftOut {
    pub count: u64,
    pub ns: i64,
}

/// How a table is built.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Options {
    /// Count semaphore-wait instructions as rows (off: they are waiting, not compute, and are
    /// only counted in [`OpTable::waits`]). Applies to [`Hierarchy::Operators`].
    pub include_waits: bool,
}

/// A column to sort rows by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SortKey {
    Name,
    Count,
    Total,
    SelfTime,
    Lane(usize),
    Flops,
    Mfu,
    MfuOverProfile,
    DmaBytes,
}

#[derive(Debug, Clone)]
pub struct OpTable {
    pub hierarchy: Hierarchy,
    pub rows: Vec<Row>,
    roots: Vec<u32>,
    child_idx: Vec<u32>,
    events: Vec<SliceRef>,
    pub lanes: Vec<Lane>,
    lane_ns: Vec<i64>,
    /// Host time of all rows: the sum of host self times (each host nanosecond once per track).
    pub host_total_ns: i64,
    /// Device time of all rows (instruction time, kernel time).
    pub device_total_ns: i64,
    /// Events aggregated (each once).
    pub event_count: u64,
    /// Peak Tensor-engine FLOP/s of the device, when its instance type is known.
    pub peak_flops: Option<f64>,
    /// The profile's execution time as the runtime reports it (neuron-profile's `total_time`).
    pub profile_time_s: Option<f64>,
    /// Semaphore waits left out ([`Options::include_waits`] off).
    pub waits: WaitsLeftOut,
    /// Some instruction states its FLOPs.
    pub has_flops: bool,
    pub dma: DmaAttribution,
    /// Slices the hierarchy leaves out (e.g. non-engine tracks of a device profile).
    pub skipped_slices: u64,
}

impl OpTable {
    pub fn roots(&self) -> &[u32] {
        &self.roots
    }
    pub fn children(&self, r: u32) -> &[u32] {
        match self.rows.get(r as usize) {
            Some(row) => &self.child_idx[row.children.0 as usize..(row.children.0 + row.children.1) as usize],
            None => &[],
        }
    }
    pub fn row(&self, r: u32) -> Option<&Row> {
        self.rows.get(r as usize)
    }
    /// The row's own events (the slices it aggregates directly).
    pub fn own_events(&self, r: u32) -> &[SliceRef] {
        self.rows
            .get(r as usize)
            .map_or(&[], |row| &self.events[row.events.0 as usize..row.events.1 as usize])
    }
    /// The events of the row and of every row under it.
    pub fn events(&self, r: u32) -> &[SliceRef] {
        self.rows
            .get(r as usize)
            .map_or(&[], |row| &self.events[row.events.0 as usize..row.events.2 as usize])
    }
    pub fn lane_ns(&self, r: u32, lane: usize) -> i64 {
        self.lane_ns.get(r as usize * self.lanes.len() + lane).copied().unwrap_or(0)
    }
    /// Share of the total of the row's kind (host or device), 0..=1.
    pub fn fraction(&self, r: u32) -> f64 {
        let Some(row) = self.row(r) else { return 0.0 };
        let total = if row.device { self.device_total_ns } else { self.host_total_ns };
        if total <= 0 {
            0.0
        } else {
            row.total_ns as f64 / total as f64
        }
    }
    /// [`super::measures::MFU_OVER_THE_PROFILE`]: FLOPs / (peak × the profile's execution time).
    /// `None` without FLOPs, a known peak or a reported execution time.
    pub fn mfu_over_profile(&self, r: u32) -> Option<f64> {
        let row = self.row(r)?;
        let (peak, secs) = (self.peak_flops?, self.profile_time_s?);
        (row.flops > 0 && secs > 0.0 && peak > 0.0).then(|| row.flops as f64 / (peak * secs))
    }
    /// [`super::measures::MFU_WHILE_IT_RUNS`]: FLOPs / (peak × the row's own Tensor-engine
    /// instruction time). `None` without FLOPs, a known peak or PE time.
    pub fn mfu(&self, r: u32) -> Option<f64> {
        let row = self.row(r)?;
        let peak = self.peak_flops?;
        let pe = self.lanes.iter().position(|&l| l == Lane::Engine(Engine::Tensor))?;
        let ns = self.lane_ns(r, pe);
        (row.flops > 0 && ns > 0 && peak > 0.0).then(|| row.flops as f64 / (peak * ns as f64 * 1e-9))
    }
    pub fn name<'a>(&self, trace: &'a Trace, r: u32) -> Cow<'a, str> {
        match self.row(r).map(|row| row.label) {
            Some(Label::Str(s)) => Cow::Borrowed(trace.str(s)),
            Some(Label::Slot(s)) => Cow::Owned(format!("slot {s}")),
            Some(Label::Group(g)) => Cow::Borrowed(g.text()),
            None => Cow::Borrowed(""),
        }
    }
    /// The row's subtree events as `per_track[track]` = ascending slice indices.
    pub fn events_per_track(&self, r: u32, tracks: usize) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); tracks];
        for e in self.events(r) {
            if let Some(v) = out.get_mut(e.track.idx()) {
                v.push(e.index);
            }
        }
        for v in &mut out {
            v.sort_unstable();
            v.dedup();
        }
        out
    }
    /// Earliest start and latest end of the row's subtree events.
    pub fn extent(&self, trace: &Trace, r: u32) -> Option<(i64, i64)> {
        let mut lo = i64::MAX;
        let mut hi = i64::MIN;
        for e in self.events(r) {
            let s = &trace.tracks.get(e.track.idx())?.slices;
            let i = e.index as usize;
            if i < s.len() {
                lo = lo.min(s.start_ns[i]);
                hi = hi.max(s.end_ns(i));
            }
        }
        (lo <= hi).then_some((lo, hi))
    }

    /// Sort `ids` by `key` (ties by name, then id, so the order is stable across calls).
    pub fn sort(&self, trace: &Trace, ids: &mut [u32], key: SortKey, descending: bool) {
        let num = |r: u32| -> f64 {
            let Some(row) = self.row(r) else { return 0.0 };
            match key {
                SortKey::Name => 0.0,
                SortKey::Count => row.count as f64,
                SortKey::Total => row.total_ns as f64,
                SortKey::SelfTime => row.self_ns as f64,
                SortKey::Lane(l) => self.lane_ns(r, l) as f64,
                SortKey::Flops => row.flops as f64,
                SortKey::Mfu => self.mfu(r).unwrap_or(-1.0),
                SortKey::MfuOverProfile => self.mfu_over_profile(r).unwrap_or(-1.0),
                SortKey::DmaBytes => row.dma_bytes as f64,
            }
        };
        ids.sort_by(|&a, &b| {
            let o = if key == SortKey::Name {
                self.name(trace, a).cmp(&self.name(trace, b))
            } else {
                num(a).total_cmp(&num(b))
            };
            let o = if descending { o.reverse() } else { o };
            o.then_with(|| self.name(trace, a).cmp(&self.name(trace, b))).then(a.cmp(&b))
        });
    }

    /// Rows to show for a filter (case-insensitive substring of the row name): the matches,
    /// their ancestors and their descendants. Also says which rows have a match below them
    /// (to open them). An empty needle shows everything.
    pub fn filter(&self, trace: &Trace, needle: &str) -> Filter {
        let needle = needle.trim().to_lowercase();
        let n = self.rows.len();
        if needle.is_empty() {
            return Filter { visible: vec![true; n], match_below: vec![false; n], matches: 0 };
        }
        let mut cache: FxHashMap<Label, bool> = FxHashMap::default();
        let mut hit = vec![false; n];
        let mut matches = 0;
        for (r, row) in self.rows.iter().enumerate() {
            let m = *cache
                .entry(row.label)
                .or_insert_with(|| self.name(trace, r as u32).to_lowercase().contains(&needle));
            hit[r] = m;
            matches += usize::from(m);
        }
        // parents have smaller indices than their children (rows are created top-down)
        let mut below = vec![false; n];
        for r in (0..n).rev() {
            let p = self.rows[r].parent;
            if p != NO_ROW && (hit[r] || below[r]) {
                below[p as usize] = true;
            }
        }
        let mut down = hit.clone();
        for r in 0..n {
            let p = self.rows[r].parent;
            if p != NO_ROW && down[p as usize] {
                down[r] = true;
            }
        }
        let visible = (0..n).map(|r| down[r] || below[r]).collect();
        Filter { visible, match_below: below, matches }
    }

    /// Check that everything adds up, level by level (tests and fuzzing; cheap, linear): an
    /// aggregate row's count, total, FLOPs, lane times are its children's sums, an event row's
    /// count is its own events, a CPU row's self time is its total minus its nested CPU
    /// children's, the subtree event ranges nest, and the host roots add up to the host total.
    pub fn verify(&self) -> Result<(), String> {
        let nl = self.lanes.len();
        let mut own_events = 0u64;
        for (r, row) in self.rows.iter().enumerate() {
            let r = r as u32;
            let kids = self.children(r);
            let err = |what: &str| Err(format!("row {r} ({:?} {:?}): {what}", row.kind, row.label));
            if kids.iter().any(|&c| self.rows[c as usize].parent != r) {
                return err("a child does not name it as parent");
            }
            let sub: usize = kids.iter().map(|&c| self.events(c).len()).sum();
            if self.events(r).len() != self.own_events(r).len() + sub {
                return err("subtree events are not own + children's");
            }
            own_events += self.own_events(r).len() as u64;
            let sum = |f: &dyn Fn(u32) -> i128| -> i128 { kids.iter().map(|&c| f(c)).sum() };
            for l in 0..nl {
                let kids_lane = sum(&|c| self.lane_ns(c, l) as i128);
                let me = self.lane_ns(r, l) as i128;
                if (row.kind.is_aggregate() && me != kids_lane) || me < kids_lane {
                    return err("lane time is not the children's sum");
                }
            }
            let flops = sum(&|c| self.rows[c as usize].flops as i128);
            if (row.kind.is_aggregate() && row.flops as i128 != flops) || (row.flops as i128) < flops {
                return err("FLOPs are not the children's sum");
            }
            if row.kind.is_aggregate() {
                if row.count as i128 != sum(&|c| self.rows[c as usize].count as i128) {
                    return err("count is not the children's sum");
                }
                if row.total_ns as i128 != sum(&|c| self.rows[c as usize].total_ns as i128) {
                    return err("total is not the children's sum");
                }
                if !self.own_events(r).is_empty() {
                    return err("an aggregate row has own events");
                }
            } else if row.count != self.own_events(r).len() as u64 || row.self_ns > row.total_ns {
                return err("count is not its events, or self > total");
            }
            if row.kind == RowKind::HostOp {
                let nested = sum(&|c| {
                    let k = &self.rows[c as usize];
                    if k.kind == RowKind::HostOp {
                        k.total_ns as i128
                    } else {
                        0
                    }
                });
                if row.self_ns as i128 != row.total_ns as i128 - nested {
                    return err("self is not total minus nested CPU time");
                }
            }
        }
        if own_events != self.event_count || self.events.len() as u64 != own_events {
            return Err(format!("{own_events} own events, {} in the table", self.event_count));
        }
        if matches!(self.hierarchy, Hierarchy::Operators | Hierarchy::CallTree) {
            let host: i128 = self
                .roots
                .iter()
                .map(|&r| &self.rows[r as usize])
                .filter(|r| !r.device)
                .map(|r| r.total_ns as i128)
                .sum();
            let device: i128 = self
                .roots
                .iter()
                .map(|&r| &self.rows[r as usize])
                .filter(|r| r.device)
                .map(|r| r.total_ns as i128)
                .sum();
            if host != self.host_total_ns as i128 {
                return Err(format!("host roots {host} ns, host total {} ns", self.host_total_ns));
            }
            let lane_device: i128 = match self.lanes.iter().position(|&l| l == Lane::Device) {
                Some(l) => self.roots.iter().map(|&r| self.lane_ns(r, l) as i128).sum(),
                None => device,
            };
            if lane_device != self.device_total_ns as i128 {
                return Err(format!(
                    "device time {lane_device} ns, device total {} ns",
                    self.device_total_ns
                ));
            }
        }
        Ok(())
    }
}

/// Result of [`OpTable::filter`].
#[derive(Debug, Clone)]
pub struct Filter {
    pub visible: Vec<bool>,
    /// A descendant matches (open the row).
    pub match_below: Vec<bool>,
    /// Rows whose own name matches.
    pub matches: usize,
}

/// Build the table of `trace` grouped by `hierarchy`, semaphore waits left out.
pub fn build(trace: &Trace, hierarchy: Hierarchy) -> OpTable {
    build_with(trace, hierarchy, Options::default())
}

/// Build the table of `trace` grouped by `hierarchy` with `options`, in one go.
pub fn build_with(trace: &Trace, hierarchy: Hierarchy, options: Options) -> OpTable {
    let mut b = OpTableBuild::new(trace, hierarchy, options);
    loop {
        if let Some(t) = b.step(trace, usize::MAX) {
            return t;
        }
    }
}

/// A table built in bounded steps, so that a page can build it over millions of slices without
/// one long task: [`OpTableBuild::step`] does about `budget` units of work (a slice visited, a
/// flow read, an event placed) and gives the table once done. The same table as [`build_with`]
/// (which is this with an unbounded budget).
pub struct OpTableBuild {
    hierarchy: Hierarchy,
    b: Builder,
    stage: Stage,
    track: usize,
    slice: usize,
    entered: bool,
    mode: TrackMode,
    /// The current track's nesting (parent slice, self time), when its mode needs it.
    parent: Vec<u32>,
    self_ns: Vec<i64>,
    ops: OpsState,
    call: CallState,
    fin: Option<Finishing>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Call tree: the launch flows (device slice → launching CPU slice).
    Flows(usize),
    /// A pass over the tracks (the call tree makes two: CPU threads, then the rest).
    Tracks(u8),
    Finish,
}

/// What a pass does with the current track's slices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TrackMode {
    Skip,
    OpsEngine(Option<usize>),
    OpsDma,
    CallCpu,
    CallGpu,
    CallOther,
    Names,
}

#[derive(Default)]
struct OpsState {
    wait_op: Option<StrId>,
    op_rows: Vec<u32>,
    engines: Vec<Engine>,
    dma_role: Option<TrackRole>,
    no_op: u32,
}

impl OpsState {
    /// The row of operator `id`, its ancestors' rows made first.
    fn op_row(&mut self, trace: &Trace, b: &mut Builder, id: OpId) -> u32 {
        if let Some(&r) = self.op_rows.get(id.idx()) {
            if r != NO_ROW {
                return r;
            }
        }
        let mut parent = NO_ROW;
        for p in trace.operators.path(id).into_iter().rev() {
            let Some(node) = trace.operators.node(p) else { continue };
            let cached = self.op_rows.get(p.idx()).copied().unwrap_or(NO_ROW);
            parent = if cached != NO_ROW {
                cached
            } else {
                let r = b.row(parent, Label::Str(node.name), RowKind::Operator(node.level), true);
                if let Some(slot) = self.op_rows.get_mut(p.idx()) {
                    *slot = r;
                }
                r
            };
        }
        parent
    }
}

#[derive(Default)]
struct CallState {
    launcher: FxHashMap<SliceRef, SliceRef>,
    /// Per CPU thread track, the row of each slice.
    row_of: Vec<Vec<u32>>,
    dev_lane: Option<usize>,
    unlaunched: u32,
    other: u32,
}

impl OpTableBuild {
    pub fn new(trace: &Trace, hierarchy: Hierarchy, options: Options) -> OpTableBuild {
        let mut b = Builder::default();
        let mut ops = OpsState { no_op: NO_ROW, ..Default::default() };
        let mut call = CallState { unlaunched: NO_ROW, other: NO_ROW, ..Default::default() };
        let mut stage = Stage::Tracks(0);
        match hierarchy {
            Hierarchy::Operators => {
                ops.wait_op = if options.include_waits {
                    None
                } else {
                    super::device_summary::semaphore_wait_opcode(trace)
                };
                let mut engines: Vec<Engine> =
                    trace.tracks.iter().filter_map(|t| t.role.engine()).map(Engine::stream).collect();
                engines.sort_by_key(|e| e.rank());
                engines.dedup();
                b.lanes = engines.iter().map(|&e| Lane::Engine(e)).collect();
                ops.engines = engines;
                ops.op_rows = vec![NO_ROW; trace.operators.len()];
                ops.dma_role = Some(
                    if trace.tracks.iter().any(|t| t.role == TrackRole::DmaQueue && !t.slices.is_empty()) {
                        TrackRole::DmaQueue
                    } else {
                        TrackRole::DmaTransfers
                    },
                );
            }
            Hierarchy::CallTree => {
                let has_device =
                    trace.tracks.iter().any(|t| t.role == TrackRole::GpuStream && !t.slices.is_empty());
                if has_device {
                    b.lanes = vec![Lane::Device];
                }
                call.dev_lane = has_device.then_some(0);
                call.row_of = vec![Vec::new(); trace.tracks.len()];
                stage = Stage::Flows(0);
            }
            Hierarchy::Name | Hierarchy::CategoryName => {}
        }
        OpTableBuild {
            hierarchy,
            b,
            stage,
            track: 0,
            slice: 0,
            entered: false,
            mode: TrackMode::Skip,
            parent: Vec::new(),
            self_ns: Vec::new(),
            ops,
            call,
            fin: None,
        }
    }

    /// Do about `budget` units of work; the table once everything is done (`trace` must be the
    /// one given to [`OpTableBuild::new`]).
    pub fn step(&mut self, trace: &Trace, budget: usize) -> Option<OpTable> {
        let mut left = budget.max(1);
        loop {
            match self.stage {
                Stage::Flows(k) => {
                    let end = trace.flows.len().min(k.saturating_add(left));
                    for f in &trace.flows[k..end] {
                        if is_launch(trace, f.from, f.to) {
                            self.call.launcher.entry(f.to).or_insert(f.from);
                        }
                    }
                    left -= end - k;
                    self.stage = if end == trace.flows.len() { Stage::Tracks(0) } else { Stage::Flows(end) };
                }
                Stage::Tracks(pass) => {
                    if self.tracks(trace, pass, &mut left) {
                        (self.track, self.slice, self.entered) = (0, 0, false);
                        self.stage = if self.hierarchy == Hierarchy::CallTree && pass == 0 {
                            Stage::Tracks(1)
                        } else {
                            let peak_flops = trace
                                .groups
                                .iter()
                                .filter_map(|g| g.device.as_ref()?.instance_type)
                                .find_map(|s| super::device_summary::tensor_engine_peak_flops(trace.str(s)));
                            let b = std::mem::take(&mut self.b);
                            self.fin = Some(b.start_finish(self.hierarchy, peak_flops));
                            Stage::Finish
                        };
                    }
                }
                Stage::Finish => {
                    let fin = self.fin.as_mut()?;
                    if fin.step(&mut left) {
                        let mut t = self.fin.take()?.into_table();
                        t.profile_time_s = trace
                            .groups
                            .iter()
                            .filter_map(|g| g.device.as_ref()?.execution_time_ps)
                            .max()
                            .map(|ps| ps as f64 * 1e-12);
                        return Some(t);
                    }
                }
            }
            if left == 0 {
                return None;
            }
        }
    }

    /// One pass over the tracks, from where the last step stopped; true once it is done.
    fn tracks(&mut self, trace: &Trace, pass: u8, left: &mut usize) -> bool {
        while let Some(t) = trace.tracks.get(self.track) {
            let s = &t.slices;
            if !self.entered {
                self.entered = true;
                self.enter(trace, pass, left);
            }
            let end = if self.mode == TrackMode::Skip {
                s.len()
            } else {
                s.len().min(self.slice.saturating_add(*left))
            };
            if self.mode != TrackMode::Skip {
                for i in self.slice..end {
                    self.visit(trace, i);
                }
                *left = left.saturating_sub(end - self.slice);
            }
            if end == s.len() {
                (self.track, self.slice, self.entered) = (self.track + 1, 0, false);
            } else {
                self.slice = end;
            }
            if *left == 0 {
                return trace.tracks.get(self.track).is_none();
            }
        }
        true
    }

    /// Set up the current track: its mode and, where needed, its nesting.
    fn enter(&mut self, trace: &Trace, pass: u8, left: &mut usize) {
        let ti = self.track;
        let t = &trace.tracks[ti];
        let s = &t.slices;
        let nested = t.layout == Layout::Nested;
        self.mode = match self.hierarchy {
            Hierarchy::Operators => {
                if let Some(e) = t.role.engine() {
                    TrackMode::OpsEngine(self.ops.engines.iter().position(|&x| x == e.stream()))
                } else if Some(t.role) == self.ops.dma_role {
                    // every slice read for its bytes, then counted as left out
                    self.b.skipped += s.len() as u64;
                    TrackMode::OpsDma
                } else {
                    self.b.skipped += s.len() as u64;
                    TrackMode::Skip
                }
            }
            Hierarchy::CallTree => match (pass, t.role) {
                (0, TrackRole::CpuThread) => TrackMode::CallCpu,
                (0, _) | (_, TrackRole::CpuThread) => TrackMode::Skip,
                (_, TrackRole::GpuStream) => TrackMode::CallGpu,
                _ if s.is_empty() => TrackMode::Skip,
                _ => {
                    if self.call.other == NO_ROW {
                        self.call.other =
                            self.b.row(NO_ROW, Label::Group(GroupLabel::OtherTracks), RowKind::Group, false);
                    }
                    TrackMode::CallOther
                }
            },
            Hierarchy::Name | Hierarchy::CategoryName => TrackMode::Names,
        };
        if matches!(self.mode, TrackMode::CallCpu | TrackMode::CallOther | TrackMode::Names) {
            (self.parent, self.self_ns) = nesting(s, nested);
            *left = left.saturating_sub(s.len()).max(1);
        }
        if self.mode == TrackMode::CallCpu {
            self.call.row_of[ti] = Vec::with_capacity(s.len());
        }
    }

    fn visit(&mut self, trace: &Trace, i: usize) {
        let ti = self.track;
        let s = &trace.tracks[ti].slices;
        let me = SliceRef { track: TrackId(ti as u32), index: i as u32 };
        let b = &mut self.b;
        match self.mode {
            TrackMode::Skip => {}
            TrackMode::OpsEngine(lane) => {
                let d = s.domain_of(i);
                if self.ops.wait_op.is_some_and(|w| w == d.opcode) {
                    b.waits.count += 1;
                    b.waits.ns = b.waits.ns.saturating_add(s.dur_ns.at(i).max(0));
                    return;
                }
                let parent = match d.operator.get().filter(|o| o.idx() < trace.operators.len()) {
                    Some(o) => self.ops.op_row(trace, b, o),
                    None => {
                        if self.ops.no_op == NO_ROW {
                            self.ops.no_op =
                                b.row(NO_ROW, Label::Group(GroupLabel::NoOperator), RowKind::Group, true);
                        }
                        self.ops.no_op
                    }
                };
                let label = if d.opcode != StrId::EMPTY {
                    Label::Str(d.opcode)
                } else if d.instruction != u32::MAX {
                    Label::Slot(d.instruction)
                } else {
                    Label::Str(s.name[i])
                };
                let r = b.row(parent, label, RowKind::Instruction, true);
                let dur = s.dur_ns.at(i).max(0);
                b.event(r, me, dur, dur, lane, d.flops);
            }
            TrackMode::OpsDma => {
                let d = s.domain_of(i);
                if d.bytes == u64::MAX {
                    return;
                }
                match d.operator.get().filter(|o| o.idx() < trace.operators.len()) {
                    Some(o) => {
                        let r = self.ops.op_row(trace, b, o) as usize;
                        b.rows[r].dma_bytes = b.rows[r].dma_bytes.saturating_add(d.bytes);
                        b.dma.attributed_bytes = b.dma.attributed_bytes.saturating_add(d.bytes);
                    }
                    None => {
                        b.dma.unattributed_bytes = b.dma.unattributed_bytes.saturating_add(d.bytes);
                        b.dma.unattributed_packets += 1;
                    }
                }
            }
            TrackMode::CallCpu => {
                // depth-major order: a parent slice comes before its children
                let rows = &mut self.call.row_of[ti];
                let p = self.parent[i];
                let prow =
                    if p == u32::MAX { NO_ROW } else { rows.get(p as usize).copied().unwrap_or(NO_ROW) };
                let r = b.row(prow, Label::Str(s.name[i]), RowKind::HostOp, false);
                rows.push(r);
                b.event(r, me, s.dur_ns.at(i).max(0), self.self_ns[i], None, u64::MAX);
            }
            TrackMode::CallGpu => {
                let from = self
                    .call
                    .launcher
                    .get(&me)
                    .and_then(|c| self.call.row_of.get(c.track.idx())?.get(c.index as usize).copied());
                let parent = match from {
                    Some(r) => r,
                    None => {
                        if self.call.unlaunched == NO_ROW {
                            self.call.unlaunched =
                                b.row(NO_ROW, Label::Group(GroupLabel::NotLaunched), RowKind::Group, true);
                        }
                        self.call.unlaunched
                    }
                };
                let r = b.row(parent, Label::Str(s.name[i]), RowKind::DeviceOp, true);
                let dur = s.dur_ns.at(i).max(0);
                b.event(r, me, dur, dur, self.call.dev_lane, u64::MAX);
            }
            TrackMode::CallOther => {
                let r = b.row(self.call.other, Label::Str(s.name[i]), RowKind::Name, false);
                b.event(r, me, s.dur_ns.at(i).max(0), self.self_ns[i], None, u64::MAX);
            }
            TrackMode::Names => {
                let parent = if self.hierarchy == Hierarchy::CategoryName {
                    let c = s.category[i];
                    let label =
                        if c == StrId::EMPTY { Label::Group(GroupLabel::NoCategory) } else { Label::Str(c) };
                    b.row(NO_ROW, label, RowKind::Category, false)
                } else {
                    NO_ROW
                };
                let r = b.row(parent, Label::Str(s.name[i]), RowKind::Name, false);
                let flops = s.domain.as_ref().map_or(u64::MAX, |d| d.flops(i));
                b.event(r, me, s.dur_ns.at(i).max(0), self.self_ns[i], None, flops);
            }
        }
    }
}

#[derive(Default)]
struct Builder {
    rows: Vec<Row>,
    map: FxHashMap<(u32, Label, RowKind), u32>,
    ev_ref: Vec<SliceRef>,
    ev_row: Vec<u32>,
    lanes: Vec<Lane>,
    /// Own lane time, `rows × lanes`.
    lane_ns: Vec<i64>,
    has_flops: bool,
    dma: DmaAttribution,
    skipped: u64,
    waits: WaitsLeftOut,
}

impl Builder {
    fn row(&mut self, parent: u32, label: Label, kind: RowKind, device: bool) -> u32 {
        if let Some(&r) = self.map.get(&(parent, label, kind)) {
            return r;
        }
        let r = self.rows.len() as u32;
        let depth = self.rows.get(parent as usize).map_or(0, |p| p.depth.saturating_add(1));
        self.rows.push(Row {
            label,
            kind,
            parent,
            depth,
            device,
            count: 0,
            total_ns: 0,
            self_ns: 0,
            flops: 0,
            dma_bytes: 0,
            children: (0, 0),
            events: (0, 0, 0),
        });
        self.lane_ns.extend(std::iter::repeat_n(0, self.lanes.len()));
        self.map.insert((parent, label, kind), r);
        r
    }

    fn event(&mut self, row: u32, e: SliceRef, dur: i64, self_dur: i64, lane: Option<usize>, flops: u64) {
        let r = &mut self.rows[row as usize];
        r.count += 1;
        r.total_ns = r.total_ns.saturating_add(dur);
        r.self_ns = r.self_ns.saturating_add(self_dur);
        if flops != u64::MAX {
            r.flops = r.flops.saturating_add(flops);
            self.has_flops = true;
        }
        if let Some(l) = lane {
            let k = row as usize * self.lanes.len() + l;
            self.lane_ns[k] = self.lane_ns[k].saturating_add(dur);
        }
        self.ev_ref.push(e);
        self.ev_row.push(row);
    }

    /// The rows' tree and sums (work in rows); the events are placed by [`Finishing::step`].
    fn start_finish(mut self, hierarchy: Hierarchy, peak_flops: Option<f64>) -> Finishing {
        // the row lookup is no longer needed
        self.map = FxHashMap::default();
        let rows = &mut self.rows;
        let lane_ns = &mut self.lane_ns;
        let n = rows.len();
        let nl = self.lanes.len();
        // children lists, in creation order (a child is always created after its parent)
        let mut child_n = vec![0u32; n + 1];
        let mut roots = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            if row.parent == NO_ROW {
                roots.push(r as u32);
            } else {
                child_n[row.parent as usize] += 1;
            }
        }
        let mut start = 0u32;
        for (r, row) in rows.iter_mut().enumerate() {
            row.children = (start, 0);
            start += child_n[r];
        }
        let mut child_idx = vec![0u32; start as usize];
        for r in 0..n {
            let p = rows[r].parent;
            if p != NO_ROW {
                let c = &mut rows[p as usize].children;
                child_idx[(c.0 + c.1) as usize] = r as u32;
                c.1 += 1;
            }
        }
        // bottom-up sums: children have larger indices than their parents
        for r in (0..n).rev() {
            let p = rows[r].parent;
            if p == NO_ROW {
                continue;
            }
            let (child, parent) = pair_mut(rows, r, p as usize);
            parent.flops = parent.flops.saturating_add(child.flops);
            parent.dma_bytes = parent.dma_bytes.saturating_add(child.dma_bytes);
            if parent.kind.is_aggregate() {
                parent.count += child.count;
                parent.total_ns = parent.total_ns.saturating_add(child.total_ns);
                if !child.kind.is_aggregate() {
                    parent.self_ns = parent.self_ns.saturating_add(child.self_ns);
                }
            }
            for l in 0..nl {
                let v = lane_ns[r * nl + l];
                let k = p as usize * nl + l;
                lane_ns[k] = lane_ns[k].saturating_add(v);
            }
        }
        Finishing {
            hierarchy,
            peak_flops,
            own_n: vec![0u32; n],
            b: self,
            roots,
            child_idx,
            events: Vec::new(),
            cursor: Vec::new(),
            placing: false,
            i: 0,
        }
    }
}

/// The last stage of a build: the events put in depth-first order of their rows, in steps.
struct Finishing {
    hierarchy: Hierarchy,
    peak_flops: Option<f64>,
    /// The rows (tree and sums done) and the events in the order they were added.
    b: Builder,
    roots: Vec<u32>,
    child_idx: Vec<u32>,
    /// Own events per row (counted first).
    own_n: Vec<u32>,
    events: Vec<SliceRef>,
    /// Next free place of each row's own events (while placing).
    cursor: Vec<u32>,
    placing: bool,
    i: usize,
}

impl Finishing {
    /// About `left` events counted or placed; true once every event has its place.
    fn step(&mut self, left: &mut usize) -> bool {
        let m = self.b.ev_row.len();
        if !self.placing {
            let end = m.min(self.i.saturating_add(*left));
            for &r in &self.b.ev_row[self.i..end] {
                self.own_n[r as usize] += 1;
            }
            *left -= end - self.i;
            self.i = end;
            if end < m {
                return false;
            }
            self.layout();
        }
        let end = m.min(self.i.saturating_add(*left));
        for (e, &r) in self.b.ev_ref[self.i..end].iter().zip(&self.b.ev_row[self.i..end]) {
            let c = &mut self.cursor[r as usize];
            self.events[*c as usize] = *e;
            *c += 1;
        }
        *left -= end - self.i;
        self.i = end;
        end == m
    }

    /// Each row's event ranges, own events first, then each child's subtree (work in rows).
    fn layout(&mut self) {
        let rows = &mut self.b.rows;
        let n = rows.len();
        let mut pos = 0u32;
        let mut stack: Vec<u32> = self.roots.iter().rev().copied().collect();
        while let Some(r) = stack.pop() {
            let own = self.own_n[r as usize];
            let row = &mut rows[r as usize];
            row.events = (pos, pos + own, pos + own);
            pos += own;
            let (s, len) = row.children;
            stack.extend(self.child_idx[s as usize..(s + len) as usize].iter().rev());
        }
        for r in (0..n).rev() {
            let p = rows[r].parent;
            if p != NO_ROW {
                let end = rows[r].events.2;
                let pe = &mut rows[p as usize].events.2;
                *pe = (*pe).max(end);
            }
        }
        self.cursor = rows.iter().map(|r| r.events.0).collect();
        self.events = vec![SliceRef { track: TrackId(0), index: 0 }; self.b.ev_ref.len()];
        self.placing = true;
        self.i = 0;
    }

    fn into_table(self) -> OpTable {
        let b = self.b;
        let mut host_total_ns = 0i64;
        let mut device_total_ns = 0i64;
        for row in b.rows.iter().filter(|r| !r.kind.is_aggregate()) {
            if row.device {
                device_total_ns = device_total_ns.saturating_add(row.self_ns);
            } else {
                host_total_ns = host_total_ns.saturating_add(row.self_ns);
            }
        }
        OpTable {
            hierarchy: self.hierarchy,
            rows: b.rows,
            roots: self.roots,
            child_idx: self.child_idx,
            event_count: self.events.len() as u64,
            events: self.events,
            lanes: b.lanes,
            lane_ns: b.lane_ns,
            host_total_ns,
            device_total_ns,
            peak_flops: self.peak_flops,
            profile_time_s: None,
            waits: b.waits,
            has_flops: b.has_flops,
            dma: b.dma,
            skipped_slices: b.skipped,
        }
    }
}

/// `(&mut v[child], &mut v[parent])` for `parent < child`.
fn pair_mut(v: &mut [Row], child: usize, parent: usize) -> (&mut Row, &mut Row) {
    let (lo, hi) = v.split_at_mut(child);
    (&mut hi[0], &mut lo[parent])
}

/// Per slice of a track: its parent slice index (`u32::MAX` = none) and its self time (duration
/// minus the durations of the slices directly nested in it). Nesting only where depth means
/// nesting ([`Layout::Nested`]).
fn nesting(s: &SliceColumns, nested: bool) -> (Vec<u32>, Vec<i64>) {
    let n = s.len();
    let mut parent = vec![u32::MAX; n];
    let mut self_ns: Vec<i64> = s.dur_ns.to_vec();
    if !nested {
        return (parent, self_ns);
    }
    for d in 1..s.depth_count() {
        let outer = s.depth_range(d - 1);
        let mut k = outer.start;
        for i in s.depth_range(d) {
            let t = s.start_ns[i];
            // the last outer slice starting at or before t (both depths are sorted by start)
            while k + 1 < outer.end && s.start_ns[k + 1] <= t {
                k += 1;
            }
            if k < outer.end && s.start_ns[k] <= t && t <= s.end_ns(k) {
                parent[i] = k as u32;
                self_ns[k] = self_ns[k].saturating_sub(s.dur_ns.at(i));
            }
        }
    }
    for v in &mut self_ns {
        *v = (*v).max(0);
    }
    (parent, self_ns)
}

#[cfg(test)]
mod tests;
